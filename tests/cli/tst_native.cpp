// mmscope-cli native as a user runs it: the workload as real processes beside the simulated run, a clear refusal of
// what the host cannot do, and nothing left behind -- no temporary directory, no cgroup, no process -- after a run,
// after an error and after SIGINT. Runs at tiny scales: a few MiB per process.
#include <QtTest>

#include <QDir>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {
struct Out {
    int code;
    QString out;
    QString err;
};

Out cli(const QStringList& args, const QString& tmpdir, int timeoutMs = 240'000)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("TMPDIR", tmpdir);
    p.setProcessEnvironment(env);
    p.start(qEnvironmentVariable("MMSCOPE_CLI"), args);
    if (!p.waitForFinished(timeoutMs))
        return { -1, {}, "timeout" };
    return { p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError()) };
}

// The cgroup a run announced on stderr ("..., cgroup DIR (memory.max ..." or, on cgroup v1,
// "(memory.limit_in_bytes ..."), empty when it ran without one.
QString cgroupOf(const QString& err)
{
    QRegularExpressionMatch m = QRegularExpression("cgroup (/\\S+) \\(memory\\.").match(err);
    return m.hasMatch() ? m.captured(1) : QString();
}

std::vector<std::string> childrenOf(qint64 parent)
{
    std::vector<std::string> pids;
    for (const auto& e : std::filesystem::directory_iterator("/proc")) {
        std::ifstream stat(e.path() / "stat");
        std::string pid, comm, state, ppid;
        if (stat >> pid >> comm >> state >> ppid && ppid == std::to_string(parent))
            pids.push_back(pid);
    }
    return pids;
}

bool emptyDir(const QString& dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).isEmpty();
}
} // namespace

class TestNative : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariable("MMSCOPE_CLI").isEmpty(), "MMSCOPE_CLI is set by CTest"); }

    // Without memory pressure the program runs on any Linux host: measured beside simulated, nothing left.
    void measuredBesideSimulated_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("metric");
        QTest::addRow("madv-free-swapin")
            << QStringList { "native", "madv-free-swapin", "--scale", "0.01", "--no-pressure", "--set", "loops=2" }
            << "swapins";
        QTest::addRow("dd-sparse-read") << QStringList { "native", "dd-sparse-read", "--scale", "0.001", "--variant",
            "mainline" } << "ns_per_page";
    }
    void measuredBesideSimulated()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, metric);
        QTemporaryDir tmp;
        Out o = cli(args, tmp.path());
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QVERIFY2(
            o.out.contains(QRegularExpression("variant +metric +native +simulated +native/sim")), qPrintable(o.out));
        // Every row has a measured figure; elapsed_s is measured above 0 and simulated above 0.
        QRegularExpressionMatch e = QRegularExpression("elapsed_s +([0-9.]+) +([0-9.]+) ").match(o.out);
        QVERIFY2(e.hasMatch(), qPrintable(o.out));
        QVERIFY(e.captured(1).toDouble() > 0 && e.captured(2).toDouble() > 0);
        QVERIFY2(o.out.contains(QRegularExpression("\\n +" + metric + " +[0-9.]+ ")), qPrintable(o.out));
        QVERIFY2(o.out.contains(QRegularExpression(
                     "--set machine.cpus=[0-9]+ --set machine.sockets=1 --set kernel=[0-9]+\\.[0-9]+")),
            qPrintable(o.out));
        QVERIFY2(emptyDir(tmp.path()), qPrintable(QDir(tmp.path()).entryList().join(' ')));
    }

    // --reps: each variant that many times, in turns, and each figure as mean ± standard deviation.
    void repetitionsGiveMeanAndSpread()
    {
        QTemporaryDir tmp;
        Out o = cli({ "native", "dd-sparse-read", "--scale", "0.001", "--variant", "mainline", "--variant", "inline",
                        "--reps", "3" },
            tmp.path());
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QCOMPARE(o.err.count(QRegularExpression("native: (mainline|inline) \\([123]/3\\): ")), 6);
        QVERIFY2(o.err.indexOf("inline (1/3)") < o.err.indexOf("mainline (2/3)"), qPrintable(o.err));
        QVERIFY2(o.out.contains(QRegularExpression("ns_per_page +[0-9.]+ ±[0-9.]+ +[0-9.]+ ")), qPrintable(o.out));
        Out bad = cli({ "native", "dd-sparse-read", "--reps", "0" }, tmp.path());
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("--reps 0: expected an integer in [1, 100]"), qPrintable(bad.err));
        QVERIFY2(emptyDir(tmp.path()), qPrintable(QDir(tmp.path()).entryList().join(' ')));
    }

    // With pressure, the host gives a memory cgroup with swap or the run is refused saying which is missing.
    void pressureRunsInACgroupOrIsRefused()
    {
        QTemporaryDir tmp;
        Out o = cli({ "native", "madv-free-swapin", "--scale", "0.01", "--set", "loops=1", "--variant", "dontneed" },
            tmp.path());
        if (o.code == 2) {
            QVERIFY2(o.err.contains("native: madv-free-swapin needs memory pressure ("), qPrintable(o.err));
            QVERIFY2(o.err.contains("--no-pressure"), qPrintable(o.err));
            QVERIFY2(o.err.contains("no swap") || o.err.contains("cgroup"), qPrintable(o.err));
            QVERIFY(o.out.isEmpty());
        } else {
            QVERIFY2(o.code == 0, qPrintable(o.err));
            const QString cg = cgroupOf(o.err);
            QVERIFY2(!cg.isEmpty(), qPrintable(o.err));
            QVERIFY(!QFileInfo::exists(cg));
        }
        QVERIFY(emptyDir(tmp.path()));
    }

    void refusesWhatHasNoNativeForm()
    {
        QTemporaryDir tmp;
        Out o = cli({ "native", "ebizzy", "--scale", "0.01" }, tmp.path());
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("native: ebizzy: its workload ebizzy has no native form yet; native runs "
                                "memset-madvise (madv-free-swapin) and dd (dd-sparse-read)"),
            qPrintable(o.err));
        Out f = cli({ "native", "madv-free-swapin", "--format", "json" }, tmp.path());
        QCOMPARE(f.code, 2);
        QVERIFY(f.err.contains("--format json: expected text or markdown"));
        QVERIFY(emptyDir(tmp.path()));
    }

    // SIGINT while the processes run: exit 130, and the temporary directory (seen while it ran), the cgroup if there
    // was one and the processes are gone. With pressure where the host allows it, else without.
    void interruptLeavesNothing_data()
    {
        QTest::addColumn<bool>("pressure");
        QTest::addRow("no pressure") << false;
        QTest::addRow("pressure, where the host allows it") << true;
    }
    void interruptLeavesNothing()
    {
        QFETCH(bool, pressure);
        QTemporaryDir tmp;
        QStringList args { "native", "madv-free-swapin", "--scale", "0.01", "--variant", "dontneed", "--set",
            "loops=1000" };
        if (!pressure)
            args << "--no-pressure";
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("TMPDIR", tmp.path());
        p.setProcessEnvironment(env);
        p.start(qEnvironmentVariable("MMSCOPE_CLI"), args);
        QVERIFY(p.waitForStarted());
        QString err;
        // Until the processes run (their program is announced), or the host refused.
        QTRY_VERIFY_WITH_TIMEOUT((err += QString::fromUtf8(p.readAllStandardError())).contains(": dontneed: ")
                || p.state() == QProcess::NotRunning,
            20'000);
        if (p.state() == QProcess::NotRunning) {
            QVERIFY2(pressure && p.exitCode() == 2 && err.contains("needs memory pressure"), qPrintable(err));
            QSKIP("this host gives no memory cgroup with swap; refused, as checked");
        }
        QCOMPARE(QDir(tmp.path()).entryList(QStringList { "mmscope-native.*" }, QDir::Dirs).size(), 1);
        const QString cg = cgroupOf(err);
        QCOMPARE(cg.isEmpty(), !pressure);
        QTest::qWait(300);
        std::vector<std::string> children = childrenOf(p.processId());
        QVERIFY(!children.empty());
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(30'000));
        err += QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 130);
        QVERIFY2(err.contains("interrupted"), qPrintable(err));
        QVERIFY2(emptyDir(tmp.path()), qPrintable(QDir(tmp.path()).entryList().join(' ')));
        if (!cg.isEmpty())
            QVERIFY2(!QFileInfo::exists(cg), qPrintable(cg));
        // The workload's processes, seen while it ran, are gone (killed and reaped, not orphaned).
        for (const std::string& pid : children)
            QVERIFY2(!std::filesystem::exists("/proc/" + pid), pid.c_str());
    }
};

QTEST_GUILESS_MAIN(TestNative)
#include "tst_native.moc"
