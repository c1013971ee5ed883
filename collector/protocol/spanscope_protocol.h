// spanscope collector wire format, version 5 (version 1 lacks the allocation records, version 2
// their size bins, version 3 the CUDA records, version 4 the short push and pop records).
// Header-only, C++17, no dependencies.
//
// A stream is one Hello frame, then Data frames, then (on a clean exit) one End frame.
// Every frame is a FrameHeader followed by `payloadBytes` bytes of payload. All integers are
// little-endian; doubles are IEEE-754 binary64, little-endian.
//
// A Data payload is a sequence of records. Every record starts with a RecordHeader whose
// `size` is the whole record in bytes (header included) and always a multiple of 8. All record
// types but StringDef have a fixed size (kRecordSize below); StringDef carries its UTF-8 bytes
// after the fixed part, padded with zeros to a multiple of 8.
//
// Ordering: the records of one thread appear in the order the thread made them. Across threads
// there is no order within a batch: sort by timestamp. In particular a RangeEnd made on one
// thread may appear up to one Data frame before the RangeStart it closes (made on another
// thread). A string, domain or category is always defined before the first record that uses it.
//
// Timestamps are raw "ticks" of the collector's clock (the TSC on x86-64). ClockCalibration
// records (one before any timed record, then one in every Data frame that carries records,
// read after them, at least once a second, and one at the end) map them to CLOCK_MONOTONIC:
// ns = monotonicNs + (ticks - calibration.ticks) * 1e9 / ticksPerSecond, using the latest
// calibration. The rate is measured from an earlier calibration (collector/clock_calibrator.h),
// so that mapping interpolates between two pairs for every record sent on time.
#pragma once

#include <cstddef>
#include <cstdint>

namespace spanscope::protocol {

static_assert(sizeof(double) == 8, "the protocol carries IEEE-754 binary64");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the spanscope protocol structs are little-endian; add byte swapping for this target"
#endif

// The four bytes every frame starts with: 'S' 'P' 'S' 'C'.
inline constexpr char kMagic[4] = {'S', 'P', 'S', 'C'};
inline constexpr std::uint16_t kVersion = 5;
// Oldest version a reader accepts: versions 2 to 5 only added record types.
inline constexpr std::uint16_t kOldestVersion = 1;
// Largest payload a writer sends and a reader accepts, in bytes (16 MiB).
inline constexpr std::uint32_t kMaxPayloadBytes = 16u << 20;
// Longest string a StringDef carries, in bytes of UTF-8 (longer ones are cut).
inline constexpr std::uint32_t kMaxStringBytes = 4096;

enum class FrameType : std::uint16_t {
    Hello = 1, // payload: HelloPayload; first frame of every stream, exactly once
    Data = 2,  // payload: records
    End = 3,   // payload: empty; the job exited cleanly and everything was flushed
};

struct FrameHeader
{
    char magic[4];              // kMagic
    std::uint16_t version;      // kVersion
    std::uint16_t type;         // FrameType
    std::uint32_t payloadBytes; // length of the payload that follows, in bytes
};
static_assert(sizeof(FrameHeader) == 12);

struct HelloPayload
{
    std::uint32_t pid;        // OS process id of the job
    std::uint32_t reserved;   // 0
    std::uint64_t startTicks; // collector clock when the collector started, in ticks
};
static_assert(sizeof(HelloPayload) == 16);

enum class RecordType : std::uint16_t {
    StringDef = 1,
    ThreadInfo = 2,
    Push = 3,
    Pop = 4,
    RangeStart = 5,
    RangeEnd = 6,
    Mark = 7,
    DomainCreate = 8,
    CategoryName = 9,
    ClockCalibration = 10,
    Dropped = 11,
    // Version 2: allocations (libspanscope-alloc in the job).
    AllocDelta = 12,
    AllocTotals = 13,
    LargeAlloc = 14,
    AllocSpan = 15,
    // Version 3.
    AllocSizeBin = 16,
    // Version 4: CUDA activity (CUPTI), device-clock windows, metadata.
    CudaDevice = 17,
    CudaContext = 18,
    GpuKernel = 19,
    GpuMemcpy = 20,
    GpuMemset = 21,
    CudaApi = 22,
    CudaSync = 23,
    GpuMemory = 24,
    CudaStreamName = 25,
    Metadata = 26,
    DeviceWindow = 27,
    CudaDropped = 28,
    CudaOverhead = 29,
    // Version 5: the usual push and pop in fewer bytes (PushShortRecord, PopShortRecord).
    PushShort = 30,
    PopShort = 31,
};
inline constexpr std::uint16_t kFirstRecordType = 1;
inline constexpr std::uint16_t kLastRecordType = 31;

struct RecordHeader
{
    std::uint16_t type; // RecordType
    std::uint16_t size; // whole record in bytes, header included; a multiple of 8
};
static_assert(sizeof(RecordHeader) == 4);

// Conventions shared by the records below:
// - tid: OS thread id (gettid) of the thread that made the call, u32.
// - timestamp: collector clock, in ticks (see ClockCalibration).
// - domain: domain id; 0 is NVTX's default (unnamed) domain, others come from DomainCreate.
// - message / name: string id from a StringDef; 0 means "no string".
// - category: the NVTX category number as the job passed it (0 = none).
// - color: ARGB 0xAARRGGBB as the job passed it; 0 means "no color given".

// Defines string `id` once per stream; followed by `length` bytes of UTF-8 (no terminator),
// then zero padding so the record size is a multiple of 8.
struct StringDefRecord
{
    RecordHeader header;
    std::uint32_t id;     // string id, >= 1, unique in the stream
    std::uint32_t length; // bytes of UTF-8 that follow
};
static_assert(sizeof(StringDefRecord) == 12);

// The job named an OS thread (nvtxNameOsThread). A later record for the same tid renames it.
struct ThreadInfoRecord
{
    RecordHeader header;
    std::uint32_t tid;    // OS thread id being named
    std::uint32_t nameId; // string id of the name
    std::uint32_t reserved;
};
static_assert(sizeof(ThreadInfoRecord) == 16);

enum class PayloadKind : std::uint32_t {
    None = 0,
    U64 = 1, // payload holds a uint64
    I64 = 2, // payload holds an int64
    F64 = 3, // payload holds a double's bits
    U32 = 4, // low 4 bytes hold a uint32, high bytes 0
    I32 = 5, // low 4 bytes hold an int32, high bytes 0
    F32 = 6, // low 4 bytes hold a float's bits, high bytes 0
};

// Opens a range on `tid`'s stack for `domain` (nvtxRangePush / nvtxDomainRangePushEx).
struct PushRecord
{
    RecordHeader header;
    std::uint32_t tid;
    std::uint64_t timestamp; // ticks
    std::uint32_t domain;
    std::uint32_t message; // string id
    std::uint32_t category;
    std::uint32_t color;       // ARGB, 0 = none
    std::uint32_t payloadKind; // PayloadKind
    std::uint32_t reserved;
    std::uint64_t payload; // raw 8 bytes, meaning given by payloadKind
};
static_assert(sizeof(PushRecord) == 48);

// Closes the innermost open range of `tid` in `domain` (nvtxRangePop / nvtxDomainRangePop).
struct PopRecord
{
    RecordHeader header;
    std::uint32_t tid;
    std::uint64_t timestamp; // ticks
    std::uint32_t domain;
    std::uint32_t reserved;
};
static_assert(sizeof(PopRecord) == 24);

// A Push with no category, color or payload (nvtxRangePushA/W, or an Ex call that gives only
// a message): the same as PushRecord with those fields 0. Pushes are most of a busy stream,
// and a lossless collector keeps all of them in memory: half the bytes per pair is half the
// fresh pages the job's thread writes (version 5).
struct PushShortRecord
{
    RecordHeader header;
    std::uint32_t tid;
    std::uint64_t timestamp; // ticks
    std::uint32_t domain;
    std::uint32_t message; // string id
};
static_assert(sizeof(PushShortRecord) == 24);

// A Pop in the default domain (0): the same as PopRecord with domain 0 (version 5).
struct PopShortRecord
{
    RecordHeader header;
    std::uint32_t tid;
    std::uint64_t timestamp; // ticks
};
static_assert(sizeof(PopShortRecord) == 16);

// Whether a record of type `type` opens or closes a push/pop range, in either form.
constexpr bool isPushType(std::uint16_t type)
{
    return type == std::uint16_t(RecordType::Push) || type == std::uint16_t(RecordType::PushShort);
}
constexpr bool isPopType(std::uint16_t type)
{
    return type == std::uint16_t(RecordType::Pop) || type == std::uint16_t(RecordType::PopShort);
}

// Opens a start/end range that may end on another thread (nvtxRangeStart*).
struct RangeStartRecord
{
    RecordHeader header;
    std::uint32_t tid;       // thread that started it
    std::uint64_t rangeId;   // id returned to the job, unique in the stream, never 0
    std::uint64_t timestamp; // ticks
    std::uint32_t domain;
    std::uint32_t message; // string id
    std::uint32_t category;
    std::uint32_t color; // ARGB, 0 = none
};
static_assert(sizeof(RangeStartRecord) == 40);

// Closes the start/end range `rangeId` (nvtxRangeEnd / nvtxDomainRangeEnd).
struct RangeEndRecord
{
    RecordHeader header;
    std::uint32_t tid; // thread that ended it (may differ from the starter)
    std::uint64_t rangeId;
    std::uint64_t timestamp; // ticks
    std::uint32_t domain;    // domain passed to the end call (0 for nvtxRangeEnd)
    std::uint32_t reserved;
};
static_assert(sizeof(RangeEndRecord) == 32);

// An instant (nvtxMark*).
struct MarkRecord
{
    RecordHeader header;
    std::uint32_t tid;
    std::uint64_t timestamp; // ticks
    std::uint32_t domain;
    std::uint32_t message; // string id
    std::uint32_t category;
    std::uint32_t color; // ARGB, 0 = none
};
static_assert(sizeof(MarkRecord) == 32);

// A named domain. Domains with the same name (e.g. from two libraries) share one id.
struct DomainCreateRecord
{
    RecordHeader header;
    std::uint32_t domain; // id, >= 1
    std::uint32_t nameId; // string id
    std::uint32_t reserved;
};
static_assert(sizeof(DomainCreateRecord) == 16);

// The job named category `category` of `domain` (nvtxNameCategory / nvtxDomainNameCategory).
struct CategoryNameRecord
{
    RecordHeader header;
    std::uint32_t domain;
    std::uint32_t category;
    std::uint32_t nameId; // string id
};
static_assert(sizeof(CategoryNameRecord) == 16);

// Maps collector ticks to CLOCK_MONOTONIC (see the top of this file).
struct ClockCalibrationRecord
{
    RecordHeader header;
    std::uint32_t reserved;
    std::uint64_t ticks;       // collector clock, in ticks
    std::uint64_t monotonicNs; // CLOCK_MONOTONIC at the same moment, in ns
    double ticksPerSecond;     // rate of the collector clock, ticks per second
};
static_assert(sizeof(ClockCalibrationRecord) == 32);

// `count` records were lost since the previous Dropped record (buffers full, viewer too slow).
struct DroppedRecord
{
    RecordHeader header;
    std::uint32_t reserved;
    std::uint64_t count; // records
};
static_assert(sizeof(DroppedRecord) == 16);

// Allocations thread `tid` made since its previous AllocDelta (or since it started), up to
// `timestamp`. Counted by libspanscope-alloc: one per allocation call, of the requested size
// (realloc: one allocation of the new size and one free). Attributed to the innermost push
// range open on the thread at this point of its records (a thread's AllocDelta comes right
// before its Push or Pop); with none open, to the thread itself.
struct AllocDeltaRecord
{
    RecordHeader header;
    std::uint32_t tid;
    std::uint64_t timestamp;   // ticks
    std::uint64_t allocations; // calls
    std::uint64_t bytes;       // requested bytes
    std::uint64_t frees;       // blocks freed
};
static_assert(sizeof(AllocDeltaRecord) == 40);

// The process's allocation totals since libspanscope-alloc loaded, every thread (exited
// ones included), sampled by the collector about every 10 ms, and right after each
// LargeAlloc (in that thread's records, so a short-lived large block shows in the heap).
struct AllocTotalsRecord
{
    RecordHeader header;
    std::uint32_t reserved;
    std::uint64_t timestamp;   // ticks
    std::uint64_t allocations; // calls
    std::uint64_t bytes;       // requested bytes
    std::uint64_t frees;       // blocks freed
    std::int64_t liveBytes;    // usable bytes (malloc_usable_size) allocated minus freed: the heap in use
};
static_assert(sizeof(AllocTotalsRecord) == 48);

// One large allocation (requested bytes at or above the collector's threshold, 1 MiB by
// default), or the free of a block at `address` (bytes 0): the reader matches a free to the
// latest large allocation at that address and ignores it when there is none.
struct LargeAllocRecord
{
    RecordHeader header;
    std::uint32_t tid;
    std::uint64_t timestamp; // ticks
    std::uint64_t address;
    std::uint64_t bytes; // requested bytes; 0 = the block at `address` was freed
};
static_assert(sizeof(LargeAllocRecord) == 32);

// A span of the allocation span API (<spanscope/alloc.h>) that ended: shown as a range of
// the "allocation spans" track. Times are CLOCK_MONOTONIC ns, not ticks.
struct AllocSpanRecord
{
    RecordHeader header;
    std::uint32_t tid;         // thread that ended it
    std::int64_t startNs;      // CLOCK_MONOTONIC, ns
    std::int64_t endNs;        // CLOCK_MONOTONIC, ns
    std::uint64_t iterations;  // as the program stated
    std::uint64_t bytes;       // requested bytes allocated inside it
    std::uint64_t allocations; // calls inside it
    std::uint32_t operation;   // string id of the operation's name
    std::uint32_t process;     // 1: a process span (every thread), 0: a thread span
};
static_assert(sizeof(AllocSpanRecord) == 56);

// One log2 size bin of the allocations of the AllocDelta right before it (same thread; one
// record per bin that changed, following that AllocDelta before any other record of the
// thread): bin k holds requested sizes in [2^k, 2^(k+1)) bytes, bin 0 also 0 and 1.
struct AllocSizeBinRecord
{
    RecordHeader header;
    std::uint32_t tid;
    std::uint32_t bin;         // 0..63
    std::uint32_t reserved;    // 0
    std::uint64_t allocations; // calls of that size since the thread's previous report
    std::uint64_t bytes;       // their requested bytes
};
static_assert(sizeof(AllocSizeBinRecord) == 32);

// ---- Version 4: CUDA activity, recorded through CUPTI by the collector's CUDA injection ----
// Times of these records are CLOCK_MONOTONIC ns of the job's machine, not ticks: the
// collector has CUPTI stamp them with that clock (its timestamp callback) or maps CUPTI's
// clock onto it itself (metadata `gpu_clock` says which, `gpu_clock_residual_ns` how well).
// device: CUDA device ordinal. context, stream: CUPTI's ids (unique in the process; a
// stream id of kNoStream means "no stream"). correlation: CUPTI's correlation id, the same in
// a CudaApi record and in the GPU work that call started (0 = none).
inline constexpr std::uint32_t kNoStream = 0xffffffffu;

// A GPU (CUPTI's device record), before any GPU work on it.
struct CudaDeviceRecord
{
    RecordHeader header;
    std::int32_t device;
    std::int64_t totalMemoryBytes; // -1 = unknown
    std::int32_t multiprocessors;  // SMs, -1 = unknown
    std::int32_t computeMajor;     // compute capability, -1 = unknown
    std::int32_t computeMinor;
    std::int32_t warpSize;         // threads per warp, -1 = unknown
    std::uint32_t nameId;          // string id of the device's name
    std::uint32_t reserved;
};
static_assert(sizeof(CudaDeviceRecord) == 40);

// A CUDA context and the device it belongs to (syncs and overheads name only the context).
struct CudaContextRecord
{
    RecordHeader header;
    std::uint32_t context;
    std::int32_t device;
    std::uint32_t reserved;
};
static_assert(sizeof(CudaContextRecord) == 16);

// One kernel execution.
struct GpuKernelRecord
{
    RecordHeader header;
    std::int32_t device;
    std::int64_t startNs; // CLOCK_MONOTONIC
    std::int64_t endNs;
    std::uint32_t context;
    std::uint32_t stream;
    std::uint32_t correlation;
    std::uint32_t nameId; // string id of the kernel's (demangled) name
    std::int32_t grid[3];  // blocks per grid, x y z
    std::int32_t block[3]; // threads per block, x y z
    std::uint32_t registersPerThread;
    std::uint32_t sharedMemoryBytes; // static + dynamic, per block
    std::uint32_t graphId;           // the CUDA graph it ran in, 0 = none
    std::uint32_t reserved;
};
static_assert(sizeof(GpuKernelRecord) == 80);

// Direction of a copy (GpuMemcpyRecord::copyKind).
enum class CopyDirection : std::uint8_t { Unknown = 0, HostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3, HostToHost = 4, PeerToPeer = 5 };

// One copy (cudaMemcpy*, peer copies included).
struct GpuMemcpyRecord
{
    RecordHeader header;
    std::int32_t device;
    std::int64_t startNs; // CLOCK_MONOTONIC
    std::int64_t endNs;
    std::uint32_t context;
    std::uint32_t stream;
    std::uint32_t correlation;
    std::uint8_t copyKind;   // CopyDirection
    std::uint8_t srcKind;    // CUPTI's memory kind of the source (CUpti_ActivityMemoryKind)
    std::uint8_t dstKind;    // and of the destination
    std::uint8_t reserved8;
    std::uint64_t bytes;
    std::int32_t srcDevice;  // peer copies: the devices on each side; else `device`
    std::int32_t dstDevice;
    std::uint32_t graphId;   // 0 = none
    std::uint32_t reserved;
};
static_assert(sizeof(GpuMemcpyRecord) == 64);

// One memset.
struct GpuMemsetRecord
{
    RecordHeader header;
    std::int32_t device;
    std::int64_t startNs; // CLOCK_MONOTONIC
    std::int64_t endNs;
    std::uint32_t context;
    std::uint32_t stream;
    std::uint32_t correlation;
    std::uint32_t value; // the byte value set
    std::uint64_t bytes;
    std::uint32_t graphId; // 0 = none
    // CUPTI's memory kind of the memory set (CUpti_ActivityMemoryKind); 0 = unknown, as
    // collectors before December 2026 left it.
    std::uint8_t memoryKind;
    std::uint8_t reserved[3];
};
static_assert(sizeof(GpuMemsetRecord) == 56);

enum class CudaApiKind : std::uint32_t { Runtime = 1, Driver = 2 };

// One CUDA runtime or driver API call on a CPU thread.
struct CudaApiRecord
{
    RecordHeader header;
    std::uint32_t tid;    // OS thread id of the calling thread
    std::int64_t startNs; // CLOCK_MONOTONIC
    std::int64_t endNs;
    std::uint32_t correlation;
    std::uint32_t nameId;      // string id of the function's name ("cudaLaunchKernel")
    std::uint32_t api;         // CudaApiKind
    std::int32_t returnValue;  // cudaError_t / CUresult
};
static_assert(sizeof(CudaApiRecord) == 40);

// A synchronization: the host waited for the device (type as CUPTI numbers it: 1 event sync,
// 2 stream wait event, 3 stream sync, 4 context sync).
struct CudaSyncRecord
{
    RecordHeader header;
    std::uint32_t type;
    std::int64_t startNs; // CLOCK_MONOTONIC
    std::int64_t endNs;
    std::uint32_t context;
    std::uint32_t stream; // kNoStream for a context sync
    std::uint32_t correlation;
    std::uint32_t reserved;
};
static_assert(sizeof(CudaSyncRecord) == 40);

// A device allocation (operation 1) or its release (operation 2), e.g. cudaMalloc/cudaFree.
struct GpuMemoryRecord
{
    RecordHeader header;
    std::int32_t device;
    std::int64_t timeNs; // CLOCK_MONOTONIC
    std::uint64_t address;
    std::uint64_t bytes;
    std::uint32_t context;
    std::uint32_t stream; // kNoStream unless stream-ordered
    std::uint32_t correlation;
    std::uint8_t operation;  // 1 allocation, 2 release
    std::uint8_t memoryKind; // CUpti_ActivityMemoryKind
    std::uint16_t reserved;
};
static_assert(sizeof(GpuMemoryRecord) == 48);

// The job named a stream (nvtxNameCudaStream / nvtxNameCuStream). A later one renames it.
struct CudaStreamNameRecord
{
    RecordHeader header;
    std::uint32_t stream; // CUPTI's stream id
    std::uint32_t nameId;
    std::uint32_t reserved;
};
static_assert(sizeof(CudaStreamNameRecord) == 16);

// A fact about the capture, shown with its metadata (e.g. key "cuda_activity", value
// "unavailable: no CUDA driver"). A later record with the same key replaces the value.
struct MetadataRecord
{
    RecordHeader header;
    std::uint32_t keyId;   // string id
    std::uint32_t valueId; // string id
    std::uint32_t reserved;
};
static_assert(sizeof(MetadataRecord) == 16);

// A window of <spanscope/device_window.h> whose duration became known: the device's own
// measure between its two events, with the host moments they were enqueued.
struct DeviceWindowRecord
{
    RecordHeader header;
    std::uint32_t tid;           // thread that resolved it
    std::int64_t hostStartNs;    // CLOCK_MONOTONIC: start() enqueued the opening event
    std::int64_t hostEndNs;      // stop() enqueued the closing event
    std::int64_t deviceStartNs;  // the opening event on CLOCK_MONOTONIC (the API's anchor), -1 = unknown
    std::int64_t deviceEndNs;    // the closing event, likewise
    std::int64_t deviceDurationNs; // between the two events on the device clock
    std::int32_t device;         // -1 = unknown
    std::uint32_t nameId;        // string id, 0 = unnamed
    std::uint64_t stream;        // the stream handle as an integer (not a CUPTI id)
};
static_assert(sizeof(DeviceWindowRecord) == 64);

// CUPTI lost `count` activity records since the previous CudaDropped (its buffers were full).
struct CudaDroppedRecord
{
    RecordHeader header;
    std::uint32_t reserved;
    std::uint64_t count;
};
static_assert(sizeof(CudaDroppedRecord) == 16);

// Time CUPTI or the driver spent on its own work (CUpti_ActivityOverheadKind `kind`: buffer
// flushes, instrumentation, lazy loading, ...), on a thread when `tid` is not 0.
struct CudaOverheadRecord
{
    RecordHeader header;
    std::uint32_t tid;
    std::int64_t startNs; // CLOCK_MONOTONIC
    std::int64_t endNs;
    std::uint32_t kind;
    std::int32_t device; // -1 = none
};
static_assert(sizeof(CudaOverheadRecord) == 32);

// Size in bytes of each record type; for StringDef, of its fixed part. 0 = unknown type.
constexpr std::size_t recordSize(std::uint16_t type)
{
    switch (static_cast<RecordType>(type)) {
    case RecordType::StringDef:
        return sizeof(StringDefRecord);
    case RecordType::ThreadInfo:
        return sizeof(ThreadInfoRecord);
    case RecordType::Push:
        return sizeof(PushRecord);
    case RecordType::Pop:
        return sizeof(PopRecord);
    case RecordType::RangeStart:
        return sizeof(RangeStartRecord);
    case RecordType::RangeEnd:
        return sizeof(RangeEndRecord);
    case RecordType::Mark:
        return sizeof(MarkRecord);
    case RecordType::DomainCreate:
        return sizeof(DomainCreateRecord);
    case RecordType::CategoryName:
        return sizeof(CategoryNameRecord);
    case RecordType::ClockCalibration:
        return sizeof(ClockCalibrationRecord);
    case RecordType::Dropped:
        return sizeof(DroppedRecord);
    case RecordType::AllocDelta:
        return sizeof(AllocDeltaRecord);
    case RecordType::AllocTotals:
        return sizeof(AllocTotalsRecord);
    case RecordType::LargeAlloc:
        return sizeof(LargeAllocRecord);
    case RecordType::AllocSpan:
        return sizeof(AllocSpanRecord);
    case RecordType::AllocSizeBin:
        return sizeof(AllocSizeBinRecord);
    case RecordType::CudaDevice:
        return sizeof(CudaDeviceRecord);
    case RecordType::CudaContext:
        return sizeof(CudaContextRecord);
    case RecordType::GpuKernel:
        return sizeof(GpuKernelRecord);
    case RecordType::GpuMemcpy:
        return sizeof(GpuMemcpyRecord);
    case RecordType::GpuMemset:
        return sizeof(GpuMemsetRecord);
    case RecordType::CudaApi:
        return sizeof(CudaApiRecord);
    case RecordType::CudaSync:
        return sizeof(CudaSyncRecord);
    case RecordType::GpuMemory:
        return sizeof(GpuMemoryRecord);
    case RecordType::CudaStreamName:
        return sizeof(CudaStreamNameRecord);
    case RecordType::Metadata:
        return sizeof(MetadataRecord);
    case RecordType::DeviceWindow:
        return sizeof(DeviceWindowRecord);
    case RecordType::CudaDropped:
        return sizeof(CudaDroppedRecord);
    case RecordType::CudaOverhead:
        return sizeof(CudaOverheadRecord);
    case RecordType::PushShort:
        return sizeof(PushShortRecord);
    case RecordType::PopShort:
        return sizeof(PopShortRecord);
    }
    return 0;
}

// Fills the header of a fixed-size record (every type but StringDef).
template <typename Record> void setRecordHeader(Record& r, RecordType type)
{
    static_assert(sizeof(Record) % 8 == 0, "records are a multiple of 8 bytes");
    r.header = {static_cast<std::uint16_t>(type), static_cast<std::uint16_t>(sizeof(Record))};
}

// Whole size of a StringDef carrying `length` bytes, padding included.
constexpr std::size_t stringDefSize(std::uint32_t length)
{
    return (sizeof(StringDefRecord) + length + 7u) & ~std::size_t(7);
}

} // namespace spanscope::protocol
