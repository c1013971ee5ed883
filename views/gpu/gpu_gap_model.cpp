#include "gpu_gap_model.h"

#include "views/display_text.h"

namespace spanscope::views {

GpuGapModel::GpuGapModel(QObject* parent) : QAbstractTableModel(parent) {}

void GpuGapModel::setDevice(std::shared_ptr<const model::Capture> capture,
                            const model::analysis::DeviceFigures* device)
{
    beginResetModel();
    m_capture = device ? std::move(capture) : nullptr;
    m_gaps = device ? device->largestGaps : std::vector<model::analysis::StreamGap>{};
    m_origin = device ? device->utilization.firstStartNs : 0;
    endResetModel();
}

const model::analysis::StreamGap* GpuGapModel::gap(int row) const
{
    return row >= 0 && size_t(row) < m_gaps.size() ? &m_gaps[size_t(row)] : nullptr;
}

int GpuGapModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_gaps.size());
}

int GpuGapModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant GpuGapModel::data(const QModelIndex& index, int role) const
{
    const auto* g = gap(index.row());
    if (!g || !m_capture)
        return {};
    auto name = [&](uint32_t region) {
        return region < m_capture->regionNames.size() ? QString::fromStdString(m_capture->regionName(region)) : QString();
    };
    if (role == SortRole) {
        switch (index.column()) {
        case At: return qlonglong(g->startNs);
        case Stream: return qlonglong(g->stream);
        case Length: return qlonglong(g->endNs - g->startNs);
        case Wait: return int(g->kind);
        case DeviceIdle: return qlonglong(g->deviceIdleNs);
        case Before: return name(g->beforeRegion);
        case After: return name(g->afterRegion);
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == Before || index.column() == After || index.column() == Wait
                   ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                   : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) {
        if (index.column() == Before || index.column() == After)
            return name(index.column() == Before ? g->beforeRegion : g->afterRegion);
        return g->kind == model::analysis::WaitKind::Host
                   ? tr("Host wait: the work after the gap was launched only after the gap began. Click to zoom "
                        "the timeline to it.")
                   : tr("Other wait: the work after the gap was launched before it began; the stream waited on "
                        "another stream, an event or a synchronization. Click to zoom the timeline to it.");
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case At: return QStringLiteral("+") + durationText(double(g->startNs - m_origin));
    case Stream: return QString::number(g->stream);
    case Length: return durationText(double(g->endNs - g->startNs));
    case Wait: return g->kind == model::analysis::WaitKind::Host ? tr("host") : tr("other");
    case DeviceIdle: return durationText(double(g->deviceIdleNs));
    case Before: return name(g->beforeRegion);
    case After: return name(g->afterRegion);
    }
    return {};
}

QVariant GpuGapModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case At: return tr("At");
    case Stream: return tr("Stream");
    case Length: return tr("Gap");
    case Wait: return tr("Wait");
    case DeviceIdle: return tr("GPU idle");
    case Before: return tr("Before");
    case After: return tr("After");
    }
    return {};
}

} // namespace spanscope::views
