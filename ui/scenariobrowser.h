#pragma once
// The scenario browser: the built-in scenarios, "Open file…" for a user's own, and the chosen scenario's source
// (which post, what it measured), description, variants and sweep.

#include "scenario/scenario.h"

#include <QWidget>

#include <memory>

class QListWidget;
class QTextBrowser;

namespace mms {

class ScenarioBrowser : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioBrowser(QWidget* parent = nullptr);

    void showScenario(const Scenario& sc);
    static QString describe(const Scenario& sc);

Q_SIGNALS:
    // A built-in id or a file path.
    void scenarioRequested(const QString& idOrPath);

private:
    QListWidget* m_list;
    QTextBrowser* m_text;
};

} // namespace mms
