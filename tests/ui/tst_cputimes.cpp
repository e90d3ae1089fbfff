// The CPU times view draws each CPU's /proc/stat line as a column of user (bottom), system and idle in proportion,
// and its title row says the run's time(1) figures.
#include "cputimesview.h"
#include "recordingview.h"

#include <QtTest>

using namespace mms;

namespace {
RunResult fourCpus()
{
    RunResult r;
    r.variant = std::string("v");
    r.metrics = { { "user_s", 1.5 }, { "sys_s", 0.25 }, { "elapsed_s", 1.0 }, { "kthread_sys_s", 0.004 },
        { "cpu_busy_max", 1.0 }, { "cpu_busy_mean", 0.6875 } };
    r.cpus = { { 0, 0.5, 0.25, 0.25 }, { 1, 0.0, 0.0, 1.0 }, { 2, 1.0, 0.0, 0.0 }, { 3, 0.0, 1.0, 0.0 } };
    return r;
}

QRgb rgb(const QColor& c) { return c.rgb() & 0xffffff; }
} // namespace

class TestCpuTimes : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // (cpu, height from the column's bottom as a fraction, the colour expected there: 0 user, 1 system, 2 idle)
    void columnsFollowTheCpuLines_data()
    {
        QTest::addColumn<int>("cpu");
        QTest::addColumn<double>("at");
        QTest::addColumn<int>("kind");
        QTest::addRow("cpu 0 user") << 0 << 0.25 << 0;
        QTest::addRow("cpu 0 system") << 0 << 0.62 << 1;
        QTest::addRow("cpu 0 idle") << 0 << 0.9 << 2;
        QTest::addRow("cpu 1 idle") << 1 << 0.5 << 2;
        QTest::addRow("cpu 2 user") << 2 << 0.95 << 0;
        QTest::addRow("cpu 3 system") << 3 << 0.05 << 1;
    }
    void columnsFollowTheCpuLines()
    {
        QFETCH(int, cpu);
        QFETCH(double, at);
        QFETCH(int, kind);
        CpuTimesView v;
        v.resize(400, 240);
        v.setRun(fourCpus(), QStringLiteral("v"));
        const QImage shot = v.grab().toImage();
        const QRect col = v.columnRect(cpu);
        QVERIFY(!col.isEmpty());
        const QPoint p(col.center().x(), col.bottom() - int(at * col.height()));
        const QRgb got = shot.pixel(p * shot.devicePixelRatio()) & 0xffffff;
        const QRgb user = rgb(CpuTimesView::userColour()), sys = rgb(CpuTimesView::sysColour());
        if (kind == 0)
            QCOMPARE(got, user);
        else if (kind == 1)
            QCOMPARE(got, sys);
        else
            QVERIFY(got != user && got != sys);
    }

    void titleSaysTheRunsTimes()
    {
        CpuTimesView v;
        QVERIFY(v.summary().isEmpty());
        v.setRun(fourCpus(), QStringLiteral("v"));
        const QString s = v.summary();
        QVERIFY2(s.contains(formatTime(ns(1.5e9))) && s.contains(formatTime(ns(0.25e9))) && s.contains(formatTime(ns(1e9)))
                     && s.contains(formatTime(ns(4e6))),
                 qPrintable(s));
        QCOMPARE(v.cpus().size(), std::size_t(4));
        v.clear();
        QVERIFY(v.cpus().empty());
        QVERIFY(v.columnRect(0).isEmpty());
    }
};

QTEST_MAIN(TestCpuTimes)
#include "tst_cputimes.moc"
