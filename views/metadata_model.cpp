#include "metadata_model.h"

namespace spanscope::views {

namespace {

QString kindName(model::MetadataValue::Kind kind)
{
    using Kind = model::MetadataValue::Kind;
    switch (kind) {
    case Kind::String:
        return MetadataModel::tr("text");
    case Kind::Integer:
        return MetadataModel::tr("integer");
    case Kind::Float:
        return MetadataModel::tr("number");
    case Kind::Bool:
        return MetadataModel::tr("boolean");
    case Kind::StringList:
        return MetadataModel::tr("list");
    case Kind::Other:
        return MetadataModel::tr("other");
    }
    return {};
}

} // namespace

MetadataModel::MetadataModel(QObject* parent) : QAbstractTableModel(parent) {}

void MetadataModel::setCapture(std::shared_ptr<const model::Capture> capture)
{
    beginResetModel();
    m_capture = std::move(capture);
    endResetModel();
}

int MetadataModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !m_capture ? 0 : int(m_capture->metadata.size());
}

int MetadataModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant MetadataModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const auto& entry = m_capture->metadata[size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        return index.column() == KeyColumn ? QString::fromStdString(entry.key)
                                           : QString::fromStdString(entry.value.display());
    case Qt::ToolTipRole:
        if (index.column() == KeyColumn)
            return QString::fromStdString(entry.key);
        return tr("%1 (%2)").arg(QString::fromStdString(entry.value.display()),
                                 kindName(entry.value.kind));
    default:
        return {};
    }
}

QVariant MetadataModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::DisplayRole)
        return section == KeyColumn ? tr("Key") : tr("Value");
    return QAbstractTableModel::headerData(section, orientation, role);
}

} // namespace spanscope::views
