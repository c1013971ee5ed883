#include "share_bar.h"

#include "views/display_text.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>

namespace spanscope::views {

namespace {

QString shareText(int64_t part, int64_t whole)
{
    return whole > 0 ? QString::number(100.0 * double(part) / double(whole), 'f', 1) + QStringLiteral(" %")
                     : QStringLiteral("–");
}

} // namespace

ShareBar::ShareBar(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMouseTracking(true);
}

void ShareBar::setParts(std::vector<Part> parts)
{
    m_parts = std::move(parts);
    updateGeometry();
    update();
}

int64_t ShareBar::total() const
{
    int64_t sum = 0;
    for (const Part& p : m_parts)
        sum += std::max<int64_t>(0, p.ns);
    return sum;
}

QRect ShareBar::barRect() const
{
    return QRect(0, 0, width(), kBarHeight);
}

int ShareBar::partAt(int x) const
{
    const int64_t whole = total();
    if (whole <= 0 || x < 0 || x >= width())
        return -1;
    double at = 0;
    for (size_t i = 0; i < m_parts.size(); ++i) {
        at += double(std::max<int64_t>(0, m_parts[i].ns)) / double(whole) * width();
        if (x < at)
            return int(i);
    }
    return int(m_parts.size()) - 1;
}

QStringList ShareBar::legendTexts() const
{
    QStringList texts;
    const int64_t whole = total();
    for (const Part& p : m_parts)
        texts << p.name + QLatin1Char(' ') + durationText(double(p.ns)) + QStringLiteral(" (") + shareText(p.ns, whole)
                     + QLatin1Char(')');
    return texts;
}

template <typename Place>
int ShareBar::layoutLegend(int width, Place place) const
{
    const QStringList texts = legendTexts();
    const QFontMetrics metrics = fontMetrics();
    const int swatch = metrics.height() - 4;
    int x = 0, line = 0;
    for (int i = 0; i < texts.size(); ++i) {
        const int w = swatch + 4 + metrics.horizontalAdvance(texts[i]) + 14;
        if (x > 0 && x + w > width) {
            x = 0;
            ++line;
        }
        place(x, kBarHeight + 4 + line * (metrics.height() + 2), w, i);
        x += w;
    }
    return texts.isEmpty() ? 0 : line + 1;
}

int ShareBar::heightForWidth(int width) const
{
    const int lines = layoutLegend(width, [](int, int, int, int) {});
    return kBarHeight + 4 + std::max(1, lines) * (fontMetrics().height() + 2);
}

QSize ShareBar::sizeHint() const
{
    return QSize(400, heightForWidth(400));
}

QSize ShareBar::minimumSizeHint() const
{
    return QSize(120, heightForWidth(width() > 0 ? width() : 400));
}

void ShareBar::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    const QRect bar = barRect();
    const int64_t whole = total();
    p.setPen(Qt::NoPen);
    if (whole <= 0) {
        p.setBrush(palette().color(QPalette::Mid));
        p.drawRect(bar);
    } else {
        double at = 0;
        for (const Part& part : m_parts) {
            const double w = double(std::max<int64_t>(0, part.ns)) / double(whole) * bar.width();
            const QRectF r(at, bar.top(), w, bar.height());
            p.setBrush(part.color);
            p.drawRect(r);
            at += w;
        }
    }
    // The legend: a swatch and "name value (share)" per part, wrapping at the width.
    const QStringList texts = legendTexts();
    const QFontMetrics metrics = fontMetrics();
    const int swatch = metrics.height() - 4;
    layoutLegend(width(), [&](int x, int y, int w, int i) {
        p.setPen(Qt::NoPen);
        p.setBrush(m_parts[size_t(i)].color);
        p.drawRect(x, y + 2, swatch, swatch);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(x + swatch + 4, y, w, metrics.height()), Qt::AlignLeft | Qt::AlignVCenter, texts[i]);
    });
}

bool ShareBar::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int part = help->pos().y() <= barRect().bottom() ? partAt(help->pos().x()) : -1;
        if (part < 0) {
            QToolTip::hideText();
            return true;
        }
        const Part& p = m_parts[size_t(part)];
        QToolTip::showText(help->globalPos(),
                           QStringLiteral("<b>%1</b> %2 (%3)<br>%4")
                               .arg(p.name.toHtmlEscaped(), durationText(double(p.ns)), shareText(p.ns, total()),
                                    p.description.toHtmlEscaped()),
                           this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace spanscope::views
