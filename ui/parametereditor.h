#pragma once
// The parameter editor: machine, workload, run and sweep fields and each variant's toggles, validated as you type
// through the engine (Scenario::set / Scenario::fromJson); an invalid field turns red and the engine's message
// shows below, and the last valid scenario stays in force.

#include "scenario/scenario.h"

#include <QWidget>

#include <map>
#include <memory>
#include <vector>

class QCheckBox;
class QFormLayout;
class QLabel;
class QLineEdit;

namespace mms {

class ParameterEditor : public QWidget {
    Q_OBJECT
public:
    explicit ParameterEditor(QWidget* parent = nullptr);

    void setScenario(const Scenario& sc);
    // The edited scenario, narrowed to the checked variants.
    std::shared_ptr<const Scenario> scenario() const;
    QString lastError() const;
    // The fields whose text the engine rejected (path -> its message), in the order of the form. Their text stays
    // as typed, but scenario() still holds the last valid value, so a run must not start while any is left.
    std::vector<std::pair<QString, QString>> invalidFields() const;
    // Applies one edit as if typed (tests); returns false (and shows the error) if the engine rejects it.
    bool edit(const QString& path, const QString& value);
    QLineEdit* field(const QString& path) const;
    // A field the form may not show (kernel) or a toggle for every variant (`--set` of the command line): applied,
    // and the form rebuilt to show it, the variants' run boxes kept; false (and the error shown) if refused.
    bool setEverywhere(const QString& path, const QString& value);

Q_SIGNALS:
    void scenarioEdited();

private:
    void rebuild();
    bool apply(const QString& path, const QString& value);
    void addField(QFormLayout* form, const QString& path, const OJson& value, const QString& label);

    std::unique_ptr<Scenario> m_original;
    std::unique_ptr<Scenario> m_current;
    QWidget* m_form = nullptr;
    QLabel* m_error;
    std::vector<std::pair<QString, QLineEdit*>> m_fields;
    std::map<QString, QString> m_invalid; // path -> the engine's message
    std::vector<std::pair<std::string, QCheckBox*>> m_variants;
};

} // namespace mms
