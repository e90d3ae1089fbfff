#pragma once
// The scenario browser: the built-in scenarios, "Open file…" for a user's own, and the chosen scenario's source
// (which post, what it measured), description, variants and sweep.

#include "scenario/scenario.h"

#include <QWidget>

#include <memory>

class QListWidget;
class QPushButton;
class QTextBrowser;

namespace mms {

class SourcePostView;

class ScenarioBrowser : public QWidget {
    Q_OBJECT
public:
    explicit ScenarioBrowser(QWidget* parent = nullptr);

    void showScenario(const Scenario& sc);
    static QString describe(const Scenario& sc);
    // Opens (or raises) the reader on the shown scenario's source post; null when no such post is built in.
    SourcePostView* openSourcePost();

Q_SIGNALS:
    // A built-in id or a file path.
    void scenarioRequested(const QString& idOrPath);

private:
    QListWidget* m_list;
    QPushButton* m_post;
    QTextBrowser* m_text;
    SourcePostView* m_postView = nullptr;
    std::unique_ptr<Scenario> m_scenario;
};

} // namespace mms
