#pragma once
// The timelines of every run of a comparison, stacked (baseline on top), each with a label
// in its run's colour. Zooming or panning any of them moves all the others: a view's
// window [start, end) in its own clock becomes [start - anchor(i) + anchor(j), ...) in run
// j's, where anchor(i) is the moment of run i (ns, its own clock) that lines up with the
// others. Anchors come from the alignment: each run's start, its start plus an offset the
// user types, or the first call of a chosen region. A region keeps its colour in every run
// (regionColor hashes the name). Every view gets the same run range in aligned time (the
// union of the runs), so their zoom limits agree and one window fits all; the ruler of each
// view counts from that common start. GUI thread only.

#include "model/capture.h"
#include "model/stats/capture_summary.h"
#include "model/timeline/timeline_index.h"

#include <QWidget>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSplitter;

namespace spanscope::views {

class TimelineView;

enum class TimelineAlignment {
    RunStart,   // every run's first call at the same moment
    TimeOffset, // run start plus a per-run offset (ns) the user sets
    FirstCall,  // the first call of one region at the same moment in every run
};

struct TimelineRun
{
    QString label; // file name
    std::shared_ptr<const model::Capture> capture;
    std::shared_ptr<const model::CaptureSummary> summary;
    std::shared_ptr<const model::TimelineIndex> timeline; // null: no per-call data
};

class SyncedTimelines : public QWidget
{
    Q_OBJECT

public:
    explicit SyncedTimelines(QWidget* parent = nullptr);
    ~SyncedTimelines() override;

    // One timeline per run, first the baseline; resets offsets, keeps the alignment mode
    // and the region when the new runs still have it.
    void setRuns(std::vector<TimelineRun> runs);
    int runCount() const { return int(m_runs.size()); }
    TimelineView* view(int run) const;

    void setAlignment(TimelineAlignment alignment);
    TimelineAlignment alignment() const { return m_alignment; }
    // The region whose first call aligns the runs in FirstCall mode.
    void setAlignRegion(const QString& name);
    QString alignRegion() const;
    // Extra shift of a run in TimeOffset mode, ns (positive: later moments of that run
    // line up with the others).
    void setRunOffset(int run, int64_t ns);
    int64_t runOffset(int run) const { return m_runs[size_t(run)].offset; }

    // The moment of `run` (ns, its own clock) that lines up with the other runs' anchors.
    int64_t anchor(int run) const { return m_runs[size_t(run)].anchor; }

    // Outlines the calls of a region (by name) in every run; empty clears.
    void setHighlightRegion(const std::string& name);

    // Start of the first closed call of a region over all ranks (ns), if the run has one.
    static std::optional<int64_t> firstCallStart(const model::Capture& capture,
                                                 const model::CaptureSummary& summary,
                                                 const std::string& region);

    QSplitter* splitter() const { return m_splitter; }
    // Shares the height among the runs by the lanes each has to show, until the user drags
    // a handle between them (then their sizes are theirs).
    void fitPanels();

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    struct Run
    {
        TimelineRun data;
        int64_t offset = 0; // TimeOffset mode, ns
        int64_t anchor = 0; // see anchor()
        QWidget* panel = nullptr;
        QLabel* note = nullptr;
        QDoubleSpinBox* offsetBox = nullptr;
        TimelineView* view = nullptr;
    };

    QWidget* makePanel(Run& run, size_t index);
    void fillRegionChoices();
    void updateAnchors();
    void follow(size_t leader);
    void realign();
    void applyCommonRun();

    std::vector<Run> m_runs;
    TimelineAlignment m_alignment = TimelineAlignment::RunStart;
    bool m_syncing = false; // set while views follow a leader: their changes are not re-sent
    QComboBox* m_alignmentBox = nullptr;
    QComboBox* m_regionBox = nullptr;
    QSplitter* m_splitter = nullptr;
    bool m_userSized = false;
};

} // namespace spanscope::views
