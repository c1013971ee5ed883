#pragma once
// The largest gaps of one GPU device as a table: when (from the device's first work), the
// stream, how long, which kind of wait, how much of it the whole device was idle, and what
// ran before and after. Rows keep the analysis's order (largest first); numbers sort by
// value (SortRole). GUI thread only.

#include "model/analysis/device_figures.h"
#include "model/capture.h"

#include <QAbstractTableModel>
#include <memory>

namespace spanscope::views {

class GpuGapModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { At, Stream, Length, Wait, DeviceIdle, Before, After, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;

    explicit GpuGapModel(QObject* parent = nullptr);

    // Null: empty. `capture` names the regions before and after.
    void setDevice(std::shared_ptr<const model::Capture> capture, const model::analysis::DeviceFigures* device);
    const model::analysis::StreamGap* gap(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::shared_ptr<const model::Capture> m_capture;
    std::vector<model::analysis::StreamGap> m_gaps;
    int64_t m_origin = 0; // the device's first start, ns
};

} // namespace spanscope::views
