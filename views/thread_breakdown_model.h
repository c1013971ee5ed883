#pragma once
// Statistics of one region split by the thread each call ran on (model::threadBreakdown),
// shown in the details panel. Owns its small result vector. GUI thread only.

#include "model/stats/capture_summary.h"

#include <QAbstractTableModel>
#include <vector>

namespace spanscope::views {

class ThreadBreakdownModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        RankColumn,
        ThreadColumn,
        CallsColumn,
        TotalColumn,
        MeanColumn,
        ExclusiveColumn,
        ColumnCount
    };

    explicit ThreadBreakdownModel(QObject* parent = nullptr);

    void setBreakdown(std::vector<model::ThreadBreakdown> breakdown);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::vector<model::ThreadBreakdown> m_breakdown;
};

} // namespace spanscope::views
