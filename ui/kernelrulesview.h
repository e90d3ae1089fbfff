#pragma once
// The kernel of the edited scenario and its history (scenario/kernels.h, docs/kernels.md): the release, picked from
// 2.6.20 .. 6.12, and every rule of the survey -- in force, later, or surveyed but not modelled -- with a check box
// per modelled rule that flips its toggle for every variant (what `--set TOGGLE=VALUE` does on the command line).
// A toggle the variants set themselves (the patch a scenario compares) is shown, not flipped.

#include "scenario/kernels.h"

#include <QString>
#include <QWidget>

#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QTreeWidget;
class QTreeWidgetItem;

namespace mms {

class Scenario;

class KernelRulesView : public QWidget {
    Q_OBJECT
public:
    explicit KernelRulesView(QWidget* parent = nullptr);

    // The scenario as edited; `ownKernel` is the release the scenario names itself (its rules changed from there
    // are counted in the summary).
    void setScenario(const Scenario& scenario, const QString& ownKernel);

    QTreeWidget* tree() const { return m_tree; }
    QComboBox* kernelPick() const { return m_kernel; }
    // The row of the modelled rule `toggle=to` first brought in `version`; nullptr if there is none.
    QTreeWidgetItem* ruleItem(const QString& version, const QString& toggle) const;

Q_SIGNALS:
    // The user picked another release for the scenario.
    void kernelChosen(const QString& version);
    // The user flipped a rule: the toggle takes this value in every variant.
    void toggleChosen(const QString& toggle, const QString& value);

private:
    void fill();

    QComboBox* m_kernel;
    QLabel* m_summary;
    QTreeWidget* m_tree;
    QCheckBox* m_showSurveyed;
    std::vector<KernelRuleInfo> m_rules;
    QString m_version, m_ownKernel;
    // Per rule: the toggle's value in every variant ("" when the variants differ), and whether any variant sets it.
    std::vector<QString> m_values;
    std::vector<bool> m_setByVariants;
    std::vector<QString> m_era; // the toggle's value in the release itself, before the scenario sets it
    std::vector<QString> m_variantValues; // "dontneed: false, madvfree: true" where the variants differ
    bool m_filling = false;
};

} // namespace mms
