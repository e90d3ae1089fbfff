#include "lockcaptureview.h"

#include "resultsmodel.h"
#include "run/json.h"

#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace mms {

std::optional<LockCapture> readLockCapture(const QString& path, QString& error)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) {
        error = QObject::tr("%1: cannot read (%2)").arg(path, f.errorString());
        return std::nullopt;
    }
    try {
        const OJson doc = OJson::parse(f.readAll().toStdString());
        ResultSet rs = resultsFromJson(doc, path.toStdString());
        if (rs.results.empty()) {
            error = QObject::tr("%1: results: expected at least one run (a file written by mmscope-cli import)")
                        .arg(path);
            return std::nullopt;
        }
        LockCapture c;
        c.run = std::move(rs.results.front());
        c.label = QString::fromStdString(c.run.variant);
        c.file = path;
        c.source = doc.contains("capture") && doc["capture"].is_object()
            ? QString::fromStdString(doc["capture"].value("source", "a real kernel"))
            : QStringLiteral("mmscope %1").arg(QString::fromStdString(rs.scenario));
        return c;
    } catch (const nlohmann::json::exception& e) {
        error = QObject::tr("%1: not valid JSON: %2").arg(path, QString::fromUtf8(e.what()));
    } catch (const ScenarioError& e) {
        error = QString::fromUtf8(e.what());
    }
    return std::nullopt;
}

LockCaptureView::LockCaptureView(QWidget* parent)
    : QWidget(parent)
    , m_title(new QLabel(this))
    , m_model(new LockStatModel(this))
    , m_table(new QTableView(this))
{
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(0, 0, 0, 0);
    box->setSpacing(2);
    m_title->setTextFormat(Qt::RichText);
    m_title->setWordWrap(true);
    m_table->setModel(m_model);
    m_table->setObjectName(QStringLiteral("captureTable"));
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    box->addWidget(m_title);
    box->addWidget(m_table, 1);
}

void LockCaptureView::setCapture(const LockCapture& c)
{
    m_title->setText(tr("<b>Real kernel:</b> %1 <span style='color:gray'>(%2, %3 locks)</span>")
                         .arg(c.label.toHtmlEscaped(), c.source.toHtmlEscaped())
                         .arg(c.run.locks.size()));
    m_model->setLocks(c.run.locks);
}

} // namespace mms
