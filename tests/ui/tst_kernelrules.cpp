// The Kernel dock as a user works it: the scenario's release and its rules, a later rule flipped on and an
// in-force one flipped off for every variant (the run then gets that toggle), another release picked, and the patch
// a scenario compares left to its variants.
#include "kernelrulesview.h"
#include "mainwindow.h"
#include "parametereditor.h"
#include "quietwindow.h"
#include "scenario/kernels.h"
#include "scenario/scenario.h"

#include <QtTest>

#include <QComboBox>
#include <QLabel>
#include <QTreeWidget>

namespace {
enum Column { Version, State, Toggle };

// Every variant's value of `toggle` in the scenario the next run gets ("" where a variant leaves it to the era).
QStringList held(const mms::MainWindow& w, const std::string& toggle)
{
    QStringList out;
    const std::shared_ptr<const mms::Scenario> sc = w.parameters()->scenario();
    for (const auto& [name, toggles] : sc->json()["variants"].items())
        out << (toggles.contains(toggle) ? QString::fromStdString(toggles[toggle].is_string() ? toggles[toggle].get<std::string>() : toggles[toggle].dump()) : QString());
    return out;
}
} // namespace

class TestKernelRules : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void init()
    {
        m_w = std::make_unique<mms::MainWindow>(mms::test::quietWindow());
        QVERIFY(m_w->loadScenario(QStringLiteral("madv-free-swapin")));
        m_rules = m_w->kernelRules();
    }
    void cleanup() { m_w.reset(); }

    void showsTheScenariosRelease()
    {
        QCOMPARE(m_rules->kernelPick()->currentText(), QStringLiteral("4.0"));
        QTreeWidgetItem* queued = m_rules->ruleItem("4.2", "lock.spinlock");
        QTreeWidgetItem* ticket = m_rules->ruleItem("2.6.25", "lock.spinlock");
        QVERIFY(queued && ticket);
        QCOMPARE(ticket->checkState(Version), Qt::Checked);
        QCOMPARE(queued->checkState(Version), Qt::Unchecked);
        // The patch the scenario compares is the variants' own: shown, not flippable.
        QTreeWidgetItem* patch = m_rules->ruleItem("4.5", "madvise.free_swap_entries");
        QVERIFY(patch);
        QCOMPARE(patch->text(State), QStringLiteral("varies"));
        QVERIFY(!(patch->flags() & Qt::ItemIsUserCheckable));
        QVERIFY2(patch->toolTip(State).contains("madvfree-patched: true"), qPrintable(patch->toolTip(State)));
    }

    void flipsARuleForEveryVariant()
    {
        QVERIFY(held(*m_w, "swap.slots_cache").join("").isEmpty());
        m_rules->ruleItem("4.11", "swap.slots_cache")->setCheckState(Version, Qt::Checked);
        QTRY_COMPARE(held(*m_w, "swap.slots_cache"), (QStringList { "per_cpu", "per_cpu", "per_cpu" }));
        QTreeWidgetItem* slots = m_rules->ruleItem("4.11", "swap.slots_cache");
        QCOMPARE(slots->checkState(Version), Qt::Checked);
        QCOMPARE(slots->text(State), QStringLiteral("flipped on"));
        QVERIFY2(m_rules->findChild<QLabel*>()->text().contains("1 flipped"), qPrintable(m_rules->findChild<QLabel*>()->text()));
        // An in-force rule off: its toggle goes back to the value before it.
        m_rules->ruleItem("3.19", "i_mmap.lock")->setCheckState(Version, Qt::Unchecked);
        QTRY_COMPARE(held(*m_w, "i_mmap.lock"), (QStringList { "mutex", "mutex", "mutex" }));
        QCOMPARE(m_rules->ruleItem("3.19", "i_mmap.lock")->text(State), QStringLiteral("flipped off"));
        // And back on: the release's own value, held explicitly.
        m_rules->ruleItem("4.11", "swap.slots_cache")->setCheckState(Version, Qt::Unchecked);
        QTRY_COMPARE(held(*m_w, "swap.slots_cache"), (QStringList { "off", "off", "off" }));
        QVERIFY(m_rules->ruleItem("4.11", "swap.slots_cache")->text(State).isEmpty());
    }

    void picksAnotherRelease()
    {
        m_rules->kernelPick()->setCurrentText(QStringLiteral("4.11"));
        QTRY_COMPARE(m_w->parameters()->scenario()->json()["kernel"].get<std::string>(), std::string("4.11"));
        QCOMPARE(m_rules->ruleItem("4.11", "swap.slots_cache")->checkState(Version), Qt::Checked);
        QCOMPARE(m_rules->ruleItem("4.2", "lock.spinlock")->checkState(Version), Qt::Checked);
        QCOMPARE(m_rules->ruleItem("2.6.25", "lock.spinlock")->text(State), QStringLiteral("superseded"));
        const QString summary = m_rules->findChild<QLabel*>()->text();
        QVERIFY2(summary.contains("From the scenario's own 4.0:"), qPrintable(summary));
    }

    // A version written as a git tag or a stable update shows its release; one outside the table shows as written.
    void showsTheReleaseOfAnyVersion()
    {
        const auto shown = [this](const char* kernel) {
            std::string doc = m_w->parameters()->scenario()->json().dump();
            const auto at = doc.find("\"kernel\":\"4.0\"");
            doc.replace(at, 14, std::string("\"kernel\":\"") + kernel + "\"");
            m_rules->setScenario(mms::Scenario::fromText(doc, "edited"), QStringLiteral("4.0"));
            return m_rules->kernelPick()->currentText();
        };
        QCOMPARE(shown("v5.6-rc4"), QStringLiteral("5.6"));
        QCOMPARE(shown("4.19.3"), QStringLiteral("4.19"));
        QCOMPARE(shown("7.0"), QStringLiteral("7.0"));
        QCOMPARE(shown("4.11"), QStringLiteral("4.11"));
        QCOMPARE(m_rules->kernelPick()->count(), static_cast<int>(mms::kernelReleases().size()));
    }

private:
    std::unique_ptr<mms::MainWindow> m_w;
    mms::KernelRulesView* m_rules = nullptr;
};

QTEST_MAIN(TestKernelRules)
#include "tst_kernelrules.moc"
