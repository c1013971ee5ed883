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
#include "synthetic_capture.h"
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

struct Prepared
{
    std::shared_ptr<model::Capture> capture;
    std::shared_ptr<const model::TimelineIndex> index;
};

Prepared generate(int64_t calls)
{
    Prepared p;
    p.capture = bench::syntheticCapture(calls, 4);
    model::computeNesting(*p.capture);
    p.index = model::TimelineIndex::build(*p.capture);
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
