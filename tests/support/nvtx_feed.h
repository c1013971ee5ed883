#pragma once
// Feeds hand-built collector records to an NvtxAssembler (tests of the live assembler).

#include "model/live/nvtx_assembler.h"

#include <string>

namespace spanscope::testing {

using namespace spanscope::protocol;
using spanscope::model::live::NvtxAssembler;

// Feeds records to an assembler. Clock: 1 tick = 1 ns, tick 0 = monotonic 1000 ns.
class Feed
{
public:
    explicit Feed(NvtxAssembler& a) : m_a(a)
    {
        m_a.onHello(HelloPayload{77, 0, 0});
        calibrate(0, 1000, 1e9);
    }
    void calibrate(uint64_t ticks, uint64_t ns, double rate)
    {
        ClockCalibrationRecord r{};
        r.ticks = ticks;
        r.monotonicNs = ns;
        r.ticksPerSecond = rate;
        m_a.onClockCalibration(r);
    }
    uint32_t str(const std::string& s)
    {
        const uint32_t id = m_nextString++;
        m_a.onString(id, s);
        return id;
    }
    void push(uint32_t tid, uint64_t t, const std::string& msg, uint32_t domain = 0,
              uint32_t category = 0)
    {
        PushRecord r{};
        r.tid = tid;
        r.timestamp = t;
        r.domain = domain;
        r.message = str(msg);
        r.category = category;
        m_a.onPush(r);
    }
    void pop(uint32_t tid, uint64_t t, uint32_t domain = 0)
    {
        PopRecord r{};
        r.tid = tid;
        r.timestamp = t;
        r.domain = domain;
        m_a.onPop(r);
    }
    void start(uint32_t tid, uint64_t id, uint64_t t, const std::string& msg, uint32_t domain = 0)
    {
        RangeStartRecord r{};
        r.tid = tid;
        r.rangeId = id;
        r.timestamp = t;
        r.domain = domain;
        r.message = str(msg);
        m_a.onRangeStart(r);
    }
    void end(uint32_t tid, uint64_t id, uint64_t t)
    {
        RangeEndRecord r{};
        r.tid = tid;
        r.rangeId = id;
        r.timestamp = t;
        m_a.onRangeEnd(r);
    }
    void mark(uint32_t tid, uint64_t t, const std::string& msg, uint32_t domain = 0)
    {
        MarkRecord r{};
        r.tid = tid;
        r.timestamp = t;
        r.domain = domain;
        r.message = str(msg);
        m_a.onMark(r);
    }
    void domain(uint32_t id, const std::string& name)
    {
        DomainCreateRecord r{};
        r.domain = id;
        r.nameId = str(name);
        m_a.onDomainCreate(r);
    }
    void allocs(uint32_t tid, uint64_t t, uint64_t allocations, uint64_t bytes)
    {
        AllocDeltaRecord r{};
        r.tid = tid;
        r.timestamp = t;
        r.allocations = allocations;
        r.bytes = bytes;
        m_a.onAllocDelta(r);
    }
    void bin(uint32_t tid, uint32_t bin, uint64_t allocations, uint64_t bytes)
    {
        AllocSizeBinRecord r{};
        r.tid = tid;
        r.bin = bin;
        r.allocations = allocations;
        r.bytes = bytes;
        m_a.onAllocSizeBin(r);
    }
    void large(uint32_t tid, uint64_t t, uint64_t address, uint64_t bytes)
    {
        LargeAllocRecord r{};
        r.tid = tid;
        r.timestamp = t;
        r.address = address;
        r.bytes = bytes;
        m_a.onLargeAlloc(r);
    }
    void totals(uint64_t t, uint64_t allocations, int64_t liveBytes)
    {
        AllocTotalsRecord r{};
        r.timestamp = t;
        r.allocations = allocations;
        r.liveBytes = liveBytes;
        m_a.onAllocTotals(r);
    }
    // A CUDA API call as CUPTI reports it (when it completed), ns on CLOCK_MONOTONIC.
    // `correlation` 0: a new one.
    void cudaApi(uint32_t tid, int64_t startNs, int64_t endNs, const std::string& name,
                 CudaApiKind api = CudaApiKind::Runtime, uint32_t correlation = 0)
    {
        CudaApiRecord r{};
        r.tid = tid;
        r.startNs = startNs;
        r.endNs = endNs;
        r.correlation = correlation ? correlation : ++m_correlation;
        r.nameId = str(name);
        r.api = uint32_t(api);
        m_a.onCudaApi(r);
    }
    // A kernel on device 0, ns on CLOCK_MONOTONIC; `grid` blocks of `block` threads in x
    // (1 in y and z).
    void kernel(int64_t startNs, int64_t endNs, uint32_t stream, uint32_t correlation,
                const std::string& name = "kernel", int32_t grid = 1, int32_t block = 1)
    {
        auto r = gpuRecord<GpuKernelRecord>(startNs, endNs, stream, correlation);
        r.nameId = str(name);
        r.grid[0] = grid;
        r.block[0] = block;
        r.grid[1] = r.grid[2] = r.block[1] = r.block[2] = 1;
        m_a.onGpuKernel(r);
    }
    // A copy (device to host), memset or sync on device 0, ns on CLOCK_MONOTONIC.
    void copy(int64_t startNs, int64_t endNs, uint32_t stream, uint32_t correlation, uint64_t bytes)
    {
        auto r = gpuRecord<GpuMemcpyRecord>(startNs, endNs, stream, correlation);
        r.copyKind = uint8_t(CopyDirection::DeviceToHost);
        r.bytes = bytes;
        m_a.onGpuMemcpy(r);
    }
    void memset(int64_t startNs, int64_t endNs, uint32_t stream, uint32_t correlation, uint64_t bytes)
    {
        auto r = gpuRecord<GpuMemsetRecord>(startNs, endNs, stream, correlation);
        r.bytes = bytes;
        m_a.onGpuMemset(r);
    }
    void sync(int64_t startNs, int64_t endNs, uint32_t stream, uint32_t correlation)
    {
        m_a.onCudaSync(gpuRecord<CudaSyncRecord>(startNs, endNs, stream, correlation));
    }
    void threadName(uint32_t tid, const std::string& name)
    {
        ThreadInfoRecord r{};
        r.tid = tid;
        r.nameId = str(name);
        m_a.onThreadInfo(r);
    }

private:
    // A GPU record with the fields every kind has.
    template <typename Record>
    static Record gpuRecord(int64_t startNs, int64_t endNs, uint32_t stream, uint32_t correlation)
    {
        Record r{};
        r.startNs = startNs;
        r.endNs = endNs;
        r.stream = stream;
        r.correlation = correlation;
        return r;
    }

    NvtxAssembler& m_a;
    uint32_t m_nextString = 1;
    uint32_t m_correlation = 0;
};

} // namespace spanscope::testing
