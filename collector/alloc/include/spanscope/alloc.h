// spanscope allocation spans: how many allocations, and how many bytes, a piece of work
// costs per iteration. Link the program with libspanscope-alloc (CMake:
// find_package(spanscope) + target_link_libraries(app PRIVATE spanscope::alloc)), whose
// malloc, operator new and friends count every allocation of the process.
//
//   spanscope::alloc::Session session;
//   spanscope::alloc::Operation& op = session.operation("parse"); // same name -> same operation
//   for (int round = 0; round < 10; ++round) {
//       auto span = op.measureThread(); // this thread's allocations (measureProcess: all threads)
//       parse(input);
//       span.iterations(1);             // required before the span ends
//   }
//   session.report().print(std::cout);
//
// Rules:
//  - A span records the allocation counters' deltas (count, requested bytes) between its
//    creation and its destruction: a ProcessSpan over every thread of the process (threads
//    that exited meanwhile included), a ThreadSpan over the thread that made it.
//  - iterations(n) must be called before the span is destroyed; destroying one without it
//    is a programming error and aborts with a message naming the operation, except while an
//    exception unwinds through the span (more uncaught exceptions than at its creation):
//    then it records nothing. iterations(0) is allowed: the per-iteration figures are NaN.
//  - The API's own allocations (creating, ending and reporting spans) are never counted.
//  - Per-iteration figures are the least-squares slope through the origin over the
//    operation's spans, sum(n_i * x_i) / sum(n_i^2) for iterations n_i and deltas x_i, with a
//    95 % interval from two spans on: the slope's heteroskedasticity-consistent (HC0)
//    standard error times Student's t with (spans - 1) degrees of freedom.
//  - When the spanscope collector records the process, every span also appears in the
//    viewer as a range on the "allocation spans" track.
// Thread safety: Session::operation, report() and spans of one operation on several
// threads at once are safe. A span belongs to the thread that made it.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#define SPANSCOPE_ALLOC_API __attribute__((visibility("default")))

namespace spanscope::alloc {

// Counters since the library was loaded: allocation calls and their requested bytes.
struct Counters
{
    std::uint64_t allocations = 0;
    std::uint64_t bytes = 0;
};
SPANSCOPE_ALLOC_API Counters threadCounters();  // the calling thread's
SPANSCOPE_ALLOC_API Counters processCounters(); // every thread's, exited ones included

class Operation;

namespace detail {
class SPANSCOPE_ALLOC_API SpanBase
{
public:
    SpanBase(SpanBase&& other) noexcept;
    SpanBase(const SpanBase&) = delete;
    SpanBase& operator=(const SpanBase&) = delete;
    SpanBase& operator=(SpanBase&&) = delete;

protected:
    SpanBase(Operation* operation, bool process);
    ~SpanBase();
    void setIterations(std::uint64_t iterations)
    {
        m_iterations = iterations;
        m_haveIterations = true;
    }

private:
    Operation* m_operation; // null once moved from
    Counters m_start;
    std::uint64_t m_iterations = 0;
    std::int64_t m_startNs = 0; // CLOCK_MONOTONIC, for the collector's range
    int m_uncaught = 0;         // std::uncaught_exceptions() at creation
    bool m_process;
    bool m_haveIterations = false;
};
} // namespace detail

// Every thread of the process. See the rules above.
class [[nodiscard]] ProcessSpan : public detail::SpanBase
{
public:
    ProcessSpan& iterations(std::uint64_t n)
    {
        setIterations(n);
        return *this;
    }

private:
    friend class Operation;
    explicit ProcessSpan(Operation* operation) : SpanBase(operation, true) {}
};

// The calling thread only. See the rules above.
class [[nodiscard]] ThreadSpan : public detail::SpanBase
{
public:
    ThreadSpan& iterations(std::uint64_t n)
    {
        setIterations(n);
        return *this;
    }

private:
    friend class Operation;
    explicit ThreadSpan(Operation* operation) : SpanBase(operation, false) {}
};

// An interval; both NaN where it is not defined (fewer than two spans, no iterations).
struct Interval
{
    double low, high;
};

// One operation's figures. Totals are sums over its spans.
struct OperationReport
{
    std::string name;
    std::uint64_t spans = 0, iterations = 0, bytes = 0, allocations = 0;
    double bytesPerIteration = 0, allocationsPerIteration = 0; // NaN when not finite
    Interval bytesInterval{}, allocationsInterval{};
};

// What a session measured, operations by name. A value: copy, merge and print it anywhere.
class SPANSCOPE_ALLOC_API Report
{
public:
    Report();
    ~Report();
    Report(const Report&);
    Report(Report&&) noexcept;
    Report& operator=(const Report&);
    Report& operator=(Report&&) noexcept;

    // Operations in name order, with their figures.
    std::vector<OperationReport> operations() const;
    bool empty() const;
    // Adds `other`'s spans: the result is exactly the report of one session that measured
    // both (figures are computed from the spans, in an order that does not depend on merging).
    void merge(const Report& other);

    // A table: Operation | Bytes/iter | Allocations/iter (with the 95 % intervals).
    void print(std::ostream& out) const;
    // {"operations": [{"name", "spans", "iterations", "bytes", "allocations",
    //   "bytes_per_iteration", "allocations_per_iteration", "bytes_interval",
    //   "allocations_interval"}]}; intervals are [low, high]; null where not finite.
    void writeJson(std::ostream& out) const;

    struct Data;

private:
    friend class Session;
    std::unique_ptr<Data> m_data;
};

class SPANSCOPE_ALLOC_API Operation
{
public:
    ProcessSpan measureProcess() { return ProcessSpan(this); }
    ThreadSpan measureThread() { return ThreadSpan(this); }
    const std::string& name() const;

    Operation(const Operation&) = delete;
    Operation& operator=(const Operation&) = delete;
    ~Operation();

    struct State;

private:
    friend class Session;
    friend class detail::SpanBase;
    explicit Operation(std::string_view name);
    std::unique_ptr<State> m_state;
};

class SPANSCOPE_ALLOC_API Session
{
public:
    Session();
    ~Session(); // spans of its operations must have ended
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // The operation of that name, made on first use; the reference lives as long as the session.
    Operation& operation(std::string_view name);
    Report report() const;

    struct State;

private:
    std::unique_ptr<State> m_state;
};

} // namespace spanscope::alloc
