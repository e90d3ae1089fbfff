// mmscope: the desktop app. `--screenshot FILE` runs the scenario, moves the time cursor to --at and writes the
// main window to FILE, for docs, tests and reviews.
#include "enginecontroller.h"
#include "mainwindow.h"
#include "pagemapview.h"
#include "scenario/scale.h"
#include "scenariobrowser.h"
#include "sourcepostview.h"
#include "transportbar.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QHelpEvent>
#include <QScreen>
#include <QTimer>

#include <cstdio>

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QApplication::setApplicationName(QStringLiteral("mmscope"));
    QApplication::setOrganizationName(QStringLiteral("mmscope"));
    QApplication::setApplicationVersion(QStringLiteral(MMSCOPE_VERSION));

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("A desktop laboratory for Linux memory-management performance"));
    cli.addHelpOption();
    cli.addVersionOption();
    QCommandLineOption scenario(QStringLiteral("scenario"), QStringLiteral("Scenario id or file (default madv-free-swapin)."), QStringLiteral("ID"), QStringLiteral("madv-free-swapin"));
    QCommandLineOption variant(QStringLiteral("variant"), QStringLiteral("Variant shown in the main views (default: the one farthest from the baseline, at the sweep point where the variants differ most)."), QStringLiteral("V"));
    QCommandLineOption at(QStringLiteral("at"), QStringLiteral("Time cursor as a fraction of the run (0..1; default: the shown run's first event of interest)."), QStringLiteral("FRACTION"));
    QCommandLineOption scale(QStringLiteral("scale"), QStringLiteral("Scale of memory and work (default: the scenario's faithful scale)."), QStringLiteral("F"));
    QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Write the main window to FILE (PNG) after the run and exit."), QStringLiteral("FILE"));
    QCommandLineOption raise(QStringLiteral("raise"), QStringLiteral("Bring these docks to the front (comma-separated: scenario, parameters, results, chart, compare, cpus, locks, counters)."), QStringLiteral("DOCKS"));
    QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Use the dark palette."));
    QCommandLineOption hover(QStringLiteral("hover"), QStringLiteral("With --screenshot: show the page map's tooltip for page PFN and capture the whole screen."), QStringLiteral("PFN"));
    QCommandLineOption size(QStringLiteral("size"), QStringLiteral("With --screenshot: the window's size (default 1600x1000)."), QStringLiteral("WxH"));
    QCommandLineOption post(QStringLiteral("post"), QStringLiteral("Open the scenario's source post (with --screenshot: capture the whole screen)."));
    cli.addOptions({ scenario, variant, at, scale, screenshot, raise, dark, hover, size, post });
    cli.process(app);

    const bool shot = cli.isSet(screenshot);
    mms::MainWindow::Options opts;
    opts.restoreLayout = !shot;
    opts.dialogs = !shot;
    mms::MainWindow w(opts);
    if (cli.isSet(dark))
        w.setDarkPalette(true);
    if (cli.isSet(scale)) {
        bool ok = false;
        const double s = cli.value(scale).toDouble(&ok);
        if (!ok || !mms::scaleInRange(s)) {
            std::fprintf(stderr, "mmscope: %s\n", mms::scaleOutOfRange(cli.value(scale).toStdString()).c_str());
            return 2;
        }
        w.setScale(s);
    }
    double fraction = -1;
    if (cli.isSet(at)) {
        bool ok = false;
        fraction = cli.value(at).toDouble(&ok);
        if (!ok || fraction < 0 || fraction > 1) {
            std::fprintf(stderr, "mmscope: --at: expected a fraction in [0, 1], got %s\n", qPrintable(cli.value(at)));
            return 2;
        }
    }
    if (!w.loadScenario(cli.value(scenario))) {
        std::fprintf(stderr, "mmscope: %s\n", qPrintable(w.lastError()));
        if (shot)
            return 2;
    }
    QSize shotSize(1600, 1000);
    if (cli.isSet(size)) {
        const QStringList wh = cli.value(size).split(QLatin1Char('x'));
        const int sw = wh.value(0).toInt(), sh = wh.value(1).toInt();
        if (wh.size() != 2 || sw < 200 || sh < 200) {
            std::fprintf(stderr, "mmscope: --size: expected WIDTHxHEIGHT such as 1280x800, got %s\n", qPrintable(cli.value(size)));
            return 2;
        }
        shotSize = QSize(sw, sh);
    }
    if (shot)
        w.resize(shotSize);
    w.show();
    if (cli.isSet(post) && !w.browser()->openSourcePost())
        std::fprintf(stderr, "mmscope: --post: the scenario names no built-in post\n");
    for (const QString& name : cli.value(raise).split(QLatin1Char(','), Qt::SkipEmptyParts))
        if (auto* d = w.findChild<QDockWidget*>(name.trimmed()))
            d->raise();

    QObject::connect(w.controller(), &mms::EngineController::runFinished, &w, [&](auto) {
        if (cli.isSet(variant) && !w.selectVariant(cli.value(variant))) {
            std::fprintf(stderr, "mmscope: --variant %s: no such variant in the results\n", qPrintable(cli.value(variant)));
            if (shot)
                QApplication::exit(2);
        }
        if (fraction >= 0)
            w.goToFraction(fraction);
        if (shot)
            QTimer::singleShot(300, &w, [&] {
                if (cli.isSet(post)) {
                    if (auto* view = w.findChild<mms::SourcePostView*>()) {
                        view->move(w.width() / 4, w.height() / 8);
                        view->raise();
                    }
                    QTimer::singleShot(500, &w, [&] {
                        const QString file = cli.value(screenshot);
                        const bool ok = w.screen()->grabWindow(0).save(file, "PNG");
                        QApplication::exit(ok ? 0 : 1);
                    });
                    return;
                }
                if (cli.isSet(hover)) {
                    const QPoint at = w.pageMap()->cellCentre(cli.value(hover).toUInt());
                    QHelpEvent help(QEvent::ToolTip, at, w.pageMap()->mapToGlobal(at));
                    QApplication::sendEvent(w.pageMap(), &help);
                    QTimer::singleShot(500, &w, [&] {
                        const QString file = cli.value(screenshot);
                        const bool ok = w.screen()->grabWindow(0).save(file, "PNG");
                        if (!ok)
                            std::fprintf(stderr, "mmscope: cannot write %s\n", qPrintable(file));
                        QApplication::exit(ok ? 0 : 1);
                    });
                    return;
                }
                const QString file = cli.value(screenshot);
                const bool ok = w.grab().save(file, "PNG");
                if (!ok)
                    std::fprintf(stderr, "mmscope: cannot write %s\n", qPrintable(file));
                QApplication::exit(ok ? 0 : 1);
            });
    });
    QObject::connect(w.controller(), &mms::EngineController::runFailed, &w, [&](const QString& msg) {
        std::fprintf(stderr, "mmscope: run failed: %s\n", qPrintable(msg));
        if (shot)
            QApplication::exit(1);
    });
    if (!w.lastError().isEmpty() && !shot)
        return app.exec();
    w.startRun();
    return app.exec();
}
