// NvtxAssembler::snapshot: the capture as of now, laid out (nvtx_assembler_layout.cpp)
// and filled in: regions, domains and categories, calls and their columns, async lanes,
// marks, tracks, allocations (nvtx_assembler_alloc.cpp) and GPU work
// (nvtx_assembler_gpu.cpp).
#include "nvtx_assembler.h"

#include "../share_out.h"
#include "../stats/nesting_carry.h"
#include "../stats/saturating.h"

#include <algorithm>
#include <cstdint>

namespace spanscope::model::live {

namespace {

std::string domainLabel(uint32_t domain, const std::map<uint32_t, std::string>& names)
{
    if (domain == 0)
        return "default";
    auto it = names.find(domain);
    return it == names.end() ? "domain " + std::to_string(domain) : it->second;
}

} // namespace

std::shared_ptr<Capture> NvtxAssembler::snapshot(LayoutMemo* memo) const
{
    auto capture = std::make_shared<Capture>();
    Capture& c = *capture;
    c.schema = 3;
    c.layout = StorageLayout::Columnar;
    c.numRanks = 1;
    c.ranks = {0};
    const int64_t last = m_lastNs == INT64_MIN ? 0 : m_lastNs;

    // Region names first, from the memo's table where it has one of this assembler (see
    // LayoutMemo::regionNames), which then gains the regions that are new.
    LayoutMemo::RegionNames freshNames;
    LayoutMemo::RegionNames& names =
        memo && memo->lineage == m_lineage && memo->regionNames.ids.size() <= m_regionNames.size()
            ? memo->regionNames
            : freshNames;
    names.strings.reserve(m_regionNames.size() - names.ids.size());
    for (size_t r = names.ids.size(); r < m_regionNames.size(); ++r)
        names.ids.push_back(names.strings.intern(m_regionNames[r]));
    c.strings = names.strings;
    c.regionNames = names.ids;

    // Domains: every named one plus any used by a call or mark.
    std::map<uint32_t, bool> domains;
    for (const auto& [id, name] : m_domainNames)
        domains[id] = false;
    for (const auto& [id, async] : m_callDomains)
        domains[id] |= async;
    for (const auto& mark : m_marks)
        domains.try_emplace(mark.domain, false);
    auto endOf = [&](const Call& call) { return shownEnd(call, last); };
    // Async (start/end) ranges of a domain overlap freely and do not nest (NVTX gives them
    // no parent): pack them into as few lanes as possible, a range joining the first lane
    // whose ranges have all ended, so no lane holds an overlap and none looks nested. One
    // task row per (domain, lane).
    Column<int64_t> taskOfCall; // per call, when any call is async: its task row, or -1
    {
        std::vector<uint32_t> async(m_asyncCalls.begin(), m_asyncCalls.end());
        if (!async.empty())
            taskOfCall.assign(m_calls.size(), -1);
        std::stable_sort(async.begin(), async.end(), [&](uint32_t a, uint32_t b) {
            const Call& x = m_calls[a];
            const Call& y = m_calls[b];
            if (x.domain != y.domain)
                return x.domain < y.domain;
            if (x.start != y.start)
                return x.start < y.start;
            return endOf(x) > endOf(y);
        });
        struct Lane
        {
            int64_t task;
            int64_t busyUntil; // end of the last range placed on this lane, ns
        };
        std::map<uint32_t, std::vector<Lane>> lanes;
        for (const uint32_t i : async) {
            const Call& call = m_calls[i];
            auto& domainLanes = lanes[call.domain];
            Lane* chosen = nullptr;
            for (auto& lane : domainLanes) {
                if (lane.busyUntil <= call.start) {
                    chosen = &lane;
                    break;
                }
            }
            if (!chosen) {
                domainLanes.push_back({-1, INT64_MIN});
                chosen = &domainLanes.back();
            }
            chosen->busyUntil = endOf(call);
            taskOfCall[i] = int64_t(chosen - domainLanes.data()); // lane number for now
        }
        for (const auto& [id, async] : domains) {
            const NameId name = c.strings.intern(domainLabel(id, m_domainNames));
            c.nvtx.domains.push_back({id, name});
            auto it = lanes.find(id);
            if (it == lanes.end())
                continue;
            for (size_t k = 0; k < it->second.size(); ++k) {
                TaskInfo task;
                task.index = int64_t(c.tasks.size());
                task.kind = c.strings.intern("nvtx-async");
                task.name = it->second.size() == 1
                                ? name
                                : c.strings.intern(domainLabel(id, m_domainNames) + " async "
                                                   + std::to_string(k + 1));
                it->second[k].task = task.index;
                c.tasks.push_back(task);
            }
        }
        for (const uint32_t i : async)
            taskOfCall[i] = lanes[m_calls[i].domain][size_t(taskOfCall[i])].task;
    }
    for (const auto& [key, name] : m_categoryNames)
        c.nvtx.categories.push_back({key.first, key.second, c.strings.intern(name)});

    for (size_t i = 0; i < m_threads.size(); ++i) {
        ThreadInfo info;
        info.index = int64_t(i);
        info.ident = m_threads[i].tid;
        info.nativeId = m_threads[i].tid;
        info.name = c.strings.intern(m_threads[i].name);
        c.threads.push_back(info);
    }
    // Tracks (what assignTracks() would make, numbered so that they hold from one snapshot
    // to the next): each thread's and each GPU stream's in the order it was first needed
    // (m_trackOwners), then each async lane's.
    for (const TrackOwner& owner : m_trackOwners) {
        if (owner.gpu()) {
            c.tracks.push_back(gpuTrack(c, owner));
            continue;
        }
        Track track;
        track.kind = TrackKind::Thread;
        track.thread = int64_t(owner.thread);
        c.tracks.push_back(track);
    }
    const auto firstTaskTrack = uint32_t(c.tracks.size());
    for (const TaskInfo& task : c.tasks) {
        Track track;
        track.kind = TrackKind::NvtxDomain;
        track.task = task.index;
        track.thread = task.threadIndex;
        c.tracks.push_back(track);
    }
    auto trackOf = [&](const Call& call, size_t i) {
        return call.thread == kNoThread ? (call.gpu != kNotCuda ? m_gpuWork[call.gpu].track : TrackId::kNone)
               : call.async             ? firstTaskTrack + uint32_t(taskOfCall[i])
                                        : m_threads[call.thread].track;
    };

    // Lay out: rows per region (ascending; GPU work, which has no CPU thread, after every
    // CPU call), calls by (start asc, end desc) within a row, ties in arrival order.
    // Whether the memo's GPU tables describe an earlier state of these calls (checked before
    // the layout replaces what canRelayout() reads).
    const bool gpuTablesKept = memo && canRelayout(*memo) && memo->gpu.work <= m_gpuWork.size();
    Layout layout = this->layout(last, memo);
    const Column<uint32_t>& order = *layout.order;
    const size_t n = m_calls.size();
    const size_t events = order.size(); // n, and the events no row holds (Layout::holes)
    auto& e = c.events;
    // Start, end and thread never change once a call is closed, and a snapshot laid out by
    // appending keeps every call closed then at its event: those three columns are stores
    // shared from one snapshot to the next, each writing only the events it appends
    // (events below `kept` hold what the snapshot before wrote there). Stores are reserved
    // for twice the events, and made anew when full or when laid out afresh.
    // The track column too, unless some call is a start/end range: their lanes are packed
    // afresh, so a call's track id may change from one snapshot to the next.
    const bool sharedTracks = taskOfCall.empty();
    // The NVTX per-call columns only where some call is not in the default domain or has
    // a category (NvtxTables: empty means 0 for every call); stores like start's.
    const bool perCallDomains =
        m_callDomains.size() > 1 || (m_callDomains.size() == 1 && m_callDomains.begin()->first != 0);
    LayoutMemo::Stores stores;
    uint64_t kept = 0;
    if (memo) {
        if (layout.fromMemo && memo->stores.start && memo->stores.written == layout.appendedFrom
            && memo->stores.start->capacity() >= events && (memo->stores.track != nullptr) == sharedTracks
            && (memo->stores.domains != nullptr) == perCallDomains
            && (memo->stores.categories != nullptr) == m_sawCategory) {
            stores = memo->stores;
            kept = memo->stores.written;
        } else {
            const size_t capacity = std::max<size_t>(2 * events, size_t(1) << 16);
            stores.start = std::make_shared<SharedColumnStore<int64_t>>(capacity);
            stores.end = std::make_shared<SharedColumnStore<int64_t>>(capacity);
            stores.threadIds = std::make_shared<SharedColumnStore<int64_t>>(capacity);
            if (sharedTracks)
                stores.track = std::make_shared<SharedColumnStore<uint32_t>>(capacity);
            if (perCallDomains)
                stores.domains = std::make_shared<SharedColumnStore<uint32_t>>(capacity);
            if (m_sawCategory)
                stores.categories = std::make_shared<SharedColumnStore<uint32_t>>(capacity);
        }
        stores.written = events;
    } else {
        e.start.resize(events);
        e.end.resize(events);
        e.threadIds.resize(events);
        if (perCallDomains)
            c.nvtx.callDomains.resize(events);
        if (m_sawCategory)
            c.nvtx.callCategories.resize(events);
    }
    if (!stores.track)
        e.track.resize(events);
    int64_t* const startOut = stores.start ? stores.start->data() : e.start.mutableData();
    int64_t* const endOut = stores.end ? stores.end->data() : e.end.mutableData();
    int64_t* const threadOut = stores.threadIds ? stores.threadIds->data() : e.threadIds.mutableData();
    uint32_t* const trackOut = stores.track ? stores.track->data() : e.track.mutableData();
    const uint64_t trackKept = stores.track ? kept : 0;
    uint32_t* const domainOut = !perCallDomains ? nullptr
                                : stores.domains ? stores.domains->data()
                                                 : c.nvtx.callDomains.mutableData();
    uint32_t* const categoryOut = !m_sawCategory ? nullptr
                                  : stores.categories ? stores.categories->data()
                                                      : c.nvtx.callCategories.mutableData();
    // A column sized for every event, to write, when `wanted`; else none.
    auto sized = [&](EventColumn<int64_t>& column, bool wanted) -> int64_t* {
        if (!wanted)
            return nullptr;
        column.resize(events);
        return column.mutableData();
    };
    // Task ids only where a call is async (a start/end range): otherwise every one is -1,
    // which an absent column says for 8 bytes less per call and snapshot.
    int64_t* const taskOut = sized(e.taskIds, !taskOfCall.empty());
    int64_t* const allocCountOut = sized(e.allocCounts, m_sawAllocations);
    int64_t* const allocBytesOut = sized(e.allocBytes, m_sawAllocations);
    int64_t* const iterationsOut = sized(e.allocIterations, m_sawAllocSpans);
    // Call i's values written to event k: its own event, or one it held in an earlier
    // snapshot (no row holds those; they are written all the same, as nothing in the
    // columns is left undefined), but not into the shared stores below `kept`.
    auto write = [&](size_t i, uint64_t k) {
        const Call& call = m_calls[i];
        if (k >= kept) {
            startOut[k] = call.start;
            endOut[k] = endOf(call);
            threadOut[k] = call.thread == kNoThread ? -1 : int64_t(call.thread);
            if (domainOut)
                domainOut[k] = call.domain;
            if (categoryOut)
                categoryOut[k] = call.category;
        }
        if (k >= trackKept)
            trackOut[k] = trackOf(call, i);
        if (taskOut)
            taskOut[k] = taskOfCall[i];
        // Start/end ranges are not a thread's: nothing is attributed to them.
        if (m_sawAllocations || m_sawAllocSpans) {
            const CallAllocations counted = allocationsOf(i);
            if (m_sawAllocations) {
                const bool attributed = !call.async || call.allocSpan;
                allocCountOut[k] = attributed ? clampToInt64(counted.allocations) : -1;
                allocBytesOut[k] = attributed ? clampToInt64(counted.bytes) : -1;
            }
            if (m_sawAllocSpans)
                iterationsOut[k] = call.allocSpan ? clampToInt64(counted.iterations) : -1;
        }
    };
    // Both passes run on both cores, in blocks.
    constexpr size_t kBlock = kParallelMinimumCalls; // one block: the calling thread alone
    const size_t blockCount = (n + kBlock - 1) / kBlock;
    // Laid out by appending to the memo's layout, every call that moved was appended (closed
    // calls keep their events; those open then and those taken along get new ones), and
    // with the columns written here all shared stores, only the appended events need
    // writing: the scatter reads the calls appended, not the whole call table, where the
    // nesting lists go on from the memo's too.
    const bool eventOfKept = layout.fromMemo && memo->eventOf.size() == memo->calls;
    const bool appendOnly = eventOfKept && kept > 0 && trackKept > 0 && !taskOut && !allocCountOut && !iterationsOut;
    NestingLists nesting = nestingLists(layout.callsBefore, memo, eventOfKept);
    const bool scatterAppended = appendOnly && (nesting.following || nesting.stores.empty());
    // The rows' spans in the order of the columns: eventOf is written block by block of
    // events, and the events no row holds lie between them.
    std::vector<EventSpan> held(layout.spans.begin(), layout.spans.end());
    if (layout.fromMemo)
        std::sort(held.begin(), held.end(),
                  [](const EventSpan& a, const EventSpan& b) { return a.begin < b.begin; });
    // call -> event: 4 bytes, fewer fresh pages than 8 (calls are counted in uint32_t). Laid
    // out by appending, only the appended events' calls moved: the memo's map is updated.
    Column<uint32_t> eventOf;
    if (eventOfKept)
        eventOf = std::move(memo->eventOf);
    if (eventOf.capacity() < n)
        eventOf.reserve(2 * n); // room to grow in place (mapped, not touched)
    eventOf.resize(n);
    const size_t eventBlocks = (events + kBlock - 1) / kBlock;
    // The calls laid out then that moved (open then, or taken along), for carrying the
    // nesting walk over (NestingOrder::moved).
    std::vector<std::pair<uint32_t, uint32_t>> moved;
    if (eventOfKept)
        for (uint64_t k = layout.appendedFrom; k < events; ++k) { // every one held by a row
            const uint32_t call = order[k];
            if (call < memo->calls)
                moved.emplace_back(eventOf[call], uint32_t(k));
            eventOf[call] = uint32_t(k);
        }
    else
        shareOut(eventBlocks, [&](size_t block, int) {
            const uint64_t from = block * kBlock, to = std::min<uint64_t>(events, from + kBlock);
            auto s = std::upper_bound(held.begin(), held.end(), from,
                                      [](uint64_t k, const EventSpan& x) { return k < x.end; });
            for (; s != held.end() && s->begin < to; ++s)
                for (uint64_t k = std::max(from, s->begin), end = std::min(to, s->end); k < end; ++k)
                    eventOf[order[k]] = uint32_t(k);
        });
    std::sort(moved.begin(), moved.end());
    // The calls are read in arrival order and their values scattered to their events: the
    // call table streams through once, and the writes go to a few places per row at a time
    // (calls of a row arrive roughly in start order), which stay in cache. Gathering the
    // calls in event order instead is a cache miss per call (~4x slower at 10 M calls).
    struct BlockLists
    {
        std::vector<uint64_t> closedAtEnd;
        std::vector<NvtxCrossThreadEnd> crossThreadEnds;
    };
    std::vector<BlockLists> blocks(scatterAppended ? 1 : blockCount);
    if (scatterAppended) {
        // No call is async here (task ids would be written whole): no cross-thread ends.
        constexpr uint64_t kAhead = 8; // the appended calls lie about the call table
        for (uint64_t k = kept; k < events; ++k) {
            if (k + kAhead < events)
                __builtin_prefetch(&m_calls[order[k + kAhead]]);
            const uint32_t i = order[k];
            const Call& call = m_calls[i];
            write(i, k);
            nesting.placeAppended(call, uint32_t(k));
            if (call.open)
                blocks[0].closedAtEnd.push_back(k);
        }
    } else {
        shareOut(blockCount, [&](size_t block, int) {
            BlockLists& lists = blocks[block];
            const size_t first = block * kBlock, end = std::min(n, first + kBlock);
            for (size_t i = first; i < end; ++i) {
                const Call& call = m_calls[i];
                const uint64_t k = eventOf[i];
                write(i, k);
                if (!nesting.following)
                    nesting.place(call, uint32_t(k));
                if (call.open)
                    lists.closedAtEnd.push_back(k);
                if (call.async && !call.open && call.endThread != call.thread)
                    lists.crossThreadEnds.push_back({k, int64_t(call.endThread)});
            }
        });
    }
    // The events no row holds: between the held spans. Only columns written afresh need
    // them written (all lie below `kept`, which the shared stores already hold): with none,
    // this pass would read a call per event left behind, up to a quarter of the columns.
    const bool freshColumns = kept == 0 || trackKept == 0 || taskOut || allocCountOut || iterationsOut;
    if (layout.holes > 0 && freshColumns) {
        uint64_t k = 0;
        for (const EventSpan& s : held) {
            for (; k < s.begin; ++k)
                write(order[k], k);
            k = s.end;
        }
        for (; k < events; ++k)
            write(order[k], k);
    }
    if (stores.start) {
        e.start = EventColumn<int64_t>::sharing(stores.start, events);
        e.end = EventColumn<int64_t>::sharing(stores.end, events);
        e.threadIds = EventColumn<int64_t>::sharing(stores.threadIds, events);
    }
    if (stores.track)
        e.track = EventColumn<uint32_t>::sharing(stores.track, events);
    if (stores.domains)
        c.nvtx.callDomains = EventColumn<uint32_t>::sharing(stores.domains, events);
    if (stores.categories)
        c.nvtx.callCategories = EventColumn<uint32_t>::sharing(stores.categories, events);
    // The next snapshots append to the stores and the order: their pages are faulted in
    // meanwhile (as many as this one appended, twice over; laid out afresh, a few).
    if (memo) {
        const uint64_t appended = layout.fromMemo ? events - layout.appendedFrom : 0;
        for (const auto* store : {&stores.start, &stores.end, &stores.threadIds})
            prefaultStoreAhead(*store, events, appended);
        for (const auto* store : {&stores.track, &stores.domains, &stores.categories})
            prefaultStoreAhead(*store, events, appended);
        prefaultNext(layout.order, order.data() + events, order.capacity() - events, appended);
    }
    // Lists going on from the memo's while every column is written (some are written
    // whole): only the places of the calls appended are written, as in the scatter above.
    if (nesting.following && !scatterAppended)
        for (uint64_t k = layout.appendedFrom; k < events; ++k)
            nesting.placeAppended(m_calls[order[k]], uint32_t(k));
    placeSorted(nesting, eventOf, order, nesting.following ? &memo->lists.count : nullptr, moved);
    nesting.stores.prefaultNext(nesting.following ? &memo->lists.count : nullptr);
    for (const BlockLists& lists : blocks) {
        c.nvtx.closedAtEnd.insert(c.nvtx.closedAtEnd.end(), lists.closedAtEnd.begin(), lists.closedAtEnd.end());
        c.nvtx.crossThreadEnds.insert(c.nvtx.crossThreadEnds.end(), lists.crossThreadEnds.begin(),
                                      lists.crossThreadEnds.end());
    }
    std::sort(c.nvtx.closedAtEnd.begin(), c.nvtx.closedAtEnd.end());
    std::sort(c.nvtx.crossThreadEnds.begin(), c.nvtx.crossThreadEnds.end(),
              [](const NvtxCrossThreadEnd& a, const NvtxCrossThreadEnd& b) { return a.event < b.event; });
    // A row per bucket that holds calls, in bucket order: CPU rows, then GPU rows.
    const auto regions = uint32_t(m_regionNames.size());
    const size_t buckets = layout.callsBefore.size() - 1;
    size_t rowCount = 0;
    for (size_t bucket = 0; bucket < buckets; ++bucket)
        rowCount += layout.spanBegin[bucket + 1] != layout.spanBegin[bucket];
    c.rows.reserve(rowCount);
    std::vector<uint32_t> rowKeys; // NestingOrder::rowKey of each row
    rowKeys.reserve(rowCount);
    for (size_t bucket = 0; bucket < buckets; ++bucket) {
        const uint64_t firstSpan = layout.spanBegin[bucket];
        const uint64_t spanCount = layout.spanBegin[bucket + 1] - firstSpan;
        if (spanCount == 0)
            continue;
        RegionRow row;
        row.region = uint32_t(bucket % regions);
        row.firstEvent = layout.spans[firstSpan].begin;
        row.count = layout.callsBefore[bucket + 1] - layout.callsBefore[bucket];
        if (spanCount > 1) {
            row.firstSpan = uint32_t(c.rowSpans.size());
            row.spanCount = uint32_t(spanCount);
            c.rowSpans.insert(c.rowSpans.end(), layout.spans.begin() + int64_t(firstSpan),
                              layout.spans.begin() + int64_t(firstSpan + spanCount));
        }
        c.rows.push_back(row);
        rowKeys.push_back(NestingOrder::rowKey(row.region, bucket >= regions));
    }
    c.rowExclusive.assign(c.rows.size(), -1);
    finishNestingOrder(c, nesting); // before the GPU tables: the GPU time of CPU calls reads the lists
    auto committed = addRowDurations(c, layout, memo, eventOf);
    // The next snapshot starts from this layout, unless the memo is of a later state.
    const bool memoReplaced = memo && !(memo->lineage == m_lineage && memo->edits > m_edits);
    // Which layout this one appended to, and its own, for the nesting walk's carry
    // (NestingOrder::layoutSerial).
    const uint64_t appendedTo = eventOfKept ? memo->serial : 0;
    uint64_t layoutSerial = 0;
    std::shared_ptr<NestingCarrySlot> carrySlot;
    if (memoReplaced) {
        static std::atomic<uint64_t> serials{0};
        layoutSerial = ++serials;
        carrySlot = memo->carrySlot ? memo->carrySlot : std::make_shared<NestingCarrySlot>();
        LayoutMemo next;
        next.serial = layoutSerial;
        next.carrySlot = carrySlot;
        next.lineage = m_lineage;
        next.edits = m_edits;
        next.rewrites = m_rewrites;
        next.calls = n;
        next.regions = regions;
        next.lastNs = last;
        next.order = layout.order;
        next.callsBefore = std::move(layout.callsBefore);
        next.spanBegin = std::move(layout.spanBegin);
        next.spans = std::move(layout.spans);
        next.holes = layout.holes;
        next.stores = std::move(stores);
        next.openEvents = c.nvtx.closedAtEnd;
        next.relayouts = layout.fromMemo ? memo->relayouts + 1 : 0;
        next.committed = std::move(committed);
        next.regionNames = std::move(names);
        next.lists = std::move(nesting.stores);
        next.scratch = std::move(memo->scratch);
        next.gpu = std::move(memo->gpu);
        *memo = std::move(next);
    }
    // The GPU tables go on from the memo's where this layout was appended to its snapshot's
    // (made afresh otherwise), and are kept in the memo that replaces it.
    LayoutMemo::GpuTables freshGpu;
    LayoutMemo::GpuTables& gpu = memoReplaced ? memo->gpu : freshGpu;
    const bool gpuKept = gpuTablesKept && eventOfKept;
    if (memoReplaced && !gpuKept)
        gpu = {};

    for (const auto& mark : m_marks)
        c.nvtx.marks.push_back({mark.time, int64_t(mark.thread), mark.domain, mark.category,
                                c.strings.intern(mark.text == kNoText ? std::string_view() : m_texts[mark.text]),
                                mark.call >= 0 ? int64_t(eventOf[size_t(mark.call)]) : -1});
    if (!m_regionKinds.empty()) {
        c.regionKinds = m_regionKinds;
        c.regionKinds.resize(c.regionNames.size(), RegionKind::Cpu);
    }
    addGpuTables(c, order, eventOf, rowKeys, gpuKept ? moved : std::vector<std::pair<uint32_t, uint32_t>>{},
                 gpuKept ? layout.appendedFrom : 0, gpu);
    if (!c.nestingOrder.empty() && layoutSerial) {
        c.nestingOrder.openEnd = last;
        c.nestingOrder.layoutSerial = layoutSerial;
        c.nestingOrder.appendedTo = appendedTo;
        c.nestingOrder.moved = std::move(moved);
        c.nestingOrder.carrySlot = carrySlot;
    }
    if (m_sawAllocations)
        addAllocationTables(c);
    gpu.lanes.addTo(c); // last, as a file's are made after its tracks (model/gpu/gpu_counters.h)

    // Metadata and warnings.
    auto add = [&](const std::string& key, int64_t value) {
        MetadataValue v;
        v.kind = MetadataValue::Kind::Integer;
        v.integer = value;
        c.metadata.push_back({key, v});
    };
    MetadataValue source;
    source.text = "spanscope-collector";
    c.metadata.push_back({"source", source});
    if (m_sawHello)
        add("pid", m_pid);
    if (!m_options.commandLine.empty()) {
        MetadataValue command;
        command.text = m_options.commandLine;
        c.metadata.push_back({"command_line", command});
    }
    const NvtxCounts counts = this->counts();
    add("dropped_records", int64_t(counts.droppedRecords));
    add("nvtx_anomalies", int64_t(counts.anomalies()));
    add("nvtx_marks", int64_t(counts.marks));
    add("nvtx_closed_at_end", int64_t(c.nvtx.closedAtEnd.size()));
    if (m_options.maxSpansPerSecond > 0) {
        MetadataValue budget;
        budget.kind = MetadataValue::Kind::Float;
        budget.number = m_options.maxSpansPerSecond;
        c.metadata.push_back({"nvtx_span_budget_per_second", budget});
        add("nvtx_budget_dropped_spans", int64_t(counts.budgetDroppedSpans));
    }
    if (m_finished) {
        MetadataValue complete;
        complete.kind = MetadataValue::Kind::Bool;
        complete.flag = m_sawEnd && m_streamError.empty();
        c.metadata.push_back({"nvtx_stream_complete", complete});
    }
    if (m_sawAllocations) {
        // Counted by libspanscope-alloc: calls and requested bytes since it loaded.
        add("alloc_total_allocations", clampToInt64(m_allocTotals.allocations));
        add("alloc_total_bytes", clampToInt64(m_allocTotals.bytes));
        add("alloc_total_frees", clampToInt64(m_allocTotals.frees));
        add("alloc_live_bytes", m_allocTotals.liveBytes);
        add("alloc_peak_live_bytes", m_peakLiveBytes);
        // Everything the totals hold that no range was attributed: threads without ranges
        // (or without NVTX at all), allocations between ranges, and those a thread made
        // after its last push or pop and before the last totals were sampled.
        uint64_t inRanges = 0, inRangesBytes = 0;
        for (size_t i = 0; i < m_callAllocations.size(); ++i) {
            if (m_calls[i].allocSpan) // its allocations are counted by the ranges they happened in
                continue;
            const CallAllocations& counted = m_callAllocations[i];
            inRanges += std::min(counted.allocations, UINT64_MAX - inRanges);
            inRangesBytes += std::min(counted.bytes, UINT64_MAX - inRangesBytes);
        }
        add("alloc_in_ranges_allocations", clampToInt64(inRanges));
        add("alloc_in_ranges_bytes", clampToInt64(inRangesBytes));
        add("alloc_outside_ranges_allocations",
            clampToInt64(m_allocTotals.allocations - std::min(inRanges, m_allocTotals.allocations)));
        add("alloc_outside_ranges_bytes",
            clampToInt64(m_allocTotals.bytes - std::min(inRangesBytes, m_allocTotals.bytes)));
    }
    addGpuMetadata(c);
    MetadataValue domainList;
    domainList.kind = MetadataValue::Kind::StringList;
    for (const auto& d : c.nvtx.domains)
        domainList.list.push_back(c.strings.text(d.name));
    c.metadata.push_back({"nvtx_domains", domainList});

    auto warn = [&](std::string message) { c.warnings.push_back({std::move(message), {}}); };
    if (counts.droppedRecords)
        warn("the collector dropped " + std::to_string(counts.droppedRecords) +
             " records (its buffers were full or the viewer too slow); ranges may be missing "
             "or unmatched");
    if (!c.nvtx.closedAtEnd.empty())
        warn(
            std::to_string(c.nvtx.closedAtEnd.size()) +
            (m_finished ? " ranges were still open when the job ended" : " ranges are still open") +
            "; they are closed at the last timestamp and flagged");
    if (counts.unmatchedPops)
        warn(std::to_string(counts.unmatchedPops) + " pops had no open range on their thread");
    if (counts.unknownEnds)
        warn(std::to_string(counts.unknownEnds) + " range ends name a range that never started");
    if (counts.endsBeforeStart)
        warn(std::to_string(counts.endsBeforeStart) +
             " ranges end before they start; their end is set to their start");
    if (counts.budgetDroppedSpans)
        warn("the span budget left out " + std::to_string(counts.budgetDroppedSpans) + " spans");
    if (m_finished && !m_streamError.empty())
        warn("the recording is damaged or cut short; what decoded before the damage is shown (" +
             m_streamError + ")");
    else if (m_finished && m_sawHello && !m_sawEnd)
        warn("the recording has no end frame: the job was killed or its collector could not "
             "flush at exit; the last records may be missing");
    if (m_finished && !m_sawHello)
        warn("the job sent no NVTX records (it made no NVTX calls, or the collector was off)");
    if (memoReplaced)
        memo->eventOf = std::move(eventOf);
    return capture;
}

} // namespace spanscope::model::live
