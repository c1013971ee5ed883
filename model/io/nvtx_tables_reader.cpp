#include "nvtx_tables_reader.h"

#include <climits>

namespace spanscope::model::io {

namespace {

constexpr const char* kGroup = "/spanscope/nvtx";

// Reads the group; on the first problem returns it as a message.
std::string readAll(const H5File& file, Capture& capture, NvtxTables& t)
{
    std::string problem;
    auto ints = [&](const char* name) {
        std::vector<int64_t> values;
        if (!problem.empty())
            return values;
        auto read = file.readInt64Column(std::string(kGroup) + "/" + name);
        if (read)
            values = std::move(read.value());
        else
            problem = read.error().toString();
        return values;
    };
    auto texts = [&](const char* name) {
        std::vector<NameId> values;
        if (!problem.empty())
            return values;
        auto read = file.readStrings(std::string(kGroup) + "/" + name);
        if (!read) {
            problem = read.error().toString();
            return values;
        }
        for (const auto& s : read.value())
            values.push_back(capture.strings.intern(s));
        return values;
    };
    const auto domainIds = ints("domain_ids");
    const auto domainNames = texts("domain_names");
    const auto categoryDomains = ints("category_domains");
    const auto categoryIds = ints("category_ids");
    const auto categoryNames = texts("category_names");
    const auto markTimes = ints("mark_times");
    const auto markThreads = ints("mark_threads");
    const auto markDomains = ints("mark_domains");
    const auto markCategories = ints("mark_categories");
    const auto markMessages = texts("mark_messages");
    const auto markEvents = ints("mark_events");
    // Files written before captures had several processes have no mark_ranks: all rank 0.
    const bool hasMarkRanks = file.isDataset(std::string(kGroup) + "/mark_ranks");
    const auto markRanks = hasMarkRanks ? ints("mark_ranks") : std::vector<int64_t>();
    const auto callDomains = ints("call_domains");
    const auto callCategories = ints("call_categories");
    const auto closed = ints("closed_at_end");
    // Files written before spanscope recorded the ending thread have no cross_thread_end_*.
    const bool hasCrossEnds = file.isDataset(std::string(kGroup) + "/cross_thread_end_events");
    const auto crossEndEvents = hasCrossEnds ? ints("cross_thread_end_events") : std::vector<int64_t>();
    const auto crossEndThreads = hasCrossEnds ? ints("cross_thread_end_threads") : std::vector<int64_t>();
    if (!problem.empty())
        return problem;
    const size_t n = capture.events.size();
    if (domainIds.size() != domainNames.size() || categoryDomains.size() != categoryIds.size() ||
        categoryIds.size() != categoryNames.size() || markTimes.size() != markThreads.size() ||
        markTimes.size() != markDomains.size() || markTimes.size() != markCategories.size() ||
        markTimes.size() != markMessages.size() || markTimes.size() != markEvents.size() ||
        (hasMarkRanks && markTimes.size() != markRanks.size()) ||
        (!callDomains.empty() && callDomains.size() != n) ||
        (!callCategories.empty() && callCategories.size() != n) ||
        crossEndEvents.size() != crossEndThreads.size())
        return "its columns differ in length";
    for (size_t i = 0; i < domainIds.size(); ++i)
        t.domains.push_back({uint32_t(domainIds[i]), domainNames[i]});
    for (size_t i = 0; i < categoryIds.size(); ++i)
        t.categories.push_back(
            {uint32_t(categoryDomains[i]), uint32_t(categoryIds[i]), categoryNames[i]});
    for (size_t i = 0; i < markTimes.size(); ++i)
        if (hasMarkRanks && (markRanks[i] < 0 || markRanks[i] > INT32_MAX))
            return "a mark's rank is negative or too large";
    for (size_t i = 0; i < markTimes.size(); ++i) {
        const int64_t event =
            markEvents[i] >= 0 && uint64_t(markEvents[i]) < n ? markEvents[i] : -1;
        t.marks.push_back({markTimes[i], markThreads[i], uint32_t(markDomains[i]),
                           uint32_t(markCategories[i]), markMessages[i], event,
                           hasMarkRanks ? int32_t(markRanks[i]) : 0});
    }
    t.callDomains.assign(callDomains.begin(), callDomains.end());
    t.callCategories.assign(callCategories.begin(), callCategories.end());
    for (const int64_t e : closed)
        if (e >= 0 && uint64_t(e) < n)
            t.closedAtEnd.push_back(uint64_t(e));
    for (size_t i = 0; i < crossEndEvents.size(); ++i) {
        const int64_t e = crossEndEvents[i];
        // Kept ascending and in range whatever the file says: lookups binary-search them.
        if (e >= 0 && uint64_t(e) < n && crossEndThreads[i] >= 0
            && (t.crossThreadEnds.empty() || t.crossThreadEnds.back().event < uint64_t(e)))
            t.crossThreadEnds.push_back({uint64_t(e), crossEndThreads[i]});
    }
    return {};
}

} // namespace

void readNvtxTables(const H5File& file, Capture& capture)
{
    if (!file.isGroup(kGroup))
        return;
    NvtxTables tables;
    const std::string problem = readAll(file, capture, tables);
    if (!problem.empty()) {
        capture.warnings.push_back(
            {"the NVTX tables cannot be read and are left out: " + problem, kGroup});
        return;
    }
    capture.nvtx = std::move(tables);
}

} // namespace spanscope::model::io
