// Shell completion as a user meets it: `mmscope-cli completion bash` sourced into bash, Tab pressed after the words
// (COMP_WORDS, COMP_CWORD as bash sets them), and what the script offers -- commands, options, an option's values,
// scenario ids, a scenario's variants, --set fields and values, kernel releases, and file names where files go.
#include "runcli.h"

#include <QtTest>

#include <QTemporaryDir>

namespace {
// The completions bash offers for `words` (the last one being completed, as bash splits it: --set kernel=4 is
// "--set", "kernel", "=", "4"), run in `dir`.
QStringList tab(const QStringList& words, const QString& dir = QString())
{
    QString script = QStringLiteral("source <(\"$MMSCOPE_CLI\" completion bash) || exit 3\nCOMP_WORDS=(\"$MMSCOPE_CLI\"");
    for (const QString& w : words)
        script += QStringLiteral(" '%1'").arg(w);
    script += QStringLiteral(")\nCOMP_CWORD=%1\n_mmscope_cli\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n").arg(words.size());
    QProcess bash;
    if (!dir.isEmpty())
        bash.setWorkingDirectory(dir);
    bash.start(QStringLiteral("bash"), { QStringLiteral("-c"), script });
    if (!bash.waitForFinished(60'000) || bash.exitCode() != 0)
        return { QStringLiteral("bash failed: ") + QString::fromUtf8(bash.readAllStandardError()) };
    return QString::fromUtf8(bash.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}
} // namespace

class TestComplete : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void commandsAndOptions()
    {
        QCOMPARE(tab({ "re" }), (QStringList { "report", "reproduce" }));
        QVERIFY(tab({ "" }).contains("kernels"));
        QCOMPARE(tab({ "native", "madv-free-swapin", "--no" }), QStringList { "--no-pressure" });
        QCOMPARE(tab({ "help", "kern" }), QStringList { "kernels" });
    }

    void scenariosVariantsAndValues()
    {
        QCOMPARE(tab({ "run", "lru-file" }), (QStringList { "lru-file-mmap-read", "lru-file-readtwice" }));
        QCOMPARE(tab({ "run", "madv-free-swapin", "--variant", "madvfree" }),
            (QStringList { "madvfree", "madvfree-patched" }));
        // The values an option's help lists.
        QCOMPARE(tab({ "native", "madv-free-swapin", "--format", "" }), (QStringList { "text", "markdown" }));
        QCOMPARE(tab({ "import", "" }), (QStringList { "lockstat", "perf-lock" }));
    }

    void setPathsAndValues()
    {
        QCOMPARE(tab({ "run", "madv-free-swapin", "--set", "machine.cp" }), QStringList { "machine.cpus=" });
        QCOMPARE(tab({ "run", "madv-free-swapin", "--set", "swap.slots" }), QStringList { "swap.slots_cache=" });
        // bash splits at '=': the value alone is offered, every value a toggle takes.
        QCOMPARE(tab({ "run", "madv-free-swapin", "--set", "kernel", "=", "6.1" }),
            (QStringList { "6.1", "6.10", "6.11", "6.12" }));
        QCOMPARE(tab({ "run", "madv-free-swapin", "--set", "swap.slots_cache", "=" }),
            (QStringList { "off", "per_cpu", "per_cpu_per_device" }));
        QCOMPARE(tab({ "kernels", "2.6.2" }).size(), 10);
        QCOMPARE(tab({ "toggles", "2.6.2" }).size(), 10);
        // Every value a toggle names, whether or not a kernel rule moves it.
        QCOMPARE(tab({ "run", "madv-free-swapin", "--set", "zswap.compressor", "=" }),
            (QStringList { "lzo", "lzo-rle", "lz4" }));
        QCOMPARE(tab({ "run", "madv-free-swapin", "--set", "thp.en" }), QStringList { "thp.enabled=" });
    }

    // A scenario file, a capture or an output file completes from the directory.
    void filesWhereFilesGo()
    {
        QTemporaryDir dir;
        QFile f(dir.filePath("my-scenario.json"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QCOMPARE(tab({ "run", "my-" }, dir.path()), QStringList { "my-scenario.json" });
        QCOMPARE(tab({ "import", "lockstat", "my" }, dir.path()), QStringList { "my-scenario.json" });
        QCOMPARE(tab({ "run", "madv-free-swapin", "--out", "my" }, dir.path()), QStringList { "my-scenario.json" });
        QVERIFY(tab({ "run", "madv-free-swapin", "--scale", "my" }, dir.path()).isEmpty());
    }

    void onlyBash()
    {
        const mms::test::Out o = mms::test::cli({ "completion", "zsh" });
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("completion: expected the shell: bash"), qPrintable(o.err));
    }
};

QTEST_MAIN(TestComplete)
#include "tst_complete.moc"
