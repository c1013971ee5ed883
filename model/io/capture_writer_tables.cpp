// Lane tables and spanscope's NVTX tables of a saved capture (docs/capture-format.md).

#include "capture_file_writer.h"

namespace spanscope::model::io::writer {

Status Writer::threadTable()
{
    std::vector<uint32_t> ranks;
    std::vector<int64_t> index, ident, nativeId, start, end, cpu;
    std::vector<int8_t> daemon;
    std::vector<std::string> names;
    for (const auto& t : m_capture.threads) {
        ranks.push_back(uint32_t(t.rank));
        index.push_back(t.index);
        ident.push_back(t.ident);
        nativeId.push_back(t.nativeId);
        daemon.push_back(t.daemon ? 1 : 0);
        names.push_back(text(t.name));
        start.push_back(t.startNs);
        end.push_back(t.endNs);
        cpu.push_back(t.cpuNs);
    }
    const std::string base = "/thread_table/";
    Status s = column(base + "ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32, ranks);
    if (s)
        s = column(base + "index", H5T_STD_I64LE, H5T_NATIVE_INT64, index);
    if (s)
        s = column(base + "ident", H5T_STD_I64LE, H5T_NATIVE_INT64, ident);
    if (s)
        s = column(base + "native_id", H5T_STD_I64LE, H5T_NATIVE_INT64, nativeId);
    if (s)
        s = column(base + "daemon", H5T_STD_I8LE, H5T_NATIVE_INT8, daemon);
    if (s)
        s = strings(base + "name", names);
    if (s)
        s = column(base + "start_ns", H5T_STD_I64LE, H5T_NATIVE_INT64, start);
    if (s)
        s = column(base + "end_ns", H5T_STD_I64LE, H5T_NATIVE_INT64, end);
    if (s)
        s = column(base + "cpu_ns", H5T_STD_I64LE, H5T_NATIVE_INT64, cpu);
    return s;
}

Status Writer::taskTable()
{
    std::vector<uint32_t> ranks;
    std::vector<int64_t>
        ints[7]; // index, thread_index, created_ns, done_ns, steps, running_ns, suspended_ns
    std::vector<std::string> kind, names, coro;
    for (const auto& t : m_capture.tasks) {
        ranks.push_back(uint32_t(t.rank));
        const int64_t values[7] = {t.index, t.threadIndex, t.createdNs,  t.doneNs,
                                   t.steps, t.runningNs,   t.suspendedNs};
        for (int c = 0; c < 7; ++c)
            ints[c].push_back(values[c]);
        kind.push_back(text(t.kind));
        names.push_back(text(t.name));
        coro.push_back(text(t.coroName));
    }
    const std::string base = "/task_table/";
    const char* intNames[7] = {"index", "thread_index", "created_ns",  "done_ns",
                               "steps", "running_ns",   "suspended_ns"};
    Status s = column(base + "ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32, ranks);
    for (int c = 0; s && c < 7; ++c)
        s = column(base + intNames[c], H5T_STD_I64LE, H5T_NATIVE_INT64, ints[c]);
    if (s)
        s = strings(base + "kind", kind);
    if (s)
        s = strings(base + "name", names);
    if (s)
        s = strings(base + "coro_name", coro);
    return s;
}

// spanscope's own NVTX side tables (docs/capture-format.md, /spanscope/nvtx); other
// readers ignore the group.
Status Writer::nvtxTables()
{
    const NvtxTables& t = m_capture.nvtx;
    const std::string base = "/spanscope/nvtx/";
    std::vector<uint32_t> domainIds, categoryDomains, categoryIds, markDomains, markCategories;
    std::vector<std::string> domainNames, categoryNames, markMessages;
    std::vector<int64_t> markTimes, markThreads, markEvents;
    std::vector<uint32_t> markRanks;
    for (const auto& d : t.domains) {
        domainIds.push_back(d.id);
        domainNames.push_back(text(d.name));
    }
    for (const auto& c : t.categories) {
        categoryDomains.push_back(c.domain);
        categoryIds.push_back(c.category);
        categoryNames.push_back(text(c.name));
    }
    for (const auto& m : t.marks) {
        markTimes.push_back(m.timeNs);
        markThreads.push_back(m.thread);
        markDomains.push_back(m.domain);
        markCategories.push_back(m.category);
        markMessages.push_back(text(m.message));
        markEvents.push_back(m.enclosingEvent);
        markRanks.push_back(uint32_t(m.rank));
    }
    const std::vector<uint64_t> closed(t.closedAtEnd.begin(), t.closedAtEnd.end());
    std::vector<uint64_t> crossEndEvents;
    std::vector<int64_t> crossEndThreads;
    for (const auto& end : t.crossThreadEnds) {
        crossEndEvents.push_back(end.event);
        crossEndThreads.push_back(end.endThread);
    }
    const std::vector<uint32_t> callDomains(t.callDomains.begin(), t.callDomains.end());
    const std::vector<uint32_t> callCategories(t.callCategories.begin(), t.callCategories.end());
    Status s = column(base + "domain_ids", H5T_STD_U32LE, H5T_NATIVE_UINT32, domainIds);
    if (s)
        s = strings(base + "domain_names", domainNames);
    if (s)
        s = column(base + "category_domains", H5T_STD_U32LE, H5T_NATIVE_UINT32, categoryDomains);
    if (s)
        s = column(base + "category_ids", H5T_STD_U32LE, H5T_NATIVE_UINT32, categoryIds);
    if (s)
        s = strings(base + "category_names", categoryNames);
    if (s)
        s = column(base + "mark_times", H5T_STD_I64LE, H5T_NATIVE_INT64, markTimes);
    if (s)
        s = column(base + "mark_threads", H5T_STD_I64LE, H5T_NATIVE_INT64, markThreads);
    if (s)
        s = column(base + "mark_domains", H5T_STD_U32LE, H5T_NATIVE_UINT32, markDomains);
    if (s)
        s = column(base + "mark_categories", H5T_STD_U32LE, H5T_NATIVE_UINT32, markCategories);
    if (s)
        s = strings(base + "mark_messages", markMessages);
    if (s)
        s = column(base + "mark_events", H5T_STD_I64LE, H5T_NATIVE_INT64, markEvents);
    if (s)
        s = column(base + "mark_ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32, markRanks);
    if (s)
        s = column(base + "call_domains", H5T_STD_U32LE, H5T_NATIVE_UINT32, callDomains);
    if (s)
        s = column(base + "call_categories", H5T_STD_U32LE, H5T_NATIVE_UINT32, callCategories);
    if (s)
        s = column(base + "closed_at_end", H5T_STD_U64LE, H5T_NATIVE_UINT64, closed);
    if (s)
        s = column(base + "cross_thread_end_events", H5T_STD_U64LE, H5T_NATIVE_UINT64, crossEndEvents);
    if (s)
        s = column(base + "cross_thread_end_threads", H5T_STD_I64LE, H5T_NATIVE_INT64, crossEndThreads);
    return s;
}

// Counters (/spanscope/counters), allocations one by one and allocations counted per
// (thread, range) (/spanscope/alloc): what a live capture recorded with --alloc has.
Status Writer::allocationTables()
{
    const std::string counters = "/spanscope/counters/", base = "/spanscope/alloc/";
    const Capture& c = m_capture;
    auto rankOf = [&](TrackId track) { return uint32_t(c.track(track).rank); };
    std::vector<uint32_t> counterRanks, sampleSeries;
    std::vector<int32_t> counterDevices;
    std::vector<std::string> counterNames, counterUnits;
    std::vector<int64_t> sampleTimes;
    std::vector<double> sampleValues;
    uint32_t written = 0;
    for (size_t k = 0; k < c.counters.size(); ++k) {
        const CounterSeries& series = c.counters[k];
        if (series.derived)
            continue; // spanscope's own (GPU utilization, queues): made again when opened
        const uint32_t index = written++;
        counterRanks.push_back(rankOf(series.track));
        counterDevices.push_back(c.track(series.track).device);
        counterNames.push_back(text(c.track(series.track).name));
        counterUnits.push_back(text(series.unit));
        for (size_t i = 0; i < series.size(); ++i) {
            sampleSeries.push_back(index);
            sampleTimes.push_back(series.time(i));
            sampleValues.push_back(series.value(i));
        }
    }
    const AllocationTable& a = c.allocations;
    std::vector<uint32_t> largeRanks;
    std::vector<int32_t> largeDevices;
    std::vector<int64_t> largeThreads, largeTimes, largeBytes;
    std::vector<uint64_t> largeAddresses;
    for (size_t i = 0; i < a.size(); ++i) {
        largeRanks.push_back(rankOf(a.track(i)));
        largeThreads.push_back(c.track(a.track(i)).thread);
        largeTimes.push_back(a.time(i));
        largeAddresses.push_back(a.address(i));
        largeBytes.push_back(a.bytes(i));
        largeDevices.push_back(a.device(i));
    }
    std::vector<uint32_t> countedRanks;
    std::vector<int64_t> countedThreads, countedRegions;
    std::vector<uint64_t> countedAllocations, countedBytes, countedFrees, binAllocations, binBytes;
    for (const CountedAllocations& counted : c.countedAllocations) {
        countedRanks.push_back(rankOf(counted.track));
        countedThreads.push_back(c.track(counted.track).thread);
        countedRegions.push_back(counted.region);
        countedAllocations.push_back(counted.allocations);
        countedBytes.push_back(counted.bytes);
        countedFrees.push_back(counted.frees);
        binAllocations.insert(binAllocations.end(), counted.binAllocations.begin(), counted.binAllocations.end());
        binBytes.insert(binBytes.end(), counted.binBytes.begin(), counted.binBytes.end());
    }
    Status s = column(counters + "ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32, counterRanks);
    if (s)
        s = column(counters + "devices", H5T_STD_I32LE, H5T_NATIVE_INT32, counterDevices);
    if (s)
        s = strings(counters + "names", counterNames);
    if (s)
        s = strings(counters + "units", counterUnits);
    if (s)
        s = column(counters + "sample_counters", H5T_STD_U32LE, H5T_NATIVE_UINT32, sampleSeries);
    if (s)
        s = column(counters + "sample_times", H5T_STD_I64LE, H5T_NATIVE_INT64, sampleTimes);
    if (s)
        s = column(counters + "sample_values", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, sampleValues);
    if (s)
        s = column(base + "event_ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32, largeRanks);
    if (s)
        s = column(base + "event_threads", H5T_STD_I64LE, H5T_NATIVE_INT64, largeThreads);
    if (s)
        s = column(base + "event_times", H5T_STD_I64LE, H5T_NATIVE_INT64, largeTimes);
    if (s)
        s = column(base + "event_addresses", H5T_STD_U64LE, H5T_NATIVE_UINT64, largeAddresses);
    if (s)
        s = column(base + "event_bytes", H5T_STD_I64LE, H5T_NATIVE_INT64, largeBytes);
    if (s)
        s = column(base + "event_devices", H5T_STD_I32LE, H5T_NATIVE_INT32, largeDevices);
    if (s)
        s = column(base + "counted_ranks", H5T_STD_U32LE, H5T_NATIVE_UINT32, countedRanks);
    if (s)
        s = column(base + "counted_threads", H5T_STD_I64LE, H5T_NATIVE_INT64, countedThreads);
    if (s)
        s = column(base + "counted_regions", H5T_STD_I64LE, H5T_NATIVE_INT64, countedRegions);
    if (s)
        s = column(base + "counted_allocations", H5T_STD_U64LE, H5T_NATIVE_UINT64, countedAllocations);
    if (s)
        s = column(base + "counted_bytes", H5T_STD_U64LE, H5T_NATIVE_UINT64, countedBytes);
    if (s)
        s = column(base + "counted_frees", H5T_STD_U64LE, H5T_NATIVE_UINT64, countedFrees);
    if (s)
        s = column(base + "counted_bin_allocations", H5T_STD_U64LE, H5T_NATIVE_UINT64, binAllocations);
    if (s)
        s = column(base + "counted_bin_bytes", H5T_STD_U64LE, H5T_NATIVE_UINT64, binBytes);
    return s;
}

} // namespace spanscope::model::io::writer
