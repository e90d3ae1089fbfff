// mmscope-cli as a user runs it: list, show, run in every format, and bad input with exit code 2 and a message
// that names what was wrong.
#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

namespace {
struct Out {
    int code;
    QString out;
    QString err;
};

Out cli(const QStringList& args)
{
    QProcess p;
    p.start(qEnvironmentVariable("MMSCOPE_CLI"), args);
    if (!p.waitForFinished(240'000))
        return { -1, {}, "timeout" };
    return { p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError()) };
}
} // namespace

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QVERIFY2(!qEnvironmentVariable("MMSCOPE_CLI").isEmpty(), "MMSCOPE_CLI is set by CTest"); }

    void listAndHelp()
    {
        Out o = cli({ "list" });
        QCOMPARE(o.code, 0);
        QVERIFY(o.out.contains("madv-free-swapin"));
        QVERIFY(o.out.contains("seeds/000_7eca900eef2168ee.txt"));
        Out h = cli({ "--help" });
        QCOMPARE(h.code, 0);
        QVERIFY(h.out.contains("mmscope-cli run SCENARIO"));
        QCOMPARE(cli({}).code, 2);
    }

    void showThenRunTheFile()
    {
        Out o = cli({ "show", "madv-free-swapin" });
        QCOMPARE(o.code, 0);
        QJsonDocument doc = QJsonDocument::fromJson(o.out.toUtf8());
        QVERIFY(doc.isObject());
        QCOMPARE(doc.object()["machine"].toObject()["cpus"].toInt(), 12);
        QTemporaryDir dir;
        QString file = dir.filePath("mine.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(o.out.toUtf8());
        f.close();
        Out r = cli({ "run", file, "--variant", "dontneed", "--scale", "0.01", "--format", "csv" });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.startsWith("variant,rep,swapins"), qPrintable(r.out));
        QCOMPARE(r.out.count('\n'), 2);
    }

    void runEveryFormat_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("expect");
        QTest::addRow("text") << "text" << "vs post";
        QTest::addRow("markdown") << "markdown" << "| variant |";
        QTest::addRow("csv") << "csv" << "post_elapsed_s";
        QTest::addRow("json") << "json" << "\"engine_version\"";
        QTest::addRow("mmtests") << "mmtests" << "(  0.00%)";
    }
    void runEveryFormat()
    {
        QFETCH(QString, format);
        QFETCH(QString, expect);
        Out r = cli({ "run", "madv-free-swapin", "--scale", "0.01", "--threads", "2", "--format", format });
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains(expect), qPrintable(r.out));
    }

    void outFileAndJsonShape()
    {
        QTemporaryDir dir;
        QString file = dir.filePath("r.json");
        Out r = cli({ "run", "madv-free-swapin", "--scale", "0.01", "--format", "json", "--out", file, "--set", "loops=2" });
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.isEmpty());
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QJsonObject j = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(j["scenario"].toString(), QString("madv-free-swapin"));
        QCOMPARE(j["results"].toArray().size(), 3);
        QJsonObject first = j["results"].toArray()[0].toObject();
        QCOMPARE(first["variant"].toString(), QString("dontneed"));
        QVERIFY(first["metrics"].toObject().contains("elapsed_s"));
        QVERIFY(first["locks"].toArray().size() > 0);
        QVERIFY(j["host"].toObject().contains("wall_s"));
    }

    void badInput_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::addRow("unknown command") << QStringList { "frobnicate" } << "frobnicate: unknown command";
        QTest::addRow("unknown scenario") << QStringList { "run", "no-such" } << "no-such: no such scenario";
        QTest::addRow("bad set") << QStringList { "run", "madv-free-swapin", "--set", "machine.cpus=zero" }
                                 << "--set machine.cpus=zero: machine.cpus: expected an integer";
        QTest::addRow("set without =") << QStringList { "run", "madv-free-swapin", "--set", "cpus" } << "expected PATH=VALUE";
        QTest::addRow("unknown field") << QStringList { "run", "madv-free-swapin", "--set", "machine.gpu=1" } << "expected a scenario field";
        QTest::addRow("bad format") << QStringList { "run", "madv-free-swapin", "--format", "xml" } << "--format xml: expected text";
        QTest::addRow("bad scale") << QStringList { "run", "madv-free-swapin", "--scale", "0" } << "--scale 0: expected a number";
        QTest::addRow("bad threads") << QStringList { "run", "madv-free-swapin", "--threads", "-2" } << "--threads -2: expected an integer";
        QTest::addRow("unknown variant") << QStringList { "run", "madv-free-swapin", "--variant", "fast" } << "--variant fast: expected one of dontneed";
        QTest::addRow("missing value") << QStringList { "run", "madv-free-swapin", "--reps" } << "--reps: expected a value";
        QTest::addRow("unknown option") << QStringList { "run", "madv-free-swapin", "--colour" } << "--colour: unknown option";
        QTest::addRow("unwritable out") << QStringList { "run", "madv-free-swapin", "--scale", "0.01", "--variant", "dontneed", "--out", "/nonexistent/dir/r.txt" }
                                        << "/nonexistent/dir/r.txt: cannot write";
        QTest::addRow("show two") << QStringList { "show", "a", "b" } << "show: expected exactly one SCENARIO";
    }
    void badInput()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        Out r = cli(args);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void malformedFileNamesTheFile()
    {
        QTemporaryDir dir;
        QString file = dir.filePath("broken.json");
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"id": "x", "machine": {"preset": "generic-12cpu-2015", "cpus": 99999}, "workload": {"kind": "memset-madvise"}, "variants": {"a": {}}})");
        f.close();
        Out r = cli({ "run", file });
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(file + ": machine.cpus: expected an integer in [1, 4096], got 99999"), qPrintable(r.err));
        f.open(QIODevice::WriteOnly);
        f.write("{ not json");
        f.close();
        r = cli({ "show", file });
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(file + ": not valid JSON"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
