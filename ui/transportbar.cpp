#include "transportbar.h"

#include "recordingview.h"

#include <QAction>
#include <QComboBox>
#include <QEvent>
#include <QLabel>
#include <QPainter>
#include <QSlider>
#include <QStyle>
#include <QTimer>

namespace mms {

namespace {
    constexpr int kTickMs = 40; // 25 frames per second at 1x

    // The style's media icons are drawn dark: on a dark palette they vanish. Repaint their shapes in the
    // palette's button text colour there (keeping the style's own icons on a light palette).
    QIcon mediaIcon(const QWidget* w, QStyle::StandardPixmap sp)
    {
        const QIcon icon = w->style()->standardIcon(sp);
        if (w->palette().color(QPalette::Window).lightness() >= 128)
            return icon;
        QIcon out;
        for (int size : { 16, 22, 32, 48 }) {
            const QPixmap shape = icon.pixmap(QSize(size, size), w->devicePixelRatioF());
            QPixmap tinted(shape.size());
            tinted.setDevicePixelRatio(shape.devicePixelRatio());
            tinted.fill(Qt::transparent);
            QPainter p(&tinted);
            p.drawPixmap(0, 0, shape);
            p.setCompositionMode(QPainter::CompositionMode_SourceIn);
            p.fillRect(QRect(0, 0, tinted.width(), tinted.height()), w->palette().color(QPalette::ButtonText));
            p.end();
            out.addPixmap(tinted);
        }
        return out;
    }
} // namespace

TransportBar::TransportBar(QWidget* parent)
    : QToolBar(tr("Transport"), parent)
    , m_slider(new QSlider(Qt::Horizontal, this))
    , m_speed(new QComboBox(this))
    , m_label(new QLabel(this))
    , m_timer(new QTimer(this))
{
    setObjectName(QStringLiteral("transport"));
    m_home = addAction(tr("Home"), this, &TransportBar::home);
    m_back = addAction(tr("Step back"), this, &TransportBar::stepBack);
    m_play = addAction(tr("Play"), this, &TransportBar::togglePlay);
    m_forward = addAction(tr("Step forward"), this, &TransportBar::stepForward);
    m_end_ = addAction(tr("End"), this, &TransportBar::toEnd);
    m_next = addAction(style()->standardIcon(QStyle::SP_ArrowRight), tr("Next event"), this, [this] { Q_EMIT nextEventRequested(); });
    updateIcons();
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
    m_play->setIcon(mediaIcon(this, isPlaying() ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_play->setText(isPlaying() ? tr("Pause") : tr("Play"));
    m_label->setText(QStringLiteral("%1 / %2").arg(formatTime(m_time), formatTime(m_end)));
}

void TransportBar::updateIcons()
{
    m_home->setIcon(mediaIcon(this, QStyle::SP_MediaSkipBackward));
    m_back->setIcon(mediaIcon(this, QStyle::SP_MediaSeekBackward));
    m_play->setIcon(mediaIcon(this, isPlaying() ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_forward->setIcon(mediaIcon(this, QStyle::SP_MediaSeekForward));
    m_end_->setIcon(mediaIcon(this, QStyle::SP_MediaSkipForward));
}

void TransportBar::changeEvent(QEvent* e)
{
    QToolBar::changeEvent(e);
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::StyleChange)
        updateIcons();
}

} // namespace mms
