#pragma once
// What a capture of `nvtx_workload forkworkers N` must hold, saved (spanscope-run --output) or
// live (the viewer's socket): the parent and every worker forked without exec are processes
// of their own, each with exactly its own ranges, names and marks.
#include "collector/nvtx_workload_counts.h"
#include "model/capture.h"
#include "model/metadata.h"

#include <map>
#include <set>
#include <string>

namespace spanscope::testing {

// Empty when the capture is right; otherwise what is wrong.
inline std::string checkForkedWorkers(const model::Capture& c, int workers)
{
    using namespace spanscope::test;
    std::string problems;
    auto expect = [&](bool ok, const std::string& what) {
        if (!ok)
            problems += what + "\n";
    };
    std::vector<int32_t> ranks;
    for (int r = 0; r <= workers; ++r)
        ranks.push_back(r);
    expect(c.ranks == ranks, "ranks are " + std::to_string(c.ranks.size()) + ", expected parent + " +
                                 std::to_string(workers));
    std::map<std::pair<int32_t, std::string>, uint64_t> calls;
    for (const auto& row : c.rows)
        calls[{row.rank, c.regionName(row.region)}] += row.count;
    expect(calls[{0, "spawn"}] == 1, "the parent's \"spawn\" range is not one call of rank 0");
    expect(calls[{0, "busy"}] > 0, "the parent's busy thread recorded nothing");
    for (int32_t r = 1; r <= workers; ++r) {
        const std::string who = "worker rank " + std::to_string(r) + ": ";
        expect(calls[{r, "worker-task"}] == uint64_t(kWorkerRanges), who + "worker-task calls");
        expect(calls[{r, "thread-task"}] == uint64_t(kWorkerRanges), who + "thread-task calls");
        expect(calls.count({r, "spawn"}) == 0 && calls.count({r, "busy"}) == 0,
               who + "holds the parent's ranges");
    }
    // Threads: the parent's two; in each worker the forking thread (under its inherited name)
    // and the thread the worker started.
    std::map<int32_t, std::set<std::string>> threads;
    for (const auto& t : c.threads)
        threads[t.rank].insert(c.strings.text(t.name));
    expect(threads[0] == std::set<std::string>{"parent-main", "parent-busy"},
           "the parent's threads are not parent-main and parent-busy");
    for (int32_t r = 1; r <= workers; ++r)
        expect(threads[r] == std::set<std::string>{"parent-main", "worker-thread"},
               "worker rank " + std::to_string(r) + "'s threads are not its own two");
    // The category the parent named reaches every worker's "worker-task" calls.
    bool named = false;
    for (const auto& cat : c.nvtx.categories)
        named = named || (cat.category == kStepCategory && c.strings.text(cat.name) == "steps");
    expect(named, "the category named before the fork has no name");
    for (const auto& row : c.rows)
        if (c.regionName(row.region) == "worker-task")
            for (uint64_t e = row.firstEvent; e < row.firstEvent + row.count; ++e)
                if (e >= c.nvtx.callCategories.size() || c.nvtx.callCategories[e] != kStepCategory) {
                    problems += "a worker-task call lost its category\n";
                    break;
                }
    std::map<int32_t, int> doneMarks;
    for (const auto& mark : c.nvtx.marks)
        if (c.strings.text(mark.message) == "worker-done")
            ++doneMarks[mark.rank];
    for (int32_t r = 1; r <= workers; ++r)
        expect(doneMarks[r] == 1, "worker rank " + std::to_string(r) + " lacks its mark");
    expect(c.nvtx.closedAtEnd.empty(), "ranges were left open");
    // Summed over the processes; a saved capture keeps them, not the warnings.
    for (const char* key : {"nvtx_anomalies", "dropped_records"}) {
        const model::MetadataValue* value = model::findMetadata(c.metadata, key);
        expect(value && value->integer == 0, std::string(key) + " is not 0");
    }
    for (const auto& w : c.warnings)
        problems += "warning: " + w.message + "\n";
    return problems;
}

} // namespace spanscope::testing
