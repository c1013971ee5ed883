// Collector wire streams as the viewer and spanscope-run receive them: any bytes, split into
// one or two processes' streams and fed in pieces of any size, through the protocol decoder,
// the NVTX assembler, the process merge and the analysis of the capture they make.
#include "fuzz_input.h"
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "model/capture_loader.h"
#include "model/event_layout.h"
#include "model/live/job_assembler.h"
#include "model/stats/capture_summary.h"
#include "model/stats/nesting.h"
#include "support/same_nesting.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

namespace spanscope::fuzz {

namespace {

// Two calls of one track with the same start and end: the threads' lists nest them in
// push order, the rows in region order, so their depths may rightly differ.
bool hasTwinCalls(const model::Capture& c)
{
    std::vector<std::tuple<uint32_t, int64_t, int64_t>> calls;
    for (std::size_t e = 0; e < c.events.size(); ++e)
        calls.emplace_back(c.events.track.empty() ? 0u : c.events.track[e], c.events.start[e], c.events.end[e]);
    std::sort(calls.begin(), calls.end());
    return std::adjacent_find(calls.begin(), calls.end()) != calls.end();
}

// The nesting walk reading the threads' lists (Capture::nestingOrder) gives what walking
// the rows gives: depths, exclusive times per row and per lane entry, warnings.
void checkListedNesting(const model::Capture& snapshot)
{
    if (snapshot.nestingOrder.empty())
        return;
    model::Capture listed = snapshot, fromRows = snapshot;
    fromRows.nestingOrder = {};
    FUZZ_CHECK(model::computeNesting(listed) && model::computeNesting(fromRows));
    if (hasTwinCalls(fromRows))
        return;
    FUZZ_CHECK(listed.events.depth == fromRows.events.depth && listed.rowExclusive == fromRows.rowExclusive);
    FUZZ_CHECK(listed.laneExclusive.size() == fromRows.laneExclusive.size());
    for (std::size_t i = 0; i < listed.laneExclusive.size(); ++i) {
        const model::LaneExclusive &a = listed.laneExclusive[i], &b = fromRows.laneExclusive[i];
        FUZZ_CHECK(a.row == b.row && a.track == b.track && a.exclusiveNs == b.exclusiveNs);
    }
    FUZZ_CHECK(listed.warnings.size() == fromRows.warnings.size());
    for (std::size_t i = 0; i < listed.warnings.size(); ++i)
        FUZZ_CHECK(listed.warnings[i].message == fromRows.warnings[i].message);
}

} // namespace

int wireStream(const std::uint8_t* data, std::size_t size)
{
    // A 7-byte prefix chooses how the rest arrives (scripts/fuzz-seeds.sh writes seeds so).
    FuzzInput in(data, size);
    const int streams = 1 + in.inRange(0, 1);
    const std::size_t piece = 1 + in.inRange<std::size_t>(0, 4095); // bytes per read
    const bool budget = in.flag();          // a span budget of 1,000 spans per second
    const bool detachLast = in.flag();      // the viewer stops reading the last stream
    const auto split = in.inRange<std::uint16_t>(0, 65535); // where process 2's bytes begin
    const std::string bytes = in.rest();

    model::live::NvtxAssemblerOptions options;
    if (budget)
        options.maxSpansPerSecond = 1000;
    options.minimumCommittedCalls = 1; // every row keeps its durations, as large ones do
    const std::size_t cut = streams == 2 ? bytes.size() * split / 65536 : bytes.size();
    const std::string parts[2] = {bytes.substr(0, cut), bytes.substr(cut)};
    // `live`: a snapshot halfway through each stream, as a live viewer takes them, so the
    // final one is laid out from the one before (NvtxAssembler::LayoutMemo).
    auto record = [&](model::live::JobAssembler& job, bool live) {
        for (int s = 0; s < streams; ++s) {
            const std::string& part = parts[s];
            const std::size_t id = job.addStream("stream " + std::to_string(s + 1));
            for (std::size_t at = 0; at < part.size(); at += piece) {
                if (live && at <= part.size() / 2 && at + piece > part.size() / 2) {
                    // Analysed as the live view does: the final snapshot's walk goes on
                    // from this one's (stats/nesting_carry.h).
                    auto half = job.snapshot();
                    FUZZ_CHECK(half != nullptr);
                    FUZZ_CHECK(model::analyzeCapture(std::move(half), model::ProgressRange(nullptr, 0, 1),
                                                     model::LoadOptions{true}));
                }
                if (!job.feed(id, part.data() + at, std::min(piece, part.size() - at)))
                    break; // malformed: the rest is ignored, what decoded is kept
            }
            if (detachLast && s == streams - 1)
                job.detachStream(id);
            else
                job.finishStream(id);
        }
        job.jobEnded();
        return job.snapshot();
    };
    model::live::JobAssembler liveJob(options), wholeJob(options);
    auto capture = record(liveJob, true);
    const auto whole = record(wholeJob, false);
    FUZZ_CHECK(capture != nullptr && whole != nullptr);
    FUZZ_CHECK(capture->events.start.size() == capture->events.end.size());
    // Laid out from an earlier snapshot (rows in several spans, events left behind) or
    // afresh, the same calls in the same order.
    const auto laidOut = model::withRowsInOneSpan(*capture);
    FUZZ_CHECK(laidOut->rows.size() == whole->rows.size());
    for (std::size_t r = 0; r < whole->rows.size(); ++r)
        FUZZ_CHECK(laidOut->rows[r].region == whole->rows[r].region && laidOut->rows[r].firstEvent == whole->rows[r].firstEvent
                   && laidOut->rows[r].count == whole->rows[r].count);
    FUZZ_CHECK(laidOut->events.start == whole->events.start && laidOut->events.end == whole->events.end
               && laidOut->events.threadIds == whole->events.threadIds);
    // Summarized from the durations kept since the snapshot before, or from every call:
    // the same figures (the spread up to rounding).
    const auto kept = model::summarizeCapture(*capture), fresh = model::summarizeCapture(*whole);
    FUZZ_CHECK(kept && fresh && kept->perRow.size() == fresh->perRow.size());
    for (std::size_t r = 0; r < fresh->perRow.size(); ++r) {
        const model::RegionStats &a = kept->perRow[r], &b = fresh->perRow[r];
        FUZZ_CHECK(a.calls == b.calls && a.unclosed == b.unclosed && a.total == b.total && a.minimum == b.minimum
                   && a.maximum == b.maximum && a.first == b.first && a.last == b.last && a.p50 == b.p50
                   && a.p95 == b.p95 && a.p99 == b.p99 && a.startMin == b.startMin && a.endMax == b.endMax
                   && a.gpuTotal == b.gpuTotal && a.allocCount == b.allocCount);
    }
    checkListedNesting(*capture);
    // Its nesting and timeline index, the walk going on from the halfway snapshot's, as
    // when walked whole.
    auto copy = std::make_shared<model::Capture>(*capture);
    copy->nestingOrder.carrySlot.reset();
    const auto walkedWhole = model::analyzeCapture(copy, model::ProgressRange(nullptr, 0, 1), model::LoadOptions{true});
    const auto carried = model::analyzeCapture(capture, model::ProgressRange(nullptr, 0, 1), model::LoadOptions{true});
    FUZZ_CHECK(walkedWhole && carried && testing::nestingDifference(*carried, *walkedWhole).empty());
    analyze(std::move(capture));
    return 0;
}

} // namespace spanscope::fuzz
