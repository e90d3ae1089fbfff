#include "kernelrulesview.h"

#include "scenario/scenario.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace mms {

namespace {
    enum Column { Version, State, Toggle, Subject, Commit };

    // A toggle's value as text, as --set and the rule table write it ("true", "per_cpu", "4.5").
    QString valueText(const OJson& v) { return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump()); }
} // namespace

KernelRulesView::KernelRulesView(QWidget* parent)
    : QWidget(parent)
    , m_kernel(new QComboBox(this))
    , m_summary(new QLabel(this))
    , m_tree(new QTreeWidget(this))
    , m_showSurveyed(new QCheckBox(tr("Surveyed changes not modelled"), this))
    , m_rules(kernelRuleTable())
{
    m_kernel->setObjectName(QStringLiteral("kernelPick"));
    for (const std::string& r : kernelReleases())
        m_kernel->addItem(QString::fromStdString(r));
    m_kernel->setToolTip(tr("The kernel release the scenario runs: the rules up to it are in force"));
    m_summary->setWordWrap(true);
    m_tree->setObjectName(QStringLiteral("kernelRules"));
    m_tree->setRootIsDecorated(false);
    m_tree->setAlternatingRowColors(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setHeaderLabels({ tr("release"), tr("here"), tr("toggle = value"), tr("change"), tr("commit") });
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setStretchLastSection(false);

    auto* pick = new QHBoxLayout;
    pick->addWidget(new QLabel(tr("Kernel"), this));
    pick->addWidget(m_kernel);
    pick->addStretch(1);
    pick->addWidget(m_showSurveyed);
    m_showSurveyed->setToolTip(tr("Also list the changes docs/kernels.md surveys that the model does not follow, and why"));
    connect(m_showSurveyed, &QCheckBox::toggled, this, [this](bool on) {
        for (int row = 0; row < m_tree->topLevelItemCount(); ++row) {
            QTreeWidgetItem* item = m_tree->topLevelItem(row);
            if (!m_rules[static_cast<std::size_t>(item->data(Version, Qt::UserRole).toInt())].modelled())
                item->setHidden(!on);
        }
    });
    auto* box = new QVBoxLayout(this);
    box->setContentsMargins(4, 4, 4, 4);
    box->addLayout(pick);
    box->addWidget(m_summary);
    box->addWidget(m_tree, 1);

    connect(m_kernel, &QComboBox::currentTextChanged, this, [this](const QString& v) {
        if (!m_filling && v != m_version)
            QMetaObject::invokeMethod(this, [this, v] { Q_EMIT kernelChosen(v); }, Qt::QueuedConnection);
    });
    connect(m_tree, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
        if (m_filling || column != Version)
            return;
        const auto& r = m_rules[static_cast<std::size_t>(item->data(Version, Qt::UserRole).toInt())];
        const bool on = item->checkState(Version) == Qt::Checked;
        // After the item's own signal has returned: the edit refills the tree, which deletes the item.
        QMetaObject::invokeMethod(
            this,
            [this, toggle = QString::fromStdString(r.toggle), value = QString::fromStdString(on ? r.to : r.from)] {
                Q_EMIT toggleChosen(toggle, value);
            },
            Qt::QueuedConnection);
    });
}

void KernelRulesView::setScenario(const Scenario& scenario, const QString& ownKernel)
{
    const OJson& doc = scenario.json();
    m_version = valueText(doc.value("kernel", OJson("3.12")));
    m_ownKernel = ownKernel;
    const std::string version = m_version.toStdString();
    m_values.assign(m_rules.size(), QString());
    m_setByVariants.assign(m_rules.size(), false);
    m_variantValues.assign(m_rules.size(), QString());
    m_era.assign(m_rules.size(), QString());
    for (std::size_t i = 0; i < m_rules.size(); ++i) {
        const KernelRuleInfo& r = m_rules[i];
        if (!r.modelled())
            continue;
        // What the variants hold; where none sets the toggle, the era's value: the last rule of it in this release.
        QStringList held;
        int set = 0;
        for (const auto& [variant, toggles] : doc["variants"].items()) {
            const bool has = toggles.contains(r.toggle);
            set += has;
            held << QStringLiteral("%1: %2").arg(QString::fromStdString(variant), has ? valueText(toggles[r.toggle]) : tr("the era's"));
        }
        const int variants = static_cast<int>(doc["variants"].size());
        QString eraValue;
        for (const KernelRuleInfo& other : m_rules)
            if (other.toggle == r.toggle && eraValue.isEmpty())
                eraValue = QString::fromStdString(other.from);
        for (const KernelRuleInfo& other : m_rules)
            if (other.toggle == r.toggle && kernelHasRule(version, other.version))
                eraValue = QString::fromStdString(other.to);
        m_era[i] = eraValue;
        if (set == 0) {
            m_values[i] = eraValue;
            continue;
        }
        m_setByVariants[i] = true;
        QString common;
        bool same = set == variants;
        for (const auto& [variant, toggles] : doc["variants"].items())
            if (toggles.contains(r.toggle)) {
                const QString v = valueText(toggles[r.toggle]);
                same = same && (common.isEmpty() || common == v);
                common = v;
            }
        m_values[i] = same ? common : QString();
        m_variantValues[i] = held.join(QStringLiteral(", "));
    }
    fill();
}

void KernelRulesView::fill()
{
    m_filling = true;
    // The release the scenario's version is (5.6 for v5.6-rc4, 4.19 for 4.19.3); one outside the table (2.6.19,
    // 7.0, which run the nearest release's rules) is shown as written, an item of its own after the releases.
    const auto releases = static_cast<int>(kernelReleases().size());
    while (m_kernel->count() > releases)
        m_kernel->removeItem(releases);
    const std::string release = kernelRelease(m_version.toStdString());
    int at = release.empty() ? -1 : m_kernel->findText(QString::fromStdString(release));
    if (at < 0) {
        m_kernel->addItem(m_version);
        at = releases;
    }
    m_kernel->setCurrentIndex(at);
    m_tree->clear();
    const std::string version = m_version.toStdString();
    int inForce = 0, later = 0, surveyed = 0, flipped = 0;
    const QColor grey = palette().color(QPalette::Disabled, QPalette::Text);
    for (std::size_t i = 0; i < m_rules.size(); ++i) {
        const KernelRuleInfo& r = m_rules[i];
        const bool inRelease = kernelHasRule(version, r.version);
        auto* item = new QTreeWidgetItem(m_tree);
        item->setData(Version, Qt::UserRole, static_cast<int>(i));
        item->setText(Version, QString::fromStdString(r.version));
        item->setText(Subject, QString::fromStdString(r.subject));
        item->setText(Commit, QString::fromStdString(r.commit));
        item->setToolTip(Subject, QString::fromStdString(r.note));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        if (!r.modelled()) {
            ++surveyed;
            item->setHidden(!m_showSurveyed->isChecked());
            item->setText(Toggle, tr("not modelled"));
            item->setToolTip(Toggle, QString::fromStdString(r.note));
            for (int c = 0; c <= Commit; ++c)
                item->setForeground(c, grey);
            continue;
        }
        item->setText(Toggle, QString::fromStdString(r.toggle + "=" + r.to));
        item->setToolTip(Toggle, tr("before %1: %2=%3").arg(QString::fromStdString(r.version), QString::fromStdString(r.toggle), QString::fromStdString(r.from)));
        const QString value = m_values[i];
        if (value.isEmpty()) {
            // The variants hold it at different values: the comparison the scenario makes; not flipped from here.
            item->setText(State, tr("varies"));
            item->setToolTip(State, tr("set by the variants: %1").arg(m_variantValues[i]));
            item->setToolTip(Version, item->toolTip(State));
            inForce += inRelease;
            later += !inRelease;
            continue;
        }
        // In force: the toggle holds this rule's value, by the release (a later rule of the same toggle supersedes
        // it) or set; a later rule's value that only equals an earlier era's (4.16 on, 5.13 back off) is not it.
        const QString to = QString::fromStdString(r.to);
        const bool eraOn = inRelease && m_era[i] == to;
        const bool on = value == to && (eraOn || value != m_era[i]);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(Version, on ? Qt::Checked : Qt::Unchecked);
        item->setToolTip(Version, on ? tr("In force: uncheck to run %1=%2 in every variant").arg(QString::fromStdString(r.toggle), QString::fromStdString(r.from))
                                     : tr("Not in force: check to run %1=%2 in every variant").arg(QString::fromStdString(r.toggle), QString::fromStdString(r.to)));
        inForce += on;
        later += !inRelease;
        if (on != eraOn) {
            ++flipped;
            item->setText(State, on ? tr("flipped on") : tr("flipped off"));
            QFont f = item->font(Toggle);
            f.setBold(true);
            item->setFont(Toggle, f);
            item->setFont(State, f);
        } else if (!on) {
            if (inRelease)
                item->setText(State, tr("superseded"));
            for (int c = 0; c <= Commit; ++c)
                item->setForeground(c, grey);
        } else if (m_setByVariants[i]) {
            item->setText(State, tr("set"));
            item->setToolTip(State, tr("the scenario sets it: %1").arg(m_variantValues[i]));
        }
    }
    QString summary = tr("%1 modelled rules in force, %2 from later releases, %3 surveyed but not modelled")
                          .arg(inForce)
                          .arg(later)
                          .arg(surveyed);
    if (flipped)
        summary += tr("; %n flipped from the release's own", nullptr, flipped);
    if (!m_ownKernel.isEmpty() && m_ownKernel != m_version) {
        const auto changed = kernelRulesBetween(m_ownKernel.toStdString(), version);
        summary += tr(". From the scenario's own %1: %n rule(s) change", nullptr, static_cast<int>(changed.size())).arg(m_ownKernel);
    }
    m_summary->setText(summary + QLatin1Char('.'));
    // The newest rule in force in view.
    for (int row = m_tree->topLevelItemCount() - 1; row >= 0; --row)
        if (kernelHasRule(version, m_tree->topLevelItem(row)->text(Version).toStdString())) {
            m_tree->scrollToItem(m_tree->topLevelItem(row), QAbstractItemView::PositionAtCenter);
            break;
        }
    m_filling = false;
}

QTreeWidgetItem* KernelRulesView::ruleItem(const QString& version, const QString& toggle) const
{
    for (int row = 0; row < m_tree->topLevelItemCount(); ++row) {
        QTreeWidgetItem* item = m_tree->topLevelItem(row);
        const auto& r = m_rules[static_cast<std::size_t>(item->data(Version, Qt::UserRole).toInt())];
        if (QString::fromStdString(r.version) == version && QString::fromStdString(r.toggle) == toggle)
            return item;
    }
    return nullptr;
}

} // namespace mms
