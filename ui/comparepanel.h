#pragma once
// A/B compare: two runs' page maps side by side on the shared time cursor, with their metrics, the ratio B ÷ A
// beside the post's same ratio, and how far the two ratios are apart.

#include "run/result.h"

#include <QWidget>

#include <memory>

class QComboBox;
class QLabel;

namespace mms {

class PageMapView;

class ComparePanel : public QWidget {
    Q_OBJECT
public:
    explicit ComparePanel(QWidget* parent = nullptr);

    void setResults(std::shared_ptr<const Scenario> sc, std::shared_ptr<const ResultSet> rs);
    void setTime(Time t);
    void setPair(int a, int b);
    PageMapView* viewA() const { return m_a; }
    PageMapView* viewB() const { return m_b; }

    // "variant", or "variant · threads=4 · rep 1": a run's label in every run chooser.
    static QString runLabel(const RunResult& r, bool withRep);

private:
    void update_();

    std::shared_ptr<const Scenario> m_sc;
    std::shared_ptr<const ResultSet> m_rs;
    QComboBox* m_pickA;
    QComboBox* m_pickB;
    PageMapView* m_a;
    PageMapView* m_b;
    QLabel* m_summary;
    Time m_time = 0;
};

} // namespace mms
