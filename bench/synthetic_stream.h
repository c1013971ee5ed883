#pragma once
// A collector stream made up in memory, for live-update benchmarks that need more spans
// than a recorded run gives: `threads` threads, each repeating a step of nested push/pop
// ranges (step > phase k > item j, 50 region names in all, durations varying), written as
// Data frames of the wire protocol (collector/protocol/spanscope_protocol.h). Timestamps
// are ns (a 1 GHz calibration), contiguous across calls of next(), so the spans of later
// frames come after the earlier ones as a running job's do.
// With `namePerItem`, every item range gets a name of its own, defined just before it
// ("aten::add, seq = N", as PyTorch's emit_nvtx names its ranges): a region per item range.
// With `cudaPerItem`, every item range launches a kernel: a runtime API call with a driver
// call inside it sharing its correlation id, reported as CUPTI reports them (the driver
// call first: it completed first), then the kernel, on a stream of the thread's own; next()
// then counts these calls among the spans it wrote.

#include "protocol/spanscope_protocol.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace spanscope::bench {

class SyntheticStream
{
public:
    static constexpr std::uint32_t kRegions = 50;

    explicit SyntheticStream(std::uint32_t threads = 4, bool namePerItem = false, bool cudaPerItem = false)
        : m_threads(threads), m_namePerItem(namePerItem), m_cudaPerItem(cudaPerItem), m_now(threads, 1000)
    {
    }

    // Hello, the clock calibration, the region names and the thread names.
    std::string start() const
    {
        std::string out;
        protocol::HelloPayload hello{4242, 0, 0};
        frame(out, protocol::FrameType::Hello, bytes(hello));
        std::string records;
        protocol::ClockCalibrationRecord cal{};
        protocol::setRecordHeader(cal, protocol::RecordType::ClockCalibration);
        cal.ticksPerSecond = 1e9;
        records += bytes(cal);
        for (std::uint32_t r = 0; r < kRegions; ++r)
            stringDef(records, r + 1, r == 0 ? "step" : "region " + std::to_string(r));
        if (m_cudaPerItem) {
            stringDef(records, kRuntimeLaunch, "cudaLaunchKernel");
            stringDef(records, kDriverLaunch, "cuLaunchKernel");
            stringDef(records, kKernel, "add_kernel");
        }
        frame(out, protocol::FrameType::Data, records);
        return out;
    }

    // Data frames holding about `spans` more whole spans (complete steps), round-robin over
    // the threads; returns the spans written.
    std::uint64_t next(std::uint64_t spans, std::string& out)
    {
        std::string records;
        std::uint64_t written = 0;
        while (written < spans) {
            const std::uint32_t t = std::uint32_t(m_steps % m_threads);
            written += step(t, records);
            ++m_steps;
            if (records.size() > (1u << 20)) {
                frame(out, protocol::FrameType::Data, records);
                records.clear();
            }
        }
        if (!records.empty())
            frame(out, protocol::FrameType::Data, records);
        return written;
    }

private:
    // step > 4 phases > 5 items each: 25 spans. Region of a phase and an item rotate over the
    // 49 other names, durations vary with the step number.
    std::uint64_t step(std::uint32_t t, std::string& records)
    {
        std::uint64_t spans = 0;
        // The short records, as the collector writes a push with a message only and a pop
        // in the default domain.
        auto push = [&](std::uint32_t region) {
            protocol::PushShortRecord r{};
            protocol::setRecordHeader(r, protocol::RecordType::PushShort);
            r.tid = 100 + t;
            r.timestamp = m_now[t];
            r.message = region + 1;
            records += bytes(r);
            m_now[t] += 7;
            ++spans;
        };
        auto pop = [&] {
            protocol::PopShortRecord r{};
            protocol::setRecordHeader(r, protocol::RecordType::PopShort);
            r.tid = 100 + t;
            r.timestamp = m_now[t];
            records += bytes(r);
            m_now[t] += 5;
        };
        push(0);
        for (std::uint32_t phase = 0; phase < 4; ++phase) {
            push(1 + (m_steps + phase) % 9);
            for (std::uint32_t item = 0; item < 5; ++item) {
                if (m_namePerItem) {
                    const std::uint32_t id = m_nextStringId++;
                    stringDef(records, id + 1, "aten::add, seq = " + std::to_string(id));
                    push(id);
                } else {
                    push(10 + (m_steps * 7 + phase * 5 + item) % 40);
                }
                const std::uint64_t work = 50 + (m_steps * 13 + item * 29) % 400; // the item's own, ns
                if (m_cudaPerItem) {
                    ++m_correlation;
                    launch(t, m_now[t] + 15, m_now[t] + work - 15, kDriverLaunch, records);
                    launch(t, m_now[t] + 10, m_now[t] + work - 10, kRuntimeLaunch, records);
                    // Shorter than the time between two launches: a stream's kernels never overlap.
                    kernel(t, m_now[t] + work + 490, 10 + (m_steps + item) % 30, records);
                    spans += 3;
                }
                m_now[t] += work;
                pop();
            }
            pop();
        }
        pop();
        return spans;
    }

    void launch(std::uint32_t t, std::uint64_t start, std::uint64_t end, std::uint32_t name, std::string& records)
    {
        protocol::CudaApiRecord r{};
        protocol::setRecordHeader(r, protocol::RecordType::CudaApi);
        r.tid = 100 + t;
        r.startNs = std::int64_t(start);
        r.endNs = std::int64_t(end);
        r.correlation = std::uint32_t(m_correlation);
        r.nameId = name;
        r.api = std::uint32_t(name == kRuntimeLaunch ? protocol::CudaApiKind::Runtime : protocol::CudaApiKind::Driver);
        records += bytes(r);
    }

    void kernel(std::uint32_t t, std::uint64_t start, std::uint64_t duration, std::string& records)
    {
        protocol::GpuKernelRecord r{};
        protocol::setRecordHeader(r, protocol::RecordType::GpuKernel);
        r.startNs = std::int64_t(start);
        r.endNs = std::int64_t(start + duration);
        r.stream = 7 + t;
        r.correlation = std::uint32_t(m_correlation);
        r.nameId = kKernel;
        for (int i = 0; i < 3; ++i)
            r.grid[i] = r.block[i] = 1;
        records += bytes(r);
    }

    template <typename T> static std::string bytes(const T& value)
    {
        return std::string(reinterpret_cast<const char*>(&value), sizeof value);
    }
    static void frame(std::string& out, protocol::FrameType type, const std::string& payload)
    {
        protocol::FrameHeader h{};
        std::memcpy(h.magic, protocol::kMagic, 4);
        h.version = protocol::kVersion;
        h.type = std::uint16_t(type);
        h.payloadBytes = std::uint32_t(payload.size());
        out.append(reinterpret_cast<const char*>(&h), sizeof h);
        out += payload;
    }
    static void stringDef(std::string& records, std::uint32_t id, const std::string& text)
    {
        protocol::StringDefRecord def{};
        def.header = {std::uint16_t(protocol::RecordType::StringDef),
                      std::uint16_t(protocol::stringDefSize(std::uint32_t(text.size())))};
        def.id = id;
        def.length = std::uint32_t(text.size());
        records += bytes(def);
        records += text;
        records.append(protocol::stringDefSize(def.length) - sizeof def - text.size(), '\0');
    }

    // String ids of the API calls' and the kernel's names, after the regions'.
    static constexpr std::uint32_t kRuntimeLaunch = kRegions + 1, kDriverLaunch = kRegions + 2, kKernel = kRegions + 3;
    std::uint32_t m_threads;
    bool m_namePerItem, m_cudaPerItem;
    std::uint64_t m_correlation = 0;
    std::uint32_t m_nextStringId = kKernel; // string ids past the fixed names (id = this + 1)
    std::vector<std::uint64_t> m_now; // per thread, ns
    std::uint64_t m_steps = 0;
};

} // namespace spanscope::bench
