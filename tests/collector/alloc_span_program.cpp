// Uses the span API of <spanscope/alloc.h> as a program would (it links libspanscope-alloc);
// tst_alloc runs one mode per process and checks what it prints or how it ends.
//   report     known spans of several operations; prints the JSON report, a line, the table
//   abort      a span ended without iterations(): must abort naming the operation
//   unwind     exceptions through spans: nothing recorded, no abort; prints the JSON report
//   merge      the same spans in one session and split over two merged reports: prints both
#include <spanscope/alloc.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

template <typename T>
T* keep(T* p)
{
    asm volatile("" : : "r"(p) : "memory");
    return p;
}

void allocate(size_t bytes)
{
    std::free(keep(std::malloc(bytes)));
}

void fanOut(int items)
{
    std::vector<std::thread> threads;
    threads.reserve(size_t(items));
    for (int i = 0; i < items; ++i)
        threads.emplace_back([i] { std::vector<unsigned char> v(1024, (unsigned char)i); keep(v.data()); });
    for (auto& t : threads)
        t.join();
}

int report()
{
    spanscope::alloc::Session session;
    // 1, 2 and 4 iterations costing 110, 190 and 420 bytes in one allocation each.
    auto& noisy = session.operation("noisy");
    const std::pair<int, size_t> spans[] = {{1, 110}, {2, 190}, {4, 420}};
    for (const auto& [iterations, bytes] : spans) {
        auto span = noisy.measureThread();
        allocate(bytes);
        span.iterations(uint64_t(iterations));
    }
    // Exactly 3 allocations of 100 bytes per iteration, 1 to 5 iterations per span.
    auto& exact = session.operation("exact");
    for (int n = 1; n <= 5; ++n) {
        auto span = exact.measureThread();
        for (int i = 0; i < 3 * n; ++i)
            allocate(100);
        span.iterations(uint64_t(n));
    }
    // Same name, same operation.
    if (&session.operation("exact") != &exact)
        return 4;
    {
        auto span = session.operation("fan_out").measureProcess();
        fanOut(4);
        span.iterations(1);
    }
    {
        auto span = session.operation("zero").measureThread();
        allocate(10);
        span.iterations(0);
    }
    {
        // The API's own work inside a window: never counted.
        auto span = session.operation("quiet").measureProcess();
        session.operation("made_inside_a_span");
        const auto inner = session.report();
        std::ostringstream sink;
        inner.print(sink);
        inner.writeJson(sink);
        span.iterations(1);
    }
    const auto r = session.report();
    r.writeJson(std::cout);
    std::cout << "----\n";
    r.print(std::cout);
    return 0;
}

int abortWithoutIterations()
{
    spanscope::alloc::Session session;
    auto span = session.operation("forgot \"iterations\"").measureThread();
    allocate(10);
    return 0; // the span ends here without iterations(): abort
}

int unwind()
{
    spanscope::alloc::Session session;
    try {
        auto span = session.operation("thrown_without_iterations").measureThread();
        allocate(10);
        throw std::runtime_error("fails half way");
    } catch (const std::exception&) {
    }
    try {
        auto span = session.operation("thrown_with_iterations").measureProcess();
        span.iterations(3);
        throw std::runtime_error("fails after counting");
    } catch (const std::exception&) {
    }
    // A span made while an exception is already in flight (a destructor during unwinding)
    // and ended with iterations records normally.
    struct Guard
    {
        spanscope::alloc::Session* session;
        ~Guard()
        {
            auto span = session->operation("made_while_unwinding").measureThread();
            allocate(32);
            span.iterations(1);
        }
    };
    try {
        Guard guard{&session};
        throw std::runtime_error("unwinds through the guard");
    } catch (const std::exception&) {
    }
    session.report().writeJson(std::cout);
    return 0;
}

int merge()
{
    spanscope::alloc::Session whole, first, second;
    for (int n = 1; n <= 6; ++n) {
        for (spanscope::alloc::Session* s : {&whole, n % 2 ? &first : &second}) {
            auto span = s->operation(n % 3 ? "a" : "b").measureThread();
            allocate(size_t(37 * n + n * n));
            span.iterations(uint64_t(n));
        }
    }
    auto merged = second.report();
    merged.merge(first.report());
    whole.report().writeJson(std::cout);
    std::cout << "----\n";
    merged.writeJson(std::cout);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "report")
        return report();
    if (mode == "abort")
        return abortWithoutIterations();
    if (mode == "unwind")
        return unwind();
    if (mode == "merge")
        return merge();
    std::cerr << "usage: alloc_span_program report|abort|unwind|merge\n";
    return 2;
}
