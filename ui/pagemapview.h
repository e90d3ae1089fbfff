#pragma once
// The page-state map: every page frame a cell coloured by its state at the time cursor. The frame is decoded into
// an 8-bit indexed QImage whose bytes are the PageMapState values and whose colour table is the state palette, so a
// frame costs one memcpy per row whatever the zoom; zoom (wheel) and pan (drag) only change how it is drawn.
// On a machine of several NUMA nodes the pages are grouped by node: each node's pages start on a new image row,
// blank rows (the background colour) separate the nodes, and a gutter on the left labels each block ("node 1").

#include "run/recording.h"

#include <QImage>
#include <QWidget>

#include <memory>

namespace mms {

class PageMapView : public QWidget {
    Q_OBJECT
public:
    explicit PageMapView(QWidget* parent = nullptr);

    void setRecording(std::shared_ptr<const Recording> rec, const QString& title);
    void setTime(Time t);
    std::size_t frame() const { return m_frame; }
    // Pages per image row (chosen from the widget's aspect ratio).
    int columns() const { return m_cols; }
    // The image row node nid's pages start on (0 for node 0).
    int nodeRow(int nid) const { return m_nodeRows[static_cast<std::size_t>(nid)]; }
    // The decoded frame: width columns(), one byte (PageMapState) per page.
    const QImage& frameImage() const { return m_image; }
    // The page under a widget position, or -1.
    qint64 pfnAt(QPoint pos) const;
    // Where page pfn is drawn (the centre of its cell), for tests.
    QPoint cellCentre(quint32 pfn) const;
    // The hover tooltip of a page at the cursor's frame: pfn, state, flags, owner and list.
    QString tooltipText(quint32 pfn) const;
    void resetZoom();
    void setLegendVisible(bool on);
    // What the view says when it has no recording (default: "no recording yet: run the scenario").
    void setEmptyText(const QString& text);

    QSize sizeHint() const override { return { 480, 360 }; }
    QSize minimumSizeHint() const override { return { 160, 120 }; }

protected:
    void paintEvent(QPaintEvent*) override;
    void resizeEvent(QResizeEvent*) override;
    void wheelEvent(QWheelEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    bool event(QEvent*) override;

private:
    void relayout();
    void layoutNodes(int separatorRows);
    void renderFrame();
    int nodeLabelWidth() const;
    void drawNodeLabels(QPainter& p) const;
    QRect mapArea() const;
    QRectF imageRect() const;
    int legendHeight() const;
    bool inLegend(int state) const;

    std::shared_ptr<const Recording> m_rec;
    QString m_title;
    std::size_t m_frame = 0;
    Time m_time = 0;
    int m_cols = 1;
    int m_rows = 1;
    std::vector<int> m_nodeRows { 0 }; // per node: its first image row
    int m_separatorRows = 0; // blank image rows between two nodes' pages
    QImage m_image;
    std::vector<std::uint64_t> m_counts;
    std::vector<bool> m_seen; // per PageMapState: some page is in it at some frame
    double m_zoom = 1.0;
    QPointF m_pan; // in widget pixels
    QPoint m_dragFrom;
    bool m_dragging = false;
    bool m_legend = true;
    QString m_emptyText;
};

} // namespace mms
