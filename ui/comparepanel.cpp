#include "comparepanel.h"

#include "lockcaptureview.h"
#include "pagemapview.h"
#include "run/ratio.h"
#include "run/table.h"

#include <QComboBox>
#include <QGridLayout>
#include <QLabel>

#include <cmath>

namespace mms {

ComparePanel::ComparePanel(QWidget* parent)
    : QWidget(parent)
    , m_pickA(new QComboBox(this))
    , m_pickB(new QComboBox(this))
    , m_a(new PageMapView(this))
    , m_b(new PageMapView(this))
    , m_summary(new QLabel(this))
{
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(4, 4, 4, 4);
    grid->addWidget(new QLabel(tr("A:"), this), 0, 0);
    grid->addWidget(m_pickA, 0, 1);
    grid->addWidget(new QLabel(tr("B:"), this), 0, 2);
    grid->addWidget(m_pickB, 0, 3);
    grid->addWidget(m_a, 1, 0, 1, 2);
    grid->addWidget(m_b, 1, 2, 1, 2);
    grid->addWidget(m_summary, 2, 0, 1, 4);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);
    grid->setRowStretch(1, 1);
    m_summary->setWordWrap(true);
    m_a->setLegendVisible(false); // the main page map carries the legend
    m_b->setLegendVisible(false);
    m_summary->setTextFormat(Qt::RichText);
    connect(m_pickA, &QComboBox::currentIndexChanged, this, [this] { update_(); });
    connect(m_pickB, &QComboBox::currentIndexChanged, this, [this] { update_(); });
}

QString ComparePanel::runLabel(const RunResult& r, bool withRep)
{
    QString s = QString::fromStdString(r.variant);
    for (auto& [axis, v] : r.point.items())
        s += QStringLiteral(" · %1=%2").arg(QString::fromStdString(axis), QString::fromStdString(v.dump()));
    if (withRep)
        s += QStringLiteral(" · rep %1").arg(r.rep);
    return s;
}

void ComparePanel::setResults(std::shared_ptr<const Scenario> sc, std::shared_ptr<const ResultSet> rs)
{
    m_sc = std::move(sc);
    m_rs = std::move(rs);
    fillPickers();
    // Default pair: the first and the last run (baseline against the patched variant).
    setPair(0, m_pickB->count() - (m_capture ? 2 : 1));
}

void ComparePanel::setCapture(std::shared_ptr<const LockCapture> capture)
{
    m_capture = std::move(capture);
    const int a = std::max(0, m_pickA->currentIndex());
    fillPickers();
    setPair(std::min(a, m_pickA->count() - 2), m_pickB->count() - 1);
}

// The runs, then the capture (item data -1).
void ComparePanel::fillPickers()
{
    for (QComboBox* c : { m_pickA, m_pickB }) {
        c->blockSignals(true);
        c->clear();
        if (m_rs)
            for (std::size_t i = 0; i < m_rs->results.size(); ++i)
                c->addItem(runLabel(m_rs->results[i], m_sc && m_sc->reps() > 1), int(i));
        if (m_capture)
            c->addItem(tr("real kernel: %1").arg(m_capture->label), -1);
        c->blockSignals(false);
    }
}

const RunResult* ComparePanel::runOf(const QComboBox* pick) const
{
    if (pick->currentIndex() < 0)
        return nullptr;
    const int i = pick->currentData().toInt();
    if (i < 0)
        return m_capture ? &m_capture->run : nullptr;
    return m_rs && i < int(m_rs->results.size()) ? &m_rs->results[std::size_t(i)] : nullptr;
}

QString ComparePanel::summaryText() const { return m_summary->text(); }

void ComparePanel::setPair(int a, int b)
{
    m_pickA->blockSignals(true);
    m_pickA->setCurrentIndex(std::max(0, a));
    m_pickA->blockSignals(false);
    m_pickB->blockSignals(true);
    m_pickB->setCurrentIndex(std::max(0, b));
    m_pickB->blockSignals(false);
    update_();
}

void ComparePanel::setTime(Time t)
{
    m_time = t;
    m_a->setTime(t);
    m_b->setTime(t);
}

void ComparePanel::update_()
{
    const RunResult* pa = runOf(m_pickA);
    const RunResult* pb = runOf(m_pickB);
    if (!pa || !pb) {
        m_a->setRecording(nullptr, {});
        m_b->setRecording(nullptr, {});
        m_summary->clear();
        return;
    }
    const RunResult& a = *pa;
    const RunResult& b = *pb;
    m_a->setRecording(a.recording, QStringLiteral("A: ") + m_pickA->currentText());
    m_b->setRecording(b.recording, QStringLiteral("B: ") + m_pickB->currentText());
    const QString captured = tr("a lock capture from a real kernel has no page map: its locks are below");
    m_a->setEmptyText(m_capture && pa == &m_capture->run ? captured : QString());
    m_b->setEmptyText(m_capture && pb == &m_capture->run ? captured : QString());
    setTime(m_time);
    if (m_capture && (pa == &m_capture->run || pb == &m_capture->run)) {
        m_summary->setText(locksSide(a, b));
        return;
    }
    // Per metric: A → B, the ratio B ÷ A beside the post's same ratio and how far apart they are. The absolute
    // figures say their scale when it is not 1 and the metric grows with it.
    QStringList parts;
    if (m_sc)
        for (const std::string& m : m_sc->metrics()) {
            auto ia = a.metrics.find(m), ib = b.metrics.find(m);
            if (ia == a.metrics.end() || ib == b.metrics.end())
                continue;
            const double va = ia->second, vb = ib->second;
            QString ratio = QStringLiteral("—");
            if (va != 0) {
                ratio = QStringLiteral("×") + QString::fromStdString(formatRatio(vb / va));
                const auto pa = publishedValue(*m_sc, a.variant, a.point, m), pb = publishedValue(*m_sc, b.variant, b.point, m);
                if (pa && pb && *pa != 0 && *pb != 0) {
                    const double post = *pb / *pa;
                    ratio += tr(", post ×%1 (%2)").arg(QString::fromStdString(formatRatio(post)), QString::fromStdString(formatPercent(100.0 * ((vb / va) / post - 1))));
                }
            }
            const bool better = va != 0 && (lowerIsBetter(m) ? vb < va : vb > va);
            const QString scaled = m_rs->scale != 1.0 && !scaleFree(m) ? tr(" at scale %1").arg(m_rs->scale) : QString();
            parts << QStringLiteral("<b>%1</b> %2 → %3%4 <span style='color:%5'>%6</span>")
                         .arg(QString::fromStdString(m), QString::fromStdString(formatNumber(va, m)), QString::fromStdString(formatNumber(vb, m)), scaled,
                              vb == va ? QStringLiteral("gray") : better ? QStringLiteral("#1a7f2a") : QStringLiteral("#b03010"), ratio.toHtmlEscaped());
        }
    m_summary->setText(parts.join(QStringLiteral(" &nbsp;·&nbsp; ")));
}

// Each side's five locks with the most wait time: contentions, total and average wait, acquisitions where measured.
QString ComparePanel::locksSide(const RunResult& a, const RunResult& b) const
{
    auto side = [](const QString& title, const RunResult& r) {
        std::vector<LockSummary> top = r.locks;
        std::stable_sort(top.begin(), top.end(),
            [](const LockSummary& x, const LockSummary& y) { return x.waitTotal > y.waitTotal; });
        QString html = QStringLiteral(
            "<td valign=top><b>%1</b><table cellspacing=0 cellpadding=1>"
            "<tr style='white-space:nowrap'><th align=left>lock</th><th align=right>&nbsp;contentions</th><th align=right>&nbsp;wait µs</th>"
            "<th align=right>&nbsp;avg µs</th><th align=right>&nbsp;acquisitions</th></tr>")
                           .arg(title.toHtmlEscaped());
        for (std::size_t i = 0; i < top.size() && i < 5; ++i) {
            const LockSummary& l = top[i];
            const double wait = toUs(l.waitTotal);
            html += QStringLiteral("<tr><td style='white-space:nowrap'>%1</td><td align=right>%2</td><td align=right>%3</td><td "
                                   "align=right>%4</td><td align=right>%5</td></tr>")
                        .arg(QString::fromStdString(l.name).toHtmlEscaped())
                        .arg(qulonglong(l.contentions))
                        .arg(wait, 0, 'f', 1)
                        .arg(l.contentions ? wait / double(l.contentions) : 0.0, 0, 'f', 2)
                        .arg(l.acquisitions ? QString::number(qulonglong(l.acquisitions)) : QStringLiteral("—"));
        }
        if (top.empty())
            html += QStringLiteral("<tr><td colspan=5>no locks</td></tr>");
        return html + QStringLiteral("</table></td>");
    };
    return QStringLiteral("<table cellspacing=6><tr>") + side(QStringLiteral("A: ") + m_pickA->currentText(), a)
        + side(QStringLiteral("B: ") + m_pickB->currentText(), b) + QStringLiteral("</tr></table>");
}

} // namespace mms
