#pragma once
// Export of charts and views: PNG, PDF and SVG chosen by the file's extension; tables as text.

#include <QString>
#include <Qt>

class QAbstractItemModel;
class QWidget;

namespace mms {

// Anything the "Export chart…" action can write.
class Exportable {
public:
    virtual ~Exportable() = default;
    // Writes PATH (.png, .pdf or .svg); false with a message naming the file on failure.
    virtual bool exportTo(const QString& path, QString* error) = 0;
};

// A plain widget rendered to PNG (grab), PDF (QPdfWriter, vector where the widget paints vectors) or SVG.
bool exportWidget(QWidget* w, const QString& path, QString* error);
// "png", "pdf", "svg", or empty for an unsupported extension.
QString exportKind(const QString& path);
// Checks that the file's folder is writable, with a message naming it.
bool checkWritable(const QString& path, QString* error);
// exportKind() of a file that can be written: empty, with a message naming the file, when its extension is none
// of those or its folder is not writable.
QString exportTarget(const QString& path, QString* error);

// Header role a model answers when its view's header abbreviates: the column's full name on one line, for exports.
inline constexpr int ExportHeaderRole = Qt::UserRole + 1;

// A model's visible table as CSV (header row first) or Markdown.
QString modelToCsv(const QAbstractItemModel& m);
QString modelToMarkdown(const QAbstractItemModel& m);

} // namespace mms
