// Schema 1: one group per rank, one group per region, absolute start/end columns.

#include "reader_parts.h"

#include <algorithm>
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
                          const char* dataset, Column<int64_t>& column)
{
    for (size_t i = 0; i < groups.size(); ++i) {
        const std::string path = groups[i].path + "/" + dataset;
        if (!file.isDataset(path))
            continue;
        if (column.empty())
            column.assign(total, -1);
        if (auto status = file.readInt64(path, column.data() + offsets[i], groups[i].count); !status)
            return status;
    }
    return Ok{};
}

Result<std::string> readStringAttribute(const H5File& file, const std::string& path,
                                        const char* name)
{
    auto value = file.readAttribute(path, name);
    if (!value)
        return value.error();
    if (value.value().kind != MetadataValue::Kind::String)
        return file.error(ErrorCode::WrongType, std::string("attribute '") + name + "' must be a string",
                          path);
    return value.value().text;
}

Status readRegionAttributes(const H5File& file, const RegionGroup& group, Capture& capture,
                            RegionRow& row)
{
    if (file.hasAttribute(group.path, "source_file")) {
        auto text = readStringAttribute(file, group.path, "source_file");
        if (!text)
            return text.error();
        row.sourceFile = capture.strings.intern(text.value());
    }
    if (file.hasAttribute(group.path, "source_text")) {
        auto text = readStringAttribute(file, group.path, "source_text");
        if (!text)
            return text.error();
        row.sourceText = capture.strings.intern(text.value());
    }
    if (file.hasAttribute(group.path, "source_lineno")) {
        auto line = file.readAttribute(group.path, "source_lineno");
        if (!line)
            return line.error();
        if (line.value().kind != MetadataValue::Kind::Integer)
            return file.error(ErrorCode::WrongType, "attribute 'source_lineno' must be an integer",
                              group.path);
        row.sourceLine = line.value().integer;
    }
    if (file.hasAttribute(group.path, "tags")) {
        auto tags = file.readAttribute(group.path, "tags");
        if (!tags)
            return tags.error();
        const auto& value = tags.value();
        if (value.kind == MetadataValue::Kind::StringList)
            for (const auto& tag : value.list)
                row.tags.push_back(capture.strings.intern(tag));
        else if (value.kind == MetadataValue::Kind::String && !value.text.empty())
            row.tags.push_back(capture.strings.intern(value.text));
    }
    return Ok{};
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
    std::unordered_map<std::string, uint32_t> regionIds;
    for (size_t i = 0; i < groups.size(); ++i) {
        const auto& group = groups[i];
        const auto sub = progress.sub(double(offsets[i]) / double(std::max<uint64_t>(total, 1)),
                                      double(offsets[i] + group.count) / double(std::max<uint64_t>(total, 1)));
        if (auto s = file.readInt64(group.path + "/start_times", events.start.data() + offsets[i],
                                    group.count, sub.sub(0, 0.5));
            !s)
            return s;
        if (auto s = file.readInt64(group.path + "/end_times", events.end.data() + offsets[i],
                                    group.count, sub.sub(0.5, 1));
            !s)
            return s;

        auto [it, inserted] = regionIds.try_emplace(group.name, uint32_t(capture.regionNames.size()));
        if (inserted)
            capture.regionNames.push_back(capture.strings.intern(group.name));
        RegionRow row;
        row.region = it->second;
        row.rank = group.rank;
        row.offset = offsets[i];
        row.count = group.count;
        if (auto s = readRegionAttributes(file, group, capture, row); !s)
            return s;
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
