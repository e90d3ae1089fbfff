#include "transportbar.h"

#include "recordingview.h"

#include <QAction>
#include <QComboBox>
#include <QLabel>
#include <QSlider>
#include <QStyle>
#include <QTimer>

namespace mms {

namespace {
    constexpr int kTickMs = 40; // 25 frames per second at 1x
}

TransportBar::TransportBar(QWidget* parent)
    : QToolBar(tr("Transport"), parent)
    , m_slider(new QSlider(Qt::Horizontal, this))
    , m_speed(new QComboBox(this))
    , m_label(new QLabel(this))
    , m_timer(new QTimer(this))
{
    setObjectName(QStringLiteral("transport"));
    auto* st = style();
    m_home = addAction(st->standardIcon(QStyle::SP_MediaSkipBackward), tr("Home"), this, &TransportBar::home);
    m_back = addAction(st->standardIcon(QStyle::SP_MediaSeekBackward), tr("Step back"), this, &TransportBar::stepBack);
    m_play = addAction(st->standardIcon(QStyle::SP_MediaPlay), tr("Play"), this, &TransportBar::togglePlay);
    m_forward = addAction(st->standardIcon(QStyle::SP_MediaSeekForward), tr("Step forward"), this, &TransportBar::stepForward);
    m_end_ = addAction(st->standardIcon(QStyle::SP_MediaSkipForward), tr("End"), this, &TransportBar::toEnd);
    m_next = addAction(st->standardIcon(QStyle::SP_ArrowRight), tr("Next event"), this, [this] { Q_EMIT nextEventRequested(); });
    m_play->setShortcut(Qt::Key_Space);
    m_back->setShortcut(Qt::Key_Left);
    m_forward->setShortcut(Qt::Key_Right);
    m_home->setShortcut(Qt::Key_Home);
    m_end_->setShortcut(Qt::Key_End);
    m_next->setShortcut(Qt::Key_N);
    for (QAction* a : { m_play, m_back, m_forward, m_home, m_end_, m_next }) {
        a->setShortcutContext(Qt::WindowShortcut);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(a->text(), a->shortcut().toString(QKeySequence::NativeText)));
    }
    m_next->setText(tr("Next event"));
    m_slider->setRange(0, 0);
    m_slider->setMinimumWidth(200);
    m_slider->setFocusPolicy(Qt::NoFocus); // keep ← → for stepping frames
    addWidget(m_slider);
    for (double s : { 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0 })
        m_speed->addItem(QStringLiteral("%1×").arg(s), s);
    m_speed->setCurrentIndex(2);
    m_speed->setToolTip(tr("Playback speed (1× = 25 frames per second)"));
    m_speed->setFocusPolicy(Qt::NoFocus);
    addWidget(m_speed);
    m_label->setMinimumWidth(150);
    m_label->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    addWidget(m_label);
    m_timer->setInterval(kTickMs);
    connect(m_timer, &QTimer::timeout, this, &TransportBar::tick);
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        if (Time(v) * m_step != m_time)
            setTime(Time(v) * m_step);
    });
    sync();
}

void TransportBar::setRange(Time end, Time step)
{
    m_end = std::max<Time>(end, 0);
    m_step = std::max<Time>(step, 1);
    m_slider->blockSignals(true);
    m_slider->setRange(0, int((m_end + m_step - 1) / m_step));
    m_slider->blockSignals(false);
    setTime(std::clamp<Time>(m_time, 0, m_end));
}

bool TransportBar::isPlaying() const { return m_timer->isActive(); }

void TransportBar::setTime(Time t)
{
    t = std::clamp<Time>(t, 0, m_end);
    const bool changed = t != m_time;
    m_time = t;
    sync();
    if (changed)
        Q_EMIT timeChanged(m_time);
}

void TransportBar::setFraction(double f) { setTime(Time(double(m_end) * std::clamp(f, 0.0, 1.0))); }

void TransportBar::play()
{
    if (m_time >= m_end)
        m_time = 0;
    m_timer->start();
    sync();
}

void TransportBar::pause()
{
    m_timer->stop();
    sync();
}

void TransportBar::togglePlay() { isPlaying() ? pause() : play(); }
void TransportBar::stepForward() { setTime(m_time + m_step); }
void TransportBar::stepBack() { setTime(m_time - m_step); }
void TransportBar::home() { setTime(0); }
void TransportBar::toEnd() { setTime(m_end); }

void TransportBar::tick()
{
    const double speed = m_speed->currentData().toDouble();
    setTime(m_time + std::max<Time>(1, Time(double(m_step) * speed)));
    if (m_time >= m_end)
        pause();
}

void TransportBar::sync()
{
    m_slider->blockSignals(true);
    m_slider->setValue(int(m_time / m_step));
    m_slider->blockSignals(false);
    m_play->setIcon(style()->standardIcon(isPlaying() ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_play->setText(isPlaying() ? tr("Pause") : tr("Play"));
    m_label->setText(QStringLiteral("%1 / %2").arg(formatTime(m_time), formatTime(m_end)));
}

} // namespace mms
