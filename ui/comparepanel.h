#pragma once
// A/B compare: two runs' page maps side by side on the shared time cursor, with their metrics, the ratio B ÷ A
// beside the post's same ratio, and how far the two ratios are apart. A lock capture from a real kernel
// (lockcaptureview.h) can be picked as A or B: then the two runs' most contended locks are set side by side.

#include "run/result.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;

namespace mms {

class PageMapView;
struct LockCapture;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(QWidget* parent = nullptr);

    void setResults(std::shared_ptr<const Scenario> sc, std::shared_ptr<const ResultSet> rs);
    void setTime(Time t);
    void setPair(int a, int b);
    // Adds the capture to both pickers (replacing one added before) and shows it as B.
    void setCapture(std::shared_ptr<const LockCapture> capture);
    QString summaryText() const;
    PageMapView* viewA() const { return m_a; }
    PageMapView* viewB() const { return m_b; }

    // "variant", or "variant · threads=4 · rep 1": a run's label in every run chooser.
    static QString runLabel(const RunResult& r, bool withRep);

private:
    void update_();
    void fillPickers();
    const RunResult* runOf(const QComboBox* pick) const; // nullptr: nothing picked
    QString locksSide(const RunResult& a, const RunResult& b) const;

    std::shared_ptr<const Scenario> m_sc;
    std::shared_ptr<const ResultSet> m_rs;
    std::shared_ptr<const LockCapture> m_capture;
    QComboBox* m_pickA;
    QComboBox* m_pickB;
    PageMapView* m_a;
    PageMapView* m_b;
    QLabel* m_summary;
    Time m_time = 0;
};

} // namespace mms
