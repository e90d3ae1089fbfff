#include "cputimelineview.h"

#include "legendflow.h"
#include "recordingview.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <cmath>
#include <cstring>
#include <map>

namespace mms {

namespace {
    constexpr int kMainRows = 3;
    constexpr int kRowsPerCpu = kMainRows + 1;
    const QColor kIdle(0xee, 0xee, 0xea);
    const QColor kWait(0xd0, 0x1c, 0x1c);
    const QColor kHold(0xf0, 0xa0, 0x00);
    const QColor kIo(0x9c, 0xc8, 0xf0);
    const QColor kSleep(0xf0, 0xb4, 0xb4); // a pale red: a lock wait, but not the CPU's time

    int legendEntryWidth(const QFontMetrics& fm, const QString& label) { return 16 + fm.horizontalAdvance(label) + 10; }
} // namespace

CpuTimelineView::CpuTimelineView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
}

QColor CpuTimelineView::functionColour(const std::string& name)
{
    if (name == "user")
        return QColor(0x4c, 0xa8, 0x5a);
    if (name == "idle")
        return kIdle;
    // FNV-1a: a stable hue per kernel function name (greens/reds are kept for user code and lock waits).
    std::uint32_t h = 2166136261u;
    for (char c : name)
        h = (h ^ std::uint8_t(c)) * 16777619u;
    int hue = 180 + int(h % 150); // cyan .. violet .. magenta
    return QColor::fromHsv(hue % 360, 150 + int((h >> 8) % 60), 170 + int((h >> 16) % 50));
}

QRgb CpuTimelineView::binColour(const CpuBin& b, const std::vector<std::string>& fnNames)
{
    // Lock hold is drawn in its own strip under each CPU row (rows overlap: a holder is also running). A task
    // asleep on I/O or on a mutex/rwsem colours only the part of the bin its CPU did not run (another task's
    // functions, or the switch back in, come first): its CPU was free.
    double wait = std::clamp<double>(b.lockWait, 0, 1);
    double hold = 0;
    double run = std::clamp<double>(b.run - wait, 0, 1 - wait);
    double io = std::clamp<double>(b.ioWait, 0, 1 - wait - hold - run);
    double sleep = std::clamp<double>(b.lockSleep, 0, 1 - wait - hold - run - io);
    double idle = 1 - wait - hold - run - io - sleep;
    QColor fn = functionColour(b.topFn < fnNames.size() ? fnNames[b.topFn] : std::string("?"));
    auto mix = [&](auto channel) {
        return int(channel(kWait) * wait + channel(kHold) * hold + channel(fn) * run + channel(kIo) * io
            + channel(kSleep) * sleep + channel(kIdle) * idle);
    };
    return qRgb(mix([](const QColor& c) { return c.red(); }), mix([](const QColor& c) { return c.green(); }),
                mix([](const QColor& c) { return c.blue(); }));
}

void CpuTimelineView::setRecording(std::shared_ptr<const Recording> rec, const QString& title)
{
    m_rec = std::move(rec);
    m_title = title;
    rebuild();
    update();
}

void CpuTimelineView::setTime(Time t)
{
    m_time = t;
    update();
}

void CpuTimelineView::rebuild()
{
    m_image = QImage();
    m_topFunctions.clear();
    if (!m_rec || m_rec->cpuCount() == 0 || m_rec->frameCount() == 0)
        return;
    // One image column per bin, from 0 to the run's end (the last frame's time): bins are placed by time, and the
    // last frame is no whole interval after the one before it.
    const std::size_t bins = std::max<std::size_t>(1, m_rec->binCount());
    // Per CPU: kMainRows rows of function / wait / I/O / idle, then one row of lock-hold share (amber).
    m_image = QImage(int(bins), m_rec->cpuCount() * kRowsPerCpu, QImage::Format_RGB32);
    m_image.fill(kIdle);
    std::map<std::uint16_t, double> byFn;
    double waitTotal = 0;
    for (int cpu = 0; cpu < m_rec->cpuCount(); ++cpu) {
        const auto& cb = m_rec->cpuBins(cpu);
        auto* line = reinterpret_cast<QRgb*>(m_image.scanLine(cpu * kRowsPerCpu));
        auto* holdLine = reinterpret_cast<QRgb*>(m_image.scanLine(cpu * kRowsPerCpu + kMainRows));
        for (std::size_t i = 0; i < std::min(bins, cb.size()); ++i) {
            line[i] = binColour(cb[i], m_rec->functionNames());
            const double h = std::clamp<double>(cb[i].lockHold, 0, 1);
            holdLine[i] = qRgb(int(kIdle.red() + (kHold.red() - kIdle.red()) * h), int(kIdle.green() + (kHold.green() - kIdle.green()) * h),
                               int(kIdle.blue() + (kHold.blue() - kIdle.blue()) * h));
            if (cb[i].topFn)
                byFn[cb[i].topFn] += cb[i].run - cb[i].lockWait;
            waitTotal += cb[i].lockWait;
        }
        for (int r = 1; r < kMainRows; ++r)
            std::memcpy(m_image.scanLine(cpu * kRowsPerCpu + r), line, std::size_t(m_image.bytesPerLine()));
    }
    for (auto& [fn, share] : byFn)
        m_topFunctions.emplace_back(m_rec->functionNames()[fn], share);
    std::sort(m_topFunctions.begin(), m_topFunctions.end(), [](auto& a, auto& b) { return a.second > b.second; });
    if (m_topFunctions.size() > 8)
        m_topFunctions.resize(8);
}

QRectF CpuTimelineView::imageRect(const QRect& a) const
{
    // The image's columns are whole bins: its right edge, binCount() x binWidth(), lies at or just past the end.
    const Time end = recordingEnd(*m_rec);
    const double covered = double(m_image.width()) * double(m_rec->binWidth());
    const double w = end > 0 ? a.width() * covered / double(end) : a.width();
    return QRectF(a.left(), a.top(), w, a.height());
}

Time CpuTimelineView::timeAt(const QRect& a, int x) const
{
    const Time end = recordingEnd(*m_rec);
    return std::clamp<Time>(Time(double(x - a.left()) / std::max(1, a.width()) * double(end)), 0, std::max<Time>(0, end - 1));
}

std::vector<std::pair<QString, QColor>> CpuTimelineView::legendEntries() const
{
    std::vector<std::pair<QString, QColor>> entries { { tr("lock spin"), kWait },
        { tr("lock hold (strip under each CPU)"), kHold }, { tr("lock sleep (CPU free)"), kSleep }, { tr("I/O wait"), kIo },
        { tr("idle"), kIdle } };
    for (auto& f : m_topFunctions)
        entries.emplace_back(QString::fromStdString(f.first), functionColour(f.first));
    return entries;
}

int CpuTimelineView::legendHeight() const
{
    const QFontMetrics fm(font());
    LegendFlow flow(this, 0, fm.height() + 3);
    for (const auto& entry : legendEntries())
        flow.place(legendEntryWidth(fm, entry.first));
    return flow.lines() * flow.lineStep() + 20;
}

int CpuTimelineView::labelWidth() const
{
    const int cpus = m_rec ? m_rec->cpuCount() : 8;
    return fontMetrics().horizontalAdvance(QStringLiteral("CPU %1").arg(std::max(0, cpus - 1))) + 10;
}

QRect CpuTimelineView::plotArea() const
{
    return QRect(labelWidth(), titleHeight(this), width() - labelWidth() - 6, height() - titleHeight(this) - legendHeight());
}

void CpuTimelineView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    p.setPen(palette().color(QPalette::Text));
    const QFontMetrics fm(font());
    if (!m_rec || m_image.isNull()) {
        p.drawText(rect(), Qt::AlignCenter, tr("no recording yet"));
        return;
    }
    p.drawText(QRect(4, 0, width() - 8, titleHeight(this)), Qt::AlignVCenter | Qt::AlignLeft,
               fitTitle(QFontMetrics(font()), width() - 8,
                        { tr("%1 — what each CPU did (%2 bins per frame)").arg(m_title).arg(Recording::kCpuBinsPerFrame),
                          tr("%1 — what each CPU did").arg(m_title), tr("CPU timeline") }));
    QRect a = plotArea();
    p.save();
    p.setClipRect(a);
    p.drawImage(imageRect(a), m_image);
    p.restore();
    const int cpus = m_rec->cpuCount();
    const double rowH = double(a.height()) / cpus;
    int every = std::max(1, int(std::ceil(fm.height() / std::max(0.1, rowH))));
    if (every > 1) // round to a readable step: 2, 4, 8, 16 ...
        every = 1 << int(std::ceil(std::log2(every)));
    for (int c = 0; c < cpus; c += every)
        p.drawText(QRectF(2, a.top() + (c + 0.5) * rowH - fm.height() / 2.0, labelWidth() - 6, fm.height()), Qt::AlignVCenter | Qt::AlignRight,
                   QStringLiteral("CPU %1").arg(c));
    if (rowH >= 4) {
        p.setPen(QPen(palette().color(QPalette::Base), 1));
        for (int c = 1; c < cpus; ++c)
            p.drawLine(QPointF(a.left(), a.top() + c * rowH), QPointF(a.right(), a.top() + c * rowH));
    }
    drawCpuGroupLines(p, this, *m_rec, a.top(), rowH, a.left() - 2);
    Time end = recordingEnd(*m_rec);
    p.setPen(palette().color(QPalette::Text));
    p.drawText(QRect(a.left(), a.bottom() + 2, 120, 16), Qt::AlignLeft | Qt::AlignTop, QStringLiteral("0"));
    p.drawText(QRect(a.right() - 120, a.bottom() + 2, 120, 16), Qt::AlignRight | Qt::AlignTop, formatTime(end));
    if (end > 0) {
        double x = a.left() + double(std::clamp<Time>(m_time, 0, end)) / double(end) * a.width();
        p.setPen(QPen(QColor(0x20, 0x60, 0xff), 2));
        p.drawLine(QPointF(x, a.top()), QPointF(x, a.bottom()));
    }
    LegendFlow flow(this, a.bottom() + 20, fm.height() + 3);
    for (const auto& [label, colour] : legendEntries()) {
        const int w = legendEntryWidth(fm, label);
        drawLegendEntry(p, this, fm, flow.place(w), w, colour, label, palette().color(QPalette::Text));
    }
}

bool CpuTimelineView::event(QEvent* e)
{
    if (e->type() == QEvent::ToolTip && !m_image.isNull()) {
        auto* help = static_cast<QHelpEvent*>(e);
        QRect a = plotArea();
        if (!a.contains(help->pos())) {
            QToolTip::hideText();
            return true;
        }
        const Time t = timeAt(a, help->pos().x());
        const auto bin = std::size_t(t / std::max<Time>(1, m_rec->binWidth()));
        int cpu = std::min(m_rec->cpuCount() - 1, (help->pos().y() - a.top()) * m_rec->cpuCount() / std::max(1, a.height()));
        const auto& cb = m_rec->cpuBins(cpu);
        std::size_t frame = frameAt(*m_rec, t);
        QString text = tr("%1 at %2\n%3")
                           .arg(cpuWithPlace(*m_rec, cpu), formatTime(m_rec->frameTime(frame)),
                                QString::fromStdString(m_rec->explain(cpu, frame)));
        if (bin < cb.size()) {
            const CpuBin& b = cb[bin];
            text += tr("\nbusy %1%, lock spin %2%, lock hold %3%, I/O wait %4%\nlongest: %5")
                        .arg(int(b.run * 100))
                        .arg(int(b.lockWait * 100))
                        .arg(int(b.lockHold * 100))
                        .arg(int(b.ioWait * 100))
                        .arg(QString::fromStdString(m_rec->functionNames()[b.topFn]));
            // A sleeping lock wait is its tasks' time, not the CPU's (several tasks may sleep at once: over 100 %).
            if (b.lockSleep > 0 && b.sleepFn)
                text += tr("\nlock sleep: its tasks slept %1% of the bin on %2 (the CPU was free for others)")
                            .arg(int(b.lockSleep * 100))
                            .arg(QString::fromStdString(m_rec->functionNames()[b.sleepFn]));
        }
        QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(e);
}

} // namespace mms
