#pragma once
// A timeline's lane layout by lane title: the order of the lanes, which are folded and how
// many nesting rows each shows. Titles, not lane numbers, because lanes are numbered afresh
// by every live update and every new recording of a program: a layout taken from one
// capture applies to the next one with the same lanes (a lane it does not know keeps its
// default place after the ones it orders). JSON for keeping it between sessions. No widget;
// any thread.

#include "model/timeline/timeline_index.h"

#include <QByteArray>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace spanscope::views {

struct LaneLayout
{
    std::vector<std::string> order; // titles, top to bottom; empty = the default order
    std::unordered_map<std::string, bool> folded;
    std::unordered_map<std::string, uint16_t> rowLimit; // 0 = every row

    bool empty() const { return order.empty() && folded.empty() && rowLimit.empty(); }

    // The layout of `lanes` as shown: `order` (lane numbers, top to bottom; empty = the
    // lanes' own, and then the layout's order is empty too), `collapsed` and `rowLimit` by
    // lane.
    static LaneLayout of(const std::vector<model::TimelineLane>& lanes, const std::vector<uint32_t>& order,
                         const std::vector<bool>& collapsed, const std::vector<uint16_t>& rowLimit);
    // Applies it to `lanes`: the lanes it names, in its order, before every other lane in
    // `order`'s (or the lanes' own) order; folds and row limits of the lanes it names.
    void applyTo(const std::vector<model::TimelineLane>& lanes, std::vector<uint32_t>& order,
                 std::vector<bool>& collapsed, std::vector<uint16_t>& rowLimit) const;

    // {"order": [title...], "folded": [title...], "rows": {title: n}}.
    QByteArray toJson() const;
    // Nothing for text that is not such an object; entries of the wrong type are skipped.
    static std::optional<LaneLayout> fromJson(const QByteArray& json);
};

} // namespace spanscope::views
