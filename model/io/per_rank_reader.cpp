// Schema 1: one group per rank, one group per region, absolute start/end columns.

#include "reader_parts.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace spanscope::model::io {

namespace {

struct RegionGroup
{
    int32_t rank = 0;
    std::string name;  // region name; '/' in it was stored as nested groups
    std::string path;  // HDF5 path of the group holding start_times/end_times
    uint64_t count = 0;
};

// Region groups below `groupPath`: a group holding start_times is a region, and its
// sub-groups may be regions too ("a" and "a/b" can both exist).
void collectRegions(const H5File& file, int32_t rank, const std::string& groupPath,
                    const std::string& name, std::vector<RegionGroup>& out)
{
    if (file.isDataset(groupPath + "/start_times"))
        out.push_back({rank, name, groupPath, 0});
    for (const auto& child : file.children(groupPath)) {
        const std::string childPath = groupPath + "/" + child;
        if (file.isGroup(childPath))
            collectRegions(file, rank, childPath, name.empty() ? child : name + "/" + child, out);
    }
}

// Optional per-call column of schema 1: present in some regions only. Missing values -1.
Status readOptionalColumn(const H5File& file, const std::vector<RegionGroup>& groups,
                          const std::vector<uint64_t>& offsets, uint64_t total,
                          const char* dataset, EventColumn<int64_t>& column)
{
    for (size_t i = 0; i < groups.size(); ++i) {
        const std::string path = groups[i].path + "/" + dataset;
        if (!file.isDataset(path))
            continue;
        if (column.empty())
            column.assign(total, -1);
        if (auto status = file.readInt64(path, column.mutableData() + offsets[i], groups[i].count); !status)
            return status;
    }
    return Ok{};
}

// Region attributes are descriptive: one of the wrong type is warned about and skipped,
// never a reason to refuse the file.
void readRegionAttributes(const H5File& file, const RegionGroup& group, Capture& capture, RegionRow& row)
{
    auto warn = [&](const std::string& name, const std::string& problem) {
        capture.warnings.push_back({"region '" + group.name + "' on rank " + std::to_string(group.rank)
                                        + ": attribute '" + name + "' " + problem + "; ignored",
                                    group.path});
    };
    auto read = [&](const char* name) -> std::optional<MetadataValue> {
        if (!file.hasAttribute(group.path, name))
            return std::nullopt;
        auto value = file.readAttribute(group.path, name);
        if (!value) {
            warn(name, "cannot be read (" + value.error().message + ")");
            return std::nullopt;
        }
        return std::move(value.value());
    };
    using Kind = MetadataValue::Kind;
    for (const char* name : {"source_file", "source_text"}) {
        if (auto value = read(name)) {
            if (value->kind != Kind::String) {
                warn(name, "is not a string");
                continue;
            }
            (std::string(name) == "source_file" ? row.sourceFile : row.sourceText) = capture.strings.intern(value->text);
        }
    }
    if (auto line = read("source_lineno")) {
        if (line->kind == Kind::Integer)
            row.sourceLine = line->integer < 0 ? -1 : line->integer;
        else
            warn("source_lineno", "is not an integer");
    }
    if (auto tags = read("tags")) {
        if (tags->kind == Kind::StringList)
            for (const auto& tag : tags->list)
                row.tags.push_back(capture.strings.intern(tag));
        else if (tags->kind == Kind::String && !tags->text.empty())
            row.tags.push_back(capture.strings.intern(tags->text));
        else if (tags->kind != Kind::String)
            warn("tags", "is not a list of strings");
    }
}

} // namespace

Status readPerRankGroups(const H5File& file, Capture& capture, const ProgressRange& progress)
{
    capture.layout = StorageLayout::PerRankGroups;

    std::vector<std::pair<int32_t, std::string>> rankGroups;
    for (const auto& name : file.children("/")) {
        int32_t rank = 0;
        if (parseRankGroupName(name, rank) && file.isGroup("/" + name))
            rankGroups.emplace_back(rank, name);
    }
    std::sort(rankGroups.begin(), rankGroups.end());

    std::vector<RegionGroup> groups;
    for (const auto& [rank, name] : rankGroups) {
        capture.ranks.push_back(rank);
        const std::string regionsPath = "/" + name + "/regions";
        if (file.isGroup(regionsPath))
            collectRegions(file, rank, regionsPath, "", groups);
    }
    capture.numRanks = int32_t(rankGroups.size());

    // First pass: lengths, so the event columns are allocated once.
    std::vector<uint64_t> offsets(groups.size());
    uint64_t total = 0;
    for (size_t i = 0; i < groups.size(); ++i) {
        auto& group = groups[i];
        auto starts = file.length(group.path + "/start_times");
        if (!starts)
            return starts.error();
        auto ends = file.length(group.path + "/end_times");
        if (!ends)
            return ends.error();
        if (starts.value() != ends.value())
            return file.error(ErrorCode::LengthMismatch,
                              "start_times has " + std::to_string(starts.value())
                                  + " values but end_times has " + std::to_string(ends.value()),
                              group.path);
        group.count = starts.value();
        offsets[i] = total;
        total += group.count;
    }

    auto& events = capture.events;
    events.start.resize(total);
    events.end.resize(total);
    const EventColumnPrefault prefault(file, events);
    std::unordered_map<std::string, uint32_t> regionIds;
    for (size_t i = 0; i < groups.size(); ++i) {
        const auto& group = groups[i];
        const auto sub = progress.sub(double(offsets[i]) / double(std::max<uint64_t>(total, 1)),
                                      double(offsets[i] + group.count) / double(std::max<uint64_t>(total, 1)));
        if (auto s = file.readInt64(group.path + "/start_times", events.start.mutableData() + offsets[i],
                                    group.count, sub.sub(0, 0.5));
            !s)
            return s;
        if (auto s = file.readInt64(group.path + "/end_times", events.end.mutableData() + offsets[i],
                                    group.count, sub.sub(0.5, 1));
            !s)
            return s;

        auto [it, inserted] = regionIds.try_emplace(group.name, uint32_t(capture.regionNames.size()));
        if (inserted)
            capture.regionNames.push_back(capture.strings.intern(group.name));
        RegionRow row;
        row.region = it->second;
        row.rank = group.rank;
        row.firstEvent = offsets[i];
        row.count = group.count;
        readRegionAttributes(file, group, capture, row);
        capture.rows.push_back(std::move(row));
    }

    if (auto s = readOptionalColumn(file, groups, offsets, total, "gpu_durations", events.gpu); !s)
        return s;
    if (auto s = readOptionalColumn(file, groups, offsets, total, "call_ids", events.callIds); !s)
        return s;
    if (auto s = readOptionalColumn(file, groups, offsets, total, "parent_ids", events.parentIds); !s)
        return s;
    return Ok{};
}

bool parseRankGroupName(const std::string& name, int32_t& rank)
{
    if (name.size() <= 4 || name.compare(0, 4, "rank") != 0 || name.size() > 4 + 9)
        return false;
    int64_t value = 0;
    for (size_t i = 4; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9')
            return false;
        value = value * 10 + (name[i] - '0');
    }
    rank = int32_t(value);
    return true;
}

} // namespace spanscope::model::io
