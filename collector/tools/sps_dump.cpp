// spanscope-sps-dump: prints a collector stream (SPANSCOPE_OUTPUT file) as text.
//
//   spanscope-sps-dump FILE            summary: record counts, threads, domains, drops
//   spanscope-sps-dump --records FILE  every record, one per line, times in ns since the
//                                      collector started
//
// Exit status 0 for a well-formed stream, 1 for a malformed or truncated one (the decoder's
// message goes to stderr), 2 for a usage or I/O error.
#include "protocol/spanscope_decoder.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

using namespace spanscope::protocol;

namespace {

class Printer : public DecoderHandler
{
public:
    explicit Printer(bool records) : m_records(records) {}

    void onHello(const HelloPayload& h) override
    {
        m_pid = h.pid;
        m_startTicks = h.startTicks;
        if (m_records)
            std::printf("hello pid=%u\n", h.pid);
    }
    void onEnd() override
    {
        if (m_records)
            std::printf("end\n");
    }
    void onString(std::uint32_t id, std::string_view s) override
    {
        m_strings[id] = std::string(s);
        count("string");
    }
    void onThreadInfo(const ThreadInfoRecord& r) override
    {
        m_threadNames[r.tid] = str(r.nameId);
        count("thread-name");
        if (m_records)
            std::printf("thread tid=%u name=\"%s\"\n", r.tid, str(r.nameId).c_str());
    }
    void onPush(const PushRecord& r) override
    {
        timed(r.tid, r.timestamp, "push");
        if (m_records)
            std::printf(
                "%12.0f push tid=%u domain=%u \"%s\" category=%u color=%08x payload=%u:%" PRIu64
                "\n",
                ns(r.timestamp), r.tid, r.domain, str(r.message).c_str(), r.category, r.color,
                r.payloadKind, r.payload);
    }
    void onPop(const PopRecord& r) override
    {
        timed(r.tid, r.timestamp, "pop");
        if (m_records)
            std::printf("%12.0f pop tid=%u domain=%u\n", ns(r.timestamp), r.tid, r.domain);
    }
    void onRangeStart(const RangeStartRecord& r) override
    {
        timed(r.tid, r.timestamp, "range-start");
        if (m_records)
            std::printf("%12.0f start id=%" PRIx64 " tid=%u domain=%u \"%s\" category=%u\n",
                        ns(r.timestamp), r.rangeId, r.tid, r.domain, str(r.message).c_str(),
                        r.category);
    }
    void onRangeEnd(const RangeEndRecord& r) override
    {
        timed(r.tid, r.timestamp, "range-end");
        if (m_records)
            std::printf("%12.0f end id=%" PRIx64 " tid=%u\n", ns(r.timestamp), r.rangeId, r.tid);
    }
    void onMark(const MarkRecord& r) override
    {
        timed(r.tid, r.timestamp, "mark");
        if (m_records)
            std::printf("%12.0f mark tid=%u domain=%u \"%s\"\n", ns(r.timestamp), r.tid, r.domain,
                        str(r.message).c_str());
    }
    void onDomainCreate(const DomainCreateRecord& r) override
    {
        m_domains[r.domain] = str(r.nameId);
        count("domain");
        if (m_records)
            std::printf("domain %u \"%s\"\n", r.domain, str(r.nameId).c_str());
    }
    void onCategoryName(const CategoryNameRecord& r) override
    {
        count("category-name");
        if (m_records)
            std::printf("category domain=%u %u \"%s\"\n", r.domain, r.category,
                        str(r.nameId).c_str());
    }
    void onClockCalibration(const ClockCalibrationRecord& r) override
    {
        m_haveCalibration = true;
        m_calibration = r;
        count("clock-calibration");
    }
    void onAllocDelta(const AllocDeltaRecord& r) override
    {
        timed(r.tid, r.timestamp, "alloc-delta");
        if (m_records)
            std::printf("%12.0f alloc-delta tid=%u allocations=%" PRIu64 " bytes=%" PRIu64
                        " frees=%" PRIu64 "\n",
                        ns(r.timestamp), r.tid, r.allocations, r.bytes, r.frees);
    }
    void onAllocTotals(const AllocTotalsRecord& r) override
    {
        count("alloc-totals");
        if (m_records)
            std::printf("%12.0f alloc-totals allocations=%" PRIu64 " bytes=%" PRIu64
                        " frees=%" PRIu64 " live=%" PRId64 "\n",
                        ns(r.timestamp), r.allocations, r.bytes, r.frees, r.liveBytes);
    }
    void onLargeAlloc(const LargeAllocRecord& r) override
    {
        timed(r.tid, r.timestamp, r.bytes ? "large-alloc" : "large-free");
        if (m_records)
            std::printf("%12.0f %s tid=%u address=0x%" PRIx64 " bytes=%" PRIu64 "\n", ns(r.timestamp),
                        r.bytes ? "large-alloc" : "large-free", r.tid, r.address, r.bytes);
    }
    void onAllocSpan(const AllocSpanRecord& r) override
    {
        count("alloc-span");
        if (m_records)
            std::printf("alloc-span tid=%u \"%s\" %s start=%" PRId64 " end=%" PRId64
                        " iterations=%" PRIu64 " bytes=%" PRIu64 " allocations=%" PRIu64 "\n",
                        r.tid, str(r.operation).c_str(), r.process ? "process" : "thread",
                        r.startNs, r.endNs, r.iterations, r.bytes, r.allocations);
    }
    void onAllocSizeBin(const AllocSizeBinRecord& r) override
    {
        count("alloc-size-bin");
        if (m_records)
            std::printf("alloc-size-bin tid=%u bin=%u allocations=%" PRIu64 " bytes=%" PRIu64 "\n",
                        r.tid, r.bin, r.allocations, r.bytes);
    }
    void onDropped(const DroppedRecord& r) override
    {
        m_dropped += r.count;
        count("dropped");
        if (m_records)
            std::printf("dropped %" PRIu64 "\n", r.count);
    }

    // CUDA activity (protocol 4). GPU times are CLOCK_MONOTONIC ns, printed as they are.
    void onCudaDevice(const CudaDeviceRecord& r) override
    {
        count("cuda-device");
        if (m_records)
            std::printf("cuda-device %d \"%s\" sm=%d cc=%d.%d memory=%" PRId64 "\n", r.device, str(r.nameId).c_str(),
                        r.multiprocessors, r.computeMajor, r.computeMinor, r.totalMemoryBytes);
    }
    void onCudaContext(const CudaContextRecord& r) override
    {
        count("cuda-context");
        if (m_records)
            std::printf("cuda-context %u device=%d\n", r.context, r.device);
    }
    void onGpuKernel(const GpuKernelRecord& r) override
    {
        count("gpu-kernel");
        if (m_records)
            std::printf("gpu-kernel device=%d stream=%u correlation=%u start=%" PRId64 " end=%" PRId64
                        " grid=%dx%dx%d block=%dx%dx%d \"%s\"\n",
                        r.device, r.stream, r.correlation, r.startNs, r.endNs, r.grid[0], r.grid[1], r.grid[2],
                        r.block[0], r.block[1], r.block[2], str(r.nameId).c_str());
    }
    void onGpuMemcpy(const GpuMemcpyRecord& r) override
    {
        count("gpu-memcpy");
        if (m_records)
            std::printf("gpu-memcpy device=%d stream=%u correlation=%u start=%" PRId64 " end=%" PRId64
                        " kind=%u bytes=%" PRIu64 "\n",
                        r.device, r.stream, r.correlation, r.startNs, r.endNs, r.copyKind, r.bytes);
    }
    void onGpuMemset(const GpuMemsetRecord& r) override
    {
        count("gpu-memset");
        if (m_records)
            std::printf("gpu-memset device=%d stream=%u correlation=%u start=%" PRId64 " end=%" PRId64
                        " bytes=%" PRIu64 "\n",
                        r.device, r.stream, r.correlation, r.startNs, r.endNs, r.bytes);
    }
    void onCudaApi(const CudaApiRecord& r) override
    {
        count(r.api == std::uint32_t(CudaApiKind::Runtime) ? "cuda-runtime-call" : "cuda-driver-call");
        if (m_records)
            std::printf("cuda-api tid=%u correlation=%u start=%" PRId64 " end=%" PRId64 " \"%s\" result=%d\n", r.tid,
                        r.correlation, r.startNs, r.endNs, str(r.nameId).c_str(), r.returnValue);
    }
    void onCudaSync(const CudaSyncRecord& r) override
    {
        count("cuda-sync");
        if (m_records)
            std::printf("cuda-sync type=%u context=%u stream=%u start=%" PRId64 " end=%" PRId64 "\n", r.type,
                        r.context, r.stream, r.startNs, r.endNs);
    }
    void onGpuMemory(const GpuMemoryRecord& r) override
    {
        count(r.operation == 1 ? "gpu-alloc" : "gpu-free");
        if (m_records)
            std::printf("gpu-memory %s device=%d address=%" PRIx64 " bytes=%" PRIu64 " at=%" PRId64 "\n",
                        r.operation == 1 ? "alloc" : "free", r.device, r.address, r.bytes, r.timeNs);
    }
    void onCudaStreamName(const CudaStreamNameRecord& r) override
    {
        count("cuda-stream-name");
        if (m_records)
            std::printf("cuda-stream %u name=\"%s\"\n", r.stream, str(r.nameId).c_str());
    }
    void onMetadata(const MetadataRecord& r) override
    {
        m_metadata[str(r.keyId)] = str(r.valueId);
        count("metadata");
        if (m_records)
            std::printf("metadata %s=\"%s\"\n", str(r.keyId).c_str(), str(r.valueId).c_str());
    }
    void onDeviceWindow(const DeviceWindowRecord& r) override
    {
        count("device-window");
        if (m_records)
            std::printf("device-window tid=%u \"%s\" host=%" PRId64 "..%" PRId64 " device=%" PRId64 " ns\n", r.tid,
                        str(r.nameId).c_str(), r.hostStartNs, r.hostEndNs, r.deviceDurationNs);
    }
    void onCudaDropped(const CudaDroppedRecord& r) override
    {
        m_cuptiDropped += r.count;
        count("cupti-dropped");
    }
    void onCudaOverhead(const CudaOverheadRecord& r) override
    {
        count("cuda-overhead");
        if (m_records)
            std::printf("cuda-overhead tid=%u kind=%u start=%" PRId64 " end=%" PRId64 "\n", r.tid, r.kind, r.startNs,
                        r.endNs);
    }

    void printSummary(bool complete) const
    {
        std::printf("pid %u, %s\n", m_pid, complete ? "complete (end frame)" : "no end frame");
        for (const auto& [name, n] : m_counts)
            std::printf("  %-18s %" PRIu64 "\n", name.c_str(), n);
        std::printf("  records dropped    %" PRIu64 "\n", m_dropped);
        std::printf("threads:\n");
        for (const auto& [tid, n] : m_perThread) {
            auto it = m_threadNames.find(tid);
            std::printf("  %u %s: %" PRIu64 " timed records\n", tid,
                        it == m_threadNames.end() ? "(unnamed)" : it->second.c_str(), n);
        }
        std::printf("domains:\n");
        for (const auto& [id, name] : m_domains)
            std::printf("  %u %s\n", id, name.c_str());
        if (m_cuptiDropped > 0)
            std::printf("CUPTI records dropped %" PRIu64 "\n", m_cuptiDropped);
        if (!m_metadata.empty())
            std::printf("metadata:\n");
        for (const auto& [key, value] : m_metadata)
            std::printf("  %s: %s\n", key.c_str(), value.c_str());
    }

private:
    std::string str(std::uint32_t id) const
    {
        auto it = m_strings.find(id);
        return it == m_strings.end() ? std::string() : it->second;
    }
    void count(const char* what) { ++m_counts[what]; }
    void timed(std::uint32_t tid, std::uint64_t, const char* what)
    {
        ++m_perThread[tid];
        count(what);
    }
    // ns since the collector started, at the latest calibration's rate.
    double ns(std::uint64_t ticks) const
    {
        if (!m_haveCalibration)
            return 0;
        return (double(ticks) - double(m_startTicks)) * 1e9 / m_calibration.ticksPerSecond;
    }

    bool m_records;
    std::uint32_t m_pid = 0;
    std::map<std::uint32_t, std::string> m_strings;
    std::map<std::uint32_t, std::string> m_threadNames;
    std::map<std::uint32_t, std::string> m_domains;
    std::map<std::string, std::uint64_t> m_counts;
    std::map<std::uint32_t, std::uint64_t> m_perThread;
    std::uint64_t m_dropped = 0, m_cuptiDropped = 0;
    std::map<std::string, std::string> m_metadata;
    bool m_haveCalibration = false;
    ClockCalibrationRecord m_calibration{};
    std::uint64_t m_startTicks = 0;
};

} // namespace

int main(int argc, char** argv)
{
    bool records = false;
    const char* path = nullptr;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--records") == 0)
            records = true;
        else
            path = argv[i];
    }
    if (!path) {
        std::fprintf(stderr, "usage: spanscope-sps-dump [--records] FILE\n");
        return 2;
    }
    std::FILE* f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "spanscope-sps-dump: cannot open %s: %s\n", path,
                     std::strerror(errno));
        return 2;
    }
    Printer printer(records);
    Decoder decoder(printer);
    char buf[1 << 16];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
        if (!decoder.feed(buf, n))
            break;
    std::fclose(f);
    const bool ok = decoder.finish();
    if (!records)
        printer.printSummary(decoder.sawEnd());
    if (!ok) {
        std::fprintf(stderr, "spanscope-sps-dump: %s: %s\n", path, decoder.error().c_str());
        return 1;
    }
    return 0;
}
