#include "plotwidget.h"

#include "qcp.h"

#include <QSvgGenerator>
#include <QTimer>
#include <QVBoxLayout>

namespace mms {

PlotWidget::PlotWidget(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_layout(new QVBoxLayout(this))
    , m_replot(new QTimer(this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(2);
    m_layout->addWidget(m_plot, 1);
    m_plot->setMinimumSize(200, 120);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_replot->setSingleShot(true);
    m_replot->setInterval(33); // at most ~30 replots per second, whatever the playback rate
    connect(m_replot, &QTimer::timeout, this, [this] { m_plot->replot(QCustomPlot::rpQueuedReplot); });
    styleAxes();
}

PlotWidget::~PlotWidget() = default;

QColor PlotWidget::seriesColour(int i)
{
    static const QColor colours[] = { QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28), QColor(0x2c, 0xa0, 0x2c),
                                      QColor(0xff, 0x7f, 0x0e), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                                      QColor(0xe3, 0x77, 0xc2), QColor(0x17, 0xbe, 0xcf) };
    return colours[i % 8];
}

void PlotWidget::requestReplot()
{
    if (!m_replot->isActive())
        m_replot->start();
}

void PlotWidget::styleAxes()
{
    const QPalette pal = palette();
    const QColor fg = pal.color(QPalette::Text), bg = pal.color(QPalette::Base);
    const QColor grid = pal.color(QPalette::Mid);
    m_plot->setBackground(bg);
    for (QCPAxisRect* rect : m_plot->axisRects())
        for (QCPAxis* ax : rect->axes()) {
            ax->setBasePen(QPen(fg));
            ax->setTickPen(QPen(fg));
            ax->setSubTickPen(QPen(fg));
            ax->setTickLabelColor(fg);
            ax->setLabelColor(fg);
            ax->grid()->setPen(QPen(grid, 0, Qt::DotLine));
            ax->grid()->setZeroLinePen(Qt::NoPen);
        }
    if (m_plot->legend) {
        m_plot->legend->setBrush(bg);
        m_plot->legend->setTextColor(fg);
        m_plot->legend->setBorderPen(QPen(grid));
    }
    requestReplot();
}

void PlotWidget::changeEvent(QEvent* e)
{
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange || e->type() == QEvent::StyleChange)
        styleAxes();
    QWidget::changeEvent(e);
}

QImage PlotWidget::renderImage(QSize size, double dpr)
{
    m_plot->resize(size);
    QImage img = m_plot->toPixmap(size.width(), size.height(), dpr).toImage();
    img.setDevicePixelRatio(dpr); // so a report lays it out at `size`, drawn sharp at dpr
    return img;
}

bool PlotWidget::exportTo(const QString& path, QString* error)
{
    const QString kind = exportTarget(path, error);
    if (kind.isEmpty())
        return false;
    const int w = m_plot->width() > 50 ? m_plot->width() : 800;
    const int h = m_plot->height() > 50 ? m_plot->height() : 450;
    bool ok = false;
    if (kind == QLatin1String("png"))
        ok = m_plot->savePng(path, w, h, 2.0);
    else if (kind == QLatin1String("pdf"))
        ok = m_plot->savePdf(path, w, h, QCP::epNoCosmetic, QStringLiteral("mmscope"), windowTitle());
    else {
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setSize(QSize(w, h));
        gen.setViewBox(QRect(0, 0, w, h));
        gen.setTitle(windowTitle());
        QCPPainter painter;
        if (painter.begin(&gen)) {
            painter.setMode(QCPPainter::pmVectorized);
            painter.setMode(QCPPainter::pmNoCaching);
            m_plot->toPainter(&painter, w, h);
            ok = painter.end();
        }
    }
    if (!ok && error)
        *error = tr("could not write %1").arg(path);
    return ok;
}

} // namespace mms
