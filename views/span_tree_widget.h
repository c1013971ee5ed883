#pragma once
// The "Span tree" tab: per lane (or merged over lanes) the nested ranges as an expandable
// tree merged by call path, with NVTX domain and category filters when the capture has
// them. Large captures are rebuilt on a worker (latest wins). GUI thread only.

#include "model/capture.h"
#include "model/stats/span_tree.h"
#include "views/latest_job.h"

#include <QSet>
#include <QStringList>
#include <QWidget>
#include <memory>

class QComboBox;
class QSortFilterProxyModel;
class QTreeView;

namespace spanscope::views {

class SpanTreeModel;

class SpanTreeWidget : public QWidget
{
    Q_OBJECT

public:
    // Captures with more calls than this are rebuilt off the GUI thread.
    static constexpr size_t kAsyncCallThreshold = 200'000;

    explicit SpanTreeWidget(QWidget* parent = nullptr);
    ~SpanTreeWidget() override;

    // Shows a new snapshot (may be null); resets the filters. With `update` (a newer
    // snapshot of a growing capture) the filters and expanded nodes stay, a hidden tree
    // waits until it is shown to rebuild, and every rebuild runs on a worker.
    void setCapture(std::shared_ptr<const model::Capture> capture, bool update = false);
    // The filter the controls describe now.
    model::SpanTreeFilter currentFilter() const;
    // Rebuilds captures with more calls than `calls` on a worker (tests lower it).
    void setAsyncThreshold(size_t calls) { m_asyncThreshold = calls; }

    // The parts, for tests.
    QTreeView* treeView() const { return m_view; }
    SpanTreeModel* model() const { return m_model; }
    QComboBox* laneMode() const { return m_laneMode; }
    QComboBox* domainFilter() const { return m_domains; }
    QComboBox* categoryFilter() const { return m_categories; }

signals:
    // A node of a region was selected (region id into Capture::regionNames).
    void regionSelected(int region);
    // A rebuild finished and the tree shows the current filter.
    void treeUpdated();

protected:
    void showEvent(QShowEvent* event) override;

private:
    void fillFilters();
    void rebuild();
    void showTree(std::shared_ptr<const model::SpanTree> tree);
    void currentChanged(const QModelIndex& current);

    std::shared_ptr<const model::Capture> m_capture;
    SpanTreeModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    QTreeView* m_view = nullptr;
    QComboBox* m_laneMode = nullptr;
    QComboBox* m_domains = nullptr;
    QComboBox* m_categories = nullptr;
    LatestJob m_job; // latest wins: an older build still running is dropped
    size_t m_asyncThreshold = kAsyncCallThreshold;
    bool m_live = false;          // the capture grows: every rebuild on a worker
    bool m_stale = false;         // an update arrived while hidden
    bool m_keepExpansion = false; // the next tree shown restores m_expanded
    QSet<QStringList> m_expanded; // names from the root of each expanded node
};

} // namespace spanscope::views
