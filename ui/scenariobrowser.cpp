#include "scenariobrowser.h"

#include "sourcepostview.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

namespace mms {

ScenarioBrowser::ScenarioBrowser(QWidget* parent)
    : QWidget(parent)
    , m_list(new QListWidget(this))
    , m_post(new QPushButton(tr("Source post"), this))
    , m_text(new QTextBrowser(this))
{
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    for (const ScenarioInfo& s : builtinScenarios()) {
        auto* item = new QListWidgetItem(QStringLiteral("%1 — %2").arg(QString::fromStdString(s.id), QString::fromStdString(s.title)), m_list);
        item->setData(Qt::UserRole, QString::fromStdString(s.id));
        item->setToolTip(QStringLiteral("seed %1: %2").arg(QString::fromStdString(s.seed), QString::fromStdString(s.measured)));
    }
    m_list->setMaximumHeight(110);
    auto* open = new QPushButton(tr("Open file…"), this);
    open->setToolTip(tr("Open a scenario file of your own (JSON)"));
    m_post->setToolTip(tr("Read the linux-mm post this scenario reproduces, at its table"));
    m_post->setObjectName(QStringLiteral("source-post-button"));
    m_post->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_post);
    buttons->addWidget(open);
    lay->addWidget(m_list);
    lay->addLayout(buttons);
    lay->addWidget(m_text, 1);
    m_text->setOpenExternalLinks(false);
    m_text->setOpenLinks(false);
    connect(m_post, &QPushButton::clicked, this, &ScenarioBrowser::openSourcePost);
    connect(m_text, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        if (url.scheme() == QLatin1String("post"))
            openSourcePost();
    });
    connect(m_list, &QListWidget::itemActivated, this,
            [this](QListWidgetItem* item) { Q_EMIT scenarioRequested(item->data(Qt::UserRole).toString()); });
    connect(m_list, &QListWidget::itemClicked, this,
            [this](QListWidgetItem* item) { Q_EMIT scenarioRequested(item->data(Qt::UserRole).toString()); });
    connect(open, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open scenario"), QString(), tr("Scenario (*.json);;All files (*)"));
        if (!path.isEmpty())
            Q_EMIT scenarioRequested(path);
    });
}

QString ScenarioBrowser::describe(const Scenario& sc)
{
    const OJson& d = sc.json();
    auto s = [](const OJson& v) { return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()).toHtmlEscaped(); };
    QString html = QStringLiteral("<h3>%1</h3>").arg(s(d["title"]));
    html += QStringLiteral("<p><b>id</b> %1 &nbsp; <b>seed</b> %2 &nbsp; <b>reps</b> %3</p>").arg(s(d["id"]), s(d["seed"]), s(d["reps"]));
    if (d.contains("source")) {
        const OJson& src = d["source"];
        const QString seed = src.contains("seed") ? s(src["seed"]) : QString();
        const bool builtIn = !sourcePost(sourceSeed(sc)).empty();
        html += QStringLiteral("<p><b>Source post:</b> %1<br><b>Measured:</b> %2</p>")
                    .arg(builtIn ? QStringLiteral("<a href='post:%1'>%1</a>").arg(seed) : seed,
                         src.contains("measured") ? s(src["measured"]) : QString());
    }
    if (d.contains("description"))
        html += QStringLiteral("<p>%1</p>").arg(s(d["description"]));
    html += QStringLiteral("<p><b>Variants</b></p><ul>");
    for (auto& [name, toggles] : d["variants"].items()) {
        QStringList t;
        for (auto& [k, v] : toggles.items())
            t << QStringLiteral("%1=%2").arg(QString::fromStdString(k), s(v));
        html += QStringLiteral("<li><b>%1</b>: <tt>%2</tt></li>").arg(QString::fromStdString(name).toHtmlEscaped(), t.join(QStringLiteral(", ")));
    }
    html += QStringLiteral("</ul>");
    if (!d["sweep"].empty())
        html += QStringLiteral("<p><b>Sweep</b> <tt>%1</tt></p>").arg(s(d["sweep"]));
    html += QStringLiteral("<p><b>Metrics</b> <tt>%1</tt></p>").arg(s(d["metrics"]));
    html += QStringLiteral("<p style='color:gray'>origin: %1</p>").arg(QString::fromStdString(sc.origin()).toHtmlEscaped());
    return html;
}

SourcePostView* ScenarioBrowser::openSourcePost()
{
    if (!m_scenario)
        return nullptr;
    if (!m_postView)
        m_postView = new SourcePostView(this);
    if (!m_postView->showScenario(*m_scenario))
        return nullptr;
    m_postView->show();
    m_postView->raise();
    m_postView->activateWindow();
    return m_postView;
}

void ScenarioBrowser::showScenario(const Scenario& sc)
{
    m_scenario = std::make_unique<Scenario>(sc);
    const std::string seed = sourceSeed(sc);
    const bool builtIn = !sourcePost(seed).empty();
    m_post->setEnabled(builtIn);
    m_post->setToolTip(builtIn ? tr("Read %1, the linux-mm post this scenario reproduces, at its table").arg(QString::fromStdString(seed))
                               : tr("No built-in post named \"%1\"").arg(QString::fromStdString(seed)));
    if (m_postView && m_postView->isVisible() && !m_postView->showScenario(sc))
        m_postView->hide();
    m_text->setHtml(describe(sc));
    for (int i = 0; i < m_list->count(); ++i)
        if (m_list->item(i)->data(Qt::UserRole).toString() == QString::fromStdString(sc.id())) {
            m_list->blockSignals(true);
            m_list->setCurrentRow(i);
            m_list->blockSignals(false);
        }
}

} // namespace mms
