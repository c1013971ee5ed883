#pragma once
// A collector stream made up in memory, for live-update benchmarks that need more spans
// than a recorded run gives: `threads` threads, each repeating a step of nested push/pop
// ranges (step > phase k > item j, 50 region names in all, durations varying), written as
// Data frames of the wire protocol (collector/protocol/spanscope_protocol.h). Timestamps
// are ns (a 1 GHz calibration), contiguous across calls of next(), so the spans of later
// frames come after the earlier ones as a running job's do.
// With `namePerItem`, every item range gets a name of its own, defined just before it
// ("aten::add, seq = N", as PyTorch's emit_nvtx names its ranges): a region per item range.

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

    explicit SyntheticStream(std::uint32_t threads = 4, bool namePerItem = false)
        : m_threads(threads), m_namePerItem(namePerItem), m_now(threads, 1000)
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
                m_now[t] += 50 + (m_steps * 13 + item * 29) % 400; // the item's own work, ns
                pop();
            }
            pop();
        }
        pop();
        return spans;
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

    std::uint32_t m_threads;
    bool m_namePerItem;
    std::uint32_t m_nextStringId = kRegions; // string ids past the fixed names (id = this + 1)
    std::vector<std::uint64_t> m_now; // per thread, ns
    std::uint64_t m_steps = 0;
};

} // namespace spanscope::bench
