#include "sourcepostview.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QTextBlock>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

namespace mms {

namespace {
    // The passage searched for figures: about a table's worth of text (seed 004's has 16 rows of 50 columns).
    constexpr int kTableChars = 900;

    void collectFigures(const OJson& v, const std::vector<std::string>& axes, std::vector<double>& out)
    {
        if (v.is_number())
            out.push_back(v.get<double>());
        else if (v.is_array())
            for (const OJson& e : v)
                collectFigures(e, axes, out);
        else if (v.is_object())
            for (auto& [key, e] : v.items())
                if (std::find(axes.begin(), axes.end(), key) == axes.end()) // 1, 2, 4, … threads are no figures
                    collectFigures(e, axes, out);
    }

    // How a post may print the figure: 879585 as "879,585", 6.1 as "6.10", 56.64143 as it is.
    QStringList spellings(double v)
    {
        QStringList s;
        if (v == static_cast<double>(static_cast<long long>(v))) {
            const auto n = static_cast<long long>(v);
            s << QString::number(n);
            if (n >= 1000) {
                QString grouped = QString::number(n);
                for (int i = int(grouped.size()) - 3; i > 0; i -= 3)
                    grouped.insert(i, QLatin1Char(','));
                s << grouped;
            }
        } else
            s << QString::number(v, 'g', 12) << QString::number(v, 'f', 2) << QString::number(v, 'f', 1);
        s.removeDuplicates();
        // "0", "16", "2.6": too short to tell a figure from any other number in a mail.
        s.erase(std::remove_if(s.begin(), s.end(), [](const QString& x) { return x.size() < 3; }), s.end());
        return s;
    }

    bool isNumberChar(QChar c) { return c.isDigit(); }

    // A whole number in the text: no digit (or decimal point) right before, no digit or ".5"/",5" right after.
    bool standsAlone(const QString& text, int pos, int len)
    {
        if (pos > 0 && (isNumberChar(text[pos - 1]) || text[pos - 1] == QLatin1Char('.')))
            return false;
        const int end = pos + len;
        if (end < text.size()) {
            if (isNumberChar(text[end]))
                return false;
            if ((text[end] == QLatin1Char('.') || text[end] == QLatin1Char(',')) && end + 1 < text.size()
                && isNumberChar(text[end + 1]))
                return false;
        }
        return true;
    }
} // namespace

std::string sourceSeed(const Scenario& sc)
{
    const OJson& d = sc.json();
    if (!d.contains("source") || !d["source"].is_object() || !d["source"].contains("seed")
        || !d["source"]["seed"].is_string())
        return {};
    return d["source"]["seed"].get<std::string>();
}

SourcePostView::SourcePostView(QWidget* parent)
    : QDialog(parent)
    , m_header(new QLabel(this))
    , m_text(new QPlainTextEdit(this))
{
    setObjectName(QStringLiteral("source-post"));
    setWindowTitle(tr("Source post"));
    auto* lay = new QVBoxLayout(this);
    m_header->setWordWrap(true);
    m_header->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::WidgetWidth);
    m_text->setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    lay->addWidget(m_header);
    lay->addWidget(m_text, 1);
    lay->addWidget(buttons);
    // 80 columns of the post and a window's height, at any font size and scale factor.
    const QFontMetrics fm(m_text->font());
    resize(fm.horizontalAdvance(QLatin1Char('m')) * 90 + 40, fm.height() * 40);
}

QString SourcePostView::readable(const QString& raw)
{
    QString t = raw;
    t.replace(QLatin1String("\r\n"), QLatin1String("\n"));
    int longest = 0;
    for (const QStringView line : QStringView(t).split(QLatin1Char('\n')))
        longest = std::max(longest, int(line.size()));
    if (longest < 1500)
        return t; // the archive kept the mail's lines
    static const QRegularExpression header(QStringLiteral(
        " (?=(From|To|Cc|Subject|Date|Message-I[dD]|In-Reply-To|References|Sender|List-I[dD]|Reply-To|Return-[Pp]ath|"
        "Received|X-Mailing-List|Signed-off-by|Acked-by|Reviewed-by|Tested-by|Reported-by|Fixes|Link|Cc): )"));
    static const QRegularExpression diff(
        QStringLiteral(" (?=(diff --git |index [0-9a-f]+\\.\\.|--- a/|\\+\\+\\+ b/|@@ ))"));
    static const QRegularExpression numbered(QStringLiteral(" (?=\\d[.)] )")); // "1) dontneed: … 2) madvfree: …"
    static const QRegularExpression quoted(QStringLiteral(" (?=>+ )")); // each line of a quoted reply starts with "> "
    static const QRegularExpression thread(
        QStringLiteral(" (?=\\d{4}-\\d\\d-\\d\\d \\d?\\d:\\d\\d )")); // "2017-04-07 6:49 ` …"
    static const QRegularExpression separator(QStringLiteral(" --- "));
    t.replace(header, QStringLiteral("\n"));
    t.replace(diff, QStringLiteral("\n"));
    t.replace(numbered, QStringLiteral("\n"));
    t.replace(quoted, QStringLiteral("\n"));
    t.replace(thread, QStringLiteral("\n"));
    t.replace(separator, QStringLiteral("\n---\n"));
    return t;
}

std::pair<int, int> SourcePostView::figuresSpan(
    const QString& text, const OJson& published, const std::vector<std::string>& axes)
{
    std::vector<double> figures;
    collectFigures(published, axes, figures);
    struct Hit {
        int pos, len;
        std::size_t figure;
    };
    std::vector<Hit> hits;
    for (std::size_t f = 0; f < figures.size(); ++f)
        for (const QString& s : spellings(figures[f]))
            for (int pos = int(text.indexOf(s)); pos >= 0; pos = int(text.indexOf(s, pos + 1)))
                if (standsAlone(text, pos, int(s.size())))
                    hits.push_back({ pos, int(s.size()), f });
    std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.pos < b.pos; });
    // The window of a table's length that holds the most distinct figures; the first one on a tie.
    std::size_t best = 0, bestCount = 0;
    for (std::size_t i = 0; i < hits.size(); ++i) {
        std::set<std::size_t> seen;
        for (std::size_t j = i; j < hits.size() && hits[j].pos < hits[i].pos + kTableChars; ++j)
            seen.insert(hits[j].figure);
        if (seen.size() > bestCount) {
            bestCount = seen.size();
            best = i;
        }
    }
    if (bestCount < 2)
        return { -1, -1 }; // one stray match is no table
    int end = hits[best].pos;
    for (std::size_t j = best; j < hits.size() && hits[j].pos < hits[best].pos + kTableChars; ++j)
        end = std::max(end, hits[j].pos + hits[j].len);
    // From the start of the line, so a table is highlighted with its row labels.
    const int lineStart = int(text.lastIndexOf(QLatin1Char('\n'), hits[best].pos)) + 1;
    return { std::max(lineStart, hits[best].pos - 120), end };
}

bool SourcePostView::showScenario(const Scenario& sc)
{
    const OJson& d = sc.json();
    const std::string seed = sourceSeed(sc);
    const std::string_view post = sourcePost(seed);
    if (post.empty())
        return false;
    const QString text = readable(QString::fromUtf8(post.data(), qsizetype(post.size())));
    m_text->setPlainText(text);
    const bool hasMeasured = d["source"].contains("measured") && d["source"]["measured"].is_string();
    const QString measured
        = hasMeasured ? QString::fromStdString(d["source"]["measured"].get<std::string>()) : QString();
    m_header->setText(tr("<b>%1</b> — the post %2 reproduces.<br>Measured: %3")
                          .arg(QString::fromStdString(seed).toHtmlEscaped(),
                              QString::fromStdString(sc.id()).toHtmlEscaped(), measured.toHtmlEscaped()));
    setWindowTitle(tr("Source post — %1").arg(QString::fromStdString(seed)));

    m_span = d.contains("published") ? figuresSpan(text, d["published"], sc.axes()) : std::pair<int, int> { -1, -1 };
    QList<QTextEdit::ExtraSelection> marks;
    if (m_span.first >= 0) {
        QTextEdit::ExtraSelection mark;
        mark.cursor = QTextCursor(m_text->document());
        mark.cursor.setPosition(m_span.first);
        mark.cursor.setPosition(m_span.second, QTextCursor::KeepAnchor);
        QColor bg = palette().color(QPalette::Highlight);
        bg.setAlpha(70);
        mark.format.setBackground(bg);
        marks << mark;
        // Scroll the figures to the middle of the view (once it has its size: the dialog may not be shown yet).
        QTextCursor at(m_text->document());
        at.setPosition(m_span.first);
        m_text->setTextCursor(at);
        m_text->centerCursor();
    } else
        m_text->moveCursor(QTextCursor::Start);
    m_text->setExtraSelections(marks);
    return true;
}

void SourcePostView::showEvent(QShowEvent* e)
{
    QDialog::showEvent(e);
    if (m_span.first >= 0)
        m_text->centerCursor();
}

QString SourcePostView::text() const { return m_text->toPlainText(); }

QString SourcePostView::highlightedText() const
{
    if (m_span.first < 0)
        return {};
    return m_text->toPlainText().mid(m_span.first, m_span.second - m_span.first);
}

} // namespace mms
