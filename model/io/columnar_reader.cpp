// Schemas 2 and 3: one index row per (region, rank) addressing a slice of shared event
// columns; schema 3 stores start deltas + durations instead of absolute starts/ends.

#include "reader_parts.h"
#include "summary_statistics_reader.h"
#include "tag_list.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace spanscope::model::io {

namespace {

constexpr const char* kIndex = "/rank_region_index";
constexpr const char* kEvents = "/events";

std::string indexColumn(const char* name)
{
    return std::string(kIndex) + "/" + name;
}
std::string eventColumn(const char* name)
{
    return std::string(kEvents) + "/" + name;
}

Result<std::string> readLayout(const H5File& file)
{
    if (!file.hasAttribute("/", "storage_layout"))
        return std::string("columnar");
    auto value = file.readAttribute("/", "storage_layout");
    if (!value)
        return value.error();
    if (value.value().kind != MetadataValue::Kind::String)
        return file.error(ErrorCode::WrongType, "must be a string",
                          "attribute 'storage_layout' of /");
    return value.value().text;
}

// Reads an optional index column of P values; absent gives an empty vector. In aggregate
// files these columns may legitimately have length 0.
template <typename Reader>
auto readOptionalIndex(const H5File& file, const char* name, size_t rows, bool aggregate,
                       Reader read) -> decltype(read(std::string()))
{
    const std::string path = indexColumn(name);
    if (!file.exists(path))
        return typename std::decay_t<decltype(read(path).value())>{};
    auto values = read(path);
    if (!values)
        return values;
    if (values.value().size() != rows) {
        if (aggregate && values.value().empty())
            return values;
        return file.error(ErrorCode::LengthMismatch,
                          "has " + std::to_string(values.value().size()) + " rows, but region_ids has "
                              + std::to_string(rows),
                          path);
    }
    return values;
}

struct IndexColumns
{
    std::vector<uint64_t> regionIds, ranks, offsets, counts;
    std::vector<int64_t> sourceLines, exclusiveTotals;
    std::vector<std::string> sourceFiles, sourceTexts, tags;
};

Status readIndex(const H5File& file, bool aggregate, IndexColumns& index)
{
    auto regionIds = file.readUint64Column(indexColumn("region_ids"));
    if (!regionIds)
        return regionIds.error();
    index.regionIds = std::move(regionIds.value());
    const size_t rows = index.regionIds.size();

    auto ranks = file.readUint64Column(indexColumn("ranks"));
    if (!ranks)
        return ranks.error();
    if (ranks.value().size() != rows)
        return file.error(ErrorCode::LengthMismatch,
                          "has " + std::to_string(ranks.value().size())
                              + " rows, but region_ids has " + std::to_string(rows),
                          indexColumn("ranks"));
    index.ranks = std::move(ranks.value());

    auto u64 = [&](const std::string& p) { return file.readUint64Column(p); };
    auto i64 = [&](const std::string& p) { return file.readInt64Column(p); };
    auto str = [&](const std::string& p) { return file.readStrings(p); };
    if (!aggregate) {
        for (const char* required : {"event_offsets", "event_counts"})
            if (!file.exists(indexColumn(required)))
                return file.error(ErrorCode::InvalidSchema, "required dataset is missing",
                                  indexColumn(required));
    }
    auto offsets = readOptionalIndex(file, "event_offsets", rows, aggregate, u64);
    if (!offsets)
        return offsets.error();
    auto counts = readOptionalIndex(file, "event_counts", rows, aggregate, u64);
    if (!counts)
        return counts.error();
    auto lines = readOptionalIndex(file, "source_lines", rows, aggregate, i64);
    if (!lines)
        return lines.error();
    auto exclusive = readOptionalIndex(file, "exclusive_totals", rows, aggregate, i64);
    if (!exclusive)
        return exclusive.error();
    auto files = readOptionalIndex(file, "source_files", rows, aggregate, str);
    if (!files)
        return files.error();
    auto texts = readOptionalIndex(file, "source_texts", rows, aggregate, str);
    if (!texts)
        return texts.error();
    auto tags = readOptionalIndex(file, "tags", rows, aggregate, str);
    if (!tags)
        return tags.error();
    index.offsets = std::move(offsets.value());
    index.counts = std::move(counts.value());
    index.sourceLines = std::move(lines.value());
    index.exclusiveTotals = std::move(exclusive.value());
    index.sourceFiles = std::move(files.value());
    index.sourceTexts = std::move(texts.value());
    index.tags = std::move(tags.value());
    return Ok{};
}

// Rows must address [offset, offset+count) within N events and must not share events.
Status validateSlices(const H5File& file, const IndexColumns& index, uint64_t eventCount)
{
    const size_t rows = index.regionIds.size();
    for (size_t i = 0; i < rows; ++i) {
        if (index.offsets[i] > eventCount || index.counts[i] > eventCount - index.offsets[i])
            return file.error(ErrorCode::OutOfRange,
                              "row " + std::to_string(i) + " addresses events "
                                  + std::to_string(index.offsets[i]) + ".."
                                  + std::to_string(index.offsets[i] + index.counts[i])
                                  + " but the event columns hold only "
                                  + std::to_string(eventCount),
                              kIndex);
    }
    std::vector<size_t> order(rows);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return index.offsets[a] < index.offsets[b]; });
    for (size_t k = 1; k < rows; ++k) {
        const size_t previous = order[k - 1], current = order[k];
        if (index.counts[previous] > 0 && index.counts[current] > 0
            && index.offsets[previous] + index.counts[previous] > index.offsets[current])
            return file.error(ErrorCode::Overlap,
                              "rows " + std::to_string(previous) + " and " + std::to_string(current)
                                  + " both claim event " + std::to_string(index.offsets[current]),
                              kIndex);
    }
    return Ok{};
}

Status readAggregateColumns(const H5File& file, size_t rows, Column<RegionRow>& out)
{
    auto counts = file.readUint64Column(indexColumn("aggregate_counts"));
    if (!counts)
        return counts.error();
    std::vector<int64_t> columns[4];
    const char* names[4] = {"aggregate_totals", "aggregate_minimums", "aggregate_maximums",
                            "aggregate_exclusives"};
    for (int c = 0; c < 4; ++c) {
        if (c == 3 && !file.exists(indexColumn(names[c])))
            continue; // exclusive is reconstructed as unavailable when absent
        auto values = file.readInt64Column(indexColumn(names[c]));
        if (!values)
            return values.error();
        columns[c] = std::move(values.value());
    }
    for (int c = 0; c < 4; ++c) {
        const size_t size = c == 3 && columns[c].empty() ? rows : columns[c].size();
        if (size != rows || counts.value().size() != rows)
            return file.error(ErrorCode::LengthMismatch,
                              "aggregate columns must have one value per index row ("
                                  + std::to_string(rows) + ")",
                              indexColumn(c == 3 ? names[c] : "aggregate_counts"));
    }
    for (size_t i = 0; i < rows; ++i) {
        AggregateStats a;
        a.count = counts.value()[i];
        a.total = columns[0][i];
        a.minimum = columns[1][i];
        a.maximum = columns[2][i];
        a.exclusive = columns[3].empty() ? -1 : columns[3][i];
        out[i].aggregate = a;
    }
    return Ok{};
}

// Schema 3: per row, start = running sum of deltas (restarting at each row), end = start +
// duration. In place: start holds deltas, end holds durations on entry. Sums past 64 bits
// (a damaged file) stop at the limit, and the row says so.
void decodeDeltas(Capture& capture)
{
    EventColumns& events = capture.events;
    for (const auto& row : capture.rows) {
        // The reader laid each row out as one span from the file's offsets.
        int64_t* start = events.start.mutableData() + row.firstEvent;
        int64_t* end = events.end.mutableData() + row.firstEvent;
        int64_t running = 0;
        bool overflowed = false;
        for (uint64_t i = 0; i < row.count; ++i) {
            overflowed |= __builtin_add_overflow(running, start[i], &running);
            start[i] = running;
            overflowed |= __builtin_add_overflow(end[i], running, &end[i]);
        }
        if (overflowed)
            capture.warnings.push_back(
                {"region '" + capture.regionName(row.region) + "' on rank "
                     + std::to_string(row.rank)
                     + ": its start deltas and durations add up past 64-bit nanoseconds; "
                       "the file is damaged and its times there are meaningless",
                 eventColumn("start_deltas")});
    }
}

Status readEventColumns(const H5File& file, bool deltas, const ProgressRange& progress,
                        Capture& capture, uint64_t& eventCount)
{
    const std::string startPath = eventColumn(deltas ? "start_deltas" : "start_times");
    const std::string endPath = eventColumn(deltas ? "durations" : "end_times");
    auto n = file.length(startPath);
    if (!n)
        return n.error();
    eventCount = n.value();
    auto& events = capture.events;
    events.start.resize(eventCount);
    events.end.resize(eventCount);
    {
        const EventColumnPrefault prefault(file, events);
        if (auto s = file.readInt64(startPath, events.start.mutableData(), eventCount, progress.sub(0, 0.45)); !s)
            return s;
        if (auto s = file.readInt64(endPath, events.end.mutableData(), eventCount, progress.sub(0.45, 0.9)); !s)
            return s;
    }

    // Older writers named await_ns "await_times".
    std::vector<std::pair<std::string, EventColumn<int64_t>*>> optional;
    for (const auto& column : kOptionalEventColumns)
        optional.emplace_back(column.name, &(events.*column.member));
    optional.emplace_back("await_times", &events.awaitNs);
    for (const auto& [name, column] : optional) {
        const std::string path = eventColumn(name.c_str());
        if (!file.isDataset(path) || !column->empty())
            continue;
        column->resize(eventCount);
        if (auto s = file.readInt64(path, column->mutableData(), eventCount); !s)
            return s;
    }
    progress.report(1.0);
    return Ok{};
}

} // namespace

Status readColumnar(const H5File& file, Capture& capture, const ProgressRange& progress)
{
    for (const char* group : {kEvents, "/region_table", kIndex})
        if (!file.isGroup(group))
            return file.error(ErrorCode::InvalidSchema,
                              "required group is missing; this is not a complete schema-"
                                  + std::to_string(capture.schema) + " region file",
                              group);

    auto layout = readLayout(file);
    if (!layout)
        return layout.error();
    const bool aggregate = layout.value() == "aggregate";
    capture.layout = aggregate ? StorageLayout::Aggregate : StorageLayout::Columnar;
    capture.eventDataAvailable = !aggregate;

    // The decoder follows the column names, as scope-profiler's own reader does.
    const bool deltas = file.isDataset(eventColumn("start_deltas"));
    if (!deltas && !file.isDataset(eventColumn("start_times")))
        return file.error(ErrorCode::InvalidSchema,
                          "has neither start_deltas/durations (schema 3) nor "
                          "start_times/end_times (schema 2)",
                          kEvents);
    if (deltas != (capture.schema >= 3))
        capture.warnings.push_back({"schema version " + std::to_string(capture.schema)
                                        + " but the events are stored as "
                                        + (deltas ? "deltas (schema 3)" : "absolute times (schema 2)")
                                        + "; decoded by column names",
                                    kEvents});

    auto names = file.readStrings("/region_table/names");
    if (!names)
        return names.error();
    for (const auto& name : names.value())
        capture.regionNames.push_back(capture.strings.intern(name));

    IndexColumns index;
    if (auto s = readIndex(file, aggregate, index); !s)
        return s;
    const size_t rowCount = index.regionIds.size();

    uint64_t eventCount = 0;
    if (auto s = readEventColumns(file, deltas, progress.sub(0, 0.95), capture, eventCount); !s)
        return s;
    if (aggregate && eventCount != 0)
        capture.warnings.push_back({"aggregate file holds " + std::to_string(eventCount)
                                        + " events; they are ignored",
                                    kEvents});
    if (!aggregate)
        if (auto s = validateSlices(file, index, eventCount); !s)
            return s;

    std::set<std::pair<uint64_t, uint64_t>> seen;
    capture.rows.resize(rowCount);
    for (size_t i = 0; i < rowCount; ++i) {
        auto& row = capture.rows[i];
        if (index.regionIds[i] >= capture.regionNames.size())
            return file.error(ErrorCode::OutOfRange,
                              "row " + std::to_string(i) + " names region id "
                                  + std::to_string(index.regionIds[i]) + " but region_table has only "
                                  + std::to_string(capture.regionNames.size()) + " names",
                              indexColumn("region_ids"));
        if (index.ranks[i] > uint64_t(INT32_MAX))
            return file.error(ErrorCode::OutOfRange, "rank " + std::to_string(index.ranks[i]) + " is too large",
                              indexColumn("ranks"));
        if (!seen.emplace(index.regionIds[i], index.ranks[i]).second)
            return file.error(ErrorCode::InvalidSchema,
                              "region '" + capture.regionName(uint32_t(index.regionIds[i]))
                                  + "' appears twice for rank " + std::to_string(index.ranks[i]),
                              kIndex);
        row.region = uint32_t(index.regionIds[i]);
        row.rank = int32_t(index.ranks[i]);
        if (!aggregate) {
            row.firstEvent = index.offsets[i];
            row.count = index.counts[i];
        }
        if (!index.sourceLines.empty())
            row.sourceLine = index.sourceLines[i] < 0 ? -1 : index.sourceLines[i];
        if (!index.sourceFiles.empty())
            row.sourceFile = capture.strings.intern(index.sourceFiles[i]);
        if (!index.sourceTexts.empty())
            row.sourceText = capture.strings.intern(index.sourceTexts[i]);
        if (!index.exclusiveTotals.empty())
            row.storedExclusive = index.exclusiveTotals[i];
        if (!index.tags.empty()) {
            auto tags = parseTagList(index.tags[i]);
            if (tags) {
                for (const auto& tag : tags.value())
                    row.tags.push_back(capture.strings.intern(tag));
            } else {
                capture.warnings.push_back({"tags of region '" + capture.regionName(row.region)
                                                + "' are not a JSON string list ("
                                                + tags.error().message + "); shown as written",
                                            indexColumn("tags")});
                row.tags.push_back(capture.strings.intern(index.tags[i]));
            }
        }
    }
    if (aggregate)
        if (auto s = readAggregateColumns(file, rowCount, capture.rows); !s)
            return s;
    readSummaryStatistics(file, indexColumn("summary_statistics"), capture);

    if (deltas && !aggregate && !file.structureOnly())
        decodeDeltas(capture);
    if (aggregate)
        capture.events = EventColumns{};

    std::set<int32_t> ranks;
    int32_t maxRank = -1;
    for (const auto& row : capture.rows) {
        ranks.insert(row.rank);
        maxRank = std::max(maxRank, row.rank);
    }
    capture.ranks.assign(ranks.begin(), ranks.end());
    int64_t mpiSize = 1;
    if (const auto* size = findMetadata(capture.metadata, "mpi_size");
        size && size->kind == MetadataValue::Kind::Integer)
        mpiSize = size->integer;
    capture.numRanks = rowCount == 0 ? 0 : int32_t(std::max<int64_t>(mpiSize, maxRank + 1));
    return Ok{};
}

} // namespace spanscope::model::io
