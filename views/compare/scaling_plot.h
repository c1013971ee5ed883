#pragma once
// Strong scaling across the runs of a comparison: for each run a size n (ranks or threads;
// by default the file's mpi_size, else its rank count, editable in a small table), and for
// the selected region, or the five regions with the largest baseline total, the speedup
// T_first / T_n of the slowest rank's total time against the ideal n / n_first, with the
// parallel efficiency (speedup / ideal) on the right axis. Needs two runs or more. GUI
// thread only.

#include "model/capture.h"
#include "model/stats/capture_summary.h"
#include "scaling_series.h"

#include <QWidget>
#include <memory>
#include <string>
#include <vector>

class QComboBox;
class QCustomPlot;
class QTableWidget;
class QTableWidgetItem;

namespace spanscope::views {

class PlotFrame;

struct ScalingRun
{
    QString label;
    std::shared_ptr<const model::Capture> capture;
    std::shared_ptr<const model::CaptureSummary> summary;
};

class ScalingPlot : public QWidget
{
    Q_OBJECT

public:
    enum class Regions { Selected, TopFive };
    static constexpr size_t kTopRegions = 5;

    explicit ScalingPlot(QWidget* parent = nullptr);
    ~ScalingPlot() override;

    // Resets the run sizes to their defaults.
    void setRuns(std::vector<ScalingRun> runs);
    void setSelectedRegion(const std::string& name);
    void setRegions(Regions regions);
    Regions regions() const;

    void setRunSize(int run, double n);
    double runSize(int run) const { return m_sizes[size_t(run)]; }

    // The regions plotted now, and one region's points (in run order).
    const std::vector<std::string>& plottedRegions() const { return m_plotted; }
    std::vector<ScalingPoint> series(const std::string& region) const;

    PlotFrame* frame() const { return m_frame; }
    QCustomPlot* plot() const;
    QTableWidget* sizeTable() const { return m_sizeTable; }

private:
    void fillSizeTable();
    void sizeEdited(QTableWidgetItem* item);
    std::vector<std::string> topRegions() const;
    void replot();

    std::vector<ScalingRun> m_runs;
    std::vector<double> m_sizes;
    std::string m_selected;
    std::vector<std::string> m_plotted;

    QComboBox* m_regionsBox = nullptr;
    QTableWidget* m_sizeTable = nullptr;
    PlotFrame* m_frame = nullptr;
};

} // namespace spanscope::views
