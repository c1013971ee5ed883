#pragma once
// Turns the collector's decoded record stream (collector/protocol) into a model::Capture,
// following the NVTX span rules (../shared/seeds/parcagpu-nvtx.txt):
//  - push/pop ranges nest per thread, one stack per (thread, domain) as NVTX keeps them;
//  - start/end ranges pair by range id, may end on another thread, and go on their
//    domain's async lane (a task_table row of kind "nvtx-async" per domain; thread_ids =
//    the starting thread);
//  - a mark becomes an event of its thread's innermost open push range, or a standalone
//    instant (Capture::nvtx.marks, enclosingEvent -1);
//  - ranges still open at the end are closed at the last timestamp and flagged;
//  - a pop with nothing open, an end whose id never started, an end earlier than its start:
//    counted and reported as warnings, never a crash. An end may arrive (in stream order)
//    before its start from another thread; it is buffered until the start comes or the
//    stream ends.
// Ticks become ns on CLOCK_MONOTONIC through the latest ClockCalibration.
//
// Incremental: feed records as they arrive (it is a protocol::DecoderHandler), take a
// snapshot() whenever a view wants one. One thread at a time (not thread-safe).
#include "../capture.h"
#include "../stats/row_durations.h"
#include "layout_memo.h"
#include "protocol/spanscope_decoder.h"
#include "shared_chunks.h"
#include "shared_names.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace spanscope::model::live {

struct NvtxAssemblerOptions
{
    // Span budget of the job: spans per second of the job's clock. Whole top-level trees
    // (a thread's outermost push range with everything inside it, or one start/end range)
    // are kept or dropped when their root opens: kept while fewer than this many spans
    // were kept in the current one-second window. 0 = unlimited.
    double maxSpansPerSecond = 0;
    std::string commandLine; // stored as metadata `command_line` when not empty
    // A row of at least this many calls keeps its committed calls' durations from one
    // snapshot to the next (LayoutMemo::committed); a smaller one is summarized call by
    // call, for less than that upkeep.
    uint64_t minimumCommittedCalls = 1024;
    // A snapshot laid out by appending (LayoutMemo) moves the calls that arrived since into
    // their rows together with the old calls after them where they land among a row's last
    // max(this, 4 x its calls placed anew) calls, and places them one by one (cutting the
    // row around each) where they land further back (nvtx_assembler_append_layout.cpp).
    uint64_t takeAlongWindow = 4096;
    // A listed thread's nesting list laid out afresh for a memo gets room for max(this, its
    // calls) more, which later snapshots fill in place (nesting_list_stores.h).
    uint64_t nestingListSlack = 4096;
};

// What the assembler has seen so far; counts of records or ranges.
struct NvtxCounts
{
    uint64_t calls = 0; // ranges recorded (push/pop and start/end)
    uint64_t marks = 0;
    uint64_t droppedRecords = 0;     // reported lost by the collector
    uint64_t unmatchedPops = 0;      // pop with nothing open on its (thread, domain)
    uint64_t unknownEnds = 0;        // end whose start never came (counted at finish())
    uint64_t endsBeforeStart = 0;    // end timestamp earlier than its start (clamped)
    uint64_t budgetDroppedSpans = 0; // spans left out by the span budget
    uint64_t anomalies() const { return unmatchedPops + unknownEnds + endsBeforeStart; }
};

class NvtxAssembler : public protocol::DecoderHandler
{
public:
    explicit NvtxAssembler(NvtxAssemblerOptions options = {});

    void onHello(const protocol::HelloPayload&) override;
    void onEnd() override;
    void onString(std::uint32_t id, std::string_view utf8) override;
    void onThreadInfo(const protocol::ThreadInfoRecord&) override;
    void onPush(const protocol::PushRecord&) override;
    void onPop(const protocol::PopRecord&) override;
    void onRangeStart(const protocol::RangeStartRecord&) override;
    void onRangeEnd(const protocol::RangeEndRecord&) override;
    void onMark(const protocol::MarkRecord&) override;
    void onDomainCreate(const protocol::DomainCreateRecord&) override;
    void onCategoryName(const protocol::CategoryNameRecord&) override;
    void onClockCalibration(const protocol::ClockCalibrationRecord&) override;
    void onDropped(const protocol::DroppedRecord&) override;
    void onAllocDelta(const protocol::AllocDeltaRecord&) override;
    void onAllocTotals(const protocol::AllocTotalsRecord&) override;
    void onAllocSpan(const protocol::AllocSpanRecord&) override;
    void onLargeAlloc(const protocol::LargeAllocRecord&) override;
    void onAllocSizeBin(const protocol::AllocSizeBinRecord&) override;
    // CUDA activity (nvtx_assembler_gpu.cpp).
    void onCudaDevice(const protocol::CudaDeviceRecord&) override;
    void onCudaContext(const protocol::CudaContextRecord&) override;
    void onGpuKernel(const protocol::GpuKernelRecord&) override;
    void onGpuMemcpy(const protocol::GpuMemcpyRecord&) override;
    void onGpuMemset(const protocol::GpuMemsetRecord&) override;
    void onCudaApi(const protocol::CudaApiRecord&) override;
    void onCudaSync(const protocol::CudaSyncRecord&) override;
    void onGpuMemory(const protocol::GpuMemoryRecord&) override;
    void onCudaStreamName(const protocol::CudaStreamNameRecord&) override;
    void onMetadata(const protocol::MetadataRecord&) override;
    void onDeviceWindow(const protocol::DeviceWindowRecord&) override;
    void onCudaDropped(const protocol::CudaDroppedRecord&) override;
    void onCudaOverhead(const protocol::CudaOverheadRecord&) override;

    // The domain lane of the allocation span API's spans ("allocation spans"); their
    // regions are named "alloc: <operation>".
    static constexpr uint32_t kAllocSpanDomain = UINT32_MAX - 1;
    // The domain of CUDA API calls and GPU work ("CUDA").
    static constexpr uint32_t kCudaDomain = UINT32_MAX - 2;

    // The stream is over: ends still waiting for their start become anomalies, and a
    // stream without an End frame, or with `streamError` (the decoder's message for a
    // malformed or truncated stream), gets a warning. Records fed afterwards are ignored.
    void finish(const std::string& streamError = {});

    // Where the previous snapshot put each call, for the next one (layout_memo.h).
    using LayoutMemo = live::LayoutMemo;

    // The capture as of now: ranges still open are closed at the last timestamp seen and
    // listed in nvtx.closedAtEnd. O(events log events), or with a memo of an earlier
    // snapshot of this assembler O(changed log events) to lay out (plus the rows' spans
    // copied), whose start, end, thread and (without start/end ranges) track
    // columns and nesting lists it shares; the rest of the build reads only the calls
    // appended where no other column is written whole, else every call
    // (docs/live-updates.md). The result is the caller's. `memo` is read and then replaced
    // by this snapshot's layout (see LayoutMemo).
    std::shared_ptr<Capture> snapshot(LayoutMemo* memo = nullptr) const;

    NvtxCounts counts() const;
    bool finished() const { return m_finished; }

    // Distinct kernel launch shapes kept once each; kernels of any further shape keep
    // their own (32 bytes each).
    static constexpr size_t kMaxInternedShapes = size_t(1) << 16;

private:
    // What a call of CUDA activity is, besides its time, region and thread.
    enum class GpuWorkKind : uint8_t { Api, Kernel, Memcpy, Memset, Sync, Overhead, Window };
    struct GpuWork
    {
        GpuWorkKind kind = GpuWorkKind::Api;
        int32_t device = -1;
        uint32_t stream = protocol::kNoStream;
        uint32_t context = 0;
        uint32_t correlation = 0;
        // Kernels: m_kernelShapes row; copies: m_copies row; API calls: the CudaApiKind;
        // device windows: m_windowHostTimes row.
        uint32_t detail = UINT32_MAX;
        uint32_t call = 0; // its call in m_calls
        // Work without a CPU thread: its GPU track's id (see m_trackOwners), given at ingest.
        uint32_t track = UINT32_MAX;
    };
    struct Call
    {
        int64_t start = 0, end = 0; // ns (raw ticks until the first calibration)
        uint32_t region = 0;
        uint32_t thread = 0; // dense thread number
        uint32_t endThread = 0; // start/end ranges: the thread that ended it
        uint32_t domain = 0, category = 0;
        uint32_t gpu = kNotCuda; // CUDA API call or GPU work: its row in m_gpuWork
        bool async = false; // start/end range (domain lane)
        bool open = true;
        bool allocSpan = false; // a span of the allocation span API
        // A push/pop range of a listed thread: its place among the thread's (Thread::pushes).
        uint32_t pushIndex = 0;
    };
    static_assert(sizeof(Call) <= 48, "every snapshot streams through the table of calls");
    // A call's allocations, kept apart from Call because most captures have none:
    // those made while it was the innermost push range of its thread (exclusive), or, for a
    // span of the allocation span API, inside the span.
    struct CallAllocations
    {
        uint64_t allocations = 0, bytes = 0;
        uint64_t iterations = 0; // a span of the allocation span API: as the program stated
    };
    static constexpr uint32_t kNotCuda = UINT32_MAX;
    // The end a snapshot shows: a range still open ends at the last timestamp seen (ns).
    static int64_t shownEnd(const Call& call, int64_t lastNs)
    {
        return call.open ? std::max(lastNs, call.start) : call.end;
    }
    // Calls of GPU work have no CPU thread.
    static constexpr uint32_t kNoThread = UINT32_MAX;
    struct PendingEnd
    {
        int64_t time = 0;
        uint32_t thread = 0; // dense thread number of the ending thread
    };
    static constexpr uint32_t kDroppedCall = UINT32_MAX; // stack entry of a budget-dropped range

    int64_t toNs(uint64_t ticks);
    void seen(int64_t ns);
    uint32_t threadOf(uint32_t tid);
    uint32_t regionOf(uint32_t messageId);
    uint32_t regionNamed(std::string_view name);
    // The text of string id `id` ("" if the stream never defined it); ingest only.
    std::string_view text(uint32_t id) const;
    uint32_t textIndex(uint32_t id) const;
    bool admitRoot(int64_t ns);
    int64_t innermostOpen(uint32_t thread) const;
    // What the thread's allocations since its last report are attributed to: its innermost
    // open push range's region, or (region -1) the thread itself.
    CountedAllocations& countedFor(uint32_t thread);
    void addAllocationTables(Capture& c) const;
    // GPU work's activity rows, launch flows, devices, GPU memory, and the GPU time of CPU
    // calls; `order`: event -> call, `eventOf`: call -> event, `rowKeys`: each row's
    // NestingOrder::rowKey. `tables`: those of an earlier snapshot whose layout this one's
    // was appended to, `moved` saying where the calls that moved were then (event then,
    // event now); or fresh ones, `moved` empty. Brought up to date: O(work arrived +
    // changes + table rows after the first changed).
    void addGpuTables(Capture& c, const Column<uint32_t>& order, const Column<uint32_t>& eventOf,
                      const std::vector<uint32_t>& rowKeys,
                      const std::vector<std::pair<uint32_t, uint32_t>>& moved, uint64_t keptEvents,
                      LayoutMemo::GpuTables& tables) const;
    // The ids (correlation) whose launch or work changed in an update of the GPU tables,
    // each with its launch before (LaunchTable::kNone: none), and the work taken in before.
    struct LaunchChanges
    {
        std::vector<std::pair<uint32_t, uint32_t>> ids; // (id, launch before); an id may repeat
        uint64_t workBefore = 0;
    };
    // Fills the GPU column (the GPU time of CPU calls, as deriveLaunchGpuTime defines it)
    // and each row's sum of it (Capture::rowGpuTimes): from `tables.times` where they hold
    // those of the snapshot whose first `keptEvents` events this one kept (`moved` as
    // addGpuTables has it), counting again only the events after those and the calls on a
    // listed thread's track around launches `changes` names (O(those, plus the track's
    // launches after the first changed, plus rows)); else whole.
    void addGpuTimes(Capture& c, const Column<uint32_t>& order, const Column<uint32_t>& eventOf,
                     const std::vector<uint32_t>& rowKeys,
                     const std::vector<std::pair<uint32_t, uint32_t>>& moved, uint64_t keptEvents,
                     const LaunchChanges& changes, LayoutMemo::GpuTables& tables) const;
    void addGpuMetadata(Capture& c) const;
    // A finished call of CUDA activity, start and end in CLOCK_MONOTONIC ns (clamped).
    void addCudaCall(int64_t start, int64_t end, uint32_t region, uint32_t thread, const GpuWork& work);
    uint32_t regionOfKind(std::string_view name, RegionKind kind);
    // Where a snapshot puts each call: rows by region, CPU calls first; within a row by
    // start, then shown end descending, then arrival (nvtx_assembler_layout.cpp). A row is
    // held in one span of the event columns when laid out afresh; laid out from a memo, the
    // calls closed then stay where they were and the others are appended, so it may be held
    // in several (nvtx_assembler_append_layout.cpp).
    struct Layout
    {
        // event -> call: event k holds call order[k]. An event no row holds (a call's place
        // in an earlier snapshot, left behind) keeps the call it held. Shared with the memo
        // of the next layout.
        std::shared_ptr<Column<uint32_t>> order;
        // The calls counted per bucket, summed: bucket b holds callsBefore[b + 1] -
        // callsBefore[b] calls. Bucket r < R holds the CPU calls of region r, bucket R + r
        // its GPU work (R regions). Columns: with a region per range they are tens of MiB.
        Column<uint64_t> callsBefore;
        // Bucket b's calls in order: spans[spanBegin[b], spanBegin[b + 1]), each non-empty.
        Column<uint64_t> spanBegin;
        Column<EventSpan> spans;
        uint64_t holes = 0;    // events no row holds
        bool fromMemo = false; // made by appendLayout()
        uint64_t appendedFrom = 0; // the first event placed anew (every one from there on)
        // appendLayout(): the calls placed anew (arrived since the memo, or open then) as
        // (bucket, call), by bucket.
        std::vector<std::pair<uint32_t, uint32_t>> placed;
    };
    Layout layout(int64_t lastNs, LayoutMemo* memo) const;
    // The calls counted per bucket, as Layout::callsBefore.
    Column<uint64_t> callsPerBucket() const;
    // Every call sorted into place, a bucket in one span (nvtx_assembler_layout.cpp).
    Layout layoutAll(int64_t lastNs) const;
    // The memo's calls closed then kept where they are, the others appended; nullopt where
    // the memo does not describe an earlier state of these calls, or where so much of the
    // columns would be left behind, or the rows cut in so many spans, that laying out afresh
    // pays (nvtx_assembler_append_layout.cpp).
    std::optional<Layout> appendLayout(int64_t lastNs, LayoutMemo& memo) const;
    // The committed calls (closed: they never change again) of the large buckets, from the
    // memo's where `layout` was made from it, else none; and their rows' durations into
    // c.rowDurations (nvtx_assembler_durations.cpp). c's events, rows and closedAtEnd are
    // laid out; eventOf maps calls to events.
    std::vector<LayoutMemo::CommittedBucket> addRowDurations(Capture& c, const Layout& layout, const LayoutMemo* memo,
                                                             const Column<uint32_t>& eventOf) const;
    // Whether `memo` describes an earlier (or this) state of this assembler's calls.
    bool canRelayout(const LayoutMemo& memo) const
    {
        return memo.order && memo.lineage == m_lineage && memo.rewrites == m_rewrites
               && memo.edits <= m_edits && memo.calls <= m_calls.size()
               && memo.regions <= m_regionNames.size();
    }
    // Below this many calls a snapshot is laid out on the calling thread alone (a helper
    // thread costs ~50 µs).
    static constexpr size_t kParallelMinimumCalls = size_t(1) << 16;
    void closeAsync(uint32_t call, int64_t end, uint32_t endThread);
    // Every call enters m_calls here; returns its index.
    uint32_t appendCall(const Call& call);
    // The row of `shape` in m_kernelShapes, added if new (ingest only).
    uint32_t kernelShapeIndex(const KernelLaunchShape& shape);
    // Appends an open range starting at `start` (ns); returns its index in m_calls.
    uint32_t addCall(int64_t start, uint32_t message, uint32_t thread, uint32_t domain,
                     uint32_t category, bool async);

    NvtxAssemblerOptions m_options;
    bool m_finished = false, m_sawHello = false, m_sawEnd = false;
    std::string m_streamError;
    uint32_t m_pid = 0;

    // Which assembler the calls are (copies keep it: a frozen copy describes the same
    // calls), how many times a call was added or closed, and how many times calls already
    // there were rewritten otherwise (the first clock calibration): what LayoutMemo checks.
    uint64_t m_lineage = 0;
    uint64_t m_edits = 0;
    uint64_t m_rewrites = 0;

    bool m_calibrated = false;
    protocol::ClockCalibrationRecord m_calibration{};
    int64_t m_lastNs = INT64_MIN;

    // Lookup tables that only ingest reads. A snapshot never needs them, so the copy that
    // JobAssembler::freeze makes on the ingest thread for every live update leaves them out:
    // with a name per range (PyTorch's emit_nvtx, "aten::add, seq = N") they grow by every
    // range, and copying them held up the socket for ~0.3 s per million names.
    struct NameHash
    {
        using is_transparent = void;
        size_t operator()(std::string_view name) const { return std::hash<std::string_view>{}(name); }
    };
    // A kernel launch shape as a key: its fields, without the struct's padding.
    using KernelShapeKey = std::array<uint32_t, 8>;
    struct KernelShapeHash
    {
        size_t operator()(const KernelShapeKey& key) const
        {
            return std::hash<std::string_view>{}({reinterpret_cast<const char*>(key.data()), sizeof(key)});
        }
    };
    struct IngestTables
    {
        std::unordered_map<uint32_t, uint32_t> textOfString; // string id -> m_texts index
        std::unordered_map<uint32_t, uint32_t> threadOfTid;
        // name (and kind) -> region; looked up by string_view, so a hit allocates nothing
        std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> regionOf;
        std::string kindKey; // regionOfKind's key, reused
        std::string workName; // a copy's or memset's region name, reused
        std::unordered_map<uint32_t, uint32_t> regionOfMessage;  // string id -> region
        std::unordered_map<uint64_t, uint32_t> openAsync;        // range id -> call
        std::unordered_map<uint64_t, PendingEnd> pendingEnds;    // ends seen before their start
        std::unordered_map<uint64_t, bool> droppedAsync;         // range ids dropped by the budget
        // Kernel shapes kept, each once (kernelShapeIndex), and the last one asked for.
        std::unordered_map<KernelShapeKey, uint32_t, KernelShapeHash> shapeOf;
        std::optional<std::pair<KernelShapeKey, uint32_t>> lastShape;
        // GPU tracks by (device, stream, lane), and the last one asked for.
        std::map<std::tuple<int32_t, int64_t, int>, uint32_t> gpuTrackOf;
        std::optional<std::pair<std::tuple<int32_t, int64_t, int>, uint32_t>> lastGpuTrack;
    };
    // Owns the tables; a copy has none: a copy of the assembler is frozen (it builds
    // snapshots, it is never fed).
    class IngestOnly
    {
    public:
        IngestOnly() : m_tables(std::make_unique<IngestTables>()) {}
        IngestOnly(const IngestOnly&) {}
        IngestOnly& operator=(const IngestOnly&)
        {
            m_tables.reset();
            return *this;
        }
        IngestOnly(IngestOnly&&) noexcept = default;
        IngestOnly& operator=(IngestOnly&&) noexcept = default;
        IngestTables* operator->() const { return m_tables.get(); }

    private:
        std::unique_ptr<IngestTables> m_tables;
    };
    IngestOnly m_ingest;

    // Every string the stream defined, in definition order (m_ingest->textOfString).
    SharedNames m_texts;
    std::map<uint32_t, std::string> m_domainNames;
    std::map<std::pair<uint32_t, uint32_t>, std::string> m_categoryNames;

    struct Thread
    {
        uint32_t tid = 0;
        std::string name;
        uint32_t openPushes = 0;   // over all domains, budget-dropped ones included
        bool droppingTree = false; // the current top-level tree was dropped by the budget
        std::map<uint32_t, std::vector<uint32_t>> stacks; // domain -> call indices
        // The calls on the thread's track are listed in nesting order
        // (Capture::nestingOrder) while `listed`, in two lists: its push/pop ranges in
        // push order, which is nesting order as long as each push starts after the one
        // before, or together with it while that one is still open (it encloses the new
        // one); and its CUDA calls (see cudaCalls). False for good once either list
        // breaks. `pushes` counts the first list (Call::pushIndex); its latest is call
        // lastPush, its start and whether it is open kept here for the next push to
        // compare with (reading it back from the call table costs ingest ~6 ns per range).
        bool listed = true;
        bool lastPushOpen = false;
        uint32_t pushes = 0;
        uint32_t lastPush = UINT32_MAX;
        int64_t lastPushStart = 0;
        // The thread's CUDA calls (API calls, and CUPTI overhead timed on it), closed when
        // they arrive, by (start ascending, end descending), arrival order between equals.
        // CUPTI reports a call when it completes, so a driver call made inside a runtime
        // call arrives before it: each call is put in place from the back, at most
        // kMaxCudaReorder places back (else the thread is no longer listed).
        SharedChunks<uint32_t> cudaCalls;
        int64_t longestCudaCall = 0; // ns
        // Its listed pushes in the order they were popped, while their ends only go
        // forward (popsInOrder): the GPU time of the calls ending after a time (addGpuTimes).
        SharedChunks<uint32_t> pops;
        bool popsInOrder = true;
        int64_t lastPopEnd = INT64_MIN;
        // Its place in m_trackOwners: its track's id in every snapshot; kUntracked while
        // it has none.
        uint32_t track = kUntracked;
    };
    static constexpr uint32_t kUntracked = UINT32_MAX;
    static constexpr size_t kMaxCudaReorder = 64;
    std::vector<Thread> m_threads;
    // What a track holds: a thread's calls, or (thread kNoThread) GPU work of one
    // (device, stream, lane): lane 0 a stream's work (stream -1: the device's own, such as
    // CUPTI overhead), 1 its syncs, 2 device windows.
    struct TrackOwner
    {
        uint32_t thread = kNoThread;
        int32_t device = -1;
        int64_t stream = -1;
        int lane = 0;
        bool gpu() const { return thread == kNoThread; }
        auto gpuKey() const { return std::tuple(device, stream, lane); }
    };
    // The tracks, in the order each was first needed (a thread: a range of its own that is
    // not a start/end range, a mark, or the end of a start/end range another thread began;
    // GPU work: its first call): a track's place here is its id in every snapshot, so ids
    // never change as tracks are added and a snapshot's track column holds for the next.
    std::vector<TrackOwner> m_trackOwners;
    void needTrack(uint32_t thread)
    {
        if (m_threads[thread].track == kUntracked) {
            m_threads[thread].track = uint32_t(m_trackOwners.size());
            m_trackOwners.push_back({thread});
        }
    }
    // The track of GPU work on (device, stream, lane), added if new (ingest only).
    uint32_t gpuTrackOf(int32_t device, int64_t stream, int lane);
    // The Track of a GPU track owner, named in c's strings.
    Track gpuTrack(Capture& c, const TrackOwner& owner) const;

    SharedNames m_regionNames;

    // 2 MiB chunks, one huge page each: every range adds a call.
    SharedChunks<Call, std::size_t(2) << 20> m_calls;
    // Kept as calls are appended (appendCall), so that a snapshot need not read the whole
    // call table for them: the async calls in arrival order, every domain a call used
    // (true when one of its calls is async), and per region its CPU calls and GPU work.
    SharedChunks<uint32_t> m_asyncCalls;
    // Per call (index as in m_calls) from the first allocation seen on; empty before.
    SharedChunks<CallAllocations> m_callAllocations;
    // Call `call`'s allocations, writable; covers every call from now on.
    CallAllocations& allocationsOf(size_t call);
    CallAllocations allocationsOf(size_t call) const
    {
        return call < m_callAllocations.size() ? m_callAllocations[call] : CallAllocations{};
    }
    std::map<uint32_t, bool> m_callDomains;
    SharedChunks<uint64_t> m_cpuCallsOfRegion, m_gpuCallsOfRegion;
    // Keeps the Thread's lists for a CPU call just appended as call `index` (`appended`,
    // whose pushIndex it sets for a push).
    void listCall(const Call& call, uint32_t index, Call& appended);
    void listCudaCall(const Call& call, uint32_t index, Thread& thread);
    // Puts call `index` in `list` (calls by start ascending, end descending, arrival order
    // between equals) from the back; false, leaving it out, where it would go more than
    // kMaxCudaReorder places back.
    bool putInOrder(SharedChunks<uint32_t>& list, const Call& call, uint32_t index) const;
    // GPU work on a GPU track is listed as a thread's CUDA calls are (by start, put in place
    // from the back), while `listed`: by track id (only GPU tracks' are used).
    struct WorkList
    {
        SharedChunks<uint32_t> calls;
        bool listed = true;
    };
    std::vector<WorkList> m_workLists;
    void listWork(const Call& call, uint32_t index, uint32_t track);
    // The thread's calls are walked from the rows from now on (its lists are dropped).
    void unlist(Thread& thread);
    // Where a snapshot's laying out of the calls puts the listed threads' calls in
    // Capture::nestingOrder (nvtx_assembler_nesting_order.cpp).
    struct NestingLists
    {
        static constexpr uint64_t kNotListed = NestingListStores::kNotListed;
        // Where the lists are: their places (stores.base), the rows (stores.rowOfKey,
        // .rowListed). Empty when no track is listed.
        NestingListStores stores;
        // Per thread: the list of its pushes (NestingListStores::calls of its track), or
        // kNotListed. Per track: whether its lists are. The assembler's GPU work (the
        // track of each piece).
        std::vector<uint64_t> pushesOf;
        std::vector<uint8_t> trackListed;
        const SharedChunks<GpuWork>* gpuWork = nullptr;
        // Where thread `thread`'s pushes are listed, or kNotListed.
        uint64_t baseOf(uint32_t thread) const
        {
            return pushesOf[thread] == kNotListed ? kNotListed : stores.base[pushesOf[thread]];
        }
        // The row of GPU work `call`, or UINT32_MAX where its track is listed (nothing to
        // clear).
        uint32_t unlistedGpuRow(const Call& call) const
        {
            const uint32_t track = (*gpuWork)[call.gpu].track;
            return track < trackListed.size() && trackListed[track]
                       ? UINT32_MAX
                       : stores.rowOfKey[NestingOrder::rowKey(call.region, true)];
        }
        // The lists go on from the memo's (NestingListStores::following): only the calls
        // appended are placed (placeAppended); else every call is (place).
        bool following = false;
        uint32_t* events = nullptr; // stores.written's, to write
        uint32_t* rows = nullptr;
        // Puts a push laid out as `event` in its thread's list, or leaves its row unlisted
        // (a call off the lists: a start/end range, a call of a thread not listed). A
        // listed thread's CUDA calls are placed apart (placeSorted). Any thread; calls
        // are placed in parallel.
        void place(const Call& call, uint32_t event)
        {
            if (stores.empty())
                return;
            if (call.thread == kNoThread) { // GPU work: placed by placeSorted()
                if (const uint32_t row = call.gpu != kNotCuda ? unlistedGpuRow(call) : UINT32_MAX; row != UINT32_MAX)
                    std::atomic_ref<uint8_t>(stores.rowListed[row]).store(0, std::memory_order_relaxed);
                return;
            }
            const uint32_t row = stores.rowOfKey[NestingOrder::rowKey(call.region, false)];
            const uint64_t base = baseOf(call.thread);
            if (!call.async && base != kNotListed) {
                if (call.gpu != kNotCuda)
                    return;
                const uint64_t at = base + call.pushIndex;
                events[at] = event;
                rows[at] = row;
            } else { // rare: both cores may clear the same row's flag
                std::atomic_ref<uint8_t>(stores.rowListed[row]).store(0, std::memory_order_relaxed);
            }
        }
        // As place(), for a call appended to the lists the memo's snapshot left (`following`):
        // the place written is kept for the snapshot after this one. One thread.
        void placeAppended(const Call& call, uint32_t event)
        {
            if (stores.empty())
                return;
            if (call.thread == kNoThread) {
                if (const uint32_t row = call.gpu != kNotCuda ? unlistedGpuRow(call) : UINT32_MAX; row != UINT32_MAX)
                    stores.rowListed[row] = 0;
                return;
            }
            const uint32_t row = stores.rowOfKey[NestingOrder::rowKey(call.region, false)];
            const uint64_t base = baseOf(call.thread);
            if (call.async || base == kNotListed)
                stores.rowListed[row] = 0;
            else if (call.gpu == kNotCuda)
                stores.write({base + call.pushIndex, event, row});
        }
    };
    // Where c's nesting lists go (every CPU row listed until place() finds a call of it off
    // the lists); c's rows are not made yet: `callsBefore` is Layout::callsBefore. They go
    // on from the memo's lists where `appended` (this snapshot's layout appends to the
    // memo's: a call not moved keeps its event) and the memo's lists still fit: the same
    // threads listed, each list with room, the rows numbered as then (the memo's lists then
    // give up their writes' memory: NestingListStores::following).
    NestingLists nestingLists(const Column<uint64_t>& callsBefore, LayoutMemo* memo, bool appended) const;
    // Writes the lists kept in order as calls arrive (the listed threads' CUDA calls, the
    // listed GPU tracks' work) into the lists; `eventOf`: call -> event. Where the lists go
    // on from the memo's, only the places that can have changed: each list's last
    // kMaxCudaReorder places then and those after, and the places of the calls that moved
    // (`moved`: (event then, event now), `order`: event -> call).
    void placeSorted(NestingLists& lists, const Column<uint32_t>& eventOf, const Column<uint32_t>& order,
                     const std::vector<uint64_t>* countBefore,
                     const std::vector<std::pair<uint32_t, uint32_t>>& moved) const;
    // c.nestingOrder from the lists once they are written and c's rows and tracks made.
    void finishNestingOrder(Capture& c, const NestingLists& lists) const;
    struct Mark
    {
        int64_t time = 0;
        uint32_t thread = 0, domain = 0, category = 0;
        uint32_t text = kNoText; // its message: index into m_texts
        int64_t call = -1;       // index into m_calls
    };
    static constexpr uint32_t kNoText = UINT32_MAX; // a string id the stream never defined
    SharedChunks<Mark> m_marks;

    // Span budget: kept spans in the window starting at m_windowStart (ns).
    int64_t m_windowStart = INT64_MIN;
    uint64_t m_windowSpans = 0;

    NvtxCounts m_counts;

    // Allocations (libspanscope-alloc in the job): the latest process totals and the
    // largest heap in use they showed; the heap in use over time; counts per (dense thread,
    // region or -1) with `track` unset; large allocations and their frees.
    bool m_sawAllocations = false, m_sawAllocSpans = false;
    bool m_sawCategory = false; // a call with an NVTX category (else no per-call column)
    protocol::AllocTotalsRecord m_allocTotals{};
    int64_t m_peakLiveBytes = 0;
    SharedChunks<std::pair<int64_t, int64_t>> m_heapInUse; // (ns, bytes)
    std::map<std::pair<uint32_t, int64_t>, CountedAllocations> m_counted;
    struct LargeAlloc
    {
        int64_t time = 0;
        uint32_t thread = 0;
        uint64_t address = 0, bytes = 0; // bytes 0: the block at `address` was freed
    };
    SharedChunks<LargeAlloc> m_large;

    // CUDA activity (the collector's CUDA injection): what each call of CUDA activity is.
    SharedChunks<GpuWork> m_gpuWork;
    SharedChunks<KernelLaunchShape> m_kernelShapes;
    SharedChunks<std::pair<uint64_t, CopyKind>> m_copies; // bytes, direction
    SharedChunks<std::pair<int64_t, int64_t>> m_windowHostTimes; // when the host enqueued a window's events, ns
    std::vector<RegionKind> m_regionKinds;               // by region; missing = Cpu
    struct CudaDevice
    {
        protocol::CudaDeviceRecord record{};
        std::string name;
    };
    std::map<int32_t, CudaDevice> m_cudaDevices;
    std::unordered_map<uint32_t, int32_t> m_contextDevice;
    std::unordered_map<uint32_t, std::string> m_streamNames; // CUPTI stream id -> name
    std::map<std::string, std::string> m_cudaMetadata;
    uint64_t m_cudaDropped = 0;
    struct GpuMemoryEvent
    {
        int64_t time = 0;
        int32_t device = -1;
        uint32_t correlation = 0;
        uint64_t address = 0;
        int64_t bytes = 0; // > 0 allocated, < 0 released
    };
    SharedChunks<GpuMemoryEvent> m_gpuMemory;
};

} // namespace spanscope::model::live
