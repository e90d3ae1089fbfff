// mmscope-cli as a user runs it: list, show, run in every format, and bad input with exit code 2 and a message
// that names what was wrong.
#include "runcli.h"

#include <QtTest>

#include <QJsonDocument>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QProcess>
#include <QTemporaryDir>

#include "../reduced.h"

#include <csignal>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {
QByteArray readAll(const QString& file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray withoutHost(const QByteArray& json)
{
    QJsonObject o = QJsonDocument::fromJson(json).object();
    o.remove("host");
    return QJsonDocument(o).toJson();
}

using mms::test::cli;
using mms::test::Out;
} // namespace

using mms::test::reduced;

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
        for (const char* cmd : { "run", "reproduce", "merge" }) { // a command's --help: the usage, not an error
            Out c = cli({ cmd, "--help" });
            QCOMPARE(c.code, 0);
            QVERIFY2(c.out.contains("mmscope-cli reproduce"), cmd);
        }
        QCOMPARE(cli({}).code, 2);
    }

    // `toggles VERSION`: every toggle with its value in that release, what it takes and the releases that change it;
    // a toggle the list names is one --set takes.
    void togglesListEachToggleInARelease()
    {
        auto rowOf = [](const QString& out, const QString& name) {
            for (const QString& line : out.split(QLatin1Char('\n')))
                if (line.simplified().startsWith(name + QLatin1Char(' ')))
                    return line.simplified();
            return QString();
        };
        Out old = cli({ "toggles", "2.6.20" }), later = cli({ "toggles", "5.6" });
        QCOMPARE(old.code, 0);
        QCOMPARE(later.code, 0);
        QCOMPARE(rowOf(old.out, "lock.spinlock"),
            QString("lock.spinlock byte one of byte|ticket|queued 2.6.25 ticket, 4.2 queued"));
        QVERIFY(rowOf(later.out, "lock.spinlock").startsWith("lock.spinlock queued "));
        QCOMPARE(rowOf(later.out, "zswap.compressor"), QString("zswap.compressor lzo one of lzo|lzo-rle|lz4"));
        QVERIFY(rowOf(later.out, "lru.pagevec_size").contains("an integer in [1, 512]"));
        QVERIFY(cli({ "toggles" }).out.contains("their values in 6.12"));
        Out set = cli({ "run", "madv-free-swapin", "--scale", "0.01", "--variant", "dontneed", "--set",
            "zswap.compressor=lz4", "--format", "csv" });
        QCOMPARE(set.code, 0);
    }

    // report: a run's tables and charts in the format of --out's extension (where the build has the UI library).
    void reportWritesTheRun()
    {
        QTemporaryDir dir;
        const QString html = dir.filePath("r.html");
        Out o = cli({ "report", "swap-free-sort", "--scale", "0.01", "--variant", "unsorted", "--variant", "sorted",
            "--out", html });
#ifdef MMSCOPE_HAVE_UI
        QVERIFY2(o.code == 0, qPrintable(o.err));
        const QByteArray page = readAll(html);
        QVERIFY(page.contains("<h1>Sort swap entries by device before freeing them</h1>"));
        QVERIFY(page.contains("<table") && page.contains("data:image"));
        // A file name it cannot write is refused before the run (no scenario warning yet), not after it.
        Out bad = cli({ "report", "swap-free-sort", "--scale", "0.01", "--out", dir.filePath("r.doc") });
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("expected a .html or .pdf file name"), qPrintable(bad.err));
        QVERIFY2(!bad.err.contains("faithful scale"), qPrintable(bad.err));
#else
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("no desktop UI library"), qPrintable(o.err));
        QVERIFY2(!o.err.contains("faithful scale"), qPrintable(o.err));
#endif
    }

    // `presets`: every machine preset and swap device a scenario may name.
    void presetsListWhatAScenarioMayName()
    {
        Out o = cli({ "presets" });
        QCOMPARE(o.code, 0);
        QStringList names;
        auto it = QRegularExpression("^  ([a-z0-9-]+) +[0-9]+ CPUs in", QRegularExpression::MultilineOption)
                      .globalMatch(o.out);
        while (it.hasNext())
            names << it.next().captured(1);
        QCOMPARE(names.size(), 7);
        QVERIFY(names.contains("quad-core-2007"));
        QVERIFY(names.contains("opteron-8x2-2007"));
        QVERIFY2(o.out.contains(QRegularExpression("\\n  zram +in RAM")), qPrintable(o.out));
        // Each is a machine.preset a scenario file takes.
        QTemporaryDir dir;
        for (const QString& n : names) {
            QJsonObject doc = QJsonDocument::fromJson(cli({ "show", "ebizzy" }).out.toUtf8()).object();
            doc["machine"] = QJsonObject { { "preset", n } };
            QFile f(dir.filePath(n + ".json"));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QJsonDocument(doc).toJson());
            f.close();
            Out shown = cli({ "show", f.fileName() });
            QVERIFY2(shown.code == 0, qPrintable(n + ": " + shown.err));
        }
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

    // Each variant's ratio to the baseline (the first variant) beside the post's: a table in markdown and text,
    // a `ratio` per result in JSON.
    void ratiosInMarkdownAndJson()
    {
        const QStringList run { "run", "madv-free-swapin", "--scale", "0.01", "--threads", "2", "--set", "loops=2" };
        Out md = cli(run + QStringList { "--format", "markdown" });
        QCOMPARE(md.code, 0);
        QVERIFY2(md.out.contains("ratio to dontneed (variant / dontneed), beside the post's same ratio:"), qPrintable(md.out));
        QVERIFY2(md.out.contains("| variant | swapins ratio | post | vs post | user_s ratio | post | vs post |"), qPrintable(md.out));
        // The post's elapsed-time ratio of madvfree, 90.67 / 50.44, beside the simulated one and the
        // distance; scaled absolute figures are labelled and get no absolute "vs post".
        QVERIFY2(md.out.contains(QRegularExpression("\\| madvfree \\|.*\\| [0-9.]+ \\| 1\\.798 \\| [-+][0-9.]+% \\|")), qPrintable(md.out));
        QVERIFY2(md.out.contains("| variant | swapins (scaled) | post | user_s (scaled) | post |"), qPrintable(md.out));

        Out js = cli(run + QStringList { "--format", "json" });
        QCOMPARE(js.code, 0);
        QJsonObject j = QJsonDocument::fromJson(js.out.toUtf8()).object();
        QCOMPARE(j["baseline"].toString(), QString("dontneed"));
        QJsonArray results = j["results"].toArray();
        QCOMPARE(results.size(), 3);
        double baseElapsed = results[0].toObject()["metrics"].toObject()["elapsed_s"].toDouble();
        for (const QJsonValue& v : results) {
            QJsonObject r = v.toObject();
            QJsonObject ratio = r["ratio"].toObject();
            QVERIFY2(ratio.contains("elapsed_s") && ratio.contains("swapouts"), qPrintable(r["variant"].toString()));
            QCOMPARE(ratio["elapsed_s"].toDouble(), r["metrics"].toObject()["elapsed_s"].toDouble() / baseElapsed);
        }
        QCOMPARE(results[0].toObject()["ratio"].toObject()["elapsed_s"].toDouble(), 1.0);
    }

    // Without --scale, `run` takes the scenario's faithful scale (`show` prints it); below it, a warning.
    void defaultScaleIsTheFaithfulScale()
    {
        Out show = cli({ "show", "madv-free-tlb-batch" });
        double faithful = QJsonDocument::fromJson(show.out.toUtf8()).object()["faithful_scale"].toDouble();
        QVERIFY2(faithful > 0 && faithful < 1, qPrintable(show.out));
        const QStringList run { "run", "madv-free-tlb-batch", "--variant", "vanilla", "--variant", "glibc", "--set", "threads=1", "--format", "json" };
        Out r = cli(run);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(QJsonDocument::fromJson(r.out.toUtf8()).object()["scale"].toDouble(), faithful);
        QVERIFY2(!r.err.contains("warning"), qPrintable(r.err));
        Out below = cli(run + QStringList { "--scale", QString::number(faithful / 2) });
        QCOMPARE(below.code, 0);
        QVERIFY2(below.err.contains(QString("warning: madv-free-tlb-batch at --scale %1, below its faithful scale %2: its ratios may be more than 10 % from those at scale 1")
                                        .arg(faithful / 2).arg(faithful)),
            qPrintable(below.err));
        Out text = cli(QStringList { "run", "madv-free-tlb-batch", "--variant", "vanilla", "--set", "threads=1" });
        QVERIFY2(text.out.contains(QString("scale %1 (faithful from %1)").arg(faithful)), qPrintable(text.out));
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

    void outToAFifoKeepsTheFifo()
    {
        // `--out /dev/null` as root once replaced /dev/null with a regular file (write a temporary, rename over
        // the target). A FIFO stands in for the device here: the output must go through it, and it must stay one.
        // The read end is open (non-blocking) before the CLI starts, so its write end opens at once and the small
        // CSV waits in the pipe; without the fix nothing arrives and the test fails instead of hanging.
        QTemporaryDir dir;
        std::string fifo = dir.filePath("out").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
        QVERIFY(fd >= 0);
        Out r = cli({ "run", "madv-free-swapin", "--scale", "0.01", "--variant", "dontneed", "--format", "csv", "--out",
            QString::fromStdString(fifo), "--set", "loops=2" });
        std::string got;
        char buf[4096];
        for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;)
            got.append(buf, static_cast<std::size_t>(n));
        ::close(fd);
        QCOMPARE(r.code, 0);
        QVERIFY2(got.rfind("variant,rep,", 0) == 0, got.c_str());
        QVERIFY(std::filesystem::is_fifo(fifo));
        QVERIFY(!std::filesystem::exists(fifo + ".tmp"));
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
        QTest::addRow("scale below the smallest") << QStringList { "run", "madv-free-swapin", "--scale", "0.0005" }
                                                  << "--scale 0.0005: expected a number in [0.001, 4]";
        QTest::addRow("bad threads") << QStringList { "run", "madv-free-swapin", "--threads", "-2" } << "--threads -2: expected an integer";
        QTest::addRow("unknown variant") << QStringList { "run", "madv-free-swapin", "--variant", "fast" } << "--variant fast: expected one of dontneed";
        QTest::addRow("missing value") << QStringList { "run", "madv-free-swapin", "--reps" } << "--reps: expected a value";
        QTest::addRow("unknown option") << QStringList { "run", "madv-free-swapin", "--colour" } << "--colour: unknown option";
        QTest::addRow("unwritable out") << QStringList { "run", "madv-free-swapin", "--scale", "0.01", "--variant", "dontneed", "--out", "/nonexistent/dir/r.txt" }
                                        << "/nonexistent/dir/r.txt: cannot write";
        QTest::addRow("show two") << QStringList { "show", "a", "b" } << "show: expected exactly one SCENARIO";
        QTest::addRow("toggles of no release") << QStringList { "toggles", "2.4" }
                                               << "toggles 2.4: expected a release from 2.6.20 to 6.12";
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

    // Shards run separately and merged give the unsharded result byte for byte, outside `host`: the JSON, and the
    // text table (which has no host field at all). Six runs in four uneven shards; a sweep scenario in two.
    void shardThenMergeEqualsUnsharded_data()
    {
        QTest::addColumn<QStringList>("runArgs");
        QTest::addColumn<int>("shards");
        QTest::addRow("madv-free-swapin, 6 runs in 4") << QStringList { "madv-free-swapin", "--scale", "0.01", "--reps", "2", "--set", "loops=2" } << 4;
        QTest::addRow("swap-free-sort sweep in 2") << QStringList { "swap-free-sort", "--scale", "0.01", "--set", "swap.devices=2" } << 2;
    }
    void shardThenMergeEqualsUnsharded()
    {
        QFETCH(QStringList, runArgs);
        QFETCH(int, shards);
        QTemporaryDir dir;
        Out whole = cli(QStringList { "run" } + runArgs + QStringList { "--format", "json", "--threads", "2" });
        QCOMPARE(whole.code, 0);
        Out wholeText = cli(QStringList { "run" } + runArgs + QStringList { "--format", "text", "--threads", "1" });
        QCOMPARE(wholeText.code, 0);
        QStringList files;
        for (int k = shards; k >= 1; --k) { // any order
            QString f = dir.filePath(QString("part%1.json").arg(k));
            Out s = cli(QStringList { "run" } + runArgs + QStringList { "--shard", QString("%1/%2").arg(k).arg(shards), "--out", f, "--threads", "1" });
            QVERIFY2(s.code == 0, qPrintable(s.err));
            QJsonObject j = QJsonDocument::fromJson(readAll(f)).object();
            QCOMPARE(j["shard"].toObject()["index"].toInt(), k);
            QVERIFY(j.contains("scenario_doc"));
            files << f;
        }
        Out merged = cli(QStringList { "merge" } + files + QStringList { "--format", "json" });
        QVERIFY2(merged.code == 0, qPrintable(merged.err));
        QVERIFY(!merged.out.contains("\"shard\""));
        QCOMPARE(withoutHost(merged.out.toUtf8()), withoutHost(whole.out.toUtf8()));
        Out mergedText = cli(QStringList { "merge" } + files);
        QCOMPARE(mergedText.code, 0);
        QCOMPARE(mergedText.out, wholeText.out);
    }

    void mergeRefusesWhatDoesNotBelong()
    {
        QTemporaryDir dir;
        auto shard = [&](const QString& name, const QString& k, QStringList extra = {}) {
            QString f = dir.filePath(name);
            Out o = cli(QStringList { "run", "madv-free-swapin", "--scale", "0.01", "--set", "loops=2", "--shard", k, "--out", f } + extra);
            return o.code == 0 ? f : QString();
        };
        QString a = shard("a.json", "1/2"), b = shard("b.json", "2/2"), c = shard("c.json", "2/2", { "--seed", "9" });
        QString d = shard("d.json", "1/3");
        QVERIFY(!a.isEmpty() && !b.isEmpty() && !c.isEmpty() && !d.isEmpty());
        auto refused = [&](const QStringList& files, const QString& message) {
            Out o = cli(QStringList { "merge" } + files);
            QCOMPARE(o.code, 2);
            QVERIFY2(o.err.contains(message), qPrintable(o.err));
            QVERIFY(o.out.isEmpty());
        };
        refused({ a }, "missing shard 2 of 2");
        refused({ a, a }, "shard 1/2 is also given as");
        refused({ a, c }, c + ": seed 9, expected 1 as in " + a);
        refused({ a, d }, d + ": shard count 3, expected 2");
        refused({ a, dir.filePath("none.json") }, dir.filePath("none.json") + ": cannot read (No such file or directory)");
        // A result without shard information, and a file that is not JSON.
        QString plain = dir.filePath("plain.json");
        QCOMPARE(cli({ "run", "madv-free-swapin", "--scale", "0.01", "--variant", "dontneed", "--format", "json", "--out", plain }).code, 0);
        refused({ plain }, plain + ": shard: expected {\"index\": K");
        QFile junk(dir.filePath("junk.json"));
        QVERIFY(junk.open(QIODevice::WriteOnly));
        junk.write("{\"shard\": ");
        junk.close();
        refused({ junk.fileName() }, junk.fileName() + ": not valid JSON");
        refused({}, "merge: expected the shard files");
        // A tampered shard: one run's rep changed.
        QByteArray tampered = readAll(b);
        QVERIFY(tampered.contains("\"rep\": 0"));
        tampered.replace(tampered.indexOf("\"rep\": 0"), 8, "\"rep\": 7");
        QFile t(dir.filePath("t.json"));
        QVERIFY(t.open(QIODevice::WriteOnly));
        t.write(tampered);
        t.close();
        refused({ a, t.fileName() }, t.fileName() + ": results[0]: expected run");
        // A shard edited by hand: a field of another type is named, not an internal error.
        QByteArray retyped = readAll(b);
        QVERIFY(retyped.contains("\"acquisitions\": "));
        retyped.insert(retyped.indexOf("\"acquisitions\": ") + 16, "\"many\", \"was\": ");
        QFile u(dir.filePath("u.json"));
        QVERIFY(u.open(QIODevice::WriteOnly));
        u.write(retyped);
        u.close();
        refused({ a, u.fileName() }, u.fileName() + ": results[0].locks[0].acquisitions: expected a count");
        // --shard itself
        Out bad = cli({ "run", "madv-free-swapin", "--shard", "3/2" });
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("--shard 3/2: K 3: expected an integer in [1, 2]"), qPrintable(bad.err));
        bad = cli({ "run", "madv-free-swapin", "--shard", "1/2", "--format", "csv" });
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("--shard: writes JSON"), qPrintable(bad.err));
    }

    // reproduce runs every built-in scenario, whatever the list holds, and reports the distance and wall time.
    void reproduceRunsEveryScenario()
    {
        Out list = cli({ "list" });
        QCOMPARE(list.code, 0);
        QStringList ids;
        for (const QString& line : list.out.split('\n'))
            if (!line.isEmpty() && !line.startsWith(' '))
                ids << line.section(' ', 0, 0);
        QVERIFY(ids.size() >= 4);
        // 0.05 keeps the run short with every scenario past its warm-up (lru-file-* finish at 0.01 too since
        // page_alloc sizes the per-cpu lists to the zone: tst_mmapread smallScalesFinish).
        // Reduced (sanitizers): 0.01, the smallest scale every built-in scenario finishes at (tst_mmapread
        // smallScalesFinish); the assertions below do not depend on the scale.
        const QString scale = reduced() ? QStringLiteral("0.01") : QStringLiteral("0.05");
        Out r = cli({ "reproduce", "--scale", scale, "--threads", "2" }, 480'000);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        for (const QString& id : ids) {
            QVERIFY2(r.out.contains(id + ": "), qPrintable(id));
            QVERIFY2(r.out.contains(QRegularExpression("\n" + QRegularExpression::escape(id) + " +[0-9]+ +[0-9.]+ ")), qPrintable(id));
        }
        QCOMPARE(r.out.count("wall time: "), ids.size() + 1);
        QVERIFY(r.out.contains("distance to the post: "));
        QVERIFY(r.out.contains(QString("total wall time: ")));
        QVERIFY(r.out.contains(QString("for %1 scenarios\n").arg(ids.size())));
        Out bad = cli({ "reproduce", "--scale", "9" });
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains("--scale 9: expected a number"));
    }

    // A scenario that cannot fit in the host's memory is refused before anything is allocated, with the estimate.
    void refusesWhatDoesNotFit()
    {
        Out r = cli({ "run", "madv-free-swapin", "--set", "machine.memory=1TiB", "--set", "machine.swap=[]", "--reps", "30",
            "--threads", "64", "--memory-budget", "1TiB", "--scale", "1" });
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(QRegularExpression("madv-free-swapin: needs about [0-9.]+ GiB of host memory \\(64 concurrent runs x [0-9.]+ GiB for 268435456 simulated pages")), qPrintable(r.err));
        QVERIFY2(r.err.contains("but the host has"), qPrintable(r.err));
        // Past what a PTE encodes: refused by the engine's limits, whatever the host has.
        Out big = cli({ "run", "madv-free-swapin", "--set", "machine.memory=1TiB", "--scale", "2" });
        QCOMPARE(big.code, 2);
        QVERIFY2(big.err.contains("machine.memory: 2TiB at scale 2: expected at most 1TiB"), qPrintable(big.err));
    }

    // SIGINT during a run: exit 130, nothing written, no temporary file left.
    void interruptWritesNothing()
    {
        QTemporaryDir dir;
        QString file = dir.filePath("r.json");
        QProcess p;
        p.start(qEnvironmentVariable("MMSCOPE_CLI"), { "run", "madv-free-swapin", "--scale", "0.5", "--format", "json", "--out", file });
        QVERIFY(p.waitForStarted());
        QTest::qWait(1500);
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(60'000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 130);
        QVERIFY(QString::fromUtf8(p.readAllStandardError()).contains("interrupted: no results written"));
        QVERIFY(QDir(dir.path()).entryList(QDir::Files).isEmpty());
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
