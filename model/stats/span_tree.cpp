#include "span_tree.h"

#include "saturating.h"
#include "nesting.h"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <unordered_map>

namespace spanscope::model {

bool SpanTreeFilter::passes(const Capture& capture, uint32_t event) const
{
    const auto& nvtx = capture.nvtx;
    const uint32_t domain = nvtx.domainOf(event);
    const uint32_t category = nvtx.categoryOf(event);
    if (domains && !domains->count(domain))
        return false;
    if (categories && !categories->count({domain, category}))
        return false;
    return true;
}

namespace {

class Builder final : public NestingVisitor
{
public:
    Builder(const Capture& capture, const SpanTreeFilter& filter)
        : m_capture(capture), m_filter(filter)
    {
        m_regionOfEvent.resize(capture.events.size(), 0);
        for (const auto& row : capture.rows)
            for (const uint64_t i : capture.rowEvents(row))
                if (i < m_regionOfEvent.size())
                    m_regionOfEvent[i] = row.region;
        if (filter.mergeLanes)
            m_root = addRoot("all lanes");
    }

    void track(TrackId track) override
    {
        m_stack.clear();
        if (!m_filter.mergeLanes) // the walk visits tracks in display order
            m_root = addRoot(trackTitle(m_capture, track));
    }

    void call(uint32_t event, uint16_t depth, int64_t start, int64_t end) override
    {
        while (!m_stack.empty() && m_stack.back().depth >= depth)
            m_stack.pop_back();
        if (!m_filter.passes(m_capture, event))
            return; // its children re-attach to the kept ancestor on top of the stack
        const uint32_t parent = m_stack.empty() ? m_root : m_stack.back().node;
        const uint32_t region = m_regionOfEvent[event];
        const uint64_t key = (uint64_t(parent) << 32) | region;
        auto [it, inserted] = m_children.try_emplace(key, uint32_t(m_tree.nodes.size()));
        if (inserted) {
            SpanTreeNode node;
            node.region = int32_t(region);
            node.parent = parent;
            node.depth = m_tree.nodes[parent].depth + 1;
            m_tree.nodes.push_back(std::move(node));
            m_tree.nodes[parent].children.push_back(it->second);
        }
        SpanTreeNode& node = m_tree.nodes[it->second];
        const int64_t duration = subtractSaturating(end, start);
        node.minimum = node.calls ? std::min(node.minimum, duration) : duration;
        node.maximum = node.calls ? std::max(node.maximum, duration) : duration;
        ++node.calls;
        node.inclusive = addSaturating(node.inclusive, duration);
        m_stack.push_back({depth, it->second});
    }

    void unclosed(uint32_t, TrackId) override {}

    SpanTree finish()
    {
        // Children follow their parents, so one backward pass sums the roots' totals and
        // a forward pass the exclusive times and shares.
        auto& nodes = m_tree.nodes;
        for (size_t i = nodes.size(); i-- > 0;)
            if (nodes[i].region < 0)
                for (uint32_t child : nodes[i].children)
                    nodes[i].inclusive = addSaturating(nodes[i].inclusive, nodes[child].inclusive);
        for (size_t i = 0; i < m_tree.roots.size(); ++i)
            nodes[m_tree.roots[i]].row = uint32_t(i);
        for (auto& node : nodes) {
            for (size_t i = 0; i < node.children.size(); ++i)
                nodes[node.children[i]].row = uint32_t(i);
            int64_t children = 0;
            for (uint32_t child : node.children)
                children = addSaturating(children, nodes[child].inclusive);
            node.exclusive = subtractSaturating(node.inclusive, children);
            if (node.parent != SpanTreeNode::kNoParent) {
                const int64_t parent = nodes[node.parent].inclusive;
                node.shareOfParent = parent > 0 ? double(node.inclusive) / double(parent) : 0.0;
            }
        }
        return std::move(m_tree);
    }

private:
    struct Open
    {
        uint16_t depth;
        uint32_t node;
    };

    uint32_t addRoot(std::string title)
    {
        SpanTreeNode root;
        root.title = std::move(title);
        m_tree.roots.push_back(uint32_t(m_tree.nodes.size()));
        m_tree.nodes.push_back(std::move(root));
        return m_tree.roots.back();
    }

    const Capture& m_capture;
    const SpanTreeFilter& m_filter;
    std::vector<uint32_t> m_regionOfEvent;
    std::unordered_map<uint64_t, uint32_t> m_children; // (parent << 32 | region) -> node
    std::vector<Open> m_stack; // kept calls still open on the current lane
    uint32_t m_root = 0;
    SpanTree m_tree;
};

void appendText(const SpanTree& tree, const Capture& capture, uint32_t index, std::string& out)
{
    const SpanTreeNode& node = tree.nodes[index];
    out.append(size_t(node.depth) * 2, ' ');
    out += node.region < 0 ? node.title : capture.regionName(uint32_t(node.region));
    char figures[160];
    std::snprintf(figures, sizeof figures, " calls=%llu incl=%lld excl=%lld share=%.1f%%\n",
                  static_cast<unsigned long long>(node.calls),
                  static_cast<long long>(node.inclusive), static_cast<long long>(node.exclusive),
                  node.shareOfParent * 100.0);
    out += figures;
    for (uint32_t child : node.children)
        appendText(tree, capture, child, out);
}

} // namespace

std::string SpanTree::toText(const Capture& capture) const
{
    std::string out;
    for (uint32_t root : roots)
        appendText(*this, capture, root, out);
    return out;
}

SpanTree buildSpanTree(const Capture& capture, const SpanTreeFilter& filter)
{
    Builder builder(capture, filter);
    walkNesting(capture, builder);
    return builder.finish();
}

} // namespace spanscope::model
