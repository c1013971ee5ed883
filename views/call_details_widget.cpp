#include "call_details_widget.h"

#include "display_text.h"
#include "model/gpu/activity_launch.h"
#include "model/analysis/nccl_kernel.h"
#include "model/gpu/launch_gpu_time.h"
#include "model/tables/args_fields.h"
#include "model/report/duration_format.h"

#include <QLabel>
#include <QTextBrowser>
#include <QUrl>
#include <QVBoxLayout>

namespace spanscope::views {

namespace {

constexpr int kMaxLinkedCalls = 25; // a call that launched thousands of kernels lists a few

QString escaped(const std::string& text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}

QString tableRow(const QString& label, const QString& value)
{
    return QStringLiteral(
               "<tr><td style='padding-right:12px; color:palette(mid)'>%1</td><td>%2</td></tr>")
        .arg(label, value);
}

// "1.5 MiB (1,572,864 B)": the unit for reading, the exact count for checking.
QString exactBytesText(uint64_t bytes)
{
    return QString::fromStdString(model::report::formatBytes(double(bytes))) +
           QStringLiteral(" (%1 B)").arg(countText(bytes));
}

} // namespace

CallDetailsWidget::CallDetailsWidget(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_placeholder =
        new QLabel(tr("Click a call in the timeline to see where it ran, what encloses it "
                      "and what it launched."));
    m_placeholder->setWordWrap(true);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setEnabled(false);
    m_text = new QTextBrowser;
    m_text->setObjectName(QStringLiteral("callDetails"));
    m_text->setOpenLinks(false);
    m_text->setFrameShape(QFrame::NoFrame);
    layout->addWidget(m_placeholder);
    layout->addWidget(m_text, 1);
    m_text->hide();
    connect(m_text, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        bool ok = false;
        const uint32_t event = url.path().toUInt(&ok);
        if (url.scheme() == QLatin1String("call") && ok && m_capture &&
            event < m_capture->events.size())
            emit callClicked(event);
    });
}

void CallDetailsWidget::setCapture(std::shared_ptr<const model::Capture> capture,
                                   std::shared_ptr<const model::TimelineIndex> index)
{
    const bool same = capture && m_capture && capture->events.size() >= m_capture->events.size();
    m_capture = std::move(capture);
    m_index = std::move(index);
    if (m_event && same && m_capture && m_index && *m_event < m_capture->events.size())
        showCall(*m_event); // a live update: the call is still there
    else
        clear();
}

void CallDetailsWidget::clear()
{
    m_event.reset();
    m_text->clear();
    m_text->hide();
    m_placeholder->show();
}

QString CallDetailsWidget::plainText() const
{
    return m_text->isVisible() || m_event ? m_text->toPlainText() : QString();
}

void CallDetailsWidget::showCall(uint32_t event)
{
    if (!m_capture || !m_index || event >= m_capture->events.size()) {
        clear();
        return;
    }
    m_event = event;
    m_text->setHtml(html(event));
    m_placeholder->hide();
    m_text->show();
}

QString CallDetailsWidget::callLink(uint32_t event) const
{
    const auto& c = *m_capture;
    const auto& row = c.rows[m_index->rowOf(event)];
    QString name = elidedName(QString::fromStdString(c.regionName(row.region)), 80).toHtmlEscaped();
    if (name.isEmpty())
        name = tr("(unnamed)");
    const auto& e = c.events;
    const QString when = e.end[event] >= e.start[event]
                             ? durationText(double(e.end[event] - e.start[event]))
                             : tr("never closed");
    return QStringLiteral("<a href='call:%1'>%2</a> <span style='color:palette(mid)'>(%3)</span>")
        .arg(event)
        .arg(name, when);
}

QString CallDetailsWidget::stackHtml(uint32_t event) const
{
    const auto stack = m_index->stackOf(*m_capture, event);
    QString out;
    for (size_t i = 0; i < stack.size(); ++i)
        out += QStringLiteral("<div style='margin-left:%1px'>%2</div>")
                   .arg(int(i) * 10)
                   .arg(callLink(stack[i]));
    return out;
}

QString CallDetailsWidget::gpuHtml(uint32_t event) const
{
    const auto& c = *m_capture;
    const auto& e = c.events;
    const int64_t found = c.gpuActivities.rowOf(event);
    if (found < 0)
        return {};
    const size_t activity = size_t(found);
    const auto& g = c.gpuActivities;
    QString rows;
    if (g.correlation(activity))
        rows += tableRow(tr("Correlation"), countText(g.correlation(activity)));
    rows += tableRow(tr("Context"), QString::number(g.context(activity)));
    if (const auto shape = g.kernelShape(activity)) {
        auto dims = [](const uint32_t* d) {
            return QStringLiteral("%1 × %2 × %3").arg(d[0]).arg(d[1]).arg(d[2]);
        };
        const uint64_t threads = uint64_t(shape->block[0]) * shape->block[1] * shape->block[2];
        rows += tableRow(tr("Grid"), dims(shape->grid));
        rows +=
            tableRow(tr("Block"), dims(shape->block) + tr(" (%1 threads)").arg(countText(threads)));
        rows += tableRow(tr("Registers per thread"), QString::number(shape->registersPerThread));
        rows += tableRow(tr("Shared memory per block"), exactBytesText(shape->sharedMemoryBytes));
    }
    // A communication kernel: what it moved, and how fast.
    const uint32_t region = c.rows[m_index->rowOf(event)].region;
    if (c.regionKind(region) == model::RegionKind::Kernel && model::analysis::isNcclKernelName(c.regionName(region))) {
        std::vector<std::vector<model::ArgsField>> around;
        if (const uint32_t launch = launchOf(event); launch != model::kNoLaunch) {
            const auto stack = m_index->stackOf(c, launch);
            for (auto it = stack.rbegin(); it != stack.rend(); ++it)
                around.push_back(argsOf(*it));
        }
        if (const auto nccl = model::analysis::ncclKernelInfo(c.regionName(region), argsOf(event), around)) {
            auto add = [&](const QString& label, const std::string& value) {
                if (!value.empty())
                    rows += tableRow(label, escaped(value));
            };
            add(tr("Collective"), nccl->collective);
            add(tr("Algorithm"), nccl->algorithm);
            add(tr("Protocol"), nccl->protocol);
            add(tr("Reduction"), nccl->reduction);
            add(tr("Data type"), nccl->dataType);
            if (nccl->elements)
                rows += tableRow(tr("Elements"), countText(*nccl->elements));
            if (nccl->groupSize)
                rows += tableRow(tr("Ranks in the group"), countText(uint64_t(*nccl->groupSize)));
            if (const auto bytes = nccl->bytes())
                rows += tableRow(tr("Message"), exactBytesText(*bytes));
            if (const auto bandwidth = nccl->bandwidth(e.end[event] - e.start[event]))
                rows += tableRow(tr("Algorithm bandwidth"),
                                 QStringLiteral("%1 GB/s").arg(*bandwidth / 1e9, 0, 'f', 2) +
                                     tr(" (message over duration)"));
            else if (!nccl->elements)
                rows += tableRow(tr("Algorithm bandwidth"),
                                 tr("unknown: the trace records no message size (PyTorch 2.2 or later writes it)"));
        }
    }
    if (const auto bytes = g.copyBytes(activity)) {
        rows += tableRow(tr("Bytes"), exactBytesText(*bytes));
        if (g.copyKind(activity) != model::CopyKind::Unknown)
            rows += tableRow(tr("Direction"),
                             QString::fromLatin1(model::copyKindName(g.copyKind(activity))));
        const int64_t ns = e.end[event] - e.start[event];
        if (ns > 0)
            rows += tableRow(tr("Bandwidth"),
                             QStringLiteral("%1 GB/s").arg(double(*bytes) / double(ns), 0, 'f', 2));
    }
    return rows;
}

std::vector<model::ArgsField> CallDetailsWidget::argsOf(uint32_t event) const
{
    const auto& e = m_capture->events;
    if (e.args.empty() || event >= e.args.size() || !model::ArgsRef{e.args[event]}.valid())
        return {};
    return model::argsFields(m_capture->args.text(model::ArgsRef{e.args[event]}));
}

uint32_t CallDetailsWidget::launchOf(uint32_t event) const
{
    // As the GPU analyses choose it: the runtime call before a driver call, then the earliest.
    const auto& c = *m_capture;
    uint32_t best = model::kNoLaunch;
    bool bestDriver = false;
    for (const size_t f : c.flows.incoming(event)) {
        if (c.flows.kind(f) != model::FlowKind::Launch)
            continue;
        const uint32_t from = c.flows.from(f);
        const bool driver = model::isDriverRegion(c, c.rows[m_index->rowOf(from)].region);
        if (best == model::kNoLaunch || model::betterLaunch(c, from, driver, best, bestDriver)) {
            best = from;
            bestDriver = driver;
        }
    }
    return best;
}

QString CallDetailsWidget::flowsHtml(uint32_t event) const
{
    const auto& c = *m_capture;
    const auto& e = c.events;
    const auto& flows = c.flows;
    QString out;
    // What launched this call (GPU work): the CPU call, its latency and its stack.
    if (const uint32_t from = launchOf(event); from != model::kNoLaunch) {
        out += QStringLiteral("<h4>%1</h4>").arg(tr("Launched by"));
        out += stackHtml(from);
        out += QStringLiteral("<table>");
        if (e.end[from] >= e.start[from])
            out += tableRow(tr("Launch latency (from the call's end)"),
                            durationText(double(e.start[event] - e.end[from])) +
                                (e.start[event] < e.end[from] ? tr(": the GPU started before the call returned")
                                                              : QString()));
        out += tableRow(tr("Launch latency (from the call's start)"),
                        durationText(double(e.start[event] - e.start[from])));
        out += QStringLiteral("</table>");
    }
    for (const size_t f : flows.incoming(event)) {
        const uint32_t from = flows.from(f);
        if (flows.kind(f) != model::FlowKind::Launch) {
            out += QStringLiteral("<p>%1 %2</p>")
                       .arg(tr("Flow (%1) from")
                                .arg(QString::fromLatin1(model::flowKindName(flows.kind(f)))),
                            callLink(from));
        }
    }
    // What this call launched (CPU side), and where that work ran on the GPU.
    std::vector<uint32_t> launched, others;
    for (const size_t f : flows.outgoing(event))
        (flows.kind(f) == model::FlowKind::Launch ? launched : others).push_back(uint32_t(f));
    if (const auto span = model::projectedGpuSpan(c, m_index->rowOf(event), event)) {
        out += QStringLiteral("<h4>%1</h4><table>").arg(tr("GPU work launched inside this call"));
        if (e.hasGpu() && e.gpu[event] >= 0)
            out += QStringLiteral("%1").arg(
                tableRow(tr("GPU time"), durationText(double(e.gpu[event]))));
        out += tableRow(tr("Projected on the GPU"),
                        tr("%1, from %2 to %3 after the call started")
                            .arg(durationText(double(span->second - span->first)),
                                 durationText(double(span->first - e.start[event])),
                                 durationText(double(span->second - e.start[event]))));
        out += QStringLiteral("</table>");
    }
    if (!launched.empty()) {
        out += QStringLiteral("<h4>%1</h4>").arg(tr("Launched"));
        for (size_t i = 0; i < launched.size() && i < size_t(kMaxLinkedCalls); ++i)
            out += QStringLiteral("<div>%1</div>").arg(callLink(flows.to(launched[i])));
        if (launched.size() > size_t(kMaxLinkedCalls))
            out += tr("<div>and %1 more</div>").arg(countText(launched.size() - kMaxLinkedCalls));
    }
    for (const uint32_t f : others)
        out +=
            QStringLiteral("<p>%1 %2</p>")
                .arg(
                    tr("Flow (%1) to").arg(QString::fromLatin1(model::flowKindName(flows.kind(f)))),
                    callLink(flows.to(f)));
    return out;
}

QString CallDetailsWidget::html(uint32_t event) const
{
    const auto& c = *m_capture;
    const auto& e = c.events;
    const uint32_t rowIndex = m_index->rowOf(event);
    const auto& region = c.rows[rowIndex];
    const model::RegionKind kind = c.regionKind(region.region);
    const model::TrackId trackId = c.trackOfEvent(rowIndex, event);
    const model::Track& track = c.track(trackId);
    const QString full = QString::fromStdString(c.regionName(region.region));
    const QString name = elidedName(full).toHtmlEscaped();
    QString out =
        QStringLiteral("<h3>%1 <span style='color:palette(mid); font-weight:normal'>%2</span></h3>")
            .arg(name.isEmpty() ? tr("(unnamed)") : name,
                 QString::fromLatin1(model::regionKindName(kind)));
    out += QStringLiteral("<table>");
    out += tableRow(tr("Track"), escaped(model::trackTitle(c, trackId)));
    if (track.device >= 0)
        for (const auto& device : c.devices)
            if (device.device == track.device && !c.strings.text(device.name).empty())
                out += tableRow(tr("Device"), escaped(c.strings.text(device.name)));
    out +=
        tableRow(tr("Starts"), tr("%1 after the run's start")
                                   .arg(durationText(double(e.start[event] - m_index->begin()))));
    if (e.end[event] >= e.start[event]) {
        out += tableRow(tr("Wall"),
                        durationText(double(e.end[event] - e.start[event])) + QStringLiteral(" (") +
                            exactNsText(e.end[event] - e.start[event]) + QStringLiteral(")"));
        if (e.hasGpu() && e.gpu[event] >= 0 && kind == model::RegionKind::Cpu)
            out += tableRow(tr("GPU"), durationText(double(e.gpu[event])));
        if (e.hasAwait() && e.awaitNs[event] > 0)
            out += tableRow(tr("Suspended"), durationText(double(e.awaitNs[event])));
    } else {
        out += tableRow(tr("Wall"), tr("never closed"));
    }
    // Recorded with --alloc: what was allocated while this call was innermost (a span of
    // the allocation span API: inside it, over its stated iterations).
    if (e.hasAllocations() && e.allocCounts[event] >= 0) {
        QString allocations = tr("%1 (%2)").arg(countText(uint64_t(e.allocCounts[event])),
                                                bytesText(double(e.allocBytes[event])));
        if (!e.allocIterations.empty() && e.allocIterations[event] >= 0)
            allocations += tr(" over %1 iterations").arg(countText(uint64_t(e.allocIterations[event])));
        else
            allocations += tr(", directly (not in nested ranges)");
        out += tableRow(tr("Allocations"), allocations);
    }
    out += gpuHtml(event);
    out += QStringLiteral("</table>");
    const auto stack = m_index->stackOf(c, event);
    if (stack.size() > 1) {
        out += QStringLiteral("<h4>%1</h4>").arg(tr("Stack"));
        out += stackHtml(event);
    }
    out += flowsHtml(event);
    // The source's own attributes, one per line (values as it wrote them).
    if (const auto fields = argsOf(event); !fields.empty()) {
        out += QStringLiteral("<h4>%1</h4><table>").arg(kind == model::RegionKind::Cpu ? tr("Args") : tr("Attributes"));
        for (const auto& field : fields)
            out += tableRow(escaped(field.key), escaped(model::argsValueText(field.value)));
        out += QStringLiteral("</table>");
    } else if (!e.args.empty() && model::ArgsRef{e.args[event]}.valid()) { // not an object: as written
        out += QStringLiteral("<h4>%1</h4><pre style='white-space:pre-wrap'>%2</pre>")
                   .arg(tr("Args"), escaped(c.args.text(model::ArgsRef{e.args[event]})));
    }
    if (full.size() > 120) // the whole name last: kernels' signatures run for lines
        out += QStringLiteral("<h4>%1</h4><p style='font-size:small'>%2</p>")
                   .arg(tr("Full name"), full.toHtmlEscaped());
    return out;
}

} // namespace spanscope::views
