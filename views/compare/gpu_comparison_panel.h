#pragma once
// The GPU tab of a comparison: each run's GPU analyses side by side (computed off the GUI
// thread, latest wins): per device its span, compute / communication / memory / idle shares
// and launch latency median, per rank its critical path's length and what bounds it, each
// candidate's difference against the baseline beside it (worse in red, better in green).
// Devices and ranks match in order, or by (rank, device) per rank (model/analysis/
// gpu_comparison.h). GUI thread only.

#include "model/analysis/gpu_comparison.h"
#include "model/capture.h"

#include <QString>
#include <QWidget>
#include <memory>
#include <vector>

class QLabel;
class QTableWidget;

namespace spanscope::views {

class LatestJob;

class GpuComparisonPanel : public QWidget
{
    Q_OBJECT

public:
    explicit GpuComparisonPanel(QWidget* parent = nullptr);

    // The runs in the comparison's order (the baseline first); analyses them again.
    void setRuns(std::vector<QString> labels, std::vector<std::shared_ptr<const model::Capture>> captures,
                 bool perRank);
    // The kernel classes the analyses use from the next setRuns() on.
    void setKernelClasses(const model::analysis::KernelClasses& classes) { m_classes = classes; }
    // Whether any of the runs has GPU work (the tab is shown only then).
    static bool anyGpuWork(const std::vector<std::shared_ptr<const model::Capture>>& captures);

    const std::shared_ptr<const model::analysis::GpuComparison>& comparison() const { return m_comparison; }
    QTableWidget* devicesTable() const { return m_devices; }
    QTableWidget* pathsTable() const { return m_paths; }

signals:
    void comparisonShown();

private:
    void show(std::shared_ptr<const model::analysis::GpuComparison> comparison);

    std::vector<QString> m_labels;
    model::analysis::KernelClasses m_classes;
    std::shared_ptr<const model::analysis::GpuComparison> m_comparison;
    LatestJob* m_job = nullptr;
    QLabel* m_message = nullptr;
    QTableWidget* m_devices = nullptr;
    QTableWidget* m_paths = nullptr;
};

} // namespace spanscope::views
