#include "report.h"

#include "comparepanel.h"
#include "counterplot.h"
#include "cpulockmapview.h"
#include "export.h"
#include "firstview.h"
#include "lockheatmapview.h"
#include "recordingview.h"
#include "resultschart.h"
#include "resultsmodel.h"
#include "run/ratio.h"
#include "run/recording.h"
#include "run/render.h"
#include "run/runner.h"

#include <QApplication>
#include <QBuffer>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QPainter>
#include <QPdfWriter>
#include <QTextDocument>
#include <QUrl>

#include <algorithm>
#include <memory>

namespace mms {

namespace {
    // The CLI calls writeReport without a Qt application: start an offscreen one for the charts' widgets.
    std::unique_ptr<QApplication> ensureApplication()
    {
        if (QCoreApplication::instance())
            return {};
        if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
            qputenv("QT_QPA_PLATFORM", "offscreen");
        static int argc = 1;
        static char arg0[] = "mmscope-report";
        static char* argv[] = { arg0, nullptr };
        return std::make_unique<QApplication>(argc, argv);
    }

    QString esc(const std::string& s) { return QString::fromStdString(s).toHtmlEscaped(); }

    struct Chart {
        QString name, caption;
        QImage image;
    };

    QString modelToHtml(const QAbstractItemModel& m)
    {
        QString html = QStringLiteral("<table class='t' border='1' cellspacing='0' cellpadding='4'><tr>");
        for (int c = 0; c < m.columnCount(); ++c)
            html += QStringLiteral("<th>%1</th>").arg(m.headerData(c, Qt::Horizontal).toString().toHtmlEscaped().replace(QLatin1Char('\n'), QLatin1String("<br>")));
        html += QStringLiteral("</tr>");
        for (int r = 0; r < m.rowCount(); ++r) {
            html += QStringLiteral("<tr>");
            for (int c = 0; c < m.columnCount(); ++c) {
                const bool left = (m.data(m.index(r, c), Qt::TextAlignmentRole).toInt() & Qt::AlignLeft) != 0;
                html += QStringLiteral("<td align='%1'>%2</td>").arg(left ? QStringLiteral("left") : QStringLiteral("right"), m.data(m.index(r, c)).toString().toHtmlEscaped());
            }
            html += QStringLiteral("</tr>");
        }
        return html + QStringLiteral("</table>");
    }

    // A view that paints itself (no QCustomPlot) as a 2x image, the way the app shows it at the end of the run.
    QImage renderView(QWidget& w, QSize size)
    {
        w.resize(size);
        QImage img(size * 2, QImage::Format_ARGB32_Premultiplied);
        img.setDevicePixelRatio(2);
        img.fill(w.palette().color(QPalette::Window));
        w.render(&img);
        return img;
    }

    // The runs whose lock maps go into the report: per variant, repetition 0 at the last sweep point (the most
    // threads or users, where the posts' contention is largest).
    std::vector<const RunResult*> lockMapRuns(const ResultSet& rs)
    {
        std::vector<const RunResult*> out;
        for (const RunResult& r : rs.results) {
            if (!r.recording || r.rep != 0)
                continue;
            auto same = std::find_if(out.begin(), out.end(), [&](const RunResult* o) { return o->variant == r.variant; });
            if (same == out.end())
                out.push_back(&r);
            else
                *same = &r; // results are in point order: the later one is the later point
        }
        return out;
    }

    void addLockCharts(const ResultSet& rs, std::vector<Chart>& charts)
    {
        for (const RunResult* r : lockMapRuns(rs)) {
            const QString label = ComparePanel::runLabel(*r, false);
            const Time end = recordingEnd(*r->recording);
            LockHeatmapView heat;
            heat.setRecording(r->recording, label);
            heat.setTime(end);
            charts.push_back({ QStringLiteral("chart-%1.png").arg(charts.size()),
                               QStringLiteral("Locks × time, %1: colour = share of all CPUs' time spent waiting for the lock in each frame").arg(label),
                               renderView(heat, QSize(760, 260)) });
            CpuLockMapView map;
            map.setRecording(r->recording, label);
            map.setTime(end);
            const int rows = r->recording->cpuCount();
            charts.push_back({ QStringLiteral("chart-%1.png").arg(charts.size()),
                               QStringLiteral("CPUs × locks, %1: colour = share of each CPU's time spent waiting for each lock over the whole run").arg(label),
                               renderView(map, QSize(760, std::clamp(140 + rows * 14, 240, 900))) });
        }
    }

    std::vector<Chart> makeCharts(const Scenario& sc, const ResultSet& rs)
    {
        std::vector<Chart> charts;
        auto scp = std::make_shared<const Scenario>(sc);
        auto rsp = std::make_shared<const ResultSet>(rs);
        // Per metric, the ratios to the baseline (they compare with the post's at any scale) and, where the absolute
        // figures compare too (scale 1 or a scale-free metric), the figures themselves: each on one value axis.
        ResultsChart chart;
        chart.setResults(scp, rsp);
        const QString base = QString::fromStdString(sc.baseline());
        std::vector<std::string> metrics = sc.metrics();
        std::stable_partition(metrics.begin(), metrics.end(), [&](const std::string& m) { return m == headlineMetric(sc); }); // as the table
        for (const std::string& m : metrics) {
            const QString metric = QString::fromStdString(m);
            chart.setMetric(metric);
            for (ResultsChart::Values v : { ResultsChart::Values::Ratio, ResultsChart::Values::Absolute }) {
                if (v == ResultsChart::Values::Absolute && !comparableToPost(m, rs.scale))
                    continue;
                chart.setValues(v);
                const QString what = v == ResultsChart::Values::Ratio ? QStringLiteral("%1 ÷ %2").arg(metric, base) : metric;
                charts.push_back({ QStringLiteral("chart-%1.png").arg(charts.size()),
                                   sc.axes().empty() ? QStringLiteral("%1 per variant, simulated beside the post").arg(what)
                                                     : QStringLiteral("%1 vs %2 per variant, simulated (solid) and the post (dashed)")
                                                           .arg(what, QString::fromStdString(sc.axes().front())),
                                   chart.renderImage(QSize(760, 340)) });
            }
        }
        // Counters: every variant at the point the app opens on (for a sweep, where the variants differ most).
        const FirstView first = chooseFirstView(sc, rs);
        const OJson point = first.run >= 0 ? rs.results[std::size_t(first.run)].point : OJson::object();
        QString where; // " at threads=16"
        for (auto& [axis, v] : point.items())
            where += QStringLiteral("%1%2=%3").arg(where.isEmpty() ? QStringLiteral(" at ") : QStringLiteral(", "), QString::fromStdString(axis), QString::fromStdString(v.dump()));
        QVector<CounterPlot::Series> series;
        for (const RunResult& r : rs.results)
            if (r.recording && r.rep == 0 && r.point == point)
                series.push_back({ ComparePanel::runLabel(r, false), r.recording });
        if (!series.isEmpty()) {
            CounterPlot counters;
            for (const char* c : { "pswpin", "pswpout", "ops", "free_pages" }) {
                if (series.front().recording->counterIndex(c) >= series.front().recording->counterNames().size())
                    continue;
                counters.setSeries(series);
                counters.setCounter(QString::fromLatin1(c));
                counters.setTime(-1);
                charts.push_back({ QStringLiteral("chart-%1.png").arg(charts.size()),
                                   QStringLiteral("%1 over simulated time%2, per variant")
                                       .arg(QString::fromLatin1(c), where), counters.renderImage(QSize(760, 300)) });
            }
        }
        addLockCharts(rs, charts);
        return charts;
    }

    QString reportHtml(const Scenario& sc, const ResultSet& rs, const std::vector<Chart>& charts, bool inlineImages)
    {
        const OJson& d = sc.json();
        QString h = QStringLiteral("<!DOCTYPE html><html><head><meta charset='utf-8'><title>mmscope report: %1</title>"
                                   "<style>body{font-family:sans-serif;max-width:980px;margin:auto} table.t{border-collapse:collapse}"
                                   "th{background:#eee} pre{background:#f6f6f6;padding:6px;font-size:90%}</style></head><body>")
                        .arg(esc(sc.id()));
        h += QStringLiteral("<h1>%1</h1>").arg(esc(sc.title()));
        h += QStringLiteral("<p><b>Scenario</b> %1 &nbsp; <b>seed</b> %2 &nbsp; <b>scale</b> %3 &nbsp; <b>engine</b> mmscope %4 &nbsp; <b>runs</b> %5</p>")
                 .arg(esc(sc.id()))
                 .arg(rs.seed)
                 .arg(rs.scale)
                 .arg(esc(rs.engineVersion.empty() ? engineVersion() : rs.engineVersion))
                 .arg(rs.results.size());
        if (d.contains("source"))
            h += QStringLiteral("<p><b>Source post:</b> %1 — %2</p>")
                     .arg(esc(d["source"].value("seed", std::string())), esc(d["source"].value("measured", std::string())));
        if (d.contains("description"))
            h += QStringLiteral("<p>%1</p>").arg(esc(d["description"].get<std::string>()));

        h += QStringLiteral("<h2>Results</h2>");
        ResultsModel model;
        model.setResults(std::make_shared<const Scenario>(sc), std::make_shared<const ResultSet>(rs));
        h += modelToHtml(model);
        h += QStringLiteral("<p>Per metric: each variant's ratio to %1 at the same point, the post's same ratio, and how far the simulated "
                            "ratio is from the post's (ratios compare at any scale); then the simulated figure%2.</p>")
                 .arg(esc(sc.baseline()),
                      rs.scale == 1.0 ? QStringLiteral(", the post's figure and the difference in %")
                                      : QStringLiteral(" at scale %1, with the post's figure and the difference in % only for scale-free metrics").arg(rs.scale));
        h += QStringLiteral("<h3>As the post's table</h3><pre>%1</pre>").arg(esc(formatResults(rs, sc, Format::Text)));
        h += QStringLiteral("<h3>mmtests compare-kernels style</h3><pre>%1</pre>").arg(esc(formatResults(rs, sc, Format::Mmtests)));

        h += QStringLiteral("<h2>Charts</h2>");
        for (const Chart& c : charts) {
            QString src = c.name;
            if (inlineImages) {
                QByteArray png;
                QBuffer buf(&png);
                buf.open(QIODevice::WriteOnly);
                c.image.save(&buf, "PNG");
                src = QStringLiteral("data:image/png;base64,") + QString::fromLatin1(png.toBase64());
            }
            const int w = int(c.image.width() / std::max(1.0, c.image.devicePixelRatio()));
            // Double quotes: captions hold apostrophes ("the post's figure"), and toHtmlEscaped() escapes only '"'.
            h += QStringLiteral("<p><img src=\"%1\" width=\"%2\" alt=\"%3\"><br><i>%3</i></p>").arg(src).arg(w).arg(c.caption.toHtmlEscaped());
        }

        h += QStringLiteral("<h2>Lockstat</h2>");
        for (const RunResult& r : rs.results) {
            if (r.rep != 0)
                continue;
            LockStatModel locks;
            std::vector<LockSummary> top = r.locks;
            locks.setLocks(top);
            h += QStringLiteral("<h3>%1</h3>").arg(ComparePanel::runLabel(r, false).toHtmlEscaped()) + modelToHtml(locks);
        }
        h += QStringLiteral("<h2>Parameters</h2><pre>%1</pre>").arg(esc(d.dump(2)));
        h += QStringLiteral("<p style='color:gray'>Reproduce: <tt>mmscope-cli run %1 --scale %2 --seed %3</tt> · host: %4 s wall, %5 threads (host-dependent)</p>")
                 .arg(esc(sc.id()))
                 .arg(rs.scale)
                 .arg(rs.seed)
                 .arg(rs.wallSeconds, 0, 'f', 2)
                 .arg(rs.threads);
        return h + QStringLiteral("</body></html>\n");
    }
} // namespace

bool checkReportPath(const std::string& pathStd, std::string& error)
{
    const QString path = QString::fromStdString(pathStd);
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext != QLatin1String("html") && ext != QLatin1String("htm") && ext != QLatin1String("pdf")) {
        error = "report: " + pathStd + ": expected a .html or .pdf file name";
        return false;
    }
    QString err;
    if (!checkWritable(path, &err)) {
        error = "report: " + err.toStdString();
        return false;
    }
    return true;
}

bool writeReport(const Scenario& sc, const ResultSet& rs, const std::string& pathStd, std::string& error)
{
    auto app = ensureApplication();
    const QString path = QString::fromStdString(pathStd);
    const QString ext = QFileInfo(path).suffix().toLower();
    if (!checkReportPath(pathStd, error))
        return false;
    const bool widgets = qobject_cast<QApplication*>(QCoreApplication::instance()) != nullptr;
    std::vector<Chart> charts;
    if (widgets)
        charts = makeCharts(sc, rs);
    if (ext == QLatin1String("pdf")) {
        QTextDocument doc;
        for (const Chart& c : charts)
            doc.addResource(QTextDocument::ImageResource, QUrl(c.name), c.image);
        doc.setHtml(reportHtml(sc, rs, charts, false));
        QPdfWriter pdf(path);
        pdf.setPageSize(QPageSize(QPageSize::A4));
        pdf.setResolution(150);
        pdf.setTitle(QStringLiteral("mmscope report: %1").arg(QString::fromStdString(sc.id())));
        pdf.setCreator(QStringLiteral("mmscope"));
        doc.setPageSize(QSizeF(pdf.width(), pdf.height()));
        doc.print(&pdf);
        if (!QFileInfo(path).exists() || QFileInfo(path).size() == 0) {
            error = "report: could not write " + pathStd;
            return false;
        }
        return true;
    }
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        error = "report: cannot write " + pathStd + ": " + f.errorString().toStdString();
        return false;
    }
    f.write(reportHtml(sc, rs, charts, true).toUtf8());
    return true;
}

} // namespace mms
