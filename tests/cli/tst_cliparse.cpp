// mmscope-cli's command line on CLI11: every --set applied together before the scenario is checked, each command's
// help and the man page written from the same definitions, `--opt=value`, and the messages of a bad line.
#include "runcli.h"

#include <QtTest>

#include <QProcess>

namespace {
using mms::test::cli;
using mms::test::Out;

QStringList commands() { return { "list", "show", "run", "report", "merge", "reproduce", "import", "native", "help" }; }
} // namespace

class TestCliParse : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariable("MMSCOPE_CLI").isEmpty(), "MMSCOPE_CLI is set by CTest"); }

    // One CPU on one socket is a valid machine, though neither value is valid alone on the scenario's two sockets;
    // in either order.
    void setsAppliedTogether_data()
    {
        QTest::addColumn<QStringList>("sets");
        QTest::addRow("cpus first") << QStringList { "--set", "machine.cpus=1", "--set", "machine.sockets=1" };
        QTest::addRow("sockets first") << QStringList { "--set", "machine.sockets=1", "--set", "machine.cpus=1" };
    }
    void setsAppliedTogether()
    {
        QFETCH(QStringList, sets);
        Out alone = cli(
            { "run", "lru-file-readtwice", "--scale", "0.01", "--variant", "mainline", "--set", "machine.cpus=1" });
        QCOMPARE(alone.code, 2);
        QVERIFY2(alone.err.contains("machine.cpus"), qPrintable(alone.err));
        Out o = cli(
            QStringList { "run", "lru-file-readtwice", "--scale", "0.01", "--variant", "mainline", "--format", "csv" }
            + sets);
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QVERIFY(o.out.startsWith("variant,"));
    }

    // `mmscope-cli CMD --help`: the command's synopsis, description and every option it takes, then all commands.
    void commandHelp_data()
    {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("options");
        QTest::addRow("run") << "run"
                             << QStringList { "--variant NAME", "--set PATH=VALUE", "--scale F", "--shard K/N",
                                    "--max-events N", "--check-invariants" };
        QTest::addRow("report") << "report" << QStringList { "--out FILE" };
        QTest::addRow("merge") << "merge" << QStringList { "--format FMT", "--out FILE" };
        QTest::addRow("reproduce") << "reproduce" << QStringList { "--scale F", "--threads N" };
        QTest::addRow("import") << "import" << QStringList { "--out F.json", "--name NAME" };
        QTest::addRow("native") << "native"
                                << QStringList { "--variant NAME", "--scale F", "--reps N", "--no-pressure" };
    }
    void commandHelp()
    {
        QFETCH(QString, command);
        QFETCH(QStringList, options);
        for (const QStringList& args : { QStringList { command, "--help" }, QStringList { "help", command } }) {
            Out o = cli(args);
            QCOMPARE(o.code, 0);
            QVERIFY2(o.out.startsWith("usage: mmscope-cli " + command + " "), qPrintable(o.out));
            for (const QString& opt : options)
                QVERIFY2(o.out.contains("\n  " + opt), qPrintable(command + ": " + opt + "\n" + o.out));
            for (const QString& c : commands())
                QVERIFY2(o.out.contains("\n  mmscope-cli " + c), qPrintable(c));
        }
    }

    void manPage()
    {
        Out o = cli({ "help", "--man" });
        QCOMPARE(o.code, 0);
        QVERIFY(o.out.contains(".TH MMSCOPE\\-CLI 1 "));
        for (const QString& c : commands())
            QVERIFY2(o.out.contains(".SY mmscope\\-cli\n.B " + c + "\n"), qPrintable(c));
        QVERIFY(o.out.contains(".BI \"\\-\\-max\\-events \" N"));
        QVERIFY(o.out.contains(".B \\-\\-no\\-pressure"));
        // Every built-in scenario, from the same list as `list`.
        Out list = cli({ "list" });
        for (const QString& line : list.out.split('\n'))
            if (!line.isEmpty() && !line.startsWith(' '))
                QVERIFY2(o.out.contains(".B " + line.section(' ', 0, 0).replace("-", "\\-") + "\n"), qPrintable(line));
        QVERIFY(o.out.contains(".SH EXIT STATUS"));
    }

    void equalsSyntax()
    {
        Out o
            = cli({ "run", "madv-free-swapin", "--scale=0.01", "--variant=dontneed", "--set=loops=1", "--format=csv" });
        QVERIFY2(o.code == 0, qPrintable(o.err));
        QCOMPARE(o.out.count('\n'), 2);
    }

    void badLine_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("no command") << QStringList { "--scale", "1" }
                                    << "--scale: unknown option (see mmscope-cli --help)";
        QTest::addRow("unknown command names all")
            << QStringList { "frob" }
            << "frob: unknown command; expected list, show, run, report, merge, reproduce, import, native, kernels, "
               "toggles, presets, completion or help";
        QTest::addRow("two scenarios") << QStringList { "run", "a", "b" }
                                       << "b: unexpected argument; one SCENARIO only";
        QTest::addRow("no scenario") << QStringList { "run", "--scale", "0.1" } << "expected a SCENARIO";
        QTest::addRow("list takes nothing") << QStringList { "list", "x" } << "list: x: unexpected argument";
        QTest::addRow("help of nothing") << QStringList { "help", "frob" } << "help frob: unknown command";
        QTest::addRow("merge option") << QStringList { "merge", "a.json", "--scale", "1" }
                                      << "--scale: unknown option (see mmscope-cli merge --help)";
        QTest::addRow("value missing at the end")
            << QStringList { "merge", "a.json", "--out" } << "--out: expected a value after it";
    }
    void badLine()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        Out o = cli(args);
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("mmscope-cli: " + message), qPrintable(o.err));
        QVERIFY(o.out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCliParse)
#include "tst_cliparse.moc"
