#include "synced_timelines.h"

#include "run_colors.h"
#include "views/timeline/timeline_view.h"
#include "views/wheel_guard.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

namespace spanscope::views {

namespace {

// Offsets typed in ns: a day either way is more than any run lasts.
constexpr double kMaxOffsetNs = 86'400e9;
constexpr int kSwatchPx = 10;

bool darkPalette(const QWidget* widget)
{
    return widget->palette().color(QPalette::Window).lightness() < 128;
}

} // namespace

SyncedTimelines::SyncedTimelines(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto* controls = new QHBoxLayout;
    controls->setContentsMargins(4, 0, 4, 0);
    m_alignmentBox = new QComboBox;
    m_alignmentBox->setObjectName(QStringLiteral("timelineAlignment"));
    m_alignmentBox->addItem(tr("Run start"), int(TimelineAlignment::RunStart));
    m_alignmentBox->addItem(tr("Time offset"), int(TimelineAlignment::TimeOffset));
    m_alignmentBox->addItem(tr("First call of region"), int(TimelineAlignment::FirstCall));
    m_alignmentBox->setToolTip(tr("Which moments of the runs line up: their starts, their starts "
                                  "shifted by an offset per run, or the first call of a region"));
    m_regionBox = new QComboBox;
    m_regionBox->setObjectName(QStringLiteral("alignRegion"));
    m_regionBox->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_regionBox->setToolTip(
        tr("The region whose first call starts at the same moment in every run"));
    m_regionBox->setEnabled(false);
    controls->addWidget(new QLabel(tr("Timelines aligned by")));
    controls->addWidget(m_alignmentBox);
    controls->addWidget(m_regionBox);
    controls->addStretch(1);
    controls->addWidget(new QLabel(tr("zoom and pan move every run")));
    layout->addLayout(controls);

    // Each run's timeline sizes by its splitter handle; when runs outnumber the room for
    // their minimum heights the stack scrolls instead of growing the window.
    m_splitter = new QSplitter(Qt::Vertical);
    m_splitter->setObjectName(QStringLiteral("runTimelinesSplitter"));
    m_splitter->setChildrenCollapsible(false);
    connect(m_splitter, &QSplitter::splitterMoved, this, [this] { m_userSized = true; });
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(m_splitter);
    layout->addWidget(scroll, 1);

    connect(m_alignmentBox, &QComboBox::currentIndexChanged, this,
            [this] { setAlignment(TimelineAlignment(m_alignmentBox->currentData().toInt())); });
    connect(m_regionBox, &QComboBox::currentIndexChanged, this, &SyncedTimelines::realign);
}

SyncedTimelines::~SyncedTimelines() = default;

TimelineView* SyncedTimelines::view(int run) const
{
    return m_runs[size_t(run)].view;
}

void SyncedTimelines::setRuns(std::vector<TimelineRun> runs)
{
    for (auto& run : m_runs)
        delete run.panel;
    m_runs.clear();
    m_syncing = true; // each setCapture() fits its own run; nothing to relay yet
    for (auto& data : runs) {
        m_runs.push_back({});
        m_runs.back().data = std::move(data);
    }
    for (size_t i = 0; i < m_runs.size(); ++i)
        m_splitter->addWidget(makePanel(m_runs[i], i));
    // One set of region colours over every run, the baseline's regions first: a region
    // looks the same in each, and regions drawn together stay apart.
    auto palette = std::make_shared<RegionPalette>();
    for (const auto& run : m_runs)
        if (run.data.capture)
            palette->add(*run.data.capture);
    for (const auto& run : m_runs)
        run.view->setRegionPalette(palette);
    m_syncing = false;
    fitPanels();
    fillRegionChoices();
    updateAnchors();
    applyCommonRun();
}

void SyncedTimelines::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitPanels();
}

void SyncedTimelines::fitPanels()
{
    if (m_userSized || m_runs.empty())
        return;
    // Each run what its lanes take (its title row included); QSplitter scales the sizes
    // to the room there is, and the panels' minimum heights make the stack scroll beyond.
    QList<int> sizes;
    for (const auto& run : m_runs)
        sizes << run.panel->sizeHint().height() - run.view->sizeHint().height() + run.view->fullHeight();
    m_splitter->setSizes(sizes);
}

QWidget* SyncedTimelines::makePanel(Run& run, size_t index)
{
    run.panel = new QWidget;
    auto* layout = new QVBoxLayout(run.panel);
    layout->setContentsMargins(0, 2, 0, 0);
    layout->setSpacing(1);
    auto* header = new QHBoxLayout;
    header->setContentsMargins(4, 0, 4, 0);
    auto* swatch = new QLabel;
    QPixmap pixmap(kSwatchPx, kSwatchPx);
    pixmap.fill(runColor(index, darkPalette(this)));
    swatch->setPixmap(pixmap);
    auto* label =
        new QLabel(index == 0 ? tr("<b>%1</b> (baseline)").arg(run.data.label.toHtmlEscaped())
                              : QStringLiteral("<b>%1</b>").arg(run.data.label.toHtmlEscaped()));
    label->setObjectName(QStringLiteral("timelineLabel"));
    run.note = new QLabel;
    run.note->setEnabled(false);
    run.offsetBox = new QDoubleSpinBox;
    takeWheelOnlyWhenFocused(run.offsetBox);
    run.offsetBox->setObjectName(QStringLiteral("timelineOffset"));
    run.offsetBox->setDecimals(0);
    run.offsetBox->setRange(-kMaxOffsetNs, kMaxOffsetNs);
    run.offsetBox->setSingleStep(1000.0);
    run.offsetBox->setSuffix(tr(" ns"));
    run.offsetBox->setToolTip(tr("Shift of this run against the others, ns"));
    run.offsetBox->setVisible(m_alignment == TimelineAlignment::TimeOffset);
    header->addWidget(swatch);
    header->addWidget(label);
    header->addWidget(run.note, 1);
    header->addWidget(run.offsetBox);
    layout->addLayout(header);

    run.view = new TimelineView;
    run.view->setObjectName(QStringLiteral("comparedTimeline"));
    run.view->setDarkPalette(darkPalette(this));
    run.view->setMinimumHeight(110);
    if (run.data.timeline)
        run.view->setCapture(run.data.capture, run.data.timeline);
    else
        run.note->setText(tr("no per-call data: nothing to draw"));
    layout->addWidget(run.view, 1);

    connect(run.view->zoom(), &TimelineZoom::changed, this, [this, index] { follow(index); });
    connect(run.offsetBox, &QDoubleSpinBox::valueChanged, this,
            [this, index](double ns) { setRunOffset(int(index), int64_t(ns)); });
    return run.panel;
}

void SyncedTimelines::fillRegionChoices()
{
    const QString previous = m_regionBox->currentText();
    const QSignalBlocker blocker(m_regionBox);
    m_regionBox->clear();
    // The baseline's regions by first call, then those that only later runs have.
    QStringList names;
    for (const auto& run : m_runs) {
        if (!run.data.capture || !run.data.summary)
            continue;
        for (const uint32_t region : run.data.summary->regionOrder) {
            const QString name = QString::fromStdString(run.data.capture->regionName(region));
            if (!names.contains(name))
                names << name;
        }
    }
    m_regionBox->addItems(names);
    const int index = m_regionBox->findText(previous);
    m_regionBox->setCurrentIndex(index >= 0 ? index : 0);
}

void SyncedTimelines::setAlignment(TimelineAlignment alignment)
{
    m_alignment = alignment;
    {
        const QSignalBlocker blocker(m_alignmentBox);
        m_alignmentBox->setCurrentIndex(m_alignmentBox->findData(int(alignment)));
    }
    m_regionBox->setEnabled(alignment == TimelineAlignment::FirstCall);
    for (auto& run : m_runs)
        run.offsetBox->setVisible(alignment == TimelineAlignment::TimeOffset);
    realign();
}

void SyncedTimelines::setAlignRegion(const QString& name)
{
    const int index = m_regionBox->findText(name);
    if (index >= 0)
        m_regionBox->setCurrentIndex(index); // re-anchors through currentIndexChanged
}

QString SyncedTimelines::alignRegion() const
{
    return m_regionBox->currentText();
}

void SyncedTimelines::setRunOffset(int run, int64_t ns)
{
    Run& r = m_runs[size_t(run)];
    r.offset = ns;
    {
        const QSignalBlocker blocker(r.offsetBox);
        r.offsetBox->setValue(double(ns));
    }
    realign();
}

std::optional<int64_t> SyncedTimelines::firstCallStart(const model::Capture& capture,
                                                       const model::CaptureSummary& summary,
                                                       const std::string& region)
{
    for (uint32_t id = 0; id < capture.regionNames.size(); ++id) {
        if (capture.regionName(id) != region)
            continue;
        const auto& stats = summary.pooled(id);
        if (stats.closedCalls() == 0 || stats.summaryOnly)
            return std::nullopt;
        return stats.startMin;
    }
    return std::nullopt;
}

void SyncedTimelines::updateAnchors()
{
    const std::string region = alignRegion().toStdString();
    for (auto& run : m_runs) {
        const int64_t start = run.data.timeline ? run.data.timeline->begin() : 0;
        run.anchor = start;
        QString note = run.data.timeline ? QString() : tr("no per-call data: nothing to draw");
        if (m_alignment == TimelineAlignment::TimeOffset) {
            run.anchor = start + run.offset;
        } else if (m_alignment == TimelineAlignment::FirstCall && run.data.capture) {
            if (const auto first = firstCallStart(*run.data.capture, *run.data.summary, region))
                run.anchor = *first;
            else if (run.data.timeline)
                note = tr("no calls of %1: aligned at its start").arg(alignRegion());
        }
        run.note->setText(note);
    }
}

void SyncedTimelines::follow(size_t leader)
{
    if (m_syncing || leader >= m_runs.size())
        return;
    m_syncing = true;
    const TimelineZoom* zoom = m_runs[leader].view->zoom();
    const int64_t start = zoom->start() - m_runs[leader].anchor;
    const int64_t end = zoom->end() - m_runs[leader].anchor;
    for (size_t i = 0; i < m_runs.size(); ++i)
        if (i != leader && m_runs[i].data.timeline)
            m_runs[i].view->zoom()->setRange(start + m_runs[i].anchor, end + m_runs[i].anchor);
    m_syncing = false;
}

void SyncedTimelines::realign()
{
    // The baseline keeps the window it shows; the others follow it under the new anchors.
    std::optional<std::pair<int64_t, int64_t>> window;
    if (!m_runs.empty() && m_runs.front().data.timeline) {
        const TimelineZoom* zoom = m_runs.front().view->zoom();
        window = std::make_pair(zoom->start() - m_runs.front().anchor,
                                zoom->end() - m_runs.front().anchor);
    }
    updateAnchors();
    applyCommonRun();
    if (window) {
        const int64_t anchor = m_runs.front().anchor;
        m_runs.front().view->zoom()->setRange(window->first + anchor, window->second + anchor);
        follow(0);
    }
}

void SyncedTimelines::applyCommonRun()
{
    // Every view gets the same run range in aligned time, from the earliest aligned start
    // to the latest aligned end of all runs: their zoom limits then agree, so a window one
    // view accepts fits every other (each clamps to its own run range otherwise).
    int64_t lowest = std::numeric_limits<int64_t>::max();
    int64_t highest = std::numeric_limits<int64_t>::min();
    for (const auto& run : m_runs) {
        if (!run.data.timeline)
            continue;
        lowest = std::min(lowest, run.data.timeline->begin() - run.anchor);
        highest = std::max(highest, run.data.timeline->end() - run.anchor);
    }
    if (lowest > highest)
        return;
    m_syncing = true; // setRun() fits each view to the common range: already in step
    for (auto& run : m_runs)
        if (run.data.timeline)
            run.view->zoom()->setRun(lowest + run.anchor, highest + run.anchor);
    m_syncing = false;
}

void SyncedTimelines::setHighlightRegion(const std::string& name)
{
    for (auto& run : m_runs) {
        int found = -1;
        if (run.data.capture && !name.empty())
            for (uint32_t id = 0; id < run.data.capture->regionNames.size(); ++id)
                if (run.data.capture->regionName(id) == name) {
                    found = int(id);
                    break;
                }
        run.view->setHighlightRegion(found);
    }
}

} // namespace spanscope::views
