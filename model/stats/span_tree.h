#pragma once
// The span tree: per track (a rank's thread, task, NVTX lane or GPU stream), the nested ranges merged by call path
// (the same region under the same parent node is one node), with counts and inclusive /
// exclusive time. Built from walkNesting(); no Qt. The result is immutable once built and
// may be read from any thread.

#include "../capture.h"

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace spanscope::model {

// Which calls take part. A call that does not pass is left out and its children attach to
// its nearest kept ancestor, so a category filter shows the matching ranges in context.
// Calls of captures without NVTX per-call columns count as domain 0, category 0.
struct SpanTreeFilter
{
    std::optional<std::set<uint32_t>> domains; // NVTX domain ids; empty optional = all
    std::optional<std::set<std::pair<uint32_t, uint32_t>>> categories; // (domain, category)
    bool mergeLanes = false; // one root for the whole capture instead of one per lane

    bool passes(const Capture& capture, uint32_t event) const;
};

struct SpanTreeNode
{
    static constexpr uint32_t kNoParent = UINT32_MAX;

    int32_t region = -1; // index into Capture::regionNames; -1 for a lane root
    uint32_t parent = kNoParent;
    uint32_t depth = 0;               // 0 for roots
    uint32_t row = 0;                 // position in the parent's children (or in SpanTree::roots)
    std::string title;                // roots only: trackTitle(), "rank 0 · thread 1 worker-1"
    uint64_t calls = 0;               // calls merged into this node (0 for roots)
    int64_t inclusive = 0;            // ns, sum of the durations; roots: sum of their children
    int64_t exclusive = 0;            // ns, inclusive minus the children's inclusive
    int64_t minimum = 0, maximum = 0; // ns, shortest and longest call (0 for roots)
    double shareOfParent = 1.0;       // inclusive / parent's inclusive; 1 for roots
    std::vector<uint32_t> children;   // in order of first appearance
};

struct SpanTree
{
    std::vector<SpanTreeNode> nodes; // parents precede their children
    std::vector<uint32_t> roots;     // one per track, in tracksInDisplayOrder()

    // Indented text, one node a line, for tests and debugging:
    // "<name> calls=<n> incl=<ns> excl=<ns> share=<percent>".
    std::string toText(const Capture& capture) const;
};

// O(N) expected for N calls (plus the nesting walk). Any thread; reads `capture` only.
SpanTree buildSpanTree(const Capture& capture, const SpanTreeFilter& filter = {});

} // namespace spanscope::model
