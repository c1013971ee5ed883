// The live collector: cost per NVTX push+pop pair under capture, and decoding a recorded stream.
//
// NVTX picks its injection once per process, at the first NVTX call, so every capture figure is
// measured in a child process: this binary re-executes itself (/proc/self/exe) as
//   bench_collector --child nvtx|timestamps PAIRS BATCH PAUSE_US
// with NVTX_INJECTION64_PATH = the collector and SPANSCOPE_OUTPUT = a temporary file, or with
// neither, and reads one "result" line back. All three loops run in the same benchmark run.
//
// BM_PushPop/0 (batched): 4,000 pairs (160 KB: 2.5 of a thread's 64 KiB blocks), then a 2 ms
//   pause so the sender keeps up: the cost of capture itself. BM_PushPop/1 (sustained): 2 M pairs
//   in one loop with no pause; the sender cannot keep up with a bare push/pop loop, the queue
//   reaches its default cap (64 MiB) and drops records. A push that is dropped skips its
//   timestamp, so with heavy drops ns_per_pair can come out below ns_per_two_timestamps:
//   read /0 for the cost of capture. BM_PushPop/2: the same loop in lossless mode
//   (SPANSCOPE_LOSSLESS=1): everything queued, nothing dropped below the cap (1 GiB).
// Counters (per pair = nvtxRangePushA + nvtxRangePop, mean over the iterations):
//   ns_per_pair                  wall ns per pair with the collector injected
//   ns_per_pair_min_batch, ns_per_pair_median_batch   the same for the fastest and the
//                                median batch of the run (BM_PushPop/0: 250 batches)
//   ns_per_pair_uninstrumented   the same loop with no tool attached (NVTX's no-op path)
//   ns_per_two_timestamps        the same loop doing two raw __rdtsc() reads instead (the
//                                collector takes one raw TSC timestamp per call)
//   ratio_to_two_timestamps      ns_per_pair / ns_per_two_timestamps
//   dropped                      records the collector dropped in the instrumented run (sum of
//                                the stream's Dropped records, warm-up included)
//   dropped_fraction             dropped / records made
//   unaccounted                  records made - records in the stream - dropped: must be 0
//   queue_peak_mib               /2: the most memory the queue held (the collector's report)
// BM_Decode: the recorded stream decoded by protocol/spanscope_decoder.h from memory, fed in
//   256 KiB chunks as a socket reader would. /0 records spanscope-demo first, /1 a push/pop
//   stream from the batched child.
//   events_per_second, ns_per_event   timed records (push, pop, range start/end, mark)
// BM_Ingest: sustained ingest into the viewer's live store: the same streams (/0 demo, /1
//   push/pop) decoded in 256 KiB chunks straight into model::live::NvtxAssembler, which
//   turns records into spans (a fresh assembler per iteration; snapshot() not included).
//   events_per_second, ns_per_event   timed records, as for BM_Decode
//   spans                             ranges the assembler recorded per iteration
// BM_LiveSnapshot: what a live update costs besides ingest: freezing a copy of the
//   assembled state (JobAssembler::freeze; on the ingest thread: no reading meanwhile), then
//   on the analysis thread building the capture from it (JobSnapshot::build) and
//   analyzeCapture() (nesting, statistics, timeline index). /0 demo, /1 push/pop.
//   freeze_ns_per_span, build_ns_per_span, analysis_ns_per_span, spans
//   The live interval stretches to 4x the freeze's cost (model/live/live_ingest.h).
// BM_LiveUpdate10M: one live update of a 10 M-span capture (spans made up in memory,
//   bench/synthetic_stream.h: 4 threads, 50 regions, 3 levels) when 100,000 new spans
//   arrived since the last one: update_ms = freeze_ms + build_ms + analysis_ms, as LiveIngest
//   spends them (issue 12 asks for <= 50 ms: ten refreshes a second at 10 M spans); the mean
//   of 5 updates after a first one, which is reported apart (first_update_ms, see there).
//   The process keeps its freed heap memory, as the viewer does (model/heap_reuse.h).
// BM_LiveUpdate10MCuda: the same for a CUDA job of 10 M calls: every item range launches a
//   kernel (a runtime API call with the driver call inside it, then the kernel), so the GPU
//   tables, launch flows and GPU time of CPU calls show here.
// BM_LiveUpdateNamePerRange: the same with 1 M spans whose item ranges (4 of 5) each have a
//   name of their own ("aten::add, seq = N", as PyTorch's emit_nvtx names ranges): a region
//   per range, so whatever an update does per region or per name shows here.
// Targets (issue 4): ratio <= 1.3; >= 30 M events/s; zero loss while the viewer keeps up.
// Time columns: BM_PushPop reports the instrumented loop's own time (manual time).
// SPANSCOPE_BENCH_BATCHES=1 in a child's environment makes it print every batch's ns per
// pair on stderr, in order (where the slow batches of a run fall).
// SPANSCOPE_BENCH_PERF_CTL=ctl.fifo,ack.fifo with `perf record -D -1 --control
// fifo:ctl.fifo,ack.fifo` profiles only the live updates' timed part (bench_support.h).

#include "bench_support.h"
#include "model/analysis/gpu_analysis.h"
#include "model/capture_loader.h"
#include "model/gpu/gpu_counters.h"
#include "model/heap_reuse.h"
#include "model/live/job_assembler.h"
#include "model/live/live_ingest.h"
#include "model/live/nvtx_assembler.h"
#include "model/prefault_ahead.h"
#include "protocol/spanscope_decoder.h"
#include "synthetic_stream.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include <nvtx3/nvToolsExt.h>

extern char** environ;

namespace {

using namespace spanscope;

constexpr long kWarmupPairs = 1000;

// The collector's own clock read (collector/clock.h): raw TSC on x86, CLOCK_MONOTONIC elsewhere.
inline std::uint64_t rawTimestamp()
{
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::uint64_t(ts.tv_sec) * 1000000000u + std::uint64_t(ts.tv_nsec);
#endif
}

// ---- Child side ----------------------------------------------------------------------------

// Runs `pairs` operations in batches of `batch` with `pauseUs` between batches and prints
// "result NS_PER_OP TOTAL_NS MIN_BATCH MEDIAN_BATCH" (the last two: ns per op of the
// fastest and the median batch). The pause is not timed.
int runChild(const std::string& what, long pairs, long batch, long pauseUs)
{
    const bool nvtx = what == "nvtx";
    if (nvtx) {
        // The first call initialises NVTX and the injection; the collector then spends about
        // 10 ms measuring its clock rate, which the measurement should not overlap.
        for (long i = 0; i < kWarmupPairs; ++i) {
            nvtxRangePushA("bench");
            nvtxRangePop();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    double ns = 0;
    long done = 0;
    std::vector<double> batches; // ns per op of each batch
    batches.reserve(std::size_t(pairs / std::max(batch, 1L) + 1));
    while (done < pairs) {
        const long n = std::min(batch, pairs - done);
        const auto t0 = std::chrono::steady_clock::now();
        if (nvtx) {
            for (long i = 0; i < n; ++i) {
                nvtxRangePushA("bench");
                nvtxRangePop();
            }
        } else {
            for (long i = 0; i < n; ++i) {
                benchmark::DoNotOptimize(rawTimestamp());
                benchmark::DoNotOptimize(rawTimestamp());
            }
        }
        const auto t1 = std::chrono::steady_clock::now();
        const double batchNs = std::chrono::duration<double, std::nano>(t1 - t0).count();
        ns += batchNs;
        batches.push_back(batchNs / double(n));
        done += n;
        if (pauseUs > 0)
            std::this_thread::sleep_for(std::chrono::microseconds(pauseUs));
    }
    if (std::getenv("SPANSCOPE_BENCH_BATCHES"))
        for (const double b : batches)
            std::fprintf(stderr, "%.2f\n", b);
    std::sort(batches.begin(), batches.end());
    std::printf("result %.4f %.0f %.4f %.4f\n", ns / double(done), ns, batches.front(),
                batches[batches.size() / 2]);
    return 0;
}

// ---- Parent side ---------------------------------------------------------------------------

struct ChildResult
{
    bool ok = false;
    double nsPerOp = 0;
    double totalNs = 0;
    double minBatchNsPerOp = 0, medianBatchNsPerOp = 0;
    std::string output; // everything the child printed, for error messages
};

// Runs this binary in child mode with the environment minus any NVTX/spanscope variables,
// plus `extraEnv`.
ChildResult spawnChild(const std::vector<std::string>& args,
                       const std::vector<std::string>& extraEnv)
{
    ChildResult result;
    std::vector<std::string> env;
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        if (entry.rfind("NVTX_INJECTION", 0) == 0 || entry.rfind("SPANSCOPE_OUTPUT=", 0) == 0 ||
            entry.rfind("SPANSCOPE_SOCKET=", 0) == 0)
            continue;
        env.push_back(entry);
    }
    env.insert(env.end(), extraEnv.begin(), extraEnv.end());
    std::vector<char*> envp;
    for (auto& e : env)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    std::vector<std::string> argStrings = {"/proc/self/exe", "--child"};
    argStrings.insert(argStrings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argStrings)
        argv.push_back(a.data());
    argv.push_back(nullptr);

    int fds[2];
    if (pipe(fds) != 0) {
        result.output = "pipe failed";
        return result;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        result.output = std::string("posix_spawn failed: ") + std::strerror(rc);
        return result;
    }
    char buffer[4096];
    ssize_t n;
    while ((n = read(fds[0], buffer, sizeof buffer)) > 0)
        result.output.append(buffer, std::size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    const auto at = result.output.find("result ");
    result.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && at != std::string::npos &&
                std::sscanf(result.output.c_str() + at, "result %lf %lf %lf %lf", &result.nsPerOp,
                            &result.totalNs, &result.minBatchNsPerOp, &result.medianBatchNsPerOp) == 4;
    return result;
}

// Counts what a recorded stream holds.
class CountingHandler : public protocol::DecoderHandler
{
public:
    void onPush(const protocol::PushRecord& r) override { timed(r.timestamp); }
    void onPop(const protocol::PopRecord& r) override { timed(r.timestamp); }
    void onRangeStart(const protocol::RangeStartRecord& r) override { timed(r.timestamp); }
    void onRangeEnd(const protocol::RangeEndRecord& r) override { timed(r.timestamp); }
    void onMark(const protocol::MarkRecord& r) override { timed(r.timestamp); }
    void onDropped(const protocol::DroppedRecord& r) override { m_dropped += r.count; }

    std::uint64_t events() const { return m_events; }
    std::uint64_t dropped() const { return m_dropped; }
    std::uint64_t checksum() const { return m_checksum; }

private:
    void timed(std::uint64_t timestamp)
    {
        ++m_events;
        m_checksum += timestamp;
    }
    std::uint64_t m_events = 0;
    std::uint64_t m_dropped = 0;
    std::uint64_t m_checksum = 0;
};

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Decodes `bytes` in 256 KiB chunks; returns the decoder's error, empty when well-formed.
std::string decode(const std::string& bytes, protocol::DecoderHandler& handler)
{
    protocol::Decoder decoder(handler);
    constexpr std::size_t kChunk = 256 * 1024;
    for (std::size_t pos = 0; pos < bytes.size(); pos += kChunk)
        if (!decoder.feed(bytes.data() + pos, std::min(kChunk, bytes.size() - pos)))
            break;
    decoder.finish();
    return decoder.error();
}

std::string tempStream(const char* name)
{
    return bench::benchDir() + "/" + name + "-" + std::to_string(getpid()) + ".sps";
}

void BM_PushPop(benchmark::State& state)
{
    const bool sustained = state.range(0) >= 1;
    const bool lossless = state.range(0) == 2;
    const long pairs = sustained ? 2'000'000 : 1'000'000;
    const long batch = sustained ? pairs : 4000;
    const long pauseUs = sustained ? 0 : 2000;
    const std::vector<std::string> args = {std::to_string(pairs), std::to_string(batch),
                                           std::to_string(pauseUs)};
    auto withWhat = [&](const char* what) {
        std::vector<std::string> a = {what};
        a.insert(a.end(), args.begin(), args.end());
        return a;
    };
    const std::string stream = tempStream("pushpop");
    double captured = 0, capturedMin = 0, capturedMedian = 0, bare = 0, timestamps = 0, dropped = 0,
           made = 0, unaccounted = 0, peakMiB = 0;
    for (auto _ : state) {
        const auto plain = spawnChild(withWhat("nvtx"), {});
        const auto tsc = spawnChild(withWhat("timestamps"), {});
        const auto instrumented =
            spawnChild(withWhat("nvtx"), {"NVTX_INJECTION64_PATH=" SPANSCOPE_COLLECTOR_LIB,
                                          "SPANSCOPE_OUTPUT=" + stream,
                                          std::string("SPANSCOPE_LOSSLESS=") + (lossless ? "1" : "0")});
        for (const auto* r : {&plain, &tsc, &instrumented})
            if (!r->ok) {
                state.SkipWithError(("child failed: " + r->output).c_str());
                std::remove(stream.c_str());
                return;
            }
        CountingHandler counts;
        const std::string error = decode(readFile(stream), counts);
        std::remove(stream.c_str());
        if (!error.empty() || counts.events() == 0) {
            state.SkipWithError(("recorded stream: " + (error.empty() ? "no events" : error) +
                                 "; child said: " + instrumented.output)
                                    .c_str());
            return;
        }
        const double expected = 2.0 * double(pairs + kWarmupPairs);
        if (const auto at = instrumented.output.find("queue peaked at "); at != std::string::npos)
            peakMiB += std::atof(instrumented.output.c_str() + at + 16);
        captured += instrumented.nsPerOp;
        capturedMin += instrumented.minBatchNsPerOp;
        capturedMedian += instrumented.medianBatchNsPerOp;
        bare += plain.nsPerOp;
        timestamps += tsc.nsPerOp;
        dropped += double(counts.dropped());
        made += expected;
        unaccounted += expected - double(counts.events()) - double(counts.dropped());
        state.SetIterationTime(instrumented.totalNs * 1e-9);
    }
    const double n = double(state.iterations());
    state.counters["ns_per_pair"] = captured / n;
    state.counters["ns_per_pair_min_batch"] = capturedMin / n;
    state.counters["ns_per_pair_median_batch"] = capturedMedian / n;
    state.counters["ns_per_pair_uninstrumented"] = bare / n;
    state.counters["ns_per_two_timestamps"] = timestamps / n;
    state.counters["ratio_to_two_timestamps"] = captured / timestamps;
    state.counters["dropped"] = dropped / n;
    state.counters["dropped_fraction"] = dropped / made;
    state.counters["unaccounted"] = unaccounted / n;
    if (lossless)
        state.counters["queue_peak_mib"] = peakMiB / n;
}

// Records the stream BM_Decode decodes (once per process and case).
const std::string& recordedStream(int which)
{
    static std::string streams[2];
    std::string& bytes = streams[which];
    if (!bytes.empty())
        return bytes;
    const std::string path = tempStream(which == 0 ? "demo" : "decode-pushpop");
    if (which == 0) {
        const std::string command = "NVTX_INJECTION64_PATH='" SPANSCOPE_COLLECTOR_LIB
                                    "' SPANSCOPE_OUTPUT='" +
                                    path + "' '" SPANSCOPE_DEMO "' --seconds 2 --quiet";
        if (std::system(command.c_str()) != 0)
            return bytes;
    } else {
        const auto r = spawnChild(
            {"nvtx", "1000000", "4000", "2000"},
            {"NVTX_INJECTION64_PATH=" SPANSCOPE_COLLECTOR_LIB, "SPANSCOPE_OUTPUT=" + path});
        if (!r.ok)
            return bytes;
    }
    bytes = readFile(path);
    std::remove(path.c_str());
    return bytes;
}

void BM_Decode(benchmark::State& state)
{
    const std::string& bytes = recordedStream(int(state.range(0)));
    if (bytes.empty()) {
        state.SkipWithError("could not record a stream");
        return;
    }
    double ns = 0, events = 0, dropped = 0;
    for (auto _ : state) {
        CountingHandler counts;
        const auto t0 = std::chrono::steady_clock::now();
        const std::string error = decode(bytes, counts);
        const auto t1 = std::chrono::steady_clock::now();
        if (!error.empty()) {
            state.SkipWithError(error.c_str());
            return;
        }
        benchmark::DoNotOptimize(counts.checksum());
        ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
        events += double(counts.events());
        dropped = double(counts.dropped());
    }
    state.counters["events_per_second"] = events / (ns * 1e-9);
    state.counters["ns_per_event"] = ns / events;
    state.counters["events_in_stream"] = events / double(state.iterations());
    state.counters["stream_bytes"] = double(bytes.size());
    state.counters["dropped_while_recording"] = dropped;
}

void BM_Ingest(benchmark::State& state)
{
    const std::string& bytes = recordedStream(int(state.range(0)));
    if (bytes.empty()) {
        state.SkipWithError("could not record a stream");
        return;
    }
    CountingHandler counts; // the timed records in the stream, counted once, untimed
    if (const std::string error = decode(bytes, counts); !error.empty()) {
        state.SkipWithError(error.c_str());
        return;
    }
    double ns = 0, spans = 0;
    for (auto _ : state) {
        model::live::NvtxAssembler assembler;
        const auto t0 = std::chrono::steady_clock::now();
        const std::string error = decode(bytes, assembler);
        assembler.finish(error);
        const auto t1 = std::chrono::steady_clock::now();
        if (!error.empty()) {
            state.SkipWithError(error.c_str());
            return;
        }
        ns += std::chrono::duration<double, std::nano>(t1 - t0).count();
        spans = double(assembler.counts().calls);
        benchmark::DoNotOptimize(spans);
    }
    const double events = double(counts.events()) * double(state.iterations());
    state.counters["events_per_second"] = events / (ns * 1e-9);
    state.counters["ns_per_event"] = ns / events;
    state.counters["events_in_stream"] = double(counts.events());
    state.counters["spans"] = spans;
}

void BM_LiveSnapshot(benchmark::State& state)
{
    const std::string& bytes = recordedStream(int(state.range(0)));
    model::live::JobAssembler job;
    const size_t stream = job.addStream("bench");
    if (bytes.empty() || !job.feed(stream, bytes.data(), bytes.size())) {
        state.SkipWithError("could not record or decode a stream");
        return;
    }
    double freezeNs = 0, buildNs = 0, analysisNs = 0;
    for (auto _ : state) {
        const auto t0 = std::chrono::steady_clock::now();
        const auto frozen = job.freeze();
        const auto t1 = std::chrono::steady_clock::now();
        auto capture = frozen->build();
        const auto t2 = std::chrono::steady_clock::now();
        auto analyzed = model::analyzeCapture(
            std::move(capture), model::ProgressRange(nullptr, 0, 1), model::live::liveUpdateOptions()); // as LiveIngest updates
        const auto t3 = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(analyzed);
        freezeNs += std::chrono::duration<double, std::nano>(t1 - t0).count();
        buildNs += std::chrono::duration<double, std::nano>(t2 - t1).count();
        analysisNs += std::chrono::duration<double, std::nano>(t3 - t2).count();
    }
    const double spans = double(job.counts().calls);
    const double n = spans * double(state.iterations());
    state.counters["freeze_ns_per_span"] = freezeNs / n;
    state.counters["build_ns_per_span"] = buildNs / n;
    state.counters["analysis_ns_per_span"] = analysisNs / n;
    state.counters["spans"] = spans;
}

// One live update of a big capture: 10 M spans assembled and shown once (untimed), then
// 100,000 more arrive and the update that shows them is timed: freeze, build and analysis,
// as LiveIngest does them.
// Assembles `assembled` spans from `generator`, shows them, then measures updates of
// `arriving` new spans each (see BM_LiveUpdate10M).
void measureLiveUpdates(benchmark::State& state, bench::SyntheticStream& generator,
                        std::uint64_t assembled, std::uint64_t arriving)
{
    model::keepHeapForReuse(); // as the viewer does at startup

    model::live::JobAssembler job;
    const size_t stream = job.addStream("bench");
    std::string bytes = generator.start();
    bool fed = job.feed(stream, bytes.data(), bytes.size());
    for (std::uint64_t spans = 0; fed && spans < assembled;) {
        bytes.clear();
        spans += generator.next(arriving, bytes);
        fed = job.feed(stream, bytes.data(), bytes.size());
    }
    auto update = [&] {
        auto capture = job.freeze()->build();
        return model::analyzeCapture(std::move(capture), model::ProgressRange(nullptr, 0, 1),
                                     model::live::liveUpdateOptions()); // as LiveIngest updates
    };
    auto shown = fed ? update() : std::nullopt; // what the viewer shows before the update
    if (!shown) {
        state.SkipWithError("the synthetic stream did not assemble");
        return;
    }
    // The first update while a snapshot is shown takes the capture's memory to its high
    // water mark; on a virtual machine that memory's first touch is slow (the host backs it
    // then), later updates reuse it. Reported apart: first_update_ms.
    const auto warmup = std::chrono::steady_clock::now();
    bytes.clear();
    generator.next(arriving, bytes);
    job.feed(stream, bytes.data(), bytes.size());
    shown = update();
    const double firstUpdateMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - warmup).count();
    double freezeMs = 0, buildMs = 0, analysisMs = 0, slowestMs = 0;
    const uint64_t prefaultedBefore = model::prefaultAheadBusyNs();
    const uint64_t lanesBefore = model::gpuLaneBusyNs();
    bench::PerfControl perf;
    for (auto _ : state) {
        bytes.clear();
        generator.next(arriving, bytes);
        job.feed(stream, bytes.data(), bytes.size());
        perf.enable();
        const auto t0 = std::chrono::steady_clock::now();
        const auto frozen = job.freeze();
        const auto t1 = std::chrono::steady_clock::now();
        auto capture = frozen->build();
        const auto t2 = std::chrono::steady_clock::now();
        auto analyzed = model::analyzeCapture(std::move(capture), model::ProgressRange(nullptr, 0, 1),
                                              model::live::liveUpdateOptions()); // as LiveIngest updates
        const auto t3 = std::chrono::steady_clock::now();
        perf.disable();
        benchmark::DoNotOptimize(analyzed);
        shown = std::move(analyzed);
        freezeMs += std::chrono::duration<double, std::milli>(t1 - t0).count();
        buildMs += std::chrono::duration<double, std::milli>(t2 - t1).count();
        analysisMs += std::chrono::duration<double, std::milli>(t3 - t2).count();
        slowestMs = std::max(slowestMs, std::chrono::duration<double, std::milli>(t3 - t0).count());
    }
    const double n = double(state.iterations());
    state.counters["update_ms"] = (freezeMs + buildMs + analysisMs) / n;
    state.counters["slowest_update_ms"] = slowestMs;
    // Pages of the growing stores faulted in on a background thread between updates
    // (model/prefault_ahead.h): work moved off the update, not saved.
    state.counters["prefault_ms"] = double(model::prefaultAheadBusyNs() - prefaultedBefore) / 1e6 / n;
    // The GPU's derived lanes, made as the work came (model/gpu/gpu_lanes.h): part of
    // update_ms, on the second core beside other work where there is one.
    state.counters["gpu_lanes_update_ms"] = double(model::gpuLaneBusyNs() - lanesBefore) / 1e6 / n;
    state.counters["first_update_ms"] = firstUpdateMs;
    state.counters["freeze_ms"] = freezeMs / n;
    state.counters["build_ms"] = buildMs / n;
    state.counters["analysis_ms"] = analysisMs / n;
    state.counters["spans"] = double(job.counts().calls);
    state.counters["arriving_spans"] = double(arriving);
    // What the GPU page adds, apart from the updates: the GPU analyses of the shown capture
    // (in the background); and, the baseline for gpu_lanes_update_ms, the derived lanes made
    // whole from the shown capture, as a file's are.
    if (shown && !shown->capture->gpuActivities.empty()) {
        const auto a0 = std::chrono::steady_clock::now();
        benchmark::DoNotOptimize(model::analysis::analyzeGpu(*shown->capture));
        const auto a1 = std::chrono::steady_clock::now();
        auto copy = std::make_shared<model::Capture>(*shown->capture);
        std::erase_if(copy->counters, [](const model::CounterSeries& series) { return series.derived; });
        const auto a2 = std::chrono::steady_clock::now();
        model::addGpuCounters(*copy);
        const auto a3 = std::chrono::steady_clock::now();
        state.counters["gpu_analyses_ms"] = std::chrono::duration<double, std::milli>(a1 - a0).count();
        state.counters["gpu_lanes_whole_ms"] = std::chrono::duration<double, std::milli>(a3 - a2).count();
    }
}

void BM_LiveUpdate10M(benchmark::State& state)
{
    bench::SyntheticStream generator;
    measureLiveUpdates(state, generator, 10'000'000, 100'000);
}

// As BM_LiveUpdate10M, for a CUDA job: every item range launches a kernel (a runtime and a
// driver API call on the thread, then the kernel); 10 M calls in all, per step 25 NVTX
// ranges, 40 API calls and 20 kernels.
void BM_LiveUpdate10MCuda(benchmark::State& state)
{
    bench::SyntheticStream generator(4, false, true);
    measureLiveUpdates(state, generator, 10'000'000, 100'000);
}

void BM_LiveUpdateNamePerRange(benchmark::State& state)
{
    bench::SyntheticStream generator(4, true);
    measureLiveUpdates(state, generator, 1'000'000, 100'000);
}

} // namespace

BENCHMARK(BM_PushPop)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_Decode)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Ingest)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LiveSnapshot)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LiveUpdate10M)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_LiveUpdate10MCuda)->Unit(benchmark::kMillisecond)->Iterations(5);
BENCHMARK(BM_LiveUpdateNamePerRange)->Unit(benchmark::kMillisecond)->Iterations(5);

int main(int argc, char** argv)
{
    if (argc == 6 && std::strcmp(argv[1], "--child") == 0)
        return runChild(argv[2], std::atol(argv[3]), std::atol(argv[4]), std::atol(argv[5]));
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
