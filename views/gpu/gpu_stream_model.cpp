#include "gpu_stream_model.h"

#include "views/display_text.h"

namespace spanscope::views {

GpuStreamModel::GpuStreamModel(QObject* parent) : QAbstractTableModel(parent) {}

void GpuStreamModel::setDevice(const model::analysis::DeviceFigures* device)
{
    beginResetModel();
    m_streams = device ? device->streams : std::vector<model::analysis::StreamFigures>{};
    m_spanNs = device ? device->utilization.spanNs : 0;
    endResetModel();
}

int GpuStreamModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_streams.size());
}

int GpuStreamModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant GpuStreamModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || size_t(index.row()) >= m_streams.size())
        return {};
    const auto& s = m_streams[size_t(index.row())];
    const double share = m_spanNs > 0 ? double(s.busyNs) / double(m_spanNs) : 0.0;
    if (role == SortRole) {
        switch (index.column()) {
        case Stream: return qlonglong(s.stream);
        case Activities: return qulonglong(s.activities);
        case Busy: return qlonglong(s.busyNs);
        case BusyShare: return share;
        case Gaps: return qulonglong(s.gaps);
        case GapTime: return qlonglong(s.gapNs);
        case HostWait: return qlonglong(s.hostWaitNs);
        case OtherWait: return qlonglong(s.otherWaitNs);
        case MaxQueue: return qulonglong(s.maxQueue);
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() == Stream ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                        : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && (index.column() == HostWait || index.column() == OtherWait))
        return index.column() == HostWait
                   ? tr("Gaps after which the next work was launched only then: the GPU waited for the host")
                   : tr("Gaps after which the next work had been launched already: the stream waited on another "
                        "stream, an event or a synchronization");
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Stream: {
        if (s.stream < 0)
            return tr("(device)");
        // Kineto names each stream "stream N": only a name of its own adds anything.
        const QString name = QString::fromStdString(s.name).trimmed();
        const QString number = QString::number(s.stream);
        return name.isEmpty() || name == QStringLiteral("stream ") + number ? number : number + QLatin1Char(' ') + name;
    }
    case Activities: return QString::number(s.activities);
    case Busy: return durationText(double(s.busyNs));
    case BusyShare: return QString::number(100.0 * share, 'f', 1) + QStringLiteral(" %");
    case Gaps: return QString::number(s.gaps);
    case GapTime: return durationText(double(s.gapNs));
    case HostWait: return durationText(double(s.hostWaitNs));
    case OtherWait: return durationText(double(s.otherWaitNs));
    case MaxQueue: return QString::number(s.maxQueue);
    }
    return {};
}

QVariant GpuStreamModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Stream: return tr("Stream");
    case Activities: return tr("Work");
    case Busy: return tr("Busy");
    case BusyShare: return tr("Busy %");
    case Gaps: return tr("Gaps");
    case GapTime: return tr("Gap time");
    case HostWait: return tr("Host wait");
    case OtherWait: return tr("Other wait");
    case MaxQueue: return tr("Max queue");
    }
    return {};
}

} // namespace spanscope::views
