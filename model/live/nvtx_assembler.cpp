#include "nvtx_assembler.h"

#include "../stats/saturating.h"

#include <algorithm>
#include <atomic>
#include <cstdint>

namespace spanscope::model::live {

using namespace protocol;

namespace {

constexpr int64_t kSecondNs = 1'000'000'000;

} // namespace

NvtxAssembler::NvtxAssembler(NvtxAssemblerOptions options) : m_options(std::move(options))
{
    static std::atomic<uint64_t> lineages{0};
    m_lineage = lineages.fetch_add(1, std::memory_order_relaxed) + 1;
}

int64_t NvtxAssembler::toNs(uint64_t ticks)
{
    // A damaged or hostile stream may put a tick or a rate anywhere: keep times where an
    // int64 holds them and any difference of two (±2^61 ns, ±73 years; a real TSC needs
    // decades of uptime to get there).
    constexpr int64_t kLimit = kTimeLimitNs;
    if (!m_calibrated) // raw ticks, rewritten when the first calibration arrives
        return int64_t(std::min<uint64_t>(ticks, uint64_t(kLimit)));
    const double delta =
        (double(ticks) - double(m_calibration.ticks)) * 1e9 / m_calibration.ticksPerSecond;
    const double ns = double(int64_t(m_calibration.monotonicNs)) + delta;
    if (!(ns > -double(kLimit)))
        return -kLimit;
    return ns < double(kLimit) ? int64_t(ns) : kLimit;
}

void NvtxAssembler::seen(int64_t ns)
{
    m_lastNs = std::max(m_lastNs, ns);
}

uint32_t NvtxAssembler::textIndex(uint32_t id) const
{
    auto it = m_ingest->textOfString.find(id);
    return it == m_ingest->textOfString.end() ? kNoText : it->second;
}

std::string_view NvtxAssembler::text(uint32_t id) const
{
    const uint32_t index = textIndex(id);
    return index == kNoText ? std::string_view() : m_texts[index];
}

uint32_t NvtxAssembler::threadOf(uint32_t tid)
{
    // Every timed record asks. A job has a handful of threads: scanning them beats hashing
    // (a division per lookup); the map is the index once there are more.
    constexpr size_t kScanned = 8;
    const auto known = uint32_t(m_threads.size());
    if (known <= kScanned) {
        for (uint32_t i = 0; i < known; ++i)
            if (m_threads[i].tid == tid)
                return i;
    } else if (auto it = m_ingest->threadOfTid.find(tid); it != m_ingest->threadOfTid.end()) {
        return it->second;
    }
    m_ingest->threadOfTid.emplace(tid, known);
    m_threads.emplace_back();
    m_threads.back().tid = tid;
    return known;
}

uint32_t NvtxAssembler::regionOf(uint32_t messageId)
{
    auto& cache = m_ingest->regionOfMessage;
    if (auto cached = cache.find(messageId); cached != cache.end())
        return cached->second;
    const std::string_view name = text(messageId);
    const uint32_t region = regionNamed(name.empty() ? "(unnamed)" : name);
    cache.emplace(messageId, region); // string ids are defined once
    return region;
}

uint32_t NvtxAssembler::regionNamed(std::string_view name)
{
    // Called for every CUDA API call and allocation span: a hit must not allocate.
    if (auto it = m_ingest->regionOf.find(name); it != m_ingest->regionOf.end())
        return it->second;
    const auto region = uint32_t(m_regionNames.size());
    m_ingest->regionOf.emplace(std::string(name), region);
    m_regionNames.push_back(name);
    return region;
}

bool NvtxAssembler::admitRoot(int64_t ns)
{
    if (m_options.maxSpansPerSecond <= 0)
        return true;
    if (m_windowStart == INT64_MIN || ns - m_windowStart >= kSecondNs) {
        m_windowStart = ns;
        m_windowSpans = 0;
    }
    return double(m_windowSpans) < m_options.maxSpansPerSecond;
}

void NvtxAssembler::onHello(const HelloPayload& hello)
{
    m_sawHello = true;
    m_pid = hello.pid;
}

void NvtxAssembler::onEnd()
{
    m_sawEnd = true;
}

void NvtxAssembler::onString(std::uint32_t id, std::string_view utf8)
{
    m_ingest->textOfString[id] = uint32_t(m_texts.push_back(utf8));
}

void NvtxAssembler::onThreadInfo(const ThreadInfoRecord& r)
{
    if (m_finished)
        return;
    m_threads[threadOf(r.tid)].name = std::string(text(r.nameId));
}

void NvtxAssembler::onDomainCreate(const DomainCreateRecord& r)
{
    m_domainNames[r.domain] = std::string(text(r.nameId));
}

void NvtxAssembler::onCategoryName(const CategoryNameRecord& r)
{
    m_categoryNames[{r.domain, r.category}] = std::string(text(r.nameId));
}

void NvtxAssembler::onClockCalibration(const ClockCalibrationRecord& r)
{
    const bool first = !m_calibrated;
    m_calibration = r;
    m_calibrated = true;
    if (!first)
        return;
    // Records that came before any calibration hold raw ticks: convert them now.
    ++m_rewrites;
    auto fix = [this](int64_t& t) { t = toNs(uint64_t(t)); };
    for (size_t i = 0; i < m_calls.size(); ++i) {
        if (m_calls[i].allocSpan || m_calls[i].gpu != kNotCuda) // CLOCK_MONOTONIC ns already
            continue;
        Call& call = m_calls.edit(i);
        fix(call.start);
        if (!call.open)
            fix(call.end);
    }
    for (Thread& thread : m_threads)
        if (thread.pushes > 0)
            thread.lastPushStart = m_calls[thread.lastPush].start;
    for (size_t i = 0; i < m_marks.size(); ++i)
        fix(m_marks.edit(i).time);
    for (auto& [id, end] : m_ingest->pendingEnds)
        fix(end.time);
    for (size_t i = 0; i < m_large.size(); ++i)
        fix(m_large.edit(i).time);
    for (size_t i = 0; i < m_heapInUse.size(); ++i)
        fix(m_heapInUse.edit(i).first);
    if (m_windowStart != INT64_MIN)
        fix(m_windowStart);
    if (m_lastNs != INT64_MIN)
        fix(m_lastNs);
}

void NvtxAssembler::onDropped(const DroppedRecord& r)
{
    m_counts.droppedRecords += r.count;
}

void NvtxAssembler::onAllocSpan(const AllocSpanRecord& r)
{
    if (m_finished)
        return;
    m_sawAllocations = true;
    m_domainNames.try_emplace(kAllocSpanDomain, "allocation spans");
    // Times are CLOCK_MONOTONIC ns already (the span API's clock), clamped like ticks are.
    const int64_t start = std::clamp<int64_t>(r.startNs, -kTimeLimitNs, kTimeLimitNs);
    const int64_t end = std::clamp<int64_t>(r.endNs, start, kTimeLimitNs);
    seen(end);
    Call call;
    call.start = start;
    call.end = end;
    call.open = false;
    std::string name = "alloc: ";
    name += text(r.operation);
    call.region = regionNamed(name);
    call.thread = call.endThread = threadOf(r.tid);
    call.domain = kAllocSpanDomain;
    call.async = true;
    call.allocSpan = true;
    m_sawAllocSpans = true;
    allocationsOf(appendCall(call)) = {r.allocations, r.bytes, r.iterations};
}

void NvtxAssembler::onPush(const PushRecord& r)
{
    if (m_finished)
        return;
    const int64_t ns = toNs(r.timestamp);
    seen(ns);
    const uint32_t t = threadOf(r.tid);
    Thread& thread = m_threads[t];
    if (thread.openPushes == 0)
        thread.droppingTree = !admitRoot(ns);
    ++thread.openPushes;
    auto& stack = thread.stacks[r.domain];
    if (thread.droppingTree) {
        ++m_counts.budgetDroppedSpans;
        stack.push_back(kDroppedCall);
        return;
    }
    stack.push_back(addCall(ns, r.message, t, r.domain, r.category, false));
}

inline uint32_t NvtxAssembler::addCall(int64_t start, uint32_t message, uint32_t thread,
                                uint32_t domain, uint32_t category, bool async)
{
    Call call;
    call.start = start;
    call.region = regionOf(message);
    call.thread = thread;
    call.endThread = thread;
    call.domain = domain;
    call.category = category;
    call.async = async;
    const uint32_t index = appendCall(call);
    ++m_windowSpans; // counted against the span budget's current window
    return index;
}

inline void NvtxAssembler::listCall(const Call& call, uint32_t index, Call& appended)
{
    // Start/end ranges and allocation spans go on lanes of their own, never on the thread's
    // track (the snapshot leaves their rows unlisted); a CUDA call does go on it.
    if (call.async)
        return;
    Thread& thread = m_threads[call.thread];
    if (call.gpu != kNotCuda) {
        listCudaCall(call, index, thread);
        return;
    }
    if (thread.listed
        && (thread.pushes == 0 || call.start > thread.lastPushStart
            || (call.start == thread.lastPushStart && thread.lastPushOpen))) {
        // Read from `call`, written to `appended`: reading back what was just stored
        // there waits for the store (~2 ns per range).
        appended.pushIndex = thread.pushes++;
        thread.lastPush = index;
        thread.lastPushStart = call.start;
        thread.lastPushOpen = call.open;
        return;
    }
    // Out of nesting order: the thread's calls are walked from the rows from now on.
    unlist(thread);
}

void NvtxAssembler::unlist(Thread& thread)
{
    thread.listed = false;
    thread.cudaCalls = {}; // never read again
    thread.pops = {};
}

bool NvtxAssembler::putInOrder(SharedChunks<uint32_t>& list, const Call& call, uint32_t index) const
{
    auto comesAfter = [&](uint32_t other) { // `call` goes after `other`
        const Call& o = m_calls[other];
        return call.start > o.start || (call.start == o.start && call.end <= o.end);
    };
    size_t at = list.size();
    while (at > 0 && !comesAfter(list[at - 1]))
        if (list.size() - --at > kMaxCudaReorder)
            return false;
    list.push_back(index);
    for (size_t i = list.size() - 1; i > at; --i)
        list.edit(i) = list[i - 1];
    if (at + 1 < list.size())
        list.edit(at) = index;
    return true;
}

void NvtxAssembler::listCudaCall(const Call& call, uint32_t index, Thread& thread)
{
    if (!thread.listed)
        return;
    if (!putInOrder(thread.cudaCalls, call, index)) {
        unlist(thread); // too far out of order: walked from the rows from now on
        return;
    }
    thread.longestCudaCall = std::max(thread.longestCudaCall, subtractSaturating(call.end, call.start));
}

void NvtxAssembler::listWork(const Call& call, uint32_t index, uint32_t track)
{
    if (track >= m_workLists.size())
        m_workLists.resize(size_t(track) + 1);
    WorkList& list = m_workLists[track];
    if (list.listed && !putInOrder(list.calls, call, index)) {
        list.listed = false; // too far out of order: walked from the rows from now on
        list.calls = {};
    }
}

uint32_t NvtxAssembler::appendCall(const Call& call)
{
    const auto index = uint32_t(m_calls.size());
    Call& appended = m_calls.emplace_back(call);
    if (call.thread != kNoThread) {
        if (!call.async) // start/end ranges go on their lanes' tracks
            needTrack(call.thread);
        listCall(call, index, appended);
    }
    ++m_edits;
    if (call.async)
        m_asyncCalls.push_back(index);
    if (!m_callAllocations.empty())
        m_callAllocations.push_back({});
    m_callDomains[call.domain] |= call.async;
    m_sawCategory |= call.category != 0;
    auto& perRegion = call.thread == kNoThread ? m_gpuCallsOfRegion : m_cpuCallsOfRegion;
    while (perRegion.size() <= call.region)
        perRegion.push_back(0);
    ++perRegion.edit(call.region);
    return index;
}


void NvtxAssembler::onPop(const PopRecord& r)
{
    if (m_finished)
        return;
    const int64_t ns = toNs(r.timestamp);
    seen(ns);
    Thread& thread = m_threads[threadOf(r.tid)];
    auto& stack = thread.stacks[r.domain];
    if (stack.empty()) {
        ++m_counts.unmatchedPops;
        return;
    }
    const uint32_t call = stack.back();
    stack.pop_back();
    --thread.openPushes;
    if (call == kDroppedCall)
        return;
    Call& c = m_calls.edit(call);
    c.end = std::max(ns, c.start);
    c.open = false;
    if (call == thread.lastPush)
        thread.lastPushOpen = false;
    if (thread.listed && thread.popsInOrder) {
        thread.popsInOrder = thread.lastPopEnd <= c.end;
        thread.lastPopEnd = c.end;
        thread.pops.push_back(call);
    }
    ++m_edits;
}

void NvtxAssembler::closeAsync(uint32_t call, int64_t end, uint32_t endThread)
{
    Call& c = m_calls.edit(call);
    c.endThread = endThread;
    if (endThread != c.thread) // drawn on the ending thread's track too
        needTrack(endThread);
    if (end < c.start) {
        ++m_counts.endsBeforeStart;
        end = c.start;
    }
    c.end = end;
    c.open = false;
    ++m_edits;
}

void NvtxAssembler::onRangeStart(const RangeStartRecord& r)
{
    if (m_finished)
        return;
    const int64_t ns = toNs(r.timestamp);
    seen(ns);
    const uint32_t t = threadOf(r.tid);
    auto& pendingEnds = m_ingest->pendingEnds;
    auto pending = pendingEnds.find(r.rangeId);
    if (!admitRoot(ns)) {
        ++m_counts.budgetDroppedSpans;
        if (pending != pendingEnds.end())
            pendingEnds.erase(pending);
        else
            m_ingest->droppedAsync[r.rangeId] = true;
        return;
    }
    const uint32_t index = addCall(ns, r.message, t, r.domain, r.category, true);
    if (pending != pendingEnds.end()) {
        closeAsync(index, pending->second.time, pending->second.thread);
        pendingEnds.erase(pending);
    } else {
        m_ingest->openAsync[r.rangeId] = index;
    }
}

void NvtxAssembler::onRangeEnd(const RangeEndRecord& r)
{
    if (m_finished)
        return;
    const int64_t ns = toNs(r.timestamp);
    seen(ns);
    const uint32_t t = threadOf(r.tid);
    if (auto it = m_ingest->openAsync.find(r.rangeId); it != m_ingest->openAsync.end()) {
        closeAsync(it->second, ns, t);
        m_ingest->openAsync.erase(it);
        return;
    }
    if (auto it = m_ingest->droppedAsync.find(r.rangeId); it != m_ingest->droppedAsync.end()) {
        m_ingest->droppedAsync.erase(it);
        return;
    }
    // Its start may still come (from another thread, up to a frame later).
    m_ingest->pendingEnds[r.rangeId] = PendingEnd{ns, t};
}

int64_t NvtxAssembler::innermostOpen(uint32_t thread) const
{
    int64_t best = -1;
    for (const auto& [domain, stack] : m_threads[thread].stacks) {
        if (stack.empty() || stack.back() == kDroppedCall)
            continue;
        const uint32_t top = stack.back();
        if (best < 0 || m_calls[top].start >= m_calls[size_t(best)].start)
            best = top;
    }
    return best;
}

void NvtxAssembler::onMark(const MarkRecord& r)
{
    if (m_finished)
        return;
    const int64_t ns = toNs(r.timestamp);
    seen(ns);
    const uint32_t t = threadOf(r.tid);
    if (m_threads[t].droppingTree && m_threads[t].openPushes > 0)
        return; // inside a tree the budget dropped
    needTrack(t);
    m_marks.push_back(Mark{ns, t, r.domain, r.category, textIndex(r.message), innermostOpen(t)});
}

void NvtxAssembler::finish(const std::string& streamError)
{
    if (m_finished)
        return;
    m_finished = true;
    m_streamError = streamError;
    m_counts.unknownEnds += m_ingest->pendingEnds.size();
    m_ingest->pendingEnds.clear();
}

NvtxCounts NvtxAssembler::counts() const
{
    NvtxCounts counts = m_counts;
    counts.calls = m_calls.size();
    counts.marks = m_marks.size();
    return counts;
}

} // namespace spanscope::model::live
