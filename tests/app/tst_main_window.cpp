// Smoke test of the viewer window on the offscreen platform: open files (by call, by drop),
// wait for the worker to finish, drive the rank selector, the table and the filter, and see
// errors reported through MainWindow's error hook instead of a blocking dialog.

#include "support/isolated_settings.h"
#include "app/capture_tab.h"
#include "app/kernel_classes_dialog.h"
#include "app/lane_layout_memory.h"
#include "app/main_window.h"
#include "app/recent_files.h"
#include "support/pool_gate.h"
#include "support/screenshots.h"
#include "views/capture_view.h"
#include "views/timeline/timeline_view.h"
#include "views/plots/plot_frame.h"
#include "views/plots/duration_histogram.h"
#include "views/region_details_widget.h"
#include "views/region_table_model.h"

#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QMimeData>
#include <QPushButton>
#include <QHeaderView>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace spanscope;
using Field = views::RegionDetailsWidget::Field;

namespace {

constexpr int kLoadTimeoutMs = 30'000;

QString dataFile(const char* relative)
{
    return QStringLiteral(SPANSCOPE_TEST_DATA "/") + QString::fromUtf8(relative);
}

// Records errors instead of opening a modal message box.
class RecordingMainWindow : public app::MainWindow
{
public:
    struct Shown
    {
        QString title, text, details;
    };
    QList<Shown> errors;

protected:
    void showError(const QString& title, const QString& text, const QString& details) override
    {
        errors.append({title, text, details});
    }
};

// Shortcuts only reach the active window.
bool showActive(QWidget& window)
{
    window.show();
    QApplication::setActiveWindow(&window);
    return QTest::qWaitForWindowActive(&window);
}

// Shows `window` at `size`, opens the test file `file` in it and waits for its load; true
// once loaded.
bool openAtSize(RecordingMainWindow& window, QSize size, const char* file)
{
    window.resize(size);
    if (!showActive(window))
        return false;
    window.openFile(dataFile(file));
    return QTest::qWaitFor([&] { return !window.isLoading(); }, kLoadTimeoutMs);
}

int findRegionRow(const QAbstractItemModel& model, const QString& name, int rank = -1)
{
    for (int row = 0; row < model.rowCount(); ++row)
        if (model.index(row, 0).data().toString() == name &&
            (rank < 0 || model.index(row, 1).data().toString() == QString::number(rank)))
            return row;
    return -1;
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void opensFileAndBrowsesRegions();
    void reportsErrorsThroughHook();
    void closingOrCancellingWhileLoading();
    void dropOpensFiles();
    void remembersSettings();
    void layoutGivesEveryPartRoom();
    void gpuTraceOpensWithEveryStreamInView();
    void themeAppliesToEveryWidget();
    void tabTitlesAreWholeAndDistinct();
    void kernelClassesAreCheckedAndRemembered();
    void laneLayoutIsRememberedPerFile();
};

void TestMainWindow::initTestCase()
{
    // Keeps the user's real settings and recent files out of the test.
    spanscope::testing::isolateSettings(); // no shared settings with the user or other test runs
    QCoreApplication::setOrganizationName(QStringLiteral("spanscope"));
    QCoreApplication::setApplicationName(QStringLiteral("spanscope-tests"));
}

void TestMainWindow::init()
{
    QSettings().clear();
}

void TestMainWindow::opensFileAndBrowsesRegions()
{
    RecordingMainWindow window;
    QVERIFY(showActive(window));
    QVERIFY(window.findChild<QPushButton*>(QStringLiteral("welcomeOpen"))->isVisible());

    const QString path = dataFile("scope-profiler/solver-2rank.h5");
    window.openFile(path);
    QCOMPARE(window.tabCount(), 1);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QVERIFY(window.errors.isEmpty());
    app::CaptureTab* tab = window.currentTab();
    QVERIFY(tab && tab->view());
    views::CaptureView* view = tab->view();
    QTableView* table = view->regionTable();
    QVERIFY(table->isVisible());
    QCOMPARE(table->model()->rowCount(), 6);
    QVERIFY(window.windowTitle().startsWith(QStringLiteral("solver-2rank.h5")));
    QCOMPARE(window.recentFiles()->files().value(0), QFileInfo(path).absoluteFilePath());

    // Opening it again shows the same tab.
    window.openFile(path);
    QCOMPARE(window.tabCount(), 1);

    // Rank 1 only: its six rows, with a Rank column.
    QComboBox* ranks = view->rankSelector();
    QCOMPARE(ranks->itemText(0), QStringLiteral("All ranks (pooled)"));
    const int rank1 = ranks->findText(QStringLiteral("Rank 1"));
    QVERIFY(rank1 > 0);
    ranks->setCurrentIndex(rank1);
    QCOMPARE(table->model()->rowCount(), 6);
    QCOMPARE(view->regionModel()->rankSelection(), views::RankSelection::single(1));
    QCOMPARE(table->model()->headerData(1, Qt::Horizontal).toString(), QStringLiteral("Rank"));
    for (int row = 0; row < 6; ++row)
        QCOMPARE(table->model()->index(row, 1).data().toString(), QStringLiteral("1"));

    // Selecting a row fills the details panel.
    views::RegionDetailsWidget* details = view->details();
    const int step = findRegionRow(*table->model(), QStringLiteral("solver.step"));
    QVERIFY(step >= 0);
    table->selectRow(step);
    QCOMPARE(details->regionTitle(), QStringLiteral("solver.step"));
    QCOMPARE(details->fieldText(Field::Calls), QStringLiteral("15"));
    QCOMPARE(details->fieldText(Field::Imbalance), QStringLiteral("\u2013"));

    // Back to pooled: the selection stays on the region, now with both ranks' calls.
    ranks->setCurrentIndex(0);
    QCOMPARE(table->model()->rowCount(), 6);
    QCOMPARE(details->regionTitle(), QStringLiteral("solver.step"));
    QCOMPARE(details->fieldText(Field::Calls), QStringLiteral("30"));
    details->setCustomPercentile(50.0);
    QCOMPARE(details->fieldText(Field::CustomPercentile), details->fieldText(Field::P50));

    // Ctrl+F focuses the filter; typing filters the table.
    QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier);
    QTRY_VERIFY(view->filterEdit()->hasFocus());
    QTest::keyClicks(view->filterEdit(), QStringLiteral("LINEAR"));
    QCOMPARE(table->model()->rowCount(), 1);
    QCOMPARE(details->regionTitle(), QStringLiteral("solver.linear_solve"));
    view->filterEdit()->clear();
    QCOMPARE(table->model()->rowCount(), 6);

    // F5 reloads and keeps the selected region.
    QSignalSpy finished(&window, &app::MainWindow::loadingFinished);
    QTest::keyClick(&window, Qt::Key_F5);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, kLoadTimeoutMs);
    QCOMPARE(window.tabCount(), 1);
    QCOMPARE(table->model()->rowCount(), 6);
    QCOMPARE(details->regionTitle(), QStringLiteral("solver.linear_solve"));

    // Ctrl+W closes the tab; the welcome page returns.
    QTest::keyClick(&window, Qt::Key_W, Qt::ControlModifier);
    QCOMPARE(window.tabCount(), 0);
    QTRY_VERIFY(window.findChild<QPushButton*>(QStringLiteral("welcomeOpen"))->isVisible());
}

void TestMainWindow::reportsErrorsThroughHook()
{
    RecordingMainWindow window;
    window.show();
    QSignalSpy reported(&window, &app::MainWindow::errorReported);

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString notHdf5 = dir.filePath(QStringLiteral("notes.h5"));
    {
        QFile file(notHdf5);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("this is a text file, not a region file\n");
    }
    window.openFile(notHdf5);
    QTRY_COMPARE_WITH_TIMEOUT(window.errors.size(), 1, kLoadTimeoutMs);
    QCOMPARE(reported.count(), 1);
    QCOMPARE(reported.at(0).at(0).toString(), notHdf5);
    const auto& shown = window.errors.front();
    QVERIFY2(shown.title.contains(QStringLiteral("notes.h5")), qPrintable(shown.title));
    QVERIFY2(shown.text.contains(notHdf5), qPrintable(shown.text));
    QVERIFY2(shown.details.contains(QStringLiteral("notes.h5")), qPrintable(shown.details));
    QVERIFY(!shown.details.isEmpty());
    QCOMPARE(window.tabCount(), 0); // nothing to show: the tab went away
    QVERIFY(window.recentFiles()->files().isEmpty());

    window.openFile(dir.filePath(QStringLiteral("missing.h5")));
    QTRY_COMPARE_WITH_TIMEOUT(window.errors.size(), 2, kLoadTimeoutMs);
    QCOMPARE(window.tabCount(), 0);
    QVERIFY(!window.isLoading());
}

void TestMainWindow::closingOrCancellingWhileLoading()
{
    RecordingMainWindow window;
    QVERIFY(showActive(window));
    const QString path = dataFile("scope-profiler/solver-2rank.h5");

    // Close at once, while the worker runs: no crash, no result, no error.
    window.openFile(path);
    QCOMPARE(window.tabCount(), 1);
    QTest::keyClick(&window, Qt::Key_W, Qt::ControlModifier);
    QCOMPARE(window.tabCount(), 0);
    QVERIFY(!window.isLoading());

    // Cancel: the tab closes quietly.
    window.openFile(path);
    QVERIFY(window.currentTab()->isLoading());
    auto* cancel = window.currentTab()->findChild<QPushButton*>(QStringLiteral("cancelLoad"));
    QVERIFY(cancel);
    cancel->click();
    QTRY_COMPARE(window.tabCount(), 0);

    // Latest wins: reloading twice in a row leaves one finished load.
    window.openFile(path);
    window.currentTab()->load();
    window.currentTab()->load();
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QCOMPARE(window.tabCount(), 1);
    QVERIFY(window.currentTab()->view());
    QCOMPARE(window.currentTab()->view()->regionTable()->model()->rowCount(), 6);

    // Cancelling a reload keeps the capture already shown.
    window.currentTab()->load();
    window.currentTab()->cancelLoad();
    QCOMPARE(window.tabCount(), 1);
    QVERIFY(window.currentTab()->view()->isVisible());
    testing::settlePool(); // the abandoned load has finished and its result was delivered
    QVERIFY(window.errors.isEmpty());
    QCOMPARE(window.tabCount(), 1);
    QVERIFY(window.currentTab()->view()->isVisible());
}

void TestMainWindow::dropOpensFiles()
{
    RecordingMainWindow window;
    window.show();
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(dataFile("scope-profiler/solver-2rank.h5")),
                  QUrl::fromLocalFile(dataFile("scope-profiler/compat/schema-3.h5"))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &drop);
    QCOMPARE(window.tabCount(), 2);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    QVERIFY2(window.errors.isEmpty(), qPrintable(window.errors.value(0).details));
    QCOMPARE(window.tabCount(), 2);
    QCOMPARE(window.tab(1)->view()->regionTable()->model()->rowCount(), 1);
    QCOMPARE(window.recentFiles()->files().size(), 2);
}

void TestMainWindow::remembersSettings()
{
    {
        // Untouched, the view sizes itself: no layout is remembered.
        RecordingMainWindow window;
        window.show();
        window.openFile(dataFile("scope-profiler/compat/schema-3.h5"));
        QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
        window.close();
    }
    QVERIFY(QSettings().value(QStringLiteral("captureView/layout")).toByteArray().isEmpty());
    int chosenTimeline = 0;
    {
        // The user drags the timeline's splitter: that is kept.
        RecordingMainWindow window;
        window.resize(1400, 900);
        window.show();
        window.openFile(dataFile("scope-profiler/compat/schema-3.h5"));
        QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
        auto* splitter = window.currentTab()->view()->findChild<QSplitter*>(QStringLiteral("timelineSplitter"));
        QVERIFY(splitter);
        const int total = splitter->sizes().value(0) + splitter->sizes().value(1);
        chosenTimeline = total * 3 / 4;
        splitter->setSizes({chosenTimeline, total - chosenTimeline});
        chosenTimeline = splitter->sizes().value(0);
        emit splitter->splitterMoved(chosenTimeline, 1); // as a drag of the handle does
        QVERIFY(window.currentTab()->view()->layoutChosenByUser());
        window.close();
    }
    const QSettings settings;
    QVERIFY(!settings.value(QStringLiteral("mainWindow/geometry")).toByteArray().isEmpty());
    QVERIFY(!settings.value(QStringLiteral("captureView/layout")).toByteArray().isEmpty());
    QCOMPARE(settings.value(QStringLiteral("recentFiles")).toStringList().size(), 1);
    {
        // The next session opens that way, and resizing keeps the user's choice.
        RecordingMainWindow window;
        window.resize(1400, 900);
        window.show();
        window.openFile(dataFile("scope-profiler/compat/schema-3.h5"));
        QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
        views::CaptureView* view = window.currentTab()->view();
        QVERIFY(view->layoutChosenByUser());
        auto* splitter = view->findChild<QSplitter*>(QStringLiteral("timelineSplitter"));
        QTRY_COMPARE(splitter->sizes().value(0), chosenTimeline);
        view->fitLayout(); // does nothing once the user has chosen
        QCOMPARE(splitter->sizes().value(0), chosenTimeline);
    }

    RecordingMainWindow again;
    QCOMPARE(again.recentFiles()->files().size(), 1);
    again.recentFiles()->clear();
    QVERIFY(QSettings().value(QStringLiteral("recentFiles")).toStringList().isEmpty());
}

// Untouched, the view fits its parts to the window: every lane of a small run, every row of
// a short table, and a plot that keeps real room, at 1400x900 and at 1000x700.
void TestMainWindow::layoutGivesEveryPartRoom()
{
    for (const QSize size : {QSize(1400, 900), QSize(1000, 700)}) {
        RecordingMainWindow window;
        QVERIFY(openAtSize(window, size, "scope-profiler/solver-2rank.h5"));
        views::CaptureView* view = window.currentTab()->view();
        QCoreApplication::processEvents();
        QVERIFY(!view->layoutChosenByUser());
        const QString at = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        QVERIFY2(view->timeline()->height() >= view->timeline()->fullHeight(), qPrintable(at));
        const int rowHeight = view->regionTable()->verticalHeader()->defaultSectionSize();
        const int rowsShown = view->regionTable()->viewport()->height() / rowHeight;
        QVERIFY2(rowsShown >= std::min(6, size.height() >= 900 ? 6 : 4), qPrintable(at + ": rows " + QString::number(rowsShown)));
        QVERIFY2(view->sideTabs()->height() >= (size.height() >= 900 ? views::CaptureView::kMinPlotHeight : 150),
                 qPrintable(at + ": tabs " + QString::number(view->sideTabs()->height())));
    }
}

// A GPU trace opened in the window, as a user opens it: every stream of its device and its
// busiest CPU thread are in the timeline's view, at 1400x900 and at 1000x700, with the GPU
// page under it keeping real room.
void TestMainWindow::gpuTraceOpensWithEveryStreamInView()
{
    for (const QSize size : {QSize(1400, 900), QSize(1000, 700)}) {
        RecordingMainWindow window;
        QVERIFY(openAtSize(window, size, "kineto/sampled-five-streams.json.gz"));
        views::CaptureView* view = window.currentTab()->view();
        views::TimelineView* timeline = view->timeline();
        const QString at = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        const auto& capture = *view->capture();
        // What is not in view, "" when all is (the window settles its layout in steps).
        auto missing = [&]() -> QString {
            if (!timeline->frameUpToDate())
                return QStringLiteral("no frame yet");
            const auto& list = timeline->drawList();
            const int height = timeline->laneArea().height();
            int streams = 0;
            int busiest = -1;
            uint64_t busiestCalls = 0;
            for (size_t lane = 0; lane < list.lanes.size(); ++lane) {
                const model::TimelineLane& info = timeline->index()->lanes()[lane];
                const model::Track& track = capture.track(info.track);
                if (track.kind == model::TrackKind::GpuStream && track.inferredLane == 0) {
                    ++streams;
                    if (list.lanes[lane].y < 0 || list.lanes[lane].y + 10 >= height)
                        return QStringLiteral("a stream lane at %1 of %2").arg(list.lanes[lane].y).arg(height);
                }
                if (track.kind == model::TrackKind::Thread && info.calls > busiestCalls) {
                    busiestCalls = info.calls;
                    busiest = int(lane);
                }
            }
            if (streams < 5 || busiest < 0)
                return QStringLiteral("%1 streams, busiest thread %2").arg(streams).arg(busiest);
            const auto& thread = list.lanes[size_t(busiest)];
            if (thread.collapsed || thread.y + 30 >= height)
                return QStringLiteral("the busiest thread at %1 of %2 (timeline %3, essential %4, pages %5)").arg(thread.y).arg(height).arg(timeline->height()).arg(timeline->essentialHeight()).arg(view->pages()->height());
            return {};
        };
        QTRY_VERIFY2_WITH_TIMEOUT(missing().isEmpty(), qPrintable(at + ": " + missing()), kLoadTimeoutMs);
        QVERIFY2(view->pages()->height() >= size.height() * 30 / 100, qPrintable(at));
        spanscope::testing::saveScreenshot(window, QStringLiteral("gpu-window-") + at);
    }
}

// View > Theme > Dark darkens every widget, the timeline and the plots, and is remembered;
// Follow the System gives back the palette the application started with.
void TestMainWindow::themeAppliesToEveryWidget()
{
    const QColor systemWindow = QApplication::palette().color(QPalette::Window);
    RecordingMainWindow window;
    QVERIFY(showActive(window));
    window.openFile(dataFile("scope-profiler/solver-2rank.h5"));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    views::CaptureView* view = window.currentTab()->view();
    QVERIFY(!view->timeline()->darkPalette());
    auto* dark = window.findChild<QAction*>(QStringLiteral("theme-dark"));
    auto* system = window.findChild<QAction*>(QStringLiteral("theme-system"));
    QVERIFY(dark && system && system->isChecked());
    dark->trigger();
    QCoreApplication::processEvents();
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 128);
    QVERIFY(view->regionTable()->palette().color(QPalette::Base).lightness() < 128);
    QVERIFY(view->timeline()->darkPalette());
    QVERIFY(view->histogram()->frame()->darkPalette());
    QCOMPARE(QSettings().value(QStringLiteral("appearance/theme")).toString(), QStringLiteral("dark"));
    system->trigger();
    QCoreApplication::processEvents();
    QCOMPARE(QApplication::palette().color(QPalette::Window), systemWindow);
    QVERIFY(!view->timeline()->darkPalette());
    QVERIFY(!view->histogram()->frame()->darkPalette());
}

// Two files of the same name get distinct, whole titles; the tab bar scrolls, never elides.
void TestMainWindow::tabTitlesAreWholeAndDistinct()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString copy = dir.filePath(QStringLiteral("solver-2rank.h5"));
    QVERIFY(QFile::copy(dataFile("scope-profiler/solver-2rank.h5"), copy));
    RecordingMainWindow window;
    window.show();
    window.openFile(dataFile("scope-profiler/solver-2rank.h5"));
    window.openFile(copy);
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    auto* tabs = window.findChild<QTabWidget*>(QStringLiteral("captureTabs"));
    QVERIFY(tabs);
    QCOMPARE(tabs->count(), 2);
    QCOMPARE(tabs->tabText(0), QStringLiteral("solver-2rank.h5"));
    QCOMPARE(tabs->tabText(1), QStringLiteral("solver-2rank.h5 (2)"));
    QCOMPARE(tabs->elideMode(), Qt::ElideNone);
    QVERIFY(tabs->usesScrollButtons());
}

QTEST_MAIN(TestMainWindow)
// View › Kernel Classes: a line that is no usable class is named and nothing is kept; good
// ones are kept for the next session and sort kernels in the analyses.
void TestMainWindow::kernelClassesAreCheckedAndRemembered()
{
    app::KernelClassesDialog dialog;
    dialog.setSpecs({QStringLiteral("# my classes"), QStringLiteral("attention=flash|fmha"), QStringLiteral("broken=(")});
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Rejected));
    QVERIFY(dialog.problem()->isVisibleTo(&dialog));
    QVERIFY2(dialog.problem()->text().startsWith(QStringLiteral("Line 3, \u201cbroken=(\u201d")),
             qPrintable(dialog.problem()->text()));
    dialog.setSpecs({QStringLiteral("attention=flash|fmha"), QStringLiteral("communication=^(nccl|rccl)|custom_allreduce"), {}});
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    app::saveKernelClassSpecs(dialog.specs());
    const auto classes = app::savedKernelClasses();
    QCOMPARE(classes.labels().size(), size_t(1));
    QCOMPARE(classes.classOfKernel("custom_allreduce_kernel"), model::analysis::GpuWorkClass::Communication);
    QCOMPARE(classes.labelOf("flash_fwd_kernel"), 0);
    // A saved line that no longer parses leaves the defaults rather than half the classes.
    app::saveKernelClassSpecs({QStringLiteral("(")});
    QVERIFY(app::savedKernelClasses().isDefault());
}

// A lane the user moved to the top stays on top when the file is opened again in a later
// session; another file keeps its own default; the default layout, asked for, is forgotten.
void TestMainWindow::laneLayoutIsRememberedPerFile()
{
    const QString path = dataFile("kineto/tiny-two-streams.json.gz");
    auto openTimeline = [&](RecordingMainWindow& window, const QString& file) -> views::TimelineView* {
        window.openFile(file);
        if (!QTest::qWaitFor([&] { return !window.isLoading(); }, kLoadTimeoutMs) || !window.currentTab()
            || !window.currentTab()->view())
            return nullptr;
        views::TimelineView* timeline = window.currentTab()->view()->timeline();
        return QTest::qWaitFor([&] { return timeline->frameUpToDate(); }, kLoadTimeoutMs) ? timeline : nullptr;
    };
    auto topLane = [](const views::TimelineView* timeline) {
        const auto& lanes = timeline->drawList().lanes;
        size_t top = 0;
        for (size_t lane = 0; lane < lanes.size(); ++lane)
            if (lanes[lane].y < lanes[top].y)
                top = lane;
        return top;
    };
    size_t last = 0;
    {
        RecordingMainWindow window;
        QVERIFY(showActive(window));
        views::TimelineView* timeline = openTimeline(window, path);
        QVERIFY(timeline);
        last = timeline->drawList().lanes.size() - 1;
        QVERIFY(topLane(timeline) != last);
        timeline->moveLane(uint32_t(last), views::TimelineView::kToTop);
        QTRY_VERIFY(timeline->frameUpToDate());
        QCOMPARE(topLane(timeline), last);
    }
    RecordingMainWindow window;
    QVERIFY(showActive(window));
    views::TimelineView* timeline = openTimeline(window, path);
    QVERIFY(timeline);
    QCOMPARE(topLane(timeline), last);
    views::TimelineView* other = openTimeline(window, dataFile("kineto/a100-simple-add.json.gz"));
    QVERIFY(other && other != timeline);
    QVERIFY(app::rememberedLaneLayout(app::fileLayoutKey(dataFile("kineto/a100-simple-add.json.gz"))) == std::nullopt);
    timeline->useDefaultLayout();
    QVERIFY(!app::rememberedLaneLayout(app::fileLayoutKey(path)));
}

#include "tst_main_window.moc"
