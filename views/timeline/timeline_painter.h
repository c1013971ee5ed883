#pragma once
// Paints a draw list. O(items): the list is already culled and folded to the pixels, so
// painting never looks at calls that are not drawn. GUI thread, or any thread painting
// into a QImage (the CLI's render command and the benchmark do).

#include "model/capture.h"
#include "model/timeline/draw_list.h"
#include "model/timeline/timeline_index.h"
#include "region_palette.h"

#include <QFont>
#include <QHash>
#include <QPainter>

#include <optional>
#include <vector>

namespace spanscope::views {

struct TimelineStyle
{
    bool dark = false;
    QFont font;
};

struct TimelineFrame
{
    const model::Capture* capture = nullptr;
    const model::TimelineIndex* index = nullptr;
    const model::DrawList* list = nullptr;
    int width = 0;
    int highlightRegion = -1;               // all calls of this region are outlined
    std::optional<uint32_t> selectedEvent;  // the selected call, drawn with a thick border
    const std::vector<bool>* matches = nullptr; // per region id: search matches (others dimmed)
    const RegionPalette* palette = nullptr;      // region colours; null: regionColor()'s hashed ones
};

// A counter's value as a person reads it: bytes in KiB/MiB/GiB, other units as numbers.
QString counterValueText(const model::Capture& capture, const model::CounterSeries& series, double value);

class TimelinePainter
{
public:
    explicit TimelinePainter(TimelineStyle style);

    void paint(QPainter& painter, const TimelineFrame& frame);
    const TimelineStyle& style() const { return m_style; }

    // The text drawn on a call of `region` that is `width` px wide: the full name when it
    // fits, else its start with "…" ("solver.linear_solve" -> "solver.lin…"); empty when
    // nothing readable fits.
    QString labelFor(const model::Capture& capture, uint32_t region, int width);

private:
    QString label(const model::Capture& capture, uint32_t region);
    void paintFlows(QPainter& painter, const TimelineFrame& frame);
    void paintCriticalPath(QPainter& painter, const TimelineFrame& frame);
    QString laneTitle(const TimelineFrame& frame, const model::DrawItem& header) const;
    void paintLaneTitles(QPainter& painter, const TimelineFrame& frame);
    // What the coloured lines drawn mean (flow kinds, critical-path shares), top right.
    void paintLegend(QPainter& painter, const TimelineFrame& frame);

    TimelineStyle m_style;
    QFontMetrics m_metrics;
    QHash<uint32_t, QString> m_labels; // region id -> name, converted once
};

} // namespace spanscope::views
