#include "span_tree_widget.h"

#include "span_tree_model.h"

#include <QComboBox>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace spanscope::views {

SpanTreeWidget::SpanTreeWidget(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* controls = new QHBoxLayout;
    m_laneMode = new QComboBox;
    m_laneMode->setObjectName(QStringLiteral("spanTreeLaneMode"));
    m_laneMode->addItem(tr("Per thread"));
    m_laneMode->addItem(tr("All lanes merged"));
    m_domains = new QComboBox;
    m_domains->setObjectName(QStringLiteral("spanTreeDomains"));
    m_categories = new QComboBox;
    m_categories->setObjectName(QStringLiteral("spanTreeCategories"));
    for (QComboBox* combo : {m_laneMode, m_domains, m_categories})
        combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    controls->addWidget(m_laneMode);
    controls->addWidget(m_domains);
    controls->addWidget(m_categories);
    controls->addStretch(1);
    layout->addLayout(controls);

    m_model = new SpanTreeModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(SpanTreeModel::SortRole);
    m_view = new QTreeView;
    m_view->setObjectName(QStringLiteral("spanTreeView"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(-1, Qt::AscendingOrder); // first appearance until the user sorts
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->header()->setStretchLastSection(false);
    m_view->header()->setSectionResizeMode(SpanTreeModel::NameColumn, QHeaderView::Stretch);
    layout->addWidget(m_view, 1);

    fillFilters();
    connect(m_laneMode, &QComboBox::currentIndexChanged, this, &SpanTreeWidget::rebuild);
    connect(m_domains, &QComboBox::currentIndexChanged, this, &SpanTreeWidget::rebuild);
    connect(m_categories, &QComboBox::currentIndexChanged, this, &SpanTreeWidget::rebuild);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this,
            [this](const QModelIndex& current) { currentChanged(current); });
}

SpanTreeWidget::~SpanTreeWidget() = default;

namespace {

QStringList pathOf(QModelIndex index)
{
    QStringList path;
    for (; index.isValid(); index = index.parent())
        path.prepend(index.siblingAtColumn(SpanTreeModel::NameColumn).data().toString());
    return path;
}

} // namespace

void SpanTreeWidget::setCapture(std::shared_ptr<const model::Capture> capture, bool update)
{
    m_capture = std::move(capture);
    // A growing capture is rebuilt about ten times a second: always off the GUI thread.
    m_live = update;
    const QVariant domain = m_domains->currentData(), category = m_categories->currentData();
    fillFilters();
    if (update) {
        const QSignalBlocker domainBlocker(m_domains), categoryBlocker(m_categories);
        m_domains->setCurrentIndex(std::max(0, m_domains->findData(domain)));
        m_categories->setCurrentIndex(std::max(0, m_categories->findData(category)));
        if (!isVisible()) {
            m_stale = true; // rebuilt when shown: nobody looks at it meanwhile
            return;
        }
        m_keepExpansion = true;
    }
    rebuild();
}

void SpanTreeWidget::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale) {
        m_stale = false;
        m_keepExpansion = true;
        rebuild();
    }
}

void SpanTreeWidget::fillFilters()
{
    const QSignalBlocker domainBlocker(m_domains), categoryBlocker(m_categories);
    m_domains->clear();
    m_categories->clear();
    const bool nvtx = m_capture && m_capture->nvtx.ranges();
    m_domains->setVisible(nvtx);
    m_categories->setVisible(nvtx);
    if (!nvtx)
        return;
    const auto& tables = m_capture->nvtx;
    m_domains->addItem(tr("All domains"));
    for (const auto& domain : tables.domains)
        m_domains->addItem(QString::fromStdString(m_capture->strings.text(domain.name)),
                           QVariant::fromValue(domain.id));
    m_categories->addItem(tr("All categories"));
    for (const auto& category : tables.categories)
        m_categories->addItem(QString::fromStdString(m_capture->strings.text(category.name)),
                              QVariantList{category.domain, category.category});
}

model::SpanTreeFilter SpanTreeWidget::currentFilter() const
{
    model::SpanTreeFilter filter;
    filter.mergeLanes = m_laneMode->currentIndex() == 1;
    if (m_domains->currentIndex() > 0)
        filter.domains = std::set<uint32_t>{m_domains->currentData().toUInt()};
    if (m_categories->currentIndex() > 0) {
        const QVariantList key = m_categories->currentData().toList();
        filter.categories =
            std::set<std::pair<uint32_t, uint32_t>>{{key[0].toUInt(), key[1].toUInt()}};
    }
    return filter;
}

void SpanTreeWidget::rebuild()
{
    m_job.cancel();
    if (!m_capture || !m_capture->eventDataAvailable) {
        showTree(nullptr);
        return;
    }
    const model::SpanTreeFilter filter = currentFilter();
    if (m_capture->events.size() <= m_asyncThreshold && !m_live) {
        showTree(std::make_shared<const model::SpanTree>(model::buildSpanTree(*m_capture, filter)));
        return;
    }
    m_job.run(
        [capture = m_capture, filter] {
            return std::make_shared<const model::SpanTree>(model::buildSpanTree(*capture, filter));
        },
        [this](std::shared_ptr<const model::SpanTree> tree) { showTree(std::move(tree)); });
}

void SpanTreeWidget::showTree(std::shared_ptr<const model::SpanTree> tree)
{
    // Walks down from the root into the nodes `descend` accepts (and calls it on each).
    auto walk = [this](const auto& descend) {
        std::vector<QModelIndex> open{QModelIndex()};
        while (!open.empty()) {
            const QModelIndex parent = open.back();
            open.pop_back();
            for (int row = 0; row < m_proxy->rowCount(parent); ++row)
                if (const QModelIndex child = m_proxy->index(row, 0, parent); descend(child))
                    open.push_back(child);
        }
    };
    if (m_keepExpansion) {
        // Remember what the user opened, by the names on the way down from the root.
        walk([this](const QModelIndex& node) {
            if (!m_view->isExpanded(node))
                return false;
            m_expanded.insert(pathOf(node));
            return true;
        });
    }
    m_model->setTree(m_capture, std::move(tree));
    if (m_keepExpansion && !m_expanded.isEmpty()) {
        walk([this](const QModelIndex& node) {
            if (!m_expanded.contains(pathOf(node)))
                return false;
            m_view->expand(node);
            return true;
        });
    } else {
        m_view->expandToDepth(1); // lanes and their top-level ranges
    }
    m_keepExpansion = false;
    m_expanded.clear();
    m_view->resizeColumnToContents(SpanTreeModel::CallsColumn);
    m_view->resizeColumnToContents(SpanTreeModel::InclusiveColumn);
    m_view->resizeColumnToContents(SpanTreeModel::ExclusiveColumn);
    m_view->resizeColumnToContents(SpanTreeModel::ShareColumn);
    emit treeUpdated();
}

void SpanTreeWidget::currentChanged(const QModelIndex& current)
{
    const int region = current.data(SpanTreeModel::RegionRole).toInt();
    if (current.isValid() && region >= 0)
        emit regionSelected(region);
}

} // namespace spanscope::views
