#include "mainwindow.h"

#include "enginecontroller.h"
#include "pagemapview.h"
#include "parametereditor.h"
#include "scenariobrowser.h"
#include "transportbar.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMessageBox>
#include <QScreen>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>

namespace mms {

// The toolbars, docks and menus are built in mainwindowactions.cpp and mainwindowdocks.cpp, the runs handled in
// mainwindowrun.cpp.
MainWindow::MainWindow(const Options& options, QWidget* parent)
    : QMainWindow(parent)
    , m_options(options)
    , m_controller(new EngineController(this))
    , m_transport(new TransportBar(this))
{
    setWindowTitle(tr("mmscope"));
    setObjectName(QStringLiteral("mmscope-main"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    m_pageMap = new PageMapView(this);
    setCentralWidget(m_pageMap);
    buildToolBars();
    buildDocks();
    buildMenus();
    connectRuns();
    restoreWindow();
}

MainWindow::~MainWindow() = default;

void MainWindow::restoreWindow()
{
    // Fit the screen (readable down to 1280x800), else 1500x940.
    QSize size(1500, 940);
    if (const QScreen* screen = QGuiApplication::primaryScreen())
        size = size.boundedTo(screen->availableSize());
    resize(size);
    if (m_options.restoreLayout) {
        QSettings s;
        restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
        m_layoutRestored = restoreState(s.value(QStringLiteral("window/state")).toByteArray());
        if (s.value(QStringLiteral("view/dark"), false).toBool())
            setDarkPalette(true);
    }
}

bool MainWindow::loadScenario(const QString& idOrPath)
{
    try {
        m_scenario = std::make_unique<Scenario>(mms::loadScenario(idOrPath.toStdString()));
    } catch (const std::exception& e) {
        fail(tr("Cannot open scenario %1:\n%2").arg(idOrPath, QString::fromStdString(e.what())));
        return false;
    }
    m_firstView = true;
    // Each scenario opens at its faithful scale, unless a scale was asked for (--scale, setScale()).
    if (!m_scaleGiven) {
        const QSignalBlocker quiet(m_scale);
        m_scale->setValue(m_scenario->faithfulScale());
    }
    updateScaleHint(false);
    m_browser->showScenario(*m_scenario);
    m_params->setScenario(*m_scenario);
    updateNativeScenario();
    updateKernelRules();
    setWindowTitle(tr("mmscope — %1").arg(QString::fromStdString(m_scenario->title())));
    return true;
}

void MainWindow::setScale(double s)
{
    m_scaleGiven = true;
    m_scale->setValue(s);
}

void MainWindow::updateScaleHint(bool announce)
{
    if (!m_scenario) {
        m_scaleHint->clear();
        return;
    }
    const double faithful = m_scenario->faithfulScale();
    const bool below = scale() < faithful * (1 - 1e-9);
    m_scaleHint->setText(below ? tr("below faithful %1").arg(faithful) : tr("faithful ≥ %1").arg(faithful));
    m_scaleHint->setStyleSheet(below ? QStringLiteral("color: #b04010; font-weight: bold;") : QStringLiteral("color: gray;"));
    m_scaleHint->setToolTip(tr("%1's ratios between variants stay within 10 % of their full-scale values at scale %2 and above")
                                .arg(QString::fromStdString(m_scenario->id()))
                                .arg(faithful));
    if (below && announce)
        statusBar()->showMessage(tr("Scale %1 is below %2's faithful scale %3: its ratios may be more than 10 % from full scale")
                                     .arg(scale())
                                     .arg(QString::fromStdString(m_scenario->id()))
                                     .arg(faithful),
                                 8000);
}
double MainWindow::scale() const { return m_scale->value(); }

void MainWindow::fail(const QString& message)
{
    m_lastError = message;
    statusBar()->showMessage(message, 10000);
    if (m_options.dialogs)
        QMessageBox::warning(this, tr("mmscope"), message);
}

void MainWindow::setDarkPalette(bool dark)
{
    static const QPalette light = QApplication::palette();
    QPalette p = light;
    if (dark) {
        p.setColor(QPalette::Window, QColor(0x2b, 0x2d, 0x31));
        p.setColor(QPalette::WindowText, QColor(0xe4, 0xe4, 0xe4));
        p.setColor(QPalette::Base, QColor(0x1f, 0x21, 0x24));
        p.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2c, 0x30));
        p.setColor(QPalette::Text, QColor(0xe4, 0xe4, 0xe4));
        p.setColor(QPalette::Button, QColor(0x35, 0x37, 0x3b));
        p.setColor(QPalette::ButtonText, QColor(0xe4, 0xe4, 0xe4));
        p.setColor(QPalette::Highlight, QColor(0x3d, 0x7e, 0xd6));
        p.setColor(QPalette::HighlightedText, Qt::white);
        p.setColor(QPalette::Mid, QColor(0x55, 0x57, 0x5c));
        p.setColor(QPalette::PlaceholderText, QColor(0x8a, 0x8a, 0x8a));
        p.setColor(QPalette::ToolTipBase, QColor(0x35, 0x37, 0x3b));
        p.setColor(QPalette::ToolTipText, QColor(0xe4, 0xe4, 0xe4));
        p.setColor(QPalette::Link, QColor(0x7c, 0xb8, 0xff)); // the default dark blue is unreadable on Base
        p.setColor(QPalette::LinkVisited, QColor(0xc0, 0x9c, 0xff));
        p.setColor(QPalette::BrightText, QColor(0xff, 0x80, 0x80));
        for (QPalette::ColorRole r : { QPalette::WindowText, QPalette::Text, QPalette::ButtonText })
            p.setColor(QPalette::Disabled, r, QColor(0x80, 0x80, 0x80));
    }
    QApplication::setPalette(p);
    if (m_darkAction && m_darkAction->isChecked() != dark)
        m_darkAction->setChecked(dark);
    if (m_options.restoreLayout)
        QSettings().setValue(QStringLiteral("view/dark"), dark);
}

void MainWindow::closeEvent(QCloseEvent* e)
{
    m_controller->cancel();
    if (m_options.restoreLayout) {
        QSettings s;
        s.setValue(QStringLiteral("window/geometry"), saveGeometry());
        s.setValue(QStringLiteral("window/state"), saveState());
    }
    QMainWindow::closeEvent(e);
}

} // namespace mms
