// One timeline frame (draw list built + painted offscreen at 1920x1080) per iteration, on
// synthetic captures of 1 M, 10 M and 50 M calls, for four views: fully zoomed out (view
// 0), mid (1: a window holding about 8 000 calls, so calls are near a pixel wide: the
// densest picture to paint, and the same picture at every size), deep (2: 5 µs) and
// panning (3: the mid window moving a tenth of its width each frame).
// The per-iteration time is the frame time.
//
// Counters: calls_in_view (what the frame accounts for), items (rectangles painted),
// bytes_per_call (capture columns + timeline index, resident).
// Targets (timeline issue): every 10 M frame <= 8 ms on 2 cores; the slowest 50 M frame
// within 1.5x of the slowest 1 M frame; <= 32 bytes per call.

#include "model/stats/nesting.h"
#include "model/timeline/draw_list.h"
#include "model/timeline/timeline_index.h"
#include "views/timeline/timeline_painter.h"

#include <QGuiApplication>
#include <QImage>
#include <QPainter>

#include <benchmark/benchmark.h>

#include <map>
#include <memory>

using namespace spanscope;

namespace {

constexpr int kWidth = 1920, kHeight = 1080;
constexpr int kRanks = 4;

struct Prepared
{
    std::shared_ptr<model::Capture> capture;
    std::shared_ptr<const model::TimelineIndex> index;
};

// kRanks ranks; on each, `step` calls holding 9 back-to-back child calls, the third child
// holding 3 grandchildren, so rows have depths 0..2 and a realistic mix of widths.
Prepared generate(int64_t calls)
{
    Prepared p;
    p.capture = std::make_shared<model::Capture>();
    auto& c = *p.capture;
    c.schema = 3;
    const int regions = 1 + 9 + 1;
    for (int r = 0; r < regions; ++r)
        c.regionNames.push_back(c.strings.intern(r == 0 ? "step" : r == 10 ? "kernel" : "child." + std::to_string(r)));
    const int64_t perStep = 1 + 9 + 3;
    const int64_t steps = calls / perStep / kRanks;
    const int64_t total = steps * perStep * kRanks;
    c.events.start.resize(size_t(total));
    c.events.end.resize(size_t(total));
    uint64_t offset = 0;
    for (int rank = 0; rank < kRanks; ++rank) {
        c.ranks.push_back(rank);
        // Row layout per rank: step calls, then each child region, then kernels.
        std::vector<uint64_t> rowOffset(regions);
        for (int r = 0; r < regions; ++r) {
            rowOffset[size_t(r)] = offset;
            model::RegionRow row;
            row.region = uint32_t(r);
            row.rank = rank;
            row.offset = offset;
            row.count = uint64_t(r == 10 ? steps * 3 : steps);
            offset += row.count;
            c.rows.push_back(row);
        }
        std::vector<uint64_t> cursor = rowOffset;
        int64_t t = 1'000'000 + rank * 777;
        for (int64_t s = 0; s < steps; ++s) {
            const int64_t stepStart = t;
            t += 20;
            for (int child = 1; child <= 9; ++child) {
                const int64_t length = 200 + (s * 37 + child * 101) % 3000;
                const uint64_t e = cursor[size_t(child)]++;
                c.events.start[e] = t;
                c.events.end[e] = t + length;
                if (child == 3)
                    for (int k = 0; k < 3; ++k) {
                        const uint64_t g = cursor[10]++;
                        c.events.start[g] = t + 10 + k * (length / 3);
                        c.events.end[g] = t + (k + 1) * (length / 3) - 5;
                    }
                t += length + 15;
            }
            const uint64_t e = cursor[0]++;
            c.events.start[e] = stepStart;
            c.events.end[e] = t;
            t += 40 + s % 500;
        }
    }
    c.numRanks = kRanks;
    c.rowExclusive.assign(c.rows.size(), -1);
    model::computeNesting(c);
    p.index = model::TimelineIndex::build(c);
    return p;
}

const Prepared& prepared(int64_t calls)
{
    static std::map<int64_t, Prepared> cache;
    auto it = cache.find(calls);
    if (it == cache.end()) {
        cache.clear(); // one size in memory at a time
        it = cache.emplace(calls, generate(calls)).first;
    }
    return it->second;
}

enum View { ZoomedOut, Mid, Deep, Panning };

void BM_Frame(benchmark::State& state)
{
    const int64_t calls = state.range(0);
    const auto view = View(state.range(1));
    const auto& p = prepared(calls);
    const int64_t begin = p.index->begin(), end = p.index->end(), run = end - begin;
    model::TimelineViewport viewport;
    viewport.width = kWidth;
    viewport.height = kHeight - 24 - 30;
    viewport.rowHeight = 18;
    viewport.headerHeight = 20;
    viewport.collapsed.assign(p.index->lanes().size(), false);
    const int64_t mid = std::max<int64_t>(int64_t(double(run) * 8000.0 / double(calls)), 1000);
    const int64_t center = begin + run / 3;
    switch (view) {
    case ZoomedOut: viewport.t0 = begin, viewport.t1 = end; break;
    case Mid: viewport.t0 = center, viewport.t1 = center + mid; break;
    case Deep: viewport.t0 = center, viewport.t1 = center + 5'000; break;
    case Panning: viewport.t0 = center, viewport.t1 = center + mid; break;
    }
    QImage image(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
    views::TimelinePainter painter(views::TimelineStyle{false, QGuiApplication::font()});
    uint64_t inView = 0;
    size_t items = 0;
    for (auto _ : state) {
        if (view == Panning) {
            viewport.t0 += mid / 10;
            viewport.t1 += mid / 10;
            if (viewport.t1 > end) {
                viewport.t0 = begin;
                viewport.t1 = begin + mid;
            }
        }
        const auto list = model::buildDrawList(*p.capture, *p.index, viewport);
        QPainter qp(&image);
        qp.fillRect(image.rect(), Qt::white);
        views::TimelineFrame frame;
        frame.capture = p.capture.get();
        frame.index = p.index.get();
        frame.list = &list;
        frame.width = kWidth;
        painter.paint(qp, frame);
        qp.end();
        inView = list.callsInView;
        items = list.items.size();
        benchmark::DoNotOptimize(image.constBits());
    }
    state.counters["calls_in_view"] = double(inView);
    state.counters["items"] = double(items);
    state.counters["bytes_per_call"] =
        double(p.capture->residentBytes() + p.index->residentBytes()) / double(p.capture->events.size());
}

void frameArgs(benchmark::internal::Benchmark* b)
{
    for (const int64_t calls : {int64_t(1'000'000), int64_t(10'000'000), int64_t(50'000'000)})
        for (const int view : {ZoomedOut, Mid, Deep, Panning})
            b->Args({calls, view});
    b->ArgNames({"calls", "view"});
}

} // namespace

BENCHMARK(BM_Frame)->Apply(frameArgs)->Unit(benchmark::kMillisecond)->MinTime(0.5);

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
