// Incremental decoder for the spanscope collector stream (spanscope_protocol.h).
// Header-only, C++17, no exceptions.
//
// Feed it bytes as they arrive, in chunks of any size; it calls the DecoderHandler for each
// complete record, in stream order. The first violation stops it for good: error() then holds a
// message that says what was wrong and errorOffset() the byte offset in the stream (from its
// first byte) of the frame or record at fault. Call finish() at end of stream to detect
// truncation. One decoder per stream; not thread-safe.
#pragma once

#include "spanscope_protocol.h"

#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace spanscope::protocol {

// Receives decoded records. Records are passed as properly aligned copies; the short push and
// pop records (version 5) arrive as their long forms (onPush, onPop).
class DecoderHandler
{
public:
    virtual ~DecoderHandler() = default;
    virtual void onHello(const HelloPayload&) {}
    virtual void onEnd() {}
    virtual void onString(std::uint32_t /*id*/, std::string_view /*utf8*/) {}
    virtual void onThreadInfo(const ThreadInfoRecord&) {}
    virtual void onPush(const PushRecord&) {}
    virtual void onPop(const PopRecord&) {}
    virtual void onRangeStart(const RangeStartRecord&) {}
    virtual void onRangeEnd(const RangeEndRecord&) {}
    virtual void onMark(const MarkRecord&) {}
    virtual void onDomainCreate(const DomainCreateRecord&) {}
    virtual void onCategoryName(const CategoryNameRecord&) {}
    virtual void onClockCalibration(const ClockCalibrationRecord&) {}
    virtual void onDropped(const DroppedRecord&) {}
    virtual void onAllocDelta(const AllocDeltaRecord&) {}
    virtual void onAllocTotals(const AllocTotalsRecord&) {}
    virtual void onLargeAlloc(const LargeAllocRecord&) {}
    virtual void onAllocSpan(const AllocSpanRecord&) {}
    virtual void onAllocSizeBin(const AllocSizeBinRecord&) {}
    virtual void onCudaDevice(const CudaDeviceRecord&) {}
    virtual void onCudaContext(const CudaContextRecord&) {}
    virtual void onGpuKernel(const GpuKernelRecord&) {}
    virtual void onGpuMemcpy(const GpuMemcpyRecord&) {}
    virtual void onGpuMemset(const GpuMemsetRecord&) {}
    virtual void onCudaApi(const CudaApiRecord&) {}
    virtual void onCudaSync(const CudaSyncRecord&) {}
    virtual void onGpuMemory(const GpuMemoryRecord&) {}
    virtual void onCudaStreamName(const CudaStreamNameRecord&) {}
    virtual void onMetadata(const MetadataRecord&) {}
    virtual void onDeviceWindow(const DeviceWindowRecord&) {}
    virtual void onCudaDropped(const CudaDroppedRecord&) {}
    virtual void onCudaOverhead(const CudaOverheadRecord&) {}
};

class Decoder
{
public:
    // Largest string id accepted (guards memory against a corrupt id).
    static constexpr std::uint32_t kMaxStringId = 1u << 24;

    explicit Decoder(DecoderHandler& handler) : m_handler(handler) {}

    // Consumes `size` bytes. Returns false once the stream is known to be malformed.
    bool feed(const void* data, std::size_t size)
    {
        if (!m_error.empty())
            return false;
        m_pending.insert(m_pending.end(), static_cast<const char*>(data),
                         static_cast<const char*>(data) + size);
        std::size_t pos = 0;
        while (m_error.empty() && m_pending.size() - pos >= sizeof(FrameHeader)) {
            FrameHeader fh;
            std::memcpy(&fh, m_pending.data() + pos, sizeof fh);
            if (!checkFrameHeader(fh))
                break;
            if (m_pending.size() - pos - sizeof fh < fh.payloadBytes)
                break; // the rest of this frame is still to come
            decodeFrame(fh, m_pending.data() + pos + sizeof fh);
            if (!m_error.empty())
                break;
            pos += sizeof fh + fh.payloadBytes;
            m_offset += sizeof fh + fh.payloadBytes;
        }
        m_pending.erase(m_pending.begin(), m_pending.begin() + static_cast<std::ptrdiff_t>(pos));
        return m_error.empty();
    }

    // Call at end of stream. Returns false if the stream is malformed or ends inside a frame.
    // A Data frame cut short (a job killed while its collector was writing) still gives
    // the handler its whole records before the cut: records are self-delimiting, and the
    // frame's definitions come first.
    bool finish()
    {
        if (!m_error.empty())
            return false;
        if (!m_pending.empty()) {
            const std::size_t kept = salvageCutFrame();
            if (!m_error.empty())
                return false;
            return fail(m_offset, "stream truncated: " + std::to_string(m_pending.size()) +
                                      " bytes of an incomplete frame at the end" +
                                      (kept > 0 ? " (its first " + std::to_string(kept) +
                                                      " whole records were kept)"
                                                : std::string()));
        }
        if (!m_sawHello)
            return fail(m_offset, "stream is empty: no hello frame");
        return true;
    }

    bool ok() const { return m_error.empty(); }
    const std::string& error() const { return m_error; }
    std::uint64_t errorOffset() const { return m_errorOffset; }
    bool sawEnd() const { return m_sawEnd; }
    // Bytes decoded so far (complete frames only).
    std::uint64_t bytesDecoded() const { return m_offset; }

private:
    bool fail(std::uint64_t offset, std::string message)
    {
        if (m_error.empty()) {
            m_errorOffset = offset;
            m_error = "at byte " + std::to_string(offset) + ": " + std::move(message);
        }
        return false;
    }

    bool checkFrameHeader(const FrameHeader& fh)
    {
        if (std::memcmp(fh.magic, kMagic, 4) != 0)
            return fail(m_offset, "bad frame magic (expected \"SPSC\")");
        if (fh.version < kOldestVersion || fh.version > kVersion)
            return fail(m_offset, "unsupported protocol version " + std::to_string(fh.version) +
                                      " (this reader knows " + std::to_string(kOldestVersion) +
                                      " to " + std::to_string(kVersion) + ")");
        if (fh.type < 1 || fh.type > 3)
            return fail(m_offset, "unknown frame type " + std::to_string(fh.type));
        if (fh.payloadBytes > kMaxPayloadBytes)
            return fail(m_offset, "frame payload of " + std::to_string(fh.payloadBytes) +
                                      " bytes exceeds the limit of " +
                                      std::to_string(kMaxPayloadBytes));
        const auto type = static_cast<FrameType>(fh.type);
        if (!m_sawHello && type != FrameType::Hello)
            return fail(m_offset, "stream does not start with a hello frame");
        if (m_sawHello && type == FrameType::Hello)
            return fail(m_offset, "second hello frame");
        if (m_sawEnd)
            return fail(m_offset, "frame after the end frame");
        if (type == FrameType::Hello && fh.payloadBytes != sizeof(HelloPayload))
            return fail(m_offset, "hello payload is " + std::to_string(fh.payloadBytes) +
                                      " bytes, expected " + std::to_string(sizeof(HelloPayload)));
        if (type == FrameType::End && fh.payloadBytes != 0)
            return fail(m_offset, "end frame with a payload");
        return true;
    }

    void decodeFrame(const FrameHeader& fh, const char* payload)
    {
        switch (static_cast<FrameType>(fh.type)) {
        case FrameType::Hello: {
            HelloPayload hello;
            std::memcpy(&hello, payload, sizeof hello);
            m_sawHello = true;
            m_handler.onHello(hello);
            return;
        }
        case FrameType::End:
            m_sawEnd = true;
            m_handler.onEnd();
            return;
        case FrameType::Data:
            decodeRecords(payload, fh.payloadBytes, false);
            return;
        }
    }

    // The records of a Data payload of `bytes` bytes; returns how many were decoded. `cut`:
    // the payload was cut short, so a record that does not fit ends it without an error.
    std::size_t decodeRecords(const char* payload, std::size_t bytes, bool cut)
    {
        std::size_t pos = 0, records = 0;
        const std::uint64_t base = m_offset + sizeof(FrameHeader);
        while (pos < bytes) {
            if (bytes - pos < sizeof(RecordHeader)) {
                if (!cut)
                    fail(base + pos, "record header cut by the end of its frame");
                return records;
            }
            RecordHeader rh;
            std::memcpy(&rh, payload + pos, sizeof rh);
            const std::size_t expected = recordSize(rh.type);
            if (expected == 0) {
                fail(base + pos, "unknown record type " + std::to_string(rh.type));
                return records;
            }
            if (rh.size > bytes - pos) {
                if (!cut)
                    fail(base + pos,
                         "record of " + std::to_string(rh.size) + " bytes overruns its frame");
                return records;
            }
            if (!decodeRecord(rh, expected, payload + pos, base + pos))
                return records;
            pos += rh.size;
            ++records;
        }
        return records;
    }

    // The whole records at the start of the incomplete Data frame in m_pending (its header
    // was checked when it arrived).
    std::size_t salvageCutFrame()
    {
        if (m_pending.size() <= sizeof(FrameHeader))
            return 0;
        FrameHeader fh;
        std::memcpy(&fh, m_pending.data(), sizeof fh);
        if (static_cast<FrameType>(fh.type) != FrameType::Data)
            return 0;
        return decodeRecords(m_pending.data() + sizeof fh, m_pending.size() - sizeof fh, true);
    }

    template <typename T> bool sized(const RecordHeader& rh, std::uint64_t at, const char* name)
    {
        if (rh.size == sizeof(T))
            return true;
        return fail(at, std::string(name) + " record is " + std::to_string(rh.size) +
                            " bytes, expected " + std::to_string(sizeof(T)));
    }

    template <typename T> T copy(const char* p)
    {
        T value;
        std::memcpy(&value, p, sizeof value);
        return value;
    }

    // A fixed-size record with no field to check, handed to `handle`.
    template <typename T>
    bool plain(const RecordHeader& rh, const char* p, std::uint64_t at, const char* name,
               void (DecoderHandler::*handle)(const T&))
    {
        if (!sized<T>(rh, at, name))
            return false;
        (m_handler.*handle)(copy<T>(p));
        return true;
    }

    // A fixed-size record whose one string field must be defined.
    template <typename T>
    bool named(const RecordHeader& rh, const char* p, std::uint64_t at, const char* name,
               std::uint32_t T::*field, void (DecoderHandler::*handle)(const T&))
    {
        if (!sized<T>(rh, at, name))
            return false;
        const T r = copy<T>(p);
        if (!knownString(r.*field, at, name))
            return false;
        (m_handler.*handle)(r);
        return true;
    }

    bool knownString(std::uint32_t id, std::uint64_t at, const char* field)
    {
        if (id == 0 || (id < m_strings.size() && m_strings[id]))
            return true;
        return fail(at, std::string(field) + " uses string id " + std::to_string(id) +
                            ", which was not defined before");
    }

    bool decodeRecord(const RecordHeader& rh, std::size_t fixed, const char* p, std::uint64_t at)
    {
        switch (static_cast<RecordType>(rh.type)) {
        case RecordType::StringDef: {
            if (rh.size < fixed)
                return fail(at, "string record of " + std::to_string(rh.size) +
                                    " bytes is shorter than its fixed part");
            const auto r = copy<StringDefRecord>(p);
            if (stringDefSize(r.length) != rh.size)
                return fail(at, "string record size " + std::to_string(rh.size) +
                                    " does not match its length " + std::to_string(r.length));
            if (r.id == 0 || r.id > kMaxStringId)
                return fail(at, "string id " + std::to_string(r.id) + " out of range");
            if (r.id < m_strings.size() && m_strings[r.id])
                return fail(at, "string id " + std::to_string(r.id) + " defined twice");
            if (r.id >= m_strings.size())
                m_strings.resize(std::size_t(r.id) + 1, false);
            m_strings[r.id] = true;
            m_handler.onString(r.id, std::string_view(p + fixed, r.length));
            return true;
        }
        case RecordType::ThreadInfo: {
            if (!sized<ThreadInfoRecord>(rh, at, "thread info"))
                return false;
            const auto r = copy<ThreadInfoRecord>(p);
            if (!knownString(r.nameId, at, "thread info"))
                return false;
            m_handler.onThreadInfo(r);
            return true;
        }
        case RecordType::Push: {
            if (!sized<PushRecord>(rh, at, "push"))
                return false;
            const auto r = copy<PushRecord>(p);
            if (!knownString(r.message, at, "push"))
                return false;
            if (r.payloadKind > static_cast<std::uint32_t>(PayloadKind::F32))
                return fail(at, "push with unknown payload kind " + std::to_string(r.payloadKind));
            m_handler.onPush(r);
            return true;
        }
        case RecordType::Pop:
            if (!sized<PopRecord>(rh, at, "pop"))
                return false;
            m_handler.onPop(copy<PopRecord>(p));
            return true;
        case RecordType::PushShort: {
            // Handed on in the long form: handlers see one kind of push.
            if (!sized<PushShortRecord>(rh, at, "short push"))
                return false;
            const auto s = copy<PushShortRecord>(p);
            if (!knownString(s.message, at, "push"))
                return false;
            PushRecord r{};
            setRecordHeader(r, RecordType::Push);
            r.tid = s.tid;
            r.timestamp = s.timestamp;
            r.domain = s.domain;
            r.message = s.message;
            m_handler.onPush(r);
            return true;
        }
        case RecordType::PopShort: {
            if (!sized<PopShortRecord>(rh, at, "short pop"))
                return false;
            const auto s = copy<PopShortRecord>(p);
            PopRecord r{};
            setRecordHeader(r, RecordType::Pop);
            r.tid = s.tid;
            r.timestamp = s.timestamp;
            m_handler.onPop(r);
            return true;
        }
        case RecordType::RangeStart: {
            if (!sized<RangeStartRecord>(rh, at, "range start"))
                return false;
            const auto r = copy<RangeStartRecord>(p);
            if (!knownString(r.message, at, "range start"))
                return false;
            m_handler.onRangeStart(r);
            return true;
        }
        case RecordType::RangeEnd:
            if (!sized<RangeEndRecord>(rh, at, "range end"))
                return false;
            m_handler.onRangeEnd(copy<RangeEndRecord>(p));
            return true;
        case RecordType::Mark: {
            if (!sized<MarkRecord>(rh, at, "mark"))
                return false;
            const auto r = copy<MarkRecord>(p);
            if (!knownString(r.message, at, "mark"))
                return false;
            m_handler.onMark(r);
            return true;
        }
        case RecordType::DomainCreate: {
            if (!sized<DomainCreateRecord>(rh, at, "domain create"))
                return false;
            const auto r = copy<DomainCreateRecord>(p);
            if (!knownString(r.nameId, at, "domain create"))
                return false;
            m_handler.onDomainCreate(r);
            return true;
        }
        case RecordType::CategoryName: {
            if (!sized<CategoryNameRecord>(rh, at, "category name"))
                return false;
            const auto r = copy<CategoryNameRecord>(p);
            if (!knownString(r.nameId, at, "category name"))
                return false;
            m_handler.onCategoryName(r);
            return true;
        }
        case RecordType::ClockCalibration: {
            if (!sized<ClockCalibrationRecord>(rh, at, "clock calibration"))
                return false;
            const auto r = copy<ClockCalibrationRecord>(p);
            if (!(r.ticksPerSecond > 0.0))
                return fail(at, "clock calibration with a non-positive rate");
            m_handler.onClockCalibration(r);
            return true;
        }
        case RecordType::Dropped:
            if (!sized<DroppedRecord>(rh, at, "dropped"))
                return false;
            m_handler.onDropped(copy<DroppedRecord>(p));
            return true;
        case RecordType::AllocDelta:
            if (!sized<AllocDeltaRecord>(rh, at, "allocation delta"))
                return false;
            m_handler.onAllocDelta(copy<AllocDeltaRecord>(p));
            return true;
        case RecordType::AllocTotals:
            if (!sized<AllocTotalsRecord>(rh, at, "allocation totals"))
                return false;
            m_handler.onAllocTotals(copy<AllocTotalsRecord>(p));
            return true;
        case RecordType::LargeAlloc:
            if (!sized<LargeAllocRecord>(rh, at, "large allocation"))
                return false;
            m_handler.onLargeAlloc(copy<LargeAllocRecord>(p));
            return true;
        case RecordType::AllocSpan: {
            if (!sized<AllocSpanRecord>(rh, at, "allocation span"))
                return false;
            const auto r = copy<AllocSpanRecord>(p);
            if (!knownString(r.operation, at, "allocation span"))
                return false;
            m_handler.onAllocSpan(r);
            return true;
        }
        case RecordType::AllocSizeBin: {
            if (!sized<AllocSizeBinRecord>(rh, at, "allocation size bin"))
                return false;
            const auto r = copy<AllocSizeBinRecord>(p);
            if (r.bin >= 64)
                return fail(at, "allocation size bin " + std::to_string(r.bin) + " out of range (0 to 63)");
            m_handler.onAllocSizeBin(r);
            return true;
        }
        case RecordType::CudaDevice:
            return named<CudaDeviceRecord>(rh, p, at, "CUDA device", &CudaDeviceRecord::nameId,
                                           &DecoderHandler::onCudaDevice);
        case RecordType::CudaContext:
            return plain<CudaContextRecord>(rh, p, at, "CUDA context", &DecoderHandler::onCudaContext);
        case RecordType::GpuKernel:
            return named<GpuKernelRecord>(rh, p, at, "GPU kernel", &GpuKernelRecord::nameId,
                                          &DecoderHandler::onGpuKernel);
        case RecordType::GpuMemcpy: {
            if (!sized<GpuMemcpyRecord>(rh, at, "GPU memcpy"))
                return false;
            const auto r = copy<GpuMemcpyRecord>(p);
            if (r.copyKind > static_cast<std::uint8_t>(CopyDirection::PeerToPeer))
                return fail(at, "GPU memcpy with unknown copy kind " + std::to_string(r.copyKind));
            m_handler.onGpuMemcpy(r);
            return true;
        }
        case RecordType::GpuMemset:
            return plain<GpuMemsetRecord>(rh, p, at, "GPU memset", &DecoderHandler::onGpuMemset);
        case RecordType::CudaApi: {
            if (!sized<CudaApiRecord>(rh, at, "CUDA API call"))
                return false;
            const auto r = copy<CudaApiRecord>(p);
            if (!knownString(r.nameId, at, "CUDA API call"))
                return false;
            if (r.api != static_cast<std::uint32_t>(CudaApiKind::Runtime) &&
                r.api != static_cast<std::uint32_t>(CudaApiKind::Driver))
                return fail(at, "CUDA API call of unknown API " + std::to_string(r.api));
            m_handler.onCudaApi(r);
            return true;
        }
        case RecordType::CudaSync:
            return plain<CudaSyncRecord>(rh, p, at, "CUDA synchronization", &DecoderHandler::onCudaSync);
        case RecordType::GpuMemory: {
            if (!sized<GpuMemoryRecord>(rh, at, "GPU memory"))
                return false;
            const auto r = copy<GpuMemoryRecord>(p);
            if (r.operation != 1 && r.operation != 2)
                return fail(at, "GPU memory record with unknown operation " + std::to_string(r.operation));
            m_handler.onGpuMemory(r);
            return true;
        }
        case RecordType::CudaStreamName:
            return named<CudaStreamNameRecord>(rh, p, at, "CUDA stream name", &CudaStreamNameRecord::nameId,
                                               &DecoderHandler::onCudaStreamName);
        case RecordType::Metadata: {
            if (!sized<MetadataRecord>(rh, at, "metadata"))
                return false;
            const auto r = copy<MetadataRecord>(p);
            if (!knownString(r.keyId, at, "metadata key") || !knownString(r.valueId, at, "metadata value"))
                return false;
            if (r.keyId == 0)
                return fail(at, "metadata without a key");
            m_handler.onMetadata(r);
            return true;
        }
        case RecordType::DeviceWindow:
            return named<DeviceWindowRecord>(rh, p, at, "device window", &DeviceWindowRecord::nameId,
                                             &DecoderHandler::onDeviceWindow);
        case RecordType::CudaDropped:
            return plain<CudaDroppedRecord>(rh, p, at, "CUDA dropped", &DecoderHandler::onCudaDropped);
        case RecordType::CudaOverhead:
            return plain<CudaOverheadRecord>(rh, p, at, "CUDA overhead", &DecoderHandler::onCudaOverhead);
        }
        return fail(at, "unknown record type " + std::to_string(rh.type));
    }

    DecoderHandler& m_handler;
    std::vector<char> m_pending; // bytes of the frame not yet complete
    std::uint64_t m_offset = 0;  // stream offset of m_pending[0]
    std::vector<bool> m_strings; // defined string ids
    std::string m_error;
    std::uint64_t m_errorOffset = 0;
    bool m_sawHello = false;
    bool m_sawEnd = false;
};

} // namespace spanscope::protocol
