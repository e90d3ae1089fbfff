#pragma once
// The time cursor and its controls: play/pause, step back/forward one frame, home/end, next event of interest,
// speed and a scrubber over the whole run. Playback advances on a timer at a fixed frame rate, independent of the
// simulation (which has finished: a recording is played).

#include "sim/simulator.h"

#include <QToolBar>

class QAction;
class QComboBox;
class QLabel;
class QSlider;
class QTimer;

namespace mms {

class TransportBar : public QToolBar {
    Q_OBJECT
public:
    explicit TransportBar(QWidget* parent = nullptr);

    // The run's length and one frame's step.
    void setRange(Time end, Time step);
    Time time() const { return m_time; }
    Time end() const { return m_end; }
    Time step() const { return m_step; }
    bool isPlaying() const;

    void setTime(Time t);
    void setFraction(double f);
    void play();
    void pause();
    void togglePlay();
    void stepForward();
    void stepBack();
    void home();
    void toEnd();

    QAction* playAction() const { return m_play; }

Q_SIGNALS:
    void timeChanged(mms::Time t);
    void nextEventRequested();

protected:
    void changeEvent(QEvent* e) override;

private:
    void updateIcons();
    void tick();
    void sync();

    Time m_time = 0, m_end = 0, m_step = 1;
    QAction* m_play;
    QAction* m_back;
    QAction* m_forward;
    QAction* m_home;
    QAction* m_end_;
    QAction* m_next;
    QSlider* m_slider;
    QComboBox* m_speed;
    QLabel* m_label;
    QTimer* m_timer;
};

} // namespace mms
