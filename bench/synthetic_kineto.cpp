#include "synthetic_kineto.h"

#include <zlib.h>

#include <cstdio>
#include <string>

namespace spanscope::bench {

namespace {

class Sink
{
public:
    explicit Sink(const std::string& path) : m_gzip(path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0)
    {
        if (m_gzip)
            m_gz = gzopen(path.c_str(), "wb6");
        else
            m_file = std::fopen(path.c_str(), "wb");
    }
    ~Sink()
    {
        flush();
        if (m_gz)
            gzclose(m_gz);
        if (m_file)
            std::fclose(m_file);
    }
    std::string& text() { return m_text; }
    void maybeFlush()
    {
        if (m_text.size() > (1u << 22))
            flush();
    }
    uint64_t bytes() const { return m_bytes + m_text.size(); }

private:
    void flush()
    {
        if (m_gz)
            gzwrite(m_gz, m_text.data(), unsigned(m_text.size()));
        else if (m_file)
            std::fwrite(m_text.data(), 1, m_text.size(), m_file);
        m_bytes += m_text.size();
        m_text.clear();
    }
    bool m_gzip;
    gzFile m_gz = nullptr;
    std::FILE* m_file = nullptr;
    std::string m_text;
    uint64_t m_bytes = 0;
};

const char* const kOps[] = {"aten::addmm", "aten::relu", "aten::conv2d", "aten::add_", "aten::mul",
                            "aten::native_layer_norm", "aten::softmax", "aten::copy_"};
const char* const kKernels[] = {
    "ampere_sgemm_128x64_tn",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)J",
    "void cudnn::cnn::conv2d_grouped_direct_kernel<false, true, false, false, 0, 0, int, float, float, float, float, float>(cudnn::cnn::GroupedDirectFpropParams, float const*, float const*, float*, float, float*, float const*, float const*, float)J",
    "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float>(int, float, float const*, float const*, float const*, float*, float*, float*)J",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)J",
};

// µs with a fraction, as Kineto 2 writes them: "1700000000123456.789".
void micros(std::string& out, int64_t ns)
{
    out += std::to_string(ns / 1000);
    const int64_t fraction = ns % 1000;
    if (fraction) {
        char digits[8];
        std::snprintf(digits, sizeof digits, ".%03lld", static_cast<long long>(fraction));
        out += digits;
    }
}

} // namespace

SyntheticKineto writeSyntheticKineto(const std::string& path, uint64_t jsonEvents)
{
    Sink sink(path);
    std::string& out = sink.text();
    out += R"J({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85024112640, "computeMajor": 9, "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132}], "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 8}, "traceEvents": [)J";
    out += "\n";
    int64_t t = 1'700'000'000'000'000'000; // epoch ns: timestamps need more than a double holds
    int64_t gpuFree = t;
    uint64_t written = 0, correlation = 1000, externalId = 1;
    uint64_t allocated = uint64_t(8) << 30;
    bool first = true;
    auto begin = [&]() -> std::string& {
        out += first ? "" : ",\n";
        first = false;
        ++written;
        return out;
    };
    uint64_t step = 0;
    while (written < jsonEvents) {
        // One ProfilerStep of 200 ops; written after its children, as Kineto does not sort.
        const int64_t stepStart = t;
        t += 5'000;
        for (int op = 0; op < 200 && written < jsonEvents; ++op) {
            const uint64_t k = step * 200 + uint64_t(op);
            const int64_t opStart = t;
            const int64_t launchStart = opStart + 2'300 + int64_t(k % 7) * 100;
            const int64_t launchDur = 4'100 + int64_t(k % 5) * 300;
            const bool copy = k % 10 == 9;
            const int64_t opEnd = launchStart + launchDur + 1'700;
            const uint64_t id = ++correlation;
            const std::string corr = std::to_string(id);
            std::string& e = begin();
            e += R"J({"ph": "X", "cat": "cpu_op", "name": ")J";
            e += kOps[k % 8];
            e += R"J(", "pid": 4242, "tid": 4242, "ts": )J";
            micros(e, opStart);
            e += R"J(, "dur": )J";
            micros(e, opEnd - opStart);
            e += R"J(, "args": {"External id": )J" + std::to_string(++externalId)
                 + R"J(, "Record function id": 0, "Sequence number": )J" + std::to_string(k)
                 + R"J(, "Fwd thread id": 0, "Ev Idx": )J" + std::to_string(k)
                 + R"J(, "Input Dims": [[64, 1024], [1024, 4096]], "Input type": ["float", "float"]}})J";
            std::string& r = begin();
            r += R"J({"ph": "X", "cat": "cuda_runtime", "name": ")J";
            r += copy ? "cudaMemcpyAsync" : "cudaLaunchKernel";
            r += R"J(", "pid": 4242, "tid": 4242, "ts": )J";
            micros(r, launchStart);
            r += R"J(, "dur": )J";
            micros(r, launchDur);
            r += R"J(, "args": {"External id": )J" + std::to_string(externalId) + R"J(, "cbid": 211, "correlation": )J" + corr + "}}";
            // The GPU work: queued behind what the stream is still doing.
            const int64_t gpuStart = std::max(gpuFree, launchStart + launchDur + 3'000);
            const int64_t gpuDur = copy ? 21'000 : 8'000 + int64_t(k % 13) * 1'500;
            gpuFree = gpuStart + gpuDur + 700;
            std::string& g = begin();
            if (copy) {
                g += R"J({"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pinned -> Device)", "pid": 0, "tid": 7, "ts": )J";
                micros(g, gpuStart);
                g += R"J(, "dur": )J";
                micros(g, gpuDur);
                g += R"J(, "args": {"External id": )J" + std::to_string(externalId)
                     + R"J(, "device": 0, "context": 1, "stream": 7, "correlation": )J" + corr
                     + R"J(, "bytes": 16777216, "memory bandwidth (GB/s)": 798.9}})J";
            } else {
                g += R"J({"ph": "X", "cat": "kernel", "name": ")J";
                g += kKernels[k % 5];
                g += R"J(", "pid": 0, "tid": 7, "ts": )J";
                micros(g, gpuStart);
                g += R"J(, "dur": )J";
                micros(g, gpuDur);
                g += R"J(, "args": {"External id": )J" + std::to_string(externalId)
                     + R"J(, "queued": 0, "device": 0, "context": 1, "stream": 7, "correlation": )J" + corr
                     + R"J(, "registers per thread": 128, "shared memory": 49152, "blocks per SM": 3.878788, "warps per SM": 31.030304, "grid": [512, 1, 1], "block": [256, 1, 1], "est. achieved occupancy %": 48}})J";
            }
            std::string& s = begin();
            s += R"J({"ph": "s", "id": )J" + corr + R"J(, "pid": 4242, "tid": 4242, "ts": )J";
            micros(s, launchStart);
            s += R"J(, "cat": "ac2g", "name": "ac2g"})J";
            std::string& f = begin();
            f += R"J({"ph": "f", "id": )J" + corr + R"J(, "pid": 0, "tid": 7, "ts": )J";
            micros(f, gpuStart);
            f += R"J(, "cat": "ac2g", "name": "ac2g", "bp": "e"})J";
            if (k % 4 == 0) { // the allocator at work
                const bool alloc = (k / 4) % 2 == 0;
                const int64_t bytes = int64_t(1) << (12 + k % 16);
                allocated = alloc ? allocated + uint64_t(bytes) : allocated - uint64_t(bytes);
                std::string& m = begin();
                m += R"J({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 4242, "tid": 4242, "ts": )J";
                micros(m, opStart + 1'000);
                m += R"J(, "args": {"Total Reserved": 12884901888, "Total Allocated": )J" + std::to_string(allocated)
                     + R"J(, "Bytes": )J" + std::to_string(alloc ? bytes : -bytes) + R"J(, "Addr": )J"
                     + std::to_string(140000000000000ull + (k / 8) * 4096) + R"J(, "Device Id": 0, "Device Type": 1}})J";
            }
            t = opEnd + 1'200;
            sink.maybeFlush();
        }
        std::string& p = begin();
        p += R"J({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#)J" + std::to_string(step)
             + R"J(", "pid": 4242, "tid": 4242, "ts": )J";
        micros(p, stepStart);
        p += R"J(, "dur": )J";
        micros(p, t - stepStart);
        p += R"J(, "args": {"External id": )J" + std::to_string(++externalId) + "}}";
        t += 20'000;
        ++step;
    }
    out += R"J(,
{"name": "process_name", "ph": "M", "ts": 0, "pid": 4242, "tid": 0, "args": {"name": "python3"}},
{"name": "process_labels", "ph": "M", "ts": 0, "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
{"name": "thread_name", "ph": "M", "ts": 0, "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
{"name": "thread_name", "ph": "M", "ts": 0, "pid": 4242, "tid": 4242, "args": {"name": "thread 4242 (python3)"}}
]}
)J";
    return {written, sink.bytes()};
}

} // namespace spanscope::bench
