// The NVTX injection entry point and callbacks (CORE and CORE2 modules).
//
// NVTX calls InitializeInjectionNvtx2 once per library that includes the NVTX headers, each
// time with that library's own export table: the process-wide start is done once, but every
// call fills in that library's callback tables. Callbacks run on the job's threads; they
// never throw, block or allocate on the hot path (push, pop, start, end, mark).
#include "clock.h"
#include "collector.h"
#include "collector_alloc.h"
#include "protocol/spanscope_protocol.h"
#ifdef SPANSCOPE_WITH_CUPTI
#include "cuda/cuda_injection.h"
#endif

#include <cstdint>
#include <cwchar>
#include <nvtx3/nvToolsExt.h>
#include <string>

namespace proto = spanscope::protocol;
using spanscope::collector::Collector;
using spanscope::collector::ThreadBuffer;

namespace {

Collector* collector() noexcept
{
    return Collector::instance(); // set before any callback is installed; never reset
}

// Handles the job sees are our ids in disguise: no lookup on the hot path.
std::uint32_t domainOf(nvtxDomainHandle_t h)
{
    return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(h));
}
nvtxDomainHandle_t domainHandle(std::uint32_t id)
{
    return reinterpret_cast<nvtxDomainHandle_t>(static_cast<std::uintptr_t>(id));
}

std::string toUtf8(const wchar_t* text)
{
    std::string out;
    if (!text)
        return out;
    for (; *text && out.size() < proto::kMaxStringBytes; ++text) {
        auto c = static_cast<std::uint32_t>(*text);
        if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
            c = 0xFFFD;
        if (c < 0x80) {
            out += char(c);
        } else if (c < 0x800) {
            out += char(0xC0 | (c >> 6));
            out += char(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out += char(0xE0 | (c >> 12));
            out += char(0x80 | ((c >> 6) & 0x3F));
            out += char(0x80 | (c & 0x3F));
        } else {
            out += char(0xF0 | (c >> 18));
            out += char(0x80 | ((c >> 12) & 0x3F));
            out += char(0x80 | ((c >> 6) & 0x3F));
            out += char(0x80 | (c & 0x3F));
        }
    }
    return out;
}

// True when `text` is still the string `recent` cached (the job may have reused the buffer).
// Stops at the first difference, so it never reads past the end of a shorter `text`.
bool sameText(const ThreadBuffer::RecentString& recent, const char* text) noexcept
{
    for (std::uint32_t i = 0; i < recent.length; ++i)
        if (text[i] != recent.stored[i])
            return false;
    // Longer strings were interned cut to kMaxStringBytes, so only that prefix counts.
    return recent.length == proto::kMaxStringBytes || text[recent.length] == '\0';
}

// Interns `text` (not null) and, with a buffer, remembers it as that thread's recent string.
__attribute__((noinline)) std::uint32_t internAndRemember(ThreadBuffer* b,
                                                          const char* text) noexcept
{
    auto& strings = collector()->strings();
    const std::uint32_t id = strings.intern(text);
    if (b && id != 0) {
        const auto* entry = strings.entry(id);
        b->recentString(text) = {text, entry->text, entry->length, id};
    }
    return id;
}

// `b` is the calling thread's buffer (its recent strings skip the table), or nullptr.
inline std::uint32_t internA(ThreadBuffer* b, const char* text) noexcept
{
    if (!text)
        return 0;
    if (__builtin_expect(b != nullptr, 1)) {
        const ThreadBuffer::RecentString& recent = b->recentString(text);
        if (__builtin_expect(recent.text == text, 1) && sameText(recent, text))
            return recent.id;
    }
    return internAndRemember(b, text);
}

std::uint32_t internW(const wchar_t* text) noexcept
{
    try {
        return collector()->strings().intern(toUtf8(text));
    } catch (...) {
        return 0;
    }
}

std::uint32_t messageOf(ThreadBuffer* b, const nvtxEventAttributes_t* a) noexcept
{
    if (!a)
        return 0;
    switch (a->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return internA(b, a->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
        return internW(a->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(a->message.registered));
    default:
        return 0;
    }
}

std::uint32_t colorOf(const nvtxEventAttributes_t* a)
{
    return a && a->colorType == NVTX_COLOR_ARGB ? a->color : 0;
}

std::uint32_t categoryOf(const nvtxEventAttributes_t* a)
{
    return a ? a->category : 0;
}

void payloadOf(const nvtxEventAttributes_t* a, std::uint32_t& kind, std::uint64_t& bits)
{
    kind = 0;
    bits = 0;
    if (!a)
        return;
    switch (a->payloadType) {
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
        kind = 1;
        bits = a->payload.ullValue;
        break;
    case NVTX_PAYLOAD_TYPE_INT64:
        kind = 2;
        bits = a->payload.ullValue;
        break;
    case NVTX_PAYLOAD_TYPE_DOUBLE:
        kind = 3;
        bits = a->payload.ullValue;
        break;
    case NVTX_PAYLOAD_TYPE_UNSIGNED_INT32:
        kind = 4;
        bits = a->payload.uiValue;
        break;
    case NVTX_PAYLOAD_TYPE_INT32:
        kind = 5;
        bits = std::uint32_t(a->payload.iValue);
        break;
    case NVTX_PAYLOAD_TYPE_FLOAT: {
        kind = 6;
        std::uint32_t f;
        static_assert(sizeof f == sizeof a->payload.fValue);
        __builtin_memcpy(&f, &a->payload.fValue, sizeof f);
        bits = f;
        break;
    }
    default:
        break;
    }
}

// ---- hot path -----------------------------------------------------------------------------
//
// `message(b)` gives the string id once the thread's buffer is known (its recent strings make
// a repeated name cheap); the timestamp is taken after it, so interning is outside the range.

template <typename Message>
int push(std::uint32_t domain, Message message, const nvtxEventAttributes_t* a) noexcept
{
    ThreadBuffer* b = collector()->threadBuffer();
    if (__builtin_expect(!b, 0))
        return -1;
    const std::uint32_t id = message(b);
    const int level = b->depth;
    // Room for this push's pop, in its long form: a pop may name another domain.
    const std::size_t keep = b->popReserve() + sizeof(proto::PopRecord);
    // What the thread allocated since its last push or pop belongs to the enclosing range.
    spanscope::collector::AllocTap::report(b, spanscope::collector::ticks, keep);
    const std::uint32_t category = categoryOf(a), color = colorOf(a);
    std::uint32_t payloadKind = 0;
    std::uint64_t payload = 0;
    payloadOf(a, payloadKind, payload);
    // Most pushes carry a message only: the short record, 24 bytes instead of 48.
    bool written;
    if (__builtin_expect((category | color | payloadKind) == 0, 1)) {
        written = b->emplace<proto::PushShortRecord>(keep, [&](proto::PushShortRecord& r) {
            proto::setRecordHeader(r, proto::RecordType::PushShort);
            r.tid = b->tid();
            r.domain = domain;
            r.message = id;
            r.timestamp = spanscope::collector::ticks();
        });
    } else {
        written = b->emplace<proto::PushRecord>(keep, [&](proto::PushRecord& r) {
            proto::setRecordHeader(r, proto::RecordType::Push);
            r.tid = b->tid();
            r.domain = domain;
            r.message = id;
            r.category = category;
            r.color = color;
            r.payloadKind = payloadKind;
            r.payload = payload;
            r.reserved = 0;
            r.timestamp = spanscope::collector::ticks();
        });
    }
    if (__builtin_expect(written, 1))
        b->pushRecorded(sizeof(proto::PopRecord));
    else
        b->pushDropped(level);
    return b->depth++;
}

int pop(std::uint32_t domain) noexcept
{
    const std::uint64_t now = spanscope::collector::ticks();
    ThreadBuffer* b = collector()->threadBuffer();
    if (__builtin_expect(!b, 0))
        return -1;
    const int level = b->depth - 1; // the level this pop closes; -1: nothing open here
    if (__builtin_expect(level < b->inheritedDepth, 0) && level >= 0) {
        b->inheritedDepth = level; // a range the parent pushed before the fork: its own
        return --b->depth;
    }
    if (__builtin_expect(b->popOfDroppedPush(level), 0)) {
        b->countDrop();
        return --b->depth;
    }
    // A pop of a recorded push uses the room its push kept; a stray one may not.
    const bool closesRecordedPush = level >= 0;
    // What the thread allocated since its last push or pop belongs to the range closing.
    spanscope::collector::AllocTap::report(b, [now] { return now; }, b->popReserve());
    const std::size_t keep = closesRecordedPush ? 0 : b->popReserve();
    // The default domain's pop (nearly all of them) in the short record, 16 bytes.
    bool written;
    if (__builtin_expect(domain == 0, 1)) {
        written = b->emplace<proto::PopShortRecord>(keep, [&](proto::PopShortRecord& r) {
            proto::setRecordHeader(r, proto::RecordType::PopShort);
            r.tid = b->tid();
            r.timestamp = now;
        });
    } else {
        written = b->emplace<proto::PopRecord>(keep, [&](proto::PopRecord& r) {
            proto::setRecordHeader(r, proto::RecordType::Pop);
            r.tid = b->tid();
            r.timestamp = now;
            r.domain = domain;
            r.reserved = 0;
        });
    }
    if (written && closesRecordedPush)
        b->popRecorded(sizeof(proto::PopRecord));
    return b->depth > 0 ? --b->depth : -1;
}

template <typename Message>
nvtxRangeId_t rangeStart(std::uint32_t domain, Message message,
                         const nvtxEventAttributes_t* a) noexcept
{
    ThreadBuffer* b = collector()->threadBuffer();
    if (__builtin_expect(!b, 0))
        return 0;
    const std::uint64_t rangeId = b->nextRangeId();
    const std::uint32_t id = message(b);
    b->emplace<proto::RangeStartRecord>(b->popReserve(), [&](proto::RangeStartRecord& r) {
        proto::setRecordHeader(r, proto::RecordType::RangeStart);
        r.tid = b->tid();
        r.rangeId = rangeId;
        r.domain = domain;
        r.message = id;
        r.category = categoryOf(a);
        r.color = colorOf(a);
        r.timestamp = spanscope::collector::ticks();
    });
    return rangeId;
}

void rangeEnd(std::uint32_t domain, nvtxRangeId_t id) noexcept
{
    const std::uint64_t now = spanscope::collector::ticks();
    ThreadBuffer* b = collector()->threadBuffer();
    if (__builtin_expect(!b, 0))
        return;
    b->emplace<proto::RangeEndRecord>(b->popReserve(), [&](proto::RangeEndRecord& r) {
        proto::setRecordHeader(r, proto::RecordType::RangeEnd);
        r.tid = b->tid();
        r.rangeId = id;
        r.timestamp = now;
        r.domain = domain;
        r.reserved = 0;
    });
}

template <typename Message>
void mark(std::uint32_t domain, Message message, const nvtxEventAttributes_t* a) noexcept
{
    ThreadBuffer* b = collector()->threadBuffer();
    if (__builtin_expect(!b, 0))
        return;
    const std::uint32_t id = message(b);
    b->emplace<proto::MarkRecord>(b->popReserve(), [&](proto::MarkRecord& r) {
        proto::setRecordHeader(r, proto::RecordType::Mark);
        r.tid = b->tid();
        r.domain = domain;
        r.message = id;
        r.category = categoryOf(a);
        r.color = colorOf(a);
        r.timestamp = spanscope::collector::ticks();
    });
}

// The message sources the callbacks pass to push, rangeStart and mark.
auto ascii(const char* m)
{
    return [m](ThreadBuffer* b) { return internA(b, m); };
}
auto wide(const wchar_t* m)
{
    return [m](ThreadBuffer*) { return internW(m); };
}
auto attributes(const nvtxEventAttributes_t* a)
{
    return [a](ThreadBuffer* b) { return messageOf(b, a); };
}

// True while the collector records. In a forked child the first call after the fork
// starts the child's own stream (Collector::resumeInForkedChild); until then it is off.
bool on() noexcept
{
    Collector* c = collector();
    return __builtin_expect(c->enabled(), 1) || c->resumeInForkedChild();
}

// ---- CORE module --------------------------------------------------------------------------

void NVTX_API markEx(const nvtxEventAttributes_t* a)
{
    if (on())
        mark(0, attributes(a), a);
}
void NVTX_API markA(const char* m)
{
    if (on())
        mark(0, ascii(m), nullptr);
}
void NVTX_API markW(const wchar_t* m)
{
    if (on())
        mark(0, wide(m), nullptr);
}
nvtxRangeId_t NVTX_API rangeStartEx(const nvtxEventAttributes_t* a)
{
    return on() ? rangeStart(0, attributes(a), a) : 0;
}
nvtxRangeId_t NVTX_API rangeStartA(const char* m)
{
    return on() ? rangeStart(0, ascii(m), nullptr) : 0;
}
nvtxRangeId_t NVTX_API rangeStartW(const wchar_t* m)
{
    return on() ? rangeStart(0, wide(m), nullptr) : 0;
}
void NVTX_API rangeEndCore(nvtxRangeId_t id)
{
    if (on())
        rangeEnd(0, id);
}
int NVTX_API rangePushEx(const nvtxEventAttributes_t* a)
{
    return on() ? push(0, attributes(a), a) : -1;
}
int NVTX_API rangePushA(const char* m)
{
    return on() ? push(0, ascii(m), nullptr) : -1;
}
int NVTX_API rangePushW(const wchar_t* m)
{
    return on() ? push(0, wide(m), nullptr) : -1;
}
int NVTX_API rangePop()
{
    return on() ? pop(0) : -1;
}
void NVTX_API nameCategoryA(uint32_t category, const char* name)
{
    if (on())
        collector()->nameCategory(0, category, internA(nullptr, name));
}
void NVTX_API nameCategoryW(uint32_t category, const wchar_t* name)
{
    if (on())
        collector()->nameCategory(0, category, internW(name));
}
void NVTX_API nameOsThreadA(uint32_t tid, const char* name)
{
    if (on())
        collector()->nameThread(tid, internA(nullptr, name));
}
void NVTX_API nameOsThreadW(uint32_t tid, const wchar_t* name)
{
    if (on())
        collector()->nameThread(tid, internW(name));
}

// ---- CORE2 module (domains; what the C++ nvtx3 API calls) ---------------------------------

void NVTX_API domainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a)
{
    if (on())
        mark(domainOf(d), attributes(a), a);
}
nvtxRangeId_t NVTX_API domainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a)
{
    return on() ? rangeStart(domainOf(d), attributes(a), a) : 0;
}
void NVTX_API domainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
    if (on())
        rangeEnd(domainOf(d), id);
}
int NVTX_API domainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t* a)
{
    return on() ? push(domainOf(d), attributes(a), a) : -1;
}
int NVTX_API domainRangePop(nvtxDomainHandle_t d)
{
    return on() ? pop(domainOf(d)) : -1;
}
void NVTX_API domainNameCategoryA(nvtxDomainHandle_t d, uint32_t category, const char* name)
{
    if (on())
        collector()->nameCategory(domainOf(d), category, internA(nullptr, name));
}
void NVTX_API domainNameCategoryW(nvtxDomainHandle_t d, uint32_t category, const wchar_t* name)
{
    if (on())
        collector()->nameCategory(domainOf(d), category, internW(name));
}
nvtxStringHandle_t NVTX_API domainRegisterStringA(nvtxDomainHandle_t, const char* text)
{
    // Registered strings share the one string table: the handle is the string id.
    const std::uint32_t id = on() ? internA(nullptr, text) : 0;
    return reinterpret_cast<nvtxStringHandle_t>(static_cast<std::uintptr_t>(id));
}
nvtxStringHandle_t NVTX_API domainRegisterStringW(nvtxDomainHandle_t, const wchar_t* text)
{
    const std::uint32_t id = on() ? internW(text) : 0;
    return reinterpret_cast<nvtxStringHandle_t>(static_cast<std::uintptr_t>(id));
}
nvtxDomainHandle_t NVTX_API domainCreateA(const char* name)
{
    // Domains are merged by name, so two libraries' "mylib" domains are one.
    return domainHandle(on() && name ? collector()->domainId(name) : 0);
}
nvtxDomainHandle_t NVTX_API domainCreateW(const wchar_t* name)
{
    if (!on() || !name)
        return domainHandle(0);
    try {
        return domainHandle(collector()->domainId(toUtf8(name)));
    } catch (...) {
        return domainHandle(0);
    }
}

#ifdef SPANSCOPE_WITH_CUPTI
// ---- CUDA and CUDART modules: stream names (cudaStream_t and CUstream are one handle) -----

void NVTX_API nameStreamA(void* stream, const char* name)
{
    if (on() && name)
        spanscope::collector::cuda::nameStream(stream, name);
}
void NVTX_API nameStreamW(void* stream, const wchar_t* name)
{
    if (!on() || !name)
        return;
    try {
        spanscope::collector::cuda::nameStream(stream, toUtf8(name));
    } catch (...) {
    }
}
#endif

template <typename F> void install(NvtxFunctionTable table, unsigned size, unsigned id, F fn)
{
    if (id <= size && table[id])
        *table[id] = reinterpret_cast<NvtxFunctionPointer>(fn);
}

bool installCallbacks(NvtxGetExportTableFunc_t getExportTable)
{
    auto* callbacks =
        static_cast<const NvtxExportTableCallbacks*>(getExportTable(NVTX_ETID_CALLBACKS));
    if (!callbacks || callbacks->struct_size < sizeof(NvtxExportTableCallbacks) ||
        !callbacks->GetModuleFunctionTable)
        return false;

    NvtxFunctionTable core = nullptr;
    unsigned coreSize = 0;
    if (!callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &core, &coreSize) || !core)
        return false;
    install(core, coreSize, NVTX_CBID_CORE_MarkEx, &markEx);
    install(core, coreSize, NVTX_CBID_CORE_MarkA, &markA);
    install(core, coreSize, NVTX_CBID_CORE_MarkW, &markW);
    install(core, coreSize, NVTX_CBID_CORE_RangeStartEx, &rangeStartEx);
    install(core, coreSize, NVTX_CBID_CORE_RangeStartA, &rangeStartA);
    install(core, coreSize, NVTX_CBID_CORE_RangeStartW, &rangeStartW);
    install(core, coreSize, NVTX_CBID_CORE_RangeEnd, &rangeEndCore);
    install(core, coreSize, NVTX_CBID_CORE_RangePushEx, &rangePushEx);
    install(core, coreSize, NVTX_CBID_CORE_RangePushA, &rangePushA);
    install(core, coreSize, NVTX_CBID_CORE_RangePushW, &rangePushW);
    install(core, coreSize, NVTX_CBID_CORE_RangePop, &rangePop);
    install(core, coreSize, NVTX_CBID_CORE_NameCategoryA, &nameCategoryA);
    install(core, coreSize, NVTX_CBID_CORE_NameCategoryW, &nameCategoryW);
    install(core, coreSize, NVTX_CBID_CORE_NameOsThreadA, &nameOsThreadA);
    install(core, coreSize, NVTX_CBID_CORE_NameOsThreadW, &nameOsThreadW);

    NvtxFunctionTable core2 = nullptr;
    unsigned core2Size = 0;
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &core2, &core2Size) && core2) {
        install(core2, core2Size, NVTX_CBID_CORE2_DomainMarkEx, &domainMarkEx);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRangeStartEx, &domainRangeStartEx);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRangeEnd, &domainRangeEnd);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRangePushEx, &domainRangePushEx);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRangePop, &domainRangePop);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainNameCategoryA, &domainNameCategoryA);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainNameCategoryW, &domainNameCategoryW);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRegisterStringA, &domainRegisterStringA);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainRegisterStringW, &domainRegisterStringW);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainCreateA, &domainCreateA);
        install(core2, core2Size, NVTX_CBID_CORE2_DomainCreateW, &domainCreateW);
    }

#ifdef SPANSCOPE_WITH_CUPTI
    // Naming a stream is all these modules carry that the viewer shows.
    NvtxFunctionTable cudaRt = nullptr, cudaDriver = nullptr;
    unsigned cudaRtSize = 0, cudaDriverSize = 0;
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CUDART, &cudaRt, &cudaRtSize) && cudaRt) {
        install(cudaRt, cudaRtSize, NVTX_CBID_CUDART_NameCudaStreamA, &nameStreamA);
        install(cudaRt, cudaRtSize, NVTX_CBID_CUDART_NameCudaStreamW, &nameStreamW);
    }
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CUDA, &cudaDriver, &cudaDriverSize) && cudaDriver) {
        install(cudaDriver, cudaDriverSize, NVTX_CBID_CUDA_NameCuStreamA, &nameStreamA);
        install(cudaDriver, cudaDriverSize, NVTX_CBID_CUDA_NameCuStreamW, &nameStreamW);
    }
#endif

    if (auto* version =
            static_cast<const NvtxExportTableVersionInfo*>(getExportTable(NVTX_ETID_VERSIONINFO));
        version && version->struct_size >= sizeof(NvtxExportTableVersionInfo) &&
        version->SetInjectionNvtxVersion)
        version->SetInjectionNvtxVersion(NVTX_VERSION);
    return true;
}

} // namespace

// Called by each NVTX-instrumented library on its first NVTX call. Returns 1 when the
// callbacks were installed, 0 to let that library fall back to no-ops.
extern "C" __attribute__((visibility("default"))) int
InitializeInjectionNvtx2(NvtxGetExportTableFunc_t getExportTable)
{
    try {
        if (!getExportTable)
            return 0;
        Collector* c = Collector::start();
        if (!c)
            return 0;
        return installCallbacks(getExportTable) ? 1 : 0;
    } catch (...) {
        Collector::logOnce("unexpected error while installing NVTX callbacks; collector off");
        return 0;
    }
}
