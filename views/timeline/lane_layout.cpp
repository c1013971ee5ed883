#include "lane_layout.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <numeric>

namespace spanscope::views {

LaneLayout LaneLayout::of(const std::vector<model::TimelineLane>& lanes, const std::vector<uint32_t>& order,
                          const std::vector<bool>& collapsed, const std::vector<uint16_t>& rowLimit)
{
    LaneLayout layout;
    for (const uint32_t lane : order) // none: the lanes' own order, also in what it applies to
        if (lane < lanes.size())
            layout.order.push_back(lanes[lane].title);
    for (size_t lane = 0; lane < lanes.size(); ++lane) {
        // Of lanes sharing a title the first decides (as applyTo reads them).
        layout.folded.try_emplace(lanes[lane].title, lane < collapsed.size() && collapsed[lane]);
        layout.rowLimit.try_emplace(lanes[lane].title, lane < rowLimit.size() ? rowLimit[lane] : uint16_t(0));
    }
    return layout;
}

void LaneLayout::applyTo(const std::vector<model::TimelineLane>& lanes, std::vector<uint32_t>& order,
                         std::vector<bool>& collapsed, std::vector<uint16_t>& rowLimit) const
{
    collapsed.resize(lanes.size(), false);
    rowLimit.resize(lanes.size(), 0);
    for (size_t lane = 0; lane < lanes.size(); ++lane) {
        if (const auto it = folded.find(lanes[lane].title); it != folded.end())
            collapsed[lane] = it->second;
        if (const auto it = this->rowLimit.find(lanes[lane].title); it != this->rowLimit.end())
            rowLimit[lane] = it->second;
    }
    if (this->order.empty())
        return;
    std::vector<uint32_t> before = order;
    if (before.empty()) {
        before.resize(lanes.size());
        std::iota(before.begin(), before.end(), 0u);
    }
    // Lanes by title in their present order: the n-th lane of a title takes the layout's
    // n-th place of that title.
    std::unordered_map<std::string, std::vector<uint32_t>> lanesOfTitle;
    for (const uint32_t lane : before)
        if (lane < lanes.size())
            lanesOfTitle[lanes[lane].title].push_back(lane);
    std::unordered_map<std::string, size_t> taken;
    std::vector<bool> placed(lanes.size(), false);
    order.clear();
    for (const std::string& title : this->order) {
        const auto it = lanesOfTitle.find(title);
        if (it == lanesOfTitle.end())
            continue; // a lane this capture does not have
        size_t& next = taken[title];
        if (next < it->second.size()) {
            order.push_back(it->second[next]);
            placed[it->second[next]] = true;
            ++next;
        }
    }
    for (const uint32_t lane : before)
        if (lane < lanes.size() && !placed[lane]) {
            order.push_back(lane);
            placed[lane] = true;
        }
}

QByteArray LaneLayout::toJson() const
{
    QJsonArray titles, foldedTitles;
    for (const std::string& title : order)
        titles.append(QString::fromStdString(title));
    std::vector<std::string> sorted; // a stable text for stable settings files
    for (const auto& [title, isFolded] : folded)
        if (isFolded)
            sorted.push_back(title);
    std::sort(sorted.begin(), sorted.end());
    for (const std::string& title : sorted)
        foldedTitles.append(QString::fromStdString(title));
    QJsonObject rows;
    for (const auto& [title, limit] : rowLimit)
        rows.insert(QString::fromStdString(title), int(limit));
    QJsonObject object;
    object.insert(QStringLiteral("order"), titles);
    object.insert(QStringLiteral("folded"), foldedTitles);
    object.insert(QStringLiteral("rows"), rows);
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

std::optional<LaneLayout> LaneLayout::fromJson(const QByteArray& json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    const QJsonObject object = document.object();
    LaneLayout layout;
    for (const QJsonValue& title : object.value(QStringLiteral("order")).toArray())
        if (title.isString())
            layout.order.push_back(title.toString().toStdString());
    // A lane the layout names and does not list as folded was shown unfolded.
    for (const std::string& title : layout.order)
        layout.folded.try_emplace(title, false);
    for (const QJsonValue& title : object.value(QStringLiteral("folded")).toArray())
        if (title.isString())
            layout.folded[title.toString().toStdString()] = true;
    const QJsonObject rows = object.value(QStringLiteral("rows")).toObject();
    for (auto it = rows.begin(); it != rows.end(); ++it) {
        const double limit = it.value().toDouble(-1);
        if (limit >= 0 && limit <= 65535 && limit == double(int(limit)))
            layout.rowLimit[it.key().toStdString()] = uint16_t(limit);
    }
    return layout;
}

} // namespace spanscope::views
