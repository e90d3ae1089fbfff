#pragma once
// What the CLI suites share: mmscope-cli (the path CTest puts in MMSCOPE_CLI) run with arguments, its exit code and
// its two streams.

#include <QProcess>
#include <QString>
#include <QStringList>

namespace mms::test {

struct Out {
    int code;
    QString out;
    QString err;
};

// Exit code -1 and "timeout" on stderr when it has not finished after timeoutMs.
inline Out cli(const QStringList& args, int timeoutMs = 240'000)
{
    QProcess p;
    p.start(qEnvironmentVariable("MMSCOPE_CLI"), args);
    if (!p.waitForFinished(timeoutMs))
        return { -1, {}, "timeout" };
    return { p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()), QString::fromUtf8(p.readAllStandardError()) };
}

} // namespace mms::test
