// mmscope: the desktop app. `--screenshot FILE` runs the scenario, moves the time cursor to --at and writes the
// main window to FILE, for docs, tests and reviews.
#include "enginecontroller.h"
#include "mainwindow.h"
#include "nativerunview.h"
#include "pagemapview.h"
#include "run/recording.h"
#include "scenario/scale.h"
#include "scenariobrowser.h"
#include "sourcepostview.h"
#include "transportbar.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QScreen>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

namespace {
    // mmscope's options, read from the command line.
    struct CommandLine {
        QCommandLineOption scenario { QStringLiteral("scenario"), QStringLiteral("Scenario id or file (default madv-free-swapin)."), QStringLiteral("ID"), QStringLiteral("madv-free-swapin") };
        QCommandLineOption variant { QStringLiteral("variant"), QStringLiteral("Variant shown in the main views (default: the one farthest from the baseline, at the sweep point where the variants differ most)."), QStringLiteral("V") };
        QCommandLineOption at { QStringLiteral("at"), QStringLiteral("Time cursor as a fraction of the run (0..1; default: the shown run's first event of interest)."), QStringLiteral("FRACTION") };
        QCommandLineOption scale { QStringLiteral("scale"), QStringLiteral("Scale of memory and work (default: the scenario's faithful scale)."), QStringLiteral("F") };
        QCommandLineOption screenshot { QStringLiteral("screenshot"), QStringLiteral("Write the main window to FILE (PNG) after the run and exit."), QStringLiteral("FILE") };
        QCommandLineOption raise { QStringLiteral("raise"), QStringLiteral("Bring these docks to the front (comma-separated: scenario, parameters, kernel, results, chart, compare, native, cpus, locks, counters)."), QStringLiteral("DOCKS") };
        QCommandLineOption dark { QStringLiteral("dark"), QStringLiteral("Use the dark palette.") };
        QCommandLineOption hover { QStringLiteral("hover"), QStringLiteral("With --screenshot: show the page map's tooltip for page PFN and capture the whole screen."), QStringLiteral("PFN") };
        QCommandLineOption size { QStringLiteral("size"), QStringLiteral("With --screenshot: the window's size (default 1600x1000)."), QStringLiteral("WxH") };
        QCommandLineOption capture { QStringLiteral("capture"), QStringLiteral("Open a lock capture from a real kernel (a file written by mmscope-cli import) beside the run's locks."), QStringLiteral("FILE") };
        QCommandLineOption during { QStringLiteral("shots-during"), QStringLiteral("With --screenshot: also write the window at these host times after Run, in milliseconds (comma-separated), while the run animates: FILE's name with -<MS>ms before its extension. Standard error says when the first live frame came."), QStringLiteral("MS,...") };
        QCommandLineOption native { QStringLiteral("native"), QStringLiteral("After the simulated run, run the workload natively on this machine (the Native run dock): MODE pressure (in a memory cgroup with swap, as the scenario needs) or no-pressure. With --screenshot the shot waits for it."), QStringLiteral("MODE") };
        QCommandLineOption post { QStringLiteral("post"), QStringLiteral("Open the scenario's source post (with --screenshot: capture the whole screen).") };
        QCommandLineParser parser;
        QCommandLineOption help = parser.addHelpOption();
        QCommandLineOption version = parser.addVersionOption();

        CommandLine()
        {
            parser.setApplicationDescription(QStringLiteral("A desktop laboratory for Linux memory-management performance"));
            parser.addOptions({ scenario, variant, at, scale, screenshot, raise, dark, hover, size, post, capture, native, during });
        }
        bool isSet(const QCommandLineOption& o) const { return parser.isSet(o); }
        QString value(const QCommandLineOption& o) const { return parser.value(o); }
    };

    // Writes the window (or, for a tooltip or the source post's window, the whole screen) to FILE as PNG and ends
    // the app: exit status 0 when it was written, else 1 with a message.
    void saveScreenshot(mms::MainWindow& w, const QString& file, bool wholeScreen)
    {
        const bool ok = (wholeScreen ? w.screen()->grabWindow(0) : w.grab()).save(file, "PNG");
        if (!ok)
            std::fprintf(stderr, "mmscope: cannot write %s\n", qPrintable(file));
        QApplication::exit(ok ? 0 : 1);
    }

    // After the run: the source post's window in front, or the page map's tooltip for --hover, then the screenshot
    // once they are painted.
    void takeScreenshot(mms::MainWindow& w, const CommandLine& cli)
    {
        const QString file = cli.value(cli.screenshot);
        if (cli.isSet(cli.post)) {
            if (auto* view = w.findChild<mms::SourcePostView*>()) {
                view->move(w.width() / 4, w.height() / 8);
                view->raise();
            }
            QTimer::singleShot(500, &w, [&w, file] { saveScreenshot(w, file, true); });
            return;
        }
        if (cli.isSet(cli.hover)) {
            const QPoint at = w.pageMap()->cellCentre(cli.value(cli.hover).toUInt());
            QHelpEvent help(QEvent::ToolTip, at, w.pageMap()->mapToGlobal(at));
            QApplication::sendEvent(w.pageMap(), &help);
            QTimer::singleShot(500, &w, [&w, file] { saveScreenshot(w, file, true); });
            return;
        }
        saveScreenshot(w, file, false);
    }

    // --scale, --at and --size: false, with a message, when one is not what it expects.
    bool readScale(mms::MainWindow& w, const CommandLine& cli)
    {
        if (!cli.isSet(cli.scale))
            return true;
        bool ok = false;
        const double s = cli.value(cli.scale).toDouble(&ok);
        if (!ok || !mms::scaleInRange(s)) {
            std::fprintf(stderr, "mmscope: %s\n", mms::scaleOutOfRange(cli.value(cli.scale).toStdString()).c_str());
            return false;
        }
        w.setScale(s);
        return true;
    }

    // The time cursor's fraction of the run, -1 when not given (the first view chooses).
    std::optional<double> readFraction(const CommandLine& cli)
    {
        if (!cli.isSet(cli.at))
            return -1.0;
        bool ok = false;
        const double fraction = cli.value(cli.at).toDouble(&ok);
        if (!ok || fraction < 0 || fraction > 1) {
            std::fprintf(stderr, "mmscope: --at: expected a fraction in [0, 1], got %s\n", qPrintable(cli.value(cli.at)));
            return std::nullopt;
        }
        return fraction;
    }

    std::optional<QSize> readShotSize(const CommandLine& cli)
    {
        if (!cli.isSet(cli.size))
            return QSize(1600, 1000);
        const QStringList wh = cli.value(cli.size).split(QLatin1Char('x'));
        const int sw = wh.value(0).toInt(), sh = wh.value(1).toInt();
        if (wh.size() != 2 || sw < 200 || sh < 200) {
            std::fprintf(stderr, "mmscope: --size: expected WIDTHxHEIGHT such as 1280x800, got %s\n", qPrintable(cli.value(cli.size)));
            return std::nullopt;
        }
        return QSize(sw, sh);
    }

    // --native: false, with a message, when MODE is neither pressure nor no-pressure.
    bool readNative(mms::MainWindow& w, const CommandLine& cli)
    {
        if (!cli.isSet(cli.native))
            return true;
        const QString mode = cli.value(cli.native);
        if (mode != QLatin1String("pressure") && mode != QLatin1String("no-pressure")) {
            std::fprintf(stderr, "mmscope: --native: expected pressure or no-pressure, got %s\n", qPrintable(mode));
            return false;
        }
        w.nativeRun()->setNoPressure(mode == QLatin1String("no-pressure"));
        return true;
    }

    // After the simulated run, the native one of --native; the screenshot follows it (a refusal or failure is in the
    // dock and on standard error, and still shot).
    void followNative(mms::MainWindow& w, const CommandLine& cli)
    {
        auto* native = w.nativeRun();
        QObject::connect(native, &mms::NativeRunView::finished, &w, [&w, &cli, native](bool ok) {
            if (!ok)
                std::fprintf(stderr, "mmscope: native run: %s\n", qPrintable(native->error()));
            if (cli.isSet(cli.screenshot))
                QTimer::singleShot(300, &w, [&w, &cli] { takeScreenshot(w, cli); });
        });
        w.runNatively();
        if (!native->running() && cli.isSet(cli.screenshot))
            QApplication::exit(1);
    }

    // --shots-during: the window at each of these host times after Run, and the time the first live frame came. False,
    // with a message, when a time is not a number of milliseconds.
    bool shootDuringRun(mms::MainWindow& w, const CommandLine& cli)
    {
        if (!cli.isSet(cli.during))
            return true;
        const QString file = cli.value(cli.screenshot);
        const int dot = file.lastIndexOf(QLatin1Char('.'));
        const QString stem = dot > 0 ? file.left(dot) : file, ext = dot > 0 ? file.mid(dot) : QStringLiteral(".png");
        std::vector<int> times;
        for (const QString& t : cli.value(cli.during).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            const int ms = t.trimmed().toInt(&ok);
            if (!ok || ms < 0) {
                std::fprintf(stderr, "mmscope: --shots-during: expected milliseconds such as 500,1000,2000, got %s\n", qPrintable(t));
                return false;
            }
            times.push_back(ms);
        }
        auto clock = std::make_shared<QElapsedTimer>();
        auto firstFrame = std::make_shared<QMetaObject::Connection>();
        QObject::connect(w.controller(), &mms::EngineController::runStarted, &w, [&w, clock, times, stem, ext] {
            clock->start();
            for (int ms : times)
                QTimer::singleShot(ms, &w, [&w, ms, stem, ext] {
                    const QString name = QStringLiteral("%1-%2ms%3").arg(stem).arg(ms, 4, 10, QLatin1Char('0')).arg(ext);
                    if (!w.grab().save(name, "PNG"))
                        std::fprintf(stderr, "mmscope: cannot write %s\n", qPrintable(name));
                });
        });
        *firstFrame = QObject::connect(w.controller(), &mms::EngineController::liveRecording, &w, [clock, firstFrame](auto rec) {
            std::fprintf(stderr, "mmscope: first live frame %lld ms after Run (%zu frames, %.3f simulated ms)\n",
                static_cast<long long>(clock->elapsed()), rec->frameCount(), 1e3 * mms::toSec(rec->frameTime(rec->frameCount() - 1)));
            QObject::disconnect(*firstFrame);
        });
        return true;
    }

    // What follows the run: the variant and the moment asked for, then the native run of --native, then the
    // screenshot; a failed run ends a screenshot's app with status 1.
    void followRun(mms::MainWindow& w, const CommandLine& cli, double fraction)
    {
        const bool shot = cli.isSet(cli.screenshot);
        QObject::connect(w.controller(), &mms::EngineController::runFinished, &w, [&w, &cli, shot, fraction](auto) {
            if (cli.isSet(cli.variant) && !w.selectVariant(cli.value(cli.variant))) {
                std::fprintf(stderr, "mmscope: --variant %s: no such variant in the results\n", qPrintable(cli.value(cli.variant)));
                if (shot)
                    QApplication::exit(2);
            }
            if (fraction >= 0)
                w.goToFraction(fraction);
            if (cli.isSet(cli.native))
                followNative(w, cli);
            else if (shot)
                QTimer::singleShot(300, &w, [&w, &cli] { takeScreenshot(w, cli); });
        });
        QObject::connect(w.controller(), &mms::EngineController::runFailed, &w, [shot](const QString& msg) {
            std::fprintf(stderr, "mmscope: run failed: %s\n", qPrintable(msg));
            if (shot)
                QApplication::exit(1);
        });
    }

    void nameTheApp()
    {
        QCoreApplication::setApplicationName(QStringLiteral("mmscope"));
        QCoreApplication::setOrganizationName(QStringLiteral("mmscope"));
        QCoreApplication::setApplicationVersion(QStringLiteral(MMSCOPE_VERSION));
    }

    // --help and --version answer without a display (over ssh, in a terminal without X): they are read before the
    // window system is opened, and print and exit there. Everything else, Qt's own options (-platform) included, is
    // read once the QApplication has taken those out.
    void answerWithoutDisplay(int argc, char** argv)
    {
        QCoreApplication core(argc, argv);
        nameTheApp();
        CommandLine cli;
        cli.parser.parse(QCoreApplication::arguments()); // an unknown option is the QApplication's to refuse
        if (cli.isSet(cli.help))
            cli.parser.showHelp(0);
        if (cli.isSet(cli.version))
            cli.parser.showVersion();
    }
} // namespace

int main(int argc, char** argv)
{
    answerWithoutDisplay(argc, argv);
    QApplication app(argc, argv);
    nameTheApp();
    CommandLine cli;
    cli.parser.process(app);

    const bool shot = cli.isSet(cli.screenshot);
    mms::MainWindow::Options opts;
    opts.restoreLayout = !shot;
    opts.dialogs = !shot;
    mms::MainWindow w(opts);
    if (cli.isSet(cli.dark))
        w.setDarkPalette(true);
    if (!readScale(w, cli) || !readNative(w, cli))
        return 2;
    const std::optional<double> fraction = readFraction(cli);
    if (!fraction)
        return 2;
    if (!w.loadScenario(cli.value(cli.scenario))) {
        std::fprintf(stderr, "mmscope: %s\n", qPrintable(w.lastError()));
        if (shot)
            return 2;
    }
    if (cli.isSet(cli.capture) && !w.openCapture(cli.value(cli.capture))) {
        std::fprintf(stderr, "mmscope: %s\n", qPrintable(w.lastError()));
        if (shot)
            return 2;
    }
    const std::optional<QSize> shotSize = readShotSize(cli);
    if (!shotSize)
        return 2;
    if (shot)
        w.resize(*shotSize);
    w.show();
    if (cli.isSet(cli.post) && !w.browser()->openSourcePost())
        std::fprintf(stderr, "mmscope: --post: the scenario names no built-in post\n");
    for (const QString& name : cli.value(cli.raise).split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (auto* d = w.findChild<QDockWidget*>(name.trimmed()))
            d->raise();

    if (!shootDuringRun(w, cli))
        return 2;
    followRun(w, cli, *fraction);
    if (!w.lastError().isEmpty() && !shot)
        return app.exec();
    w.startRun();
    return app.exec();
}
