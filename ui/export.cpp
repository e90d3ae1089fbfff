#include "export.h"

#include <QAbstractItemModel>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>

namespace mms {

QString exportKind(const QString& path)
{
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext == QLatin1String("png") || ext == QLatin1String("pdf") || ext == QLatin1String("svg"))
        return ext;
    return {};
}

bool checkWritable(const QString& path, QString* error)
{
    QFileInfo dir(QFileInfo(path).absolutePath());
    if (!dir.exists() || !dir.isDir() || !dir.isWritable()) {
        if (error)
            *error = QObject::tr("cannot write %1: the folder %2 is not writable").arg(path, dir.filePath());
        return false;
    }
    return true;
}

QString exportTarget(const QString& path, QString* error)
{
    const QString kind = exportKind(path);
    if (kind.isEmpty()) {
        if (error)
            *error = QObject::tr("%1: expected a .png, .pdf or .svg file name").arg(path);
        return {};
    }
    return checkWritable(path, error) ? kind : QString();
}

bool exportWidget(QWidget* w, const QString& path, QString* error)
{
    const QString kind = exportTarget(path, error);
    if (kind.isEmpty())
        return false;
    const QSize size = w->size().isEmpty() ? w->sizeHint() : w->size();
    if (w->size().isEmpty())
        w->resize(size);
    bool ok = true;
    if (kind == QLatin1String("png")) {
        QImage img(size * 2, QImage::Format_ARGB32_Premultiplied);
        img.setDevicePixelRatio(2.0);
        img.fill(Qt::white);
        w->render(&img);
        ok = img.save(path, "PNG");
    } else if (kind == QLatin1String("svg")) {
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setSize(size);
        gen.setViewBox(QRect(QPoint(0, 0), size));
        gen.setTitle(w->windowTitle());
        QPainter p;
        ok = p.begin(&gen);
        if (ok) {
            w->render(&p);
            ok = p.end();
        }
    } else {
        QPdfWriter pdf(path);
        pdf.setPageSize(QPageSize(QSizeF(size) * 0.75, QPageSize::Point));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        pdf.setResolution(96);
        QPainter p;
        ok = p.begin(&pdf);
        if (ok) {
            w->render(&p);
            ok = p.end();
        }
    }
    if (!ok && error)
        *error = QObject::tr("could not write %1").arg(path);
    return ok;
}

namespace {
    QString cell(const QAbstractItemModel& m, int r, int c)
    {
        return m.data(m.index(r, c), Qt::DisplayRole).toString();
    }
    QString header(const QAbstractItemModel& m, int c)
    {
        const QVariant full = m.headerData(c, Qt::Horizontal, ExportHeaderRole);
        if (full.isValid())
            return full.toString();
        return m.headerData(c, Qt::Horizontal, Qt::DisplayRole).toString().replace(QLatin1Char('\n'), QLatin1Char(' '));
    }
    QString csvField(QString s)
    {
        if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')))
            return QLatin1Char('"') + s.replace(QLatin1String("\""), QLatin1String("\"\"")) + QLatin1Char('"');
        return s;
    }
} // namespace

QString modelToCsv(const QAbstractItemModel& m)
{
    QString out;
    QStringList h;
    for (int c = 0; c < m.columnCount(); ++c)
        h << csvField(header(m, c));
    out += h.join(QLatin1Char(',')) + QLatin1Char('\n');
    for (int r = 0; r < m.rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < m.columnCount(); ++c)
            row << csvField(cell(m, r, c));
        out += row.join(QLatin1Char(',')) + QLatin1Char('\n');
    }
    return out;
}

QString modelToMarkdown(const QAbstractItemModel& m)
{
    QString out = QStringLiteral("|");
    QString rule = QStringLiteral("|");
    for (int c = 0; c < m.columnCount(); ++c) {
        out += QLatin1Char(' ') + header(m, c) + QStringLiteral(" |");
        rule += QStringLiteral("---|");
    }
    out += QLatin1Char('\n') + rule + QLatin1Char('\n');
    for (int r = 0; r < m.rowCount(); ++r) {
        out += QLatin1Char('|');
        for (int c = 0; c < m.columnCount(); ++c)
            out += QLatin1Char(' ') + cell(m, r, c).replace(QLatin1Char('|'), QLatin1String("\\|")) + QStringLiteral(" |");
        out += QLatin1Char('\n');
    }
    return out;
}

} // namespace mms
