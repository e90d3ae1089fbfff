#pragma once
// The post a scenario reproduces (resources/seeds, built in), in a reader: reflowed where the archive collapsed
// the mail onto one line, scrolled to and highlighting the figures the scenario's table reproduces.

#include "scenario/scenario.h"

#include <QDialog>

class QLabel;
class QPlainTextEdit;

namespace mms {

// The scenario's source.seed (the post's file name), or empty.
std::string sourceSeed(const Scenario& sc);

class SourcePostView : public QDialog {
    Q_OBJECT
public:
    explicit SourcePostView(QWidget* parent = nullptr);

    // Shows the scenario's source post; false (and nothing shown) when no post of that name is built in.
    bool showScenario(const Scenario& sc);
    QString text() const;
    // The highlighted passage: where the published figures sit closest together.
    QString highlightedText() const;

    // Line breaks back into a mail whose archive copy lost them (headers, trailers, the diff, "1) …" lists).
    static QString readable(const QString& raw);
    // [begin, end) of the passage holding most of the published figures, or {-1, -1} when none is found.
    static std::pair<int, int> figuresSpan(
        const QString& text, const OJson& published, const std::vector<std::string>& axes);

protected:
    void showEvent(QShowEvent* e) override;

private:
    QLabel* m_header;
    QPlainTextEdit* m_text;
    std::pair<int, int> m_span { -1, -1 };
};

} // namespace mms
