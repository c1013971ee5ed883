#pragma once
// The run metadata of a capture (attributes of /metadata) as a two-column key/value table.
// Reads the immutable capture it is given. GUI thread only.

#include "model/capture.h"

#include <QAbstractTableModel>
#include <memory>

namespace spanscope::views {

class MetadataModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { KeyColumn, ValueColumn, ColumnCount };

    explicit MetadataModel(QObject* parent = nullptr);

    // Null shows nothing. Resets the model.
    void setCapture(std::shared_ptr<const model::Capture> capture);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const model::Capture> m_capture;
};

} // namespace spanscope::views
