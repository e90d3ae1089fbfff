// mmscope-cli import: hand-written captures of /proc/lock_stat, perf lock contention and perf lock report (from the
// formats their documentation gives) against golden results documents; the documents read back as results; and
// every malformed capture refused with the file, the line and what was expected. On a golden mismatch the test
// writes <golden>.actual beside it; MMSCOPE_UPDATE_GOLDEN=1 rewrites the goldens.
#include "runcli.h"

#include "../golden.h"

#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include "run/json.h"

#include <fstream>
#include <sstream>

namespace {
using mms::test::cli;
using mms::test::Out;

QString capture(const char* name) { return QStringLiteral(MMSCOPE_TEST_DATA "/capture/") + QLatin1String(name); }

// The document without what changes with the build (engine_version).
std::string stable(const QString& json)
{
    mms::OJson j = mms::OJson::parse(json.toStdString());
    j.erase("engine_version");
    return j.dump(2) + "\n";
}

using mms::test::compareGolden;

const mms::LockSummary* lockNamed(const mms::RunResult& r, const std::string& name)
{
    for (const mms::LockSummary& l : r.locks)
        if (l.name == name)
            return &l;
    return nullptr;
}
} // namespace

class TestImport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariable("MMSCOPE_CLI").isEmpty(), "MMSCOPE_CLI is set by CTest"); }

    void golden_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("golden");
        QTest::addRow("lock_stat") << "lockstat" << capture("lockstat.txt") << "capture-lockstat.json";
        QTest::addRow("perf lock contention")
            << "perf-lock" << capture("perf-lock-contention.txt") << "capture-perf-lock-contention.json";
        QTest::addRow("perf lock report")
            << "perf-lock" << capture("perf-lock-report.txt") << "capture-perf-lock-report.json";
    }
    void golden()
    {
        QFETCH(QString, kind);
        QFETCH(QString, file);
        QFETCH(QString, golden);
        Out o = cli({ "import", kind, file });
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QVERIFY(o.err.isEmpty());
        compareGolden(golden.toStdString(), stable(o.out));
    }

    // The figures as the capture printed them, in the schema's units (ns), read back the way the app reads them.
    void figuresReadBack()
    {
        QTemporaryDir dir;
        const QString json = dir.filePath("ls.json");
        QCOMPARE(cli({ "import", "lockstat", capture("lockstat.txt"), "--out", json, "--name", "box-a" }).code, 0);
        std::ifstream in(json.toStdString());
        mms::ResultSet rs = mms::resultsFromJson(mms::OJson::parse(in), json.toStdString());
        QCOMPARE(rs.results.size(), std::size_t(1));
        const mms::RunResult& r = rs.results[0];
        QCOMPARE(r.variant, std::string("box-a"));
        QCOMPARE(r.locks.size(), std::size_t(7)); // every class line; the contention points are not locks
        const mms::LockSummary* si = lockNamed(r, "&si->lock");
        QVERIFY(si);
        QCOMPARE(si->contentions, 3120u);
        QCOMPARE(si->acquisitions, 88410u);
        QCOMPARE(si->conBounces, 2204u);
        QCOMPARE(mms::toNs(si->waitTotal), 41822090.0); // 41822.09 us
        QCOMPARE(mms::toNs(si->holdMax), 41270.0); // 41.27 us
        QVERIFY(lockNamed(r, "&mm->mmap_lock-W") && lockNamed(r, "&mm->mmap_lock-R") && lockNamed(r, "&zone->lock/1"));

        const QString perf = dir.filePath("perf.json");
        QCOMPARE(cli({ "import", "perf-lock", capture("perf-lock-contention.txt"), "--out", perf }).code, 0);
        std::ifstream pin(perf.toStdString());
        mms::OJson doc = mms::OJson::parse(pin);
        QCOMPARE(doc["capture"]["source"].get<std::string>(), std::string("perf lock contention"));
        mms::ResultSet ps = mms::resultsFromJson(doc, perf.toStdString());
        // The same caller twice (two spinlock rows) is one lock: 2381 + 17 contentions, 41.62 ms + 910 ns.
        const mms::LockSummary* free = lockNamed(ps.results[0], "swapcache_free_entries+0x5d");
        QVERIFY(free);
        QCOMPARE(free->contentions, 2398u);
        QCOMPARE(free->kind, std::string("spinlock"));
        QCOMPARE(mms::toNs(free->waitTotal), 41620910.0);
        QCOMPARE(mms::toNs(free->waitMax), 98220.0);
        QCOMPARE(lockNamed(ps.results[0], "do_madvise+0x9c")->kind, std::string("rwsem:W"));
    }

    void malformed_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        const QString header = "lock_stat version 0.4\n---\n                              class name    con-bounces    "
                               "contentions   waittime-min   waittime-max "
                               "waittime-total   waittime-avg    acq-bounces   acquisitions   holdtime-min   "
                               "holdtime-max holdtime-total   holdtime-avg\n";
        QTest::addRow("lock_stat: not lock_stat")
            << "lockstat"
            << "hello\n"
            << ":1: expected 'lock_stat version 0.4' (the first line of /proc/lock_stat), got 'hello'";
        QTest::addRow("lock_stat: other version") << "lockstat"
                                                  << "lock_stat version 0.9\n"
                                                  << ":1: lock_stat version 0.9: expected version 0.3 or 0.4";
        QTest::addRow("lock_stat: no header") << "lockstat"
                                              << "lock_stat version 0.4\n  a: 1 2 3\n"
                                              << ":2: expected the header line 'class name  con-bounces";
        QTest::addRow("lock_stat: unknown column") << "lockstat"
                                                   << "lock_stat version 0.4\n class name  con-bounces  speed\n"
                                                   << ":2: column 'speed': expected the columns";
        QTest::addRow("lock_stat: too few numbers") << "lockstat" << header + "   &si->lock:  1 2 3\n"
                                                    << ":4: expected a lock class line, 'NAME:' and 12 numbers";
        QTest::addRow("lock_stat: not a number")
            << "lockstat" << header + "   &si->lock:  1 2 0.1 0.2 x 0.3 4 5 0.1 0.2 0.3 0.4\n"
            << ":4: &si->lock: waittime-total: expected a number, got 'x'";
        QTest::addRow("lock_stat: no classes") << "lockstat" << header << ": no lock classes: expected lines such as";
        QTest::addRow("perf: no header") << "perf-lock"
                                         << "  12  1.0 ms  spinlock  foo\n"
                                         << ":1: expected the header of perf lock contention";
        QTest::addRow("perf: empty") << "perf-lock"
                                     << "\n\n"
                                     << ": empty: expected the output of perf lock contention or perf lock report";
        QTest::addRow("perf: bad count") << "perf-lock"
                                         << " contended   total wait     max wait     avg wait         type   caller\n "
                                            " lots  1.00 ms  2.00 us  1.00 us  spinlock  foo\n"
                                         << ":2: expected 'contended' as a number, got 'lots  1.00 ms";
        QTest::addRow("perf: no caller") << "perf-lock"
                                         << " contended   total wait     max wait     avg wait         type   caller\n "
                                            " 3  1.00 ms  2.00 us  1.00 us\n"
                                         << ":2: expected the lock's caller after the numbers";
        QTest::addRow("perf report: bad time")
            << "perf-lock"
            << "  Name   acquired  contended   avg wait (ns)   total wait (ns)\n  &si->lock  10  2  5  ten\n"
            << ":2: expected 'total wait' as a number (of ns, or with a unit: ns, us, ms, s) after the lock's name";
        QTest::addRow("perf: only a header")
            << "perf-lock"
            << " contended   total wait     max wait     avg wait         type   caller\n\n"
            << ": no locks under the header";
    }
    void malformed()
    {
        QFETCH(QString, kind);
        QFETCH(QString, text);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString file = dir.filePath("capture.txt");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.toUtf8());
        f.close();
        Out o = cli({ "import", kind, file });
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("mmscope-cli: " + file + message), qPrintable(o.err));
        QVERIFY(o.out.isEmpty());
    }

    void badCommandLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("no kind") << QStringList { "import" } << "import: expected lockstat or perf-lock, then the FILE";
        QTest::addRow("unknown kind") << QStringList { "import", "ftrace", "x" }
                                      << "import ftrace: expected lockstat (a copy of /proc/lock_stat) or perf-lock";
        QTest::addRow("no file") << QStringList { "import", "lockstat" }
                                 << "import lockstat: expected exactly one FILE";
        QTest::addRow("missing file") << QStringList { "import", "lockstat", "/nonexistent/lock_stat" }
                                      << "/nonexistent/lock_stat: cannot read (No such file or directory)";
        QTest::addRow("a directory") << QStringList { "import", "lockstat", QStringLiteral(MMSCOPE_TEST_DATA) }
                                     << QStringLiteral(MMSCOPE_TEST_DATA) + ": cannot read (a directory; expected a capture file)";
        QTest::addRow("unknown option") << QStringList { "import", "lockstat", capture("lockstat.txt"), "--colour" }
                                        << "--colour: unknown option";
    }
    void badCommandLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        Out o = cli(args);
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains(message), qPrintable(o.err));
    }
};

QTEST_GUILESS_MAIN(TestImport)
#include "tst_import.moc"
