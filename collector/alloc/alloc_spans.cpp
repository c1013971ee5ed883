// Session, Operation and the spans of the public API (include/spanscope/alloc.h).
#include "alloc_counters.h"
#include "alloc_observer.h"
#include "report_data.h"

#include <spanscope/alloc.h>

#include <algorithm>
#include <exception>
#include <map>
#include <mutex>
#include <time.h>
#include <unistd.h>

namespace spanscope::alloc {

using alloc_internal::SpanRecord;
using alloc_internal::SuppressCounting;

Counters threadCounters()
{
    const alloc_internal::ThreadCounters* c = alloc_internal::threadCounters();
    return {alloc_internal::load(c->allocations), alloc_internal::requestedBytes(*c)};
}

Counters processCounters()
{
    const alloc_internal::ProcessTotals totals = alloc_internal::processTotals();
    return {totals.allocations, totals.bytes};
}

struct Operation::State
{
    std::string name;
    std::mutex mutex; // guards spans: spans of one operation may end on several threads
    std::vector<SpanRecord> spans;
};

struct Session::State
{
    mutable std::mutex mutex; // guards operations
    std::map<std::string, std::unique_ptr<Operation>, std::less<>> operations;
};


namespace {

std::int64_t monotonicNs()
{
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The abort of a span without iterations: a message naming the operation, written without
// allocating (the heap may be what the caller is debugging).
[[noreturn]] void abortWithoutIterations(const std::string& operation)
{
    auto say = [](const char* text, size_t size) {
        while (size > 0) {
            const ssize_t n = ::write(STDERR_FILENO, text, size);
            if (n <= 0)
                return;
            text += n;
            size -= size_t(n);
        }
    };
    static const char before[] = "spanscope::alloc: a span of operation \"";
    static const char after[] =
        "\" ended without iterations(n); call iterations() on every span before it ends\n";
    say(before, sizeof before - 1);
    say(operation.data(), operation.size());
    say(after, sizeof after - 1);
    std::abort();
}

} // namespace

namespace detail {

SpanBase::SpanBase(Operation* operation, bool process)
    : m_operation(operation), m_uncaught(std::uncaught_exceptions()), m_process(process)
{
    m_startNs = monotonicNs();
    // Last: nothing of the span's own making falls inside its window.
    m_start = process ? processCounters() : threadCounters();
}

SpanBase::SpanBase(SpanBase&& other) noexcept
    : m_operation(other.m_operation), m_start(other.m_start), m_iterations(other.m_iterations),
      m_startNs(other.m_startNs), m_uncaught(other.m_uncaught), m_process(other.m_process),
      m_haveIterations(other.m_haveIterations)
{
    other.m_operation = nullptr;
}

SpanBase::~SpanBase()
{
    if (!m_operation)
        return; // moved from
    // First: nothing of the span's own making falls inside its window.
    const Counters end = m_process ? processCounters() : threadCounters();
    if (std::uncaught_exceptions() > m_uncaught)
        return; // unwinding: the work did not finish, there is nothing to record
    Operation::State& op = *m_operation->m_state;
    if (!m_haveIterations)
        abortWithoutIterations(op.name);
    const SpanRecord record{m_iterations, end.bytes - m_start.bytes,
                            end.allocations - m_start.allocations};
    const SuppressCounting quiet;
    {
        const std::lock_guard lock(op.mutex);
        op.spans.push_back(record);
    }
    alloc_internal::notifySpan(op.name, m_startNs, monotonicNs(), m_process, record.iterations,
                               record.bytes, record.allocations);
}

} // namespace detail

Operation::Operation(std::string_view name) : m_state(std::make_unique<State>())
{
    m_state->name = name;
}

Operation::~Operation() = default;

const std::string& Operation::name() const
{
    return m_state->name;
}

Session::Session()
{
    const SuppressCounting quiet;
    m_state = std::make_unique<State>();
}

Session::~Session()
{
    const SuppressCounting quiet;
    m_state.reset();
}

Operation& Session::operation(std::string_view name)
{
    const SuppressCounting quiet;
    const std::lock_guard lock(m_state->mutex);
    auto found = m_state->operations.find(name);
    if (found == m_state->operations.end())
        found = m_state->operations.emplace(std::string(name), std::unique_ptr<Operation>(new Operation(name)))
                    .first;
    return *found->second;
}

Report Session::report() const
{
    const SuppressCounting quiet;
    Report report;
    const std::lock_guard lock(m_state->mutex);
    for (const auto& [name, operation] : m_state->operations) {
        Operation::State& op = *operation->m_state;
        const std::lock_guard spansLock(op.mutex);
        auto& spans = report.m_data->operations[name];
        spans = op.spans;
        std::sort(spans.begin(), spans.end());
    }
    return report;
}

} // namespace spanscope::alloc
