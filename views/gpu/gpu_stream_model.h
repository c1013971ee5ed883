#pragma once
// The streams of one GPU device as a table: activities, busy time and share of the
// device's span, gaps with the host's and the other waits, the largest queue. Numbers sort
// by value (SortRole). GUI thread only.

#include "model/analysis/device_figures.h"

#include <QAbstractTableModel>

namespace spanscope::views {

class GpuStreamModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Stream, Activities, Busy, BusyShare, Gaps, GapTime, HostWait, OtherWait, MaxQueue, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit GpuStreamModel(QObject* parent = nullptr);

    // Null: empty.
    void setDevice(const model::analysis::DeviceFigures* device);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<model::analysis::StreamFigures> m_streams;
    int64_t m_spanNs = 0;
};

} // namespace spanscope::views
