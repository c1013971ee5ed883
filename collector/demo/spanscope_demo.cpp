// spanscope-demo: a small, ordinary NVTX program that looks like a real job, for a newcomer's
// first live capture and for bench_collector's recorded stream. It does not know about the
// collector; any NVTX tool (or none) can be attached.
//
//   spanscope-demo [--seconds N] [--quiet]     runs for about N seconds (default 2)
//
// What it records, by thread:
// - "sim-main": a simulation loop in domain "spanscope.demo" (nvtx3 C++ API, registered
//   strings, named categories compute / io / sync, colours, payloads): step > assemble,
//   solve > iteration (Jacobi sweeps until converged, so the count varies), write; every 10th
//   step a "wait for workers" sync range (also when the queue is long) and a "checkpoint" mark.
// - "worker-1..3": tasks from a queue, in NVTX's default domain through the C API:
//   task > load (io) / compute / merge > lock results (sync); an occasional "cache miss" mark.
// - Cross-thread start/end ranges: every task's "request" is started by sim-main and ended by
//   the worker that finishes it (default domain); every checkpoint's "flush" is started in
//   the named domain by sim-main and ended by a worker.
// All work is real (cheap) arithmetic, so durations vary naturally.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <nvtx3/nvtx3.hpp>
#include <optional>
#include <random>
#include <string>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

// ---- NVTX vocabulary -------------------------------------------------------------------

struct DemoDomain
{
    static constexpr const char* name{"spanscope.demo"};
};

// Category numbers, the same in the named and the default domain.
enum : std::uint32_t { kCompute = 1, kIo = 2, kSync = 3 };

struct ComputeCategory
{
    static constexpr const char* name{"compute"};
    static constexpr std::uint32_t id{kCompute};
};
struct IoCategory
{
    static constexpr const char* name{"io"};
    static constexpr std::uint32_t id{kIo};
};
struct SyncCategory
{
    static constexpr const char* name{"sync"};
    static constexpr std::uint32_t id{kSync};
};

struct StepMessage
{
    static constexpr const char* message{"step"};
};
struct AssembleMessage
{
    static constexpr const char* message{"assemble"};
};
struct SolveMessage
{
    static constexpr const char* message{"solve"};
};
struct IterationMessage
{
    static constexpr const char* message{"iteration"};
};
struct WriteMessage
{
    static constexpr const char* message{"write"};
};

using DemoRange = nvtx3::scoped_range_in<DemoDomain>;

const nvtx3::rgb kBlue{66, 133, 244};
const nvtx3::rgb kGreen{52, 168, 83};
const nvtx3::rgb kOrange{251, 140, 0};
const nvtx3::rgb kRed{219, 68, 55};
const nvtx3::rgb kGrey{140, 140, 140};

template <typename C> const nvtx3::named_category_in<DemoDomain>& category()
{
    return nvtx3::named_category_in<DemoDomain>::get<C>();
}

template <typename M> const nvtx3::registered_string_in<DemoDomain>& message()
{
    return nvtx3::registered_string_in<DemoDomain>::get<M>();
}

void nameThisThread(const char* name)
{
    nvtxNameOsThreadA(static_cast<std::uint32_t>(syscall(SYS_gettid)), name);
}

// Default-domain attributes for the C API (ARGB colour, category, optional u64 payload).
nvtxEventAttributes_t cAttributes(const char* text, std::uint32_t argb, std::uint32_t cat)
{
    nvtxEventAttributes_t attr{};
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.category = cat;
    attr.colorType = NVTX_COLOR_ARGB;
    attr.color = argb;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = text;
    return attr;
}

// ---- The task queue ----------------------------------------------------------------------

struct Task
{
    std::uint64_t id = 0;
    std::uint32_t size = 0;                   // elements to sort
    nvtxRangeId_t request = 0;                // default-domain start/end range, ended by the worker
    std::optional<nvtx3::range_handle> flush; // named-domain checkpoint flush, if any
};

class TaskQueue
{
public:
    void push(Task task)
    {
        {
            std::lock_guard lock(m_mutex);
            m_tasks.push_back(std::move(task));
        }
        m_ready.notify_one();
    }

    // Blocks until a task or the end; nullopt at the end.
    std::optional<Task> pop()
    {
        std::unique_lock lock(m_mutex);
        m_ready.wait(lock, [&] { return m_closed || !m_tasks.empty(); });
        if (m_tasks.empty())
            return std::nullopt;
        Task task = std::move(m_tasks.front());
        m_tasks.pop_front();
        m_drained.notify_all();
        return task;
    }

    // Backpressure for the producer: waits until at most `depth` tasks are queued.
    void waitBelow(std::size_t depth)
    {
        std::unique_lock lock(m_mutex);
        m_drained.wait(lock, [&] { return m_tasks.size() <= depth; });
    }

    std::size_t size()
    {
        std::lock_guard lock(m_mutex);
        return m_tasks.size();
    }

    void close()
    {
        {
            std::lock_guard lock(m_mutex);
            m_closed = true;
        }
        m_ready.notify_all();
    }

private:
    std::mutex m_mutex;
    std::condition_variable m_ready;
    std::condition_variable m_drained;
    std::deque<Task> m_tasks;
    bool m_closed = false;
};

// Results the workers merge under a lock (the "sync" ranges).
struct SharedResults
{
    std::mutex mutex;
    std::vector<std::uint32_t> medians;
    std::uint64_t checksum = 0;
};

// ---- Workers (default domain, C API) -------------------------------------------------------

void worker(int index, TaskQueue& queue, SharedResults& results, std::atomic<std::uint64_t>& done)
{
    const std::string name = "worker-" + std::to_string(index);
    nameThisThread(name.c_str());
    std::mt19937 rng(1234u + unsigned(index));
    std::vector<std::uint32_t> data;
    while (auto task = queue.pop()) {
        // Fixed names (ids in payloads) so the span tree merges calls by path.
        auto attr = cAttributes("task", 0xff8e24aa, kCompute);
        attr.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
        attr.payload.ullValue = task->id;
        nvtxRangePushEx(&attr);

        auto load = cAttributes("load", 0xfffb8c00, kIo);
        nvtxRangePushEx(&load);
        data.resize(task->size);
        for (auto& v : data)
            v = rng();
        if (rng() % 16 == 0)
            nvtxMarkA("cache miss");
        nvtxRangePop();

        auto compute = cAttributes("compute", 0xff34a853, kCompute);
        nvtxRangePushEx(&compute);
        std::sort(data.begin(), data.end());
        nvtxRangePop();

        nvtxRangePushA("merge");
        {
            auto wait = cAttributes("lock results", 0xffdb4437, kSync);
            nvtxRangePushEx(&wait);
            std::lock_guard lock(results.mutex);
            nvtxRangePop();
            results.medians.push_back(data[data.size() / 2]);
            for (std::size_t i = 0; i < data.size(); i += 64)
                results.checksum = results.checksum * 31 + data[i];
        }
        nvtxRangePop(); // merge

        if (task->flush)
            nvtx3::end_range_in<DemoDomain>(*task->flush);
        nvtxRangePop(); // task
        nvtxRangeEnd(task->request);
        done.fetch_add(1, std::memory_order_relaxed);
    }
}

// ---- The simulation (named domain, C++ API) --------------------------------------------------

// A diagonally dominant tridiagonal system whose dominance varies per step, so Jacobi needs
// a different number of iterations each time.
struct Problem
{
    std::vector<double> diagonal, rhs, x, next;
};

void assemble(Problem& p, std::mt19937& rng, std::size_t n)
{
    DemoRange range{message<AssembleMessage>(), category<ComputeCategory>(), kBlue};
    std::uniform_real_distribution<double> dominance(2.15, 3.2);
    const double d = dominance(rng);
    p.diagonal.resize(n);
    p.rhs.resize(n);
    p.x.assign(n, 0.0);
    p.next.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i) {
        p.diagonal[i] = d + 0.05 * std::sin(double(i) * 0.01);
        p.rhs[i] = std::cos(double(i) * 0.003) + 0.1 * std::sin(double(i) * 0.7);
    }
}

// Returns the number of iterations used.
int solve(Problem& p)
{
    DemoRange range{message<SolveMessage>(), category<ComputeCategory>(), kGreen};
    const std::size_t n = p.x.size();
    int iteration = 0;
    for (; iteration < 200; ++iteration) {
        DemoRange sweep{message<IterationMessage>(), category<ComputeCategory>(), kGreen,
                        nvtx3::payload{static_cast<std::int32_t>(iteration)}};
        double change = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double left = i > 0 ? p.x[i - 1] : 0.0;
            const double right = i + 1 < n ? p.x[i + 1] : 0.0;
            p.next[i] = (p.rhs[i] + left + right) / p.diagonal[i];
            change = std::max(change, std::abs(p.next[i] - p.x[i]));
        }
        p.x.swap(p.next);
        if (change < 1e-9)
            break;
    }
    return iteration + 1;
}

std::size_t write(const Problem& p, std::FILE* sink, int step)
{
    DemoRange range{message<WriteMessage>(), category<IoCategory>(), kOrange};
    std::string text = "step " + std::to_string(step) + "\n";
    char number[32];
    for (std::size_t i = 0; i < p.x.size(); i += 50) {
        std::snprintf(number, sizeof number, "%.9g\n", p.x[i]);
        text += number;
    }
    if (sink)
        std::fwrite(text.data(), 1, text.size(), sink);
    return text.size();
}

struct Options
{
    double seconds = 2.0;
    bool quiet = false;
};

bool parseOptions(int argc, char** argv, Options& options)
{
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--quiet") == 0) {
            options.quiet = true;
        } else if (std::strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
            char* end = nullptr;
            options.seconds = std::strtod(argv[++i], &end);
            if (*end != '\0' || !(options.seconds >= 0) || options.seconds > 3600)
                return false;
        } else {
            return false;
        }
    }
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    Options options;
    if (!parseOptions(argc, argv, options)) {
        std::fprintf(stderr, "usage: %s [--seconds N] [--quiet]\n", argv[0]);
        return 2;
    }
    nameThisThread("sim-main");
    // The default domain's categories get the same names as the named domain's.
    nvtxNameCategoryA(kCompute, "compute");
    nvtxNameCategoryA(kIo, "io");
    nvtxNameCategoryA(kSync, "sync");

    TaskQueue queue;
    SharedResults results;
    std::atomic<std::uint64_t> tasksDone{0};
    std::vector<std::thread> workers;
    for (int i = 1; i <= 3; ++i)
        workers.emplace_back(worker, i, std::ref(queue), std::ref(results), std::ref(tasksDone));

    std::FILE* sink = std::fopen("/dev/null", "w");
    std::mt19937 rng(42);
    std::uniform_int_distribution<std::uint32_t> taskSize(20'000, 120'000);
    std::uniform_int_distribution<std::size_t> problemSize(30'000, 60'000);
    Problem problem;
    const auto begin = std::chrono::steady_clock::now();
    const auto until = begin + std::chrono::duration<double>(options.seconds);
    std::uint64_t nextTask = 1;
    int steps = 0;
    long iterations = 0;
    std::size_t bytesWritten = 0;
    nvtx3::mark_in<DemoDomain>("start", category<SyncCategory>(), kGrey);
    for (int step = 0; std::chrono::steady_clock::now() < until; ++step) {
        DemoRange stepRange{message<StepMessage>(), category<ComputeCategory>(), kBlue,
                            nvtx3::payload{static_cast<std::uint64_t>(step)}};
        assemble(problem, rng, problemSize(rng));
        iterations += solve(problem);
        bytesWritten += write(problem, sink, step);

        // A checkpoint first waits until the workers have taken every queued task (sync).
        const bool checkpoint = step % 10 == 9;
        if (checkpoint) {
            DemoRange wait{"wait for workers", category<SyncCategory>(), kRed};
            queue.waitBelow(0);
        }
        // Hand post-processing to the workers; each task is a request that a worker ends.
        const int tasks = 1 + int(rng() % 3);
        for (int t = 0; t < tasks; ++t) {
            Task task;
            task.id = nextTask++;
            task.size = taskSize(rng);
            auto attr = cAttributes("request", 0xff4285f4, kSync);
            task.request = nvtxRangeStartEx(&attr);
            if (checkpoint && t == 0) {
                nvtx3::mark_in<DemoDomain>("checkpoint", category<IoCategory>(), kRed,
                                           nvtx3::payload{static_cast<std::uint64_t>(step)});
                task.flush =
                    nvtx3::start_range_in<DemoDomain>("flush", category<IoCategory>(), kOrange);
            }
            queue.push(std::move(task));
        }
        if (queue.size() > 6) { // backpressure
            DemoRange wait{"wait for workers", category<SyncCategory>(), kRed};
            queue.waitBelow(2);
        }
        ++steps;
    }
    queue.close();
    {
        DemoRange drain{"drain", category<SyncCategory>(), kGrey};
        for (auto& t : workers)
            t.join();
    }
    nvtx3::mark_in<DemoDomain>("done", category<SyncCategory>(), kGrey);
    if (sink)
        std::fclose(sink);

    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (!options.quiet)
        std::printf("spanscope-demo: %d steps (%ld solver iterations), %llu tasks on 3 workers, "
                    "%zu bytes written, %.2f s (checksum %llx)\n",
                    steps, iterations, static_cast<unsigned long long>(tasksDone.load()),
                    bytesWritten, elapsed, static_cast<unsigned long long>(results.checksum));
    return 0;
}
