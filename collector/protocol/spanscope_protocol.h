// spanscope collector wire format, version 3 (version 1 lacks the allocation records, version 2
// their size bins). Header-only, C++17, no dependencies.
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
// records (one before any timed record, then about once a second, and one at the end) map them
// to CLOCK_MONOTONIC: ns = monotonicNs + (ticks - calibration.ticks) * 1e9 / ticksPerSecond,
// using the latest calibration.
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
inline constexpr std::uint16_t kVersion = 3;
// Oldest version a reader accepts: versions 2 and 3 only added record types.
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
};
inline constexpr std::uint16_t kFirstRecordType = 1;
inline constexpr std::uint16_t kLastRecordType = 16;

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
