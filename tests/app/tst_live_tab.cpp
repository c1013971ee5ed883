// The viewer's live captures as a person uses them, offscreen: File > Launch a real NVTX
// job and watch it grow and end, stop a long one, detach, a program that cannot run,
// Save As of a live capture, attach to a job waiting in the registry, and the Launch
// dialog's checks.
#include "support/isolated_settings.h"
#include "app/attach_dialog.h"
#include "app/launch_dialog.h"
#include "app/live_tab.h"
#include "app/main_window.h"
#include "collector/nvtx_workload_counts.h"
#include "model/capture_loader.h"
#include "model/event_layout.h"
#include "model/live/job_registry.h"
#include "views/call_details_widget.h"
#include "views/capture_view.h"
#include "views/region_table_model.h"
#include "views/plots/allocations_view.h"
#include "views/plots/plot_frame.h"
#include "views/timeline/timeline_view.h"
#include "support/screenshots.h"

#include <QDir>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QTreeWidget>
#include <QtTest>
#include <sys/prctl.h>
#include <sys/wait.h>

using namespace spanscope;
using namespace spanscope::test;

namespace {

constexpr int kJobTimeoutMs = 60'000;

// Used by the allocation tests, which a build without the allocation workload leaves out.
[[maybe_unused]] uint32_t regionId(const model::Capture& capture, const std::string& name)
{
    for (uint32_t region = 0; region < capture.regionNames.size(); ++region)
        if (capture.regionName(region) == name)
            return region;
    return UINT32_MAX;
}

class RecordingMainWindow : public app::MainWindow
{
public:
    using app::MainWindow::UnsavedChoice;
    QStringList errors;
    QStringList questions;        // every unsaved-capture question asked
    QList<UnsavedChoice> answers; // the answers to give, in order (then Cancel)
    QString savePath;             // what the Save dialog returns

protected:
    void showError(const QString& title, const QString&, const QString& details) override
    {
        errors << title + ": " + details;
    }
    UnsavedChoice askUnsaved(const QString& text, bool) override
    {
        questions << text;
        return answers.isEmpty() ? UnsavedChoice::Cancel : answers.takeFirst();
    }
    QString askSavePath(const QString&, bool) override { return savePath; }
};

app::LaunchSpec workload(const QStringList& arguments)
{
    app::LaunchSpec spec;
    spec.program = SPANSCOPE_NVTX_WORKLOAD;
    spec.arguments = arguments;
    return spec;
}


// Launches spanscope-demo for `seconds` and waits until its first ranges are on screen.
app::LiveTab* launchDemoAndWaitForView(app::MainWindow& window, int seconds)
{
    window.show();
    app::LaunchSpec spec;
    spec.program = SPANSCOPE_DEMO;
    spec.arguments = {"--seconds", QString::number(seconds), "--quiet"};
    app::LiveTab* tab = window.launchJob(spec);
    if (!tab || !QTest::qWaitFor([tab] { return tab->view() != nullptr; }, kJobTimeoutMs))
        return nullptr;
    return tab;
}

bool waitUntilOver(app::LiveTab* tab, int ms = kJobTimeoutMs)
{
    return QTest::qWaitFor([tab] { return !tab->isLive(); }, ms);
}

// The end of the job's stream can reach a tab before its process's exit status does: true
// once the status shows `text` (an exit code, "killed by a signal").
bool waitForStatus(app::LiveTab* tab, const QString& text)
{
    return QTest::qWaitFor([tab, text] { return tab->statusText().contains(text); }, kJobTimeoutMs);
}

// A child of `parent` running `name` (its /proc comm), or 0.
pid_t childNamed(qint64 parent, const QByteArray& name)
{
    for (const QString& entry : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool number = false;
        const pid_t pid = entry.toInt(&number);
        if (!number)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        // "pid (comm) state ppid ...": comm may hold spaces, so split after the last ')'.
        const QByteArray line = stat.readAll();
        const qsizetype open = line.indexOf('('), close = line.lastIndexOf(')');
        if (open < 0 || close < open)
            continue;
        const QList<QByteArray> rest = line.mid(close + 2).split(' ');
        if (rest.size() > 1 && rest[1].toLongLong() == parent && line.mid(open + 1, close - open - 1) == name)
            return pid;
    }
    return 0;
}

} // namespace

class TestLiveTab : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        spanscope::testing::isolateSettings(); // no shared settings with the user or other test runs
        qputenv("SPANSCOPE_COLLECTOR", SPANSCOPE_COLLECTOR_LIB);
        qputenv("SPANSCOPE_RUN", SPANSCOPE_RUN);
        qunsetenv("NVTX_INJECTION64_PATH");
    }

    // A job that goes on only once the tab shows its previous phase: every phase is an
    // update on screen while the job runs, whatever the machine's load.
    void phasedJobShowsEveryPhase()
    {
        constexpr int kPhases = 5;
        QTemporaryDir gates;
        RecordingMainWindow window;
        window.show();
        app::LiveTab* tab = window.launchJob(workload({"phased", QString::number(kPhases), gates.path()}));
        QVERIFY(tab);
        for (int phase = 1; phase <= kPhases; ++phase) {
            const size_t ranges = size_t(phase * kPhaseRanges);
            QVERIFY2(QTest::qWaitFor([tab, ranges] {
                         return tab->view() && tab->view()->capture() && tab->view()->capture()->callCount() == ranges;
                     }, kJobTimeoutMs),
                     qPrintable(QString("phase %1 never showed").arg(phase)));
            QVERIFY(tab->updatesShown() >= phase);
            if (phase < kPhases) {
                QVERIFY(tab->isLive()); // the job waits for the next gate
                QVERIFY(QFile(gates.filePath(QString("go-%1").arg(phase + 1))).open(QIODevice::WriteOnly));
            }
        }
        QVERIFY(waitUntilOver(tab));
        QCOMPARE(tab->view()->capture()->callCount(), size_t(kPhases * kPhaseRanges));
        QVERIFY(window.errors.isEmpty());
    }

    void viewerKilledMidCaptureLeavesTheJobUnharmed()
    {
        // A real viewer process records a job it launched and is killed (SIGKILL) in the
        // middle: the job carries on to its end and exits with its own code. The job's
        // output went to the dead viewer too, so nothing the collector says may kill it
        // (SIGPIPE). This test adopts the orphaned job (a subreaper) to see how it ended.
        QCOMPARE(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
        QTemporaryDir gates, config;
        QProcess viewer;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("XDG_CONFIG_HOME", config.path());
        viewer.setProcessEnvironment(env);
        viewer.start(SPANSCOPE_VIEWER, {"--launch", "--", SPANSCOPE_NVTX_WORKLOAD, "phased", "3",
                                        gates.path(), "7"});
        QVERIFY(viewer.waitForStarted());
        // Phase 1 is done: the job runs and its collector streams to the viewer.
        QVERIFY(QTest::qWaitFor([&] { return QFile::exists(gates.filePath("done-1")); }, kJobTimeoutMs));
        pid_t job = 0;
        QVERIFY(QTest::qWaitFor([&] { return (job = childNamed(viewer.processId(), "nvtx_workload")) > 0; },
                                kJobTimeoutMs));
        viewer.kill();
        QVERIFY(viewer.waitForFinished(kJobTimeoutMs));
        for (const char* gate : {"go-2", "go-3"})
            QVERIFY(QFile(gates.filePath(gate)).open(QIODevice::WriteOnly));
        int status = 0;
        QVERIFY(QTest::qWaitFor([&] { return ::waitpid(job, &status, WNOHANG) == job; }, kJobTimeoutMs));
        ::prctl(PR_SET_CHILD_SUBREAPER, 0);
        QVERIFY2(WIFEXITED(status), qPrintable(QString("the job died of signal %1").arg(WTERMSIG(status))));
        QCOMPARE(WEXITSTATUS(status), 7);
        QVERIFY(QFile::exists(gates.filePath("done-3")));
    }

    void launchedJobGrowsAndEnds()
    {
        RecordingMainWindow window;
        window.show();
        app::LaunchSpec spec;
        spec.program = SPANSCOPE_DEMO;
        spec.arguments = {"--seconds", "2"};
        app::LiveTab* tab = window.launchJob(spec);
        QVERIFY(tab);
        QCOMPARE(window.currentLiveTab(), tab);
        QVERIFY(window.hasLiveCaptures());
        QVERIFY(QTest::qWaitFor([tab] { return tab->state() == app::LiveTab::State::Recording; },
                                kJobTimeoutMs));
        QVERIFY(window.windowTitle().contains("(live)"));
        if (!qEnvironmentVariableIsEmpty("SPANSCOPE_SCREENSHOT_DIR")) {
            window.resize(1400, 900);
            QTest::qWait(1200);
            QVERIFY(testing::saveScreenshot(window, "live-recording"));
        }
        QVERIFY(waitUntilOver(tab));
        QCOMPARE(tab->state(), app::LiveTab::State::Ended);
        QVERIFY(tab->updatesShown() >= 1); // one per phase: phasedJobShowsEveryPhase
        QVERIFY(tab->view() && tab->view()->capture());
        // A sanitizer build under load records far fewer than the ~10,000 ranges of 2 s.
        QVERIFY(tab->view()->capture()->callCount() > 100);
        QVERIFY(tab->view()->timeline()->isVisible());
        QVERIFY2(waitForStatus(tab, "exit code 0"), qPrintable(tab->statusText()));
        QVERIFY(tab->outputView()->toPlainText().contains("spanscope-demo:"));
        QVERIFY(!tab->detachButton()->isEnabled());
        QVERIFY(!window.hasLiveCaptures());
        QVERIFY(window.errors.isEmpty());
    }

    void basicJobArrivesWholeAndSavesExactly()
    {
        RecordingMainWindow window;
        window.show();
        app::LiveTab* tab = window.launchJob(workload({"basic"}));
        QVERIFY(tab);
        QVERIFY(waitUntilOver(tab));
        const auto shown = tab->view()->capture();
        QCOMPARE(shown->callCount(), uint64_t(kPushes + kRangeStarts));
        QCOMPARE(shown->nvtx.marks.size(), size_t(kMarks));
        QCOMPARE(tab->warningCount(), 0);

        QTemporaryDir dir;
        const QString file = dir.filePath("saved.h5");
        QSignalSpy saved(&window, &app::MainWindow::captureSaved);
        window.saveCapture(file);
        QVERIFY(saved.wait(kJobTimeoutMs));
        auto reopened = model::loadCapture(file.toStdString());
        QVERIFY2(reopened.ok(), reopened.ok() ? "" : reopened.error().toString().c_str());
        const model::Capture& c = *reopened.value().capture;
        // Saved with each row in one span, row after row (a live capture's rows may be
        // several spans, with events between them that no row holds).
        const auto laidOut = model::withRowsInOneSpan(*shown);
        QCOMPARE(c.events.size(), laidOut->events.size());
        QCOMPARE(c.nvtx.marks.size(), shown->nvtx.marks.size());
        for (size_t i = 0; i < c.events.size(); ++i) {
            QCOMPARE(c.events.start[i], laidOut->events.start[i]);
            QCOMPARE(c.events.end[i], laidOut->events.end[i]);
        }
        QVERIFY(window.errors.isEmpty());
    }

    // Launch > Keep every range: spanscope-run --lossless; four threads' 300,000 pairs with
    // no pause all arrive, and the job's report of its queue shows in the output pane.
    void losslessLaunchKeepsEveryRange()
    {
        RecordingMainWindow window;
        window.show();
        app::LaunchSpec spec = workload({"pairs", "300000"});
        spec.lossless = true;
        app::LiveTab* tab = window.launchJob(spec);
        QVERIFY(tab);
        QVERIFY(waitUntilOver(tab));
        QCOMPARE(tab->view()->capture()->callCount(), size_t(300000));
        QTRY_VERIFY_WITH_TIMEOUT(tab->outputView()->toPlainText().contains("lossless queue peaked at"), kJobTimeoutMs);
        QVERIFY(window.errors.isEmpty());
    }

#ifdef SPANSCOPE_ALLOC_NVTX_WORKLOAD
    // Launch > Count allocations: spanscope-run --alloc; each range of a job with known
    // allocations shows them, live, in the region table.
    void allocLaunchCountsAllocationsPerRange()
    {
        RecordingMainWindow window;
        window.resize(1400, 900);
        window.show();
        app::LaunchSpec spec;
        spec.program = SPANSCOPE_ALLOC_NVTX_WORKLOAD;
        spec.alloc = true;
        app::LiveTab* tab = window.launchJob(spec);
        QVERIFY(tab);
        QVERIFY(waitUntilOver(tab));
        const auto capture = tab->view()->capture();
        QVERIFY(capture->events.hasAllocations());
        std::map<std::string, std::pair<int64_t, int64_t>> perRange;
        for (const auto& row : capture->rows)
            for (uint64_t e = row.firstEvent; e < row.firstEvent + row.count; ++e)
                perRange[capture->regionName(row.region)] = {capture->events.allocCounts[e],
                                                             capture->events.allocBytes[e]};
        const std::map<std::string, std::pair<int64_t, int64_t>> expected = {
            {"outer", {2, 200}}, {"inner", {4, 184}}, {"worker", {9, 5290}}, {"empty", {0, 0}},
            {"big", {1, 3 << 20}}, {"alloc: fill", {3, 192}}};
        QCOMPARE(perRange, expected);
        auto* table = tab->findChild<QTableView*>(QStringLiteral("regionTable"));
        QVERIFY(table);
        QStringList headers;
        for (int c = 0; c < table->model()->columnCount(); ++c)
            headers << table->model()->headerData(c, Qt::Horizontal).toString();
        QVERIFY2(headers.contains("Allocs/call") && headers.contains("Bytes/call"), qPrintable(headers.join(',')));
        QVERIFY(testing::saveScreenshot(window, "live-allocations"));
        // The Allocations tab: the job's size histogram, and the 3 MiB block in the table.
        views::AllocationsView* allocations = tab->view()->allocations();
        tab->view()->sideTabs()->setCurrentWidget(allocations);
        allocations->setWholeRun(true);
        QTRY_VERIFY(allocations->result() != nullptr);
        const model::AllocationBreakdown& whole = allocations->result()->breakdown;
        QVERIFY(whole.counted);
        QVERIFY(whole.countByLog2[9] >= 10); // the workers' 5 of 1000 bytes each
        QCOMPARE(whole.countByLog2[21], 1u); // the 3 MiB block
        QVERIFY(allocations->frame()->plotShown());
        QCOMPARE(allocations->largestTable()->rowCount(), 1);
        QCOMPARE(allocations->largestTable()->item(0, 0)->text(), QStringLiteral("3.000 MiB"));
        QVERIFY2(allocations->largestTable()->item(0, 4)->text().contains("big"),
                 qPrintable(allocations->largestTable()->item(0, 4)->text()));
        QVERIFY2(allocations->figuresText().contains("heap in use peaked at"), qPrintable(allocations->figuresText()));
        window.resize(1400, 1300); // room for the histogram
        QTRY_VERIFY(allocations->frame()->height() > 250);
        QVERIFY(testing::saveScreenshot(window, "live-allocations-tab"));
        // One region: what was made while it was innermost.
        allocations->setWholeRun(false);
        const int worker = tab->view()->regionModel()->findEntry(regionId(*capture, "worker"), std::nullopt);
        QVERIFY(worker >= 0);
        allocations->showRegion(regionId(*capture, "worker"), tab->view()->regionModel()->captureRows(worker));
        QTRY_VERIFY(allocations->result() != nullptr);
        QCOMPARE(allocations->result()->breakdown.allocs, uint64_t(18)); // two calls, 9 each
        QCOMPARE(allocations->result()->breakdown.countByLog2[9], uint64_t(10));
        QCOMPARE(allocations->largestTable()->rowCount(), 0);
        // A call's details say what it allocated; a span's, over how many iterations.
        const auto& rows = tab->view()->regionModel()->captureRows(worker);
        const model::RegionRow& workerRow = capture->rows[rows.front()];
        tab->view()->callDetails()->showCall(uint32_t(workerRow.firstEvent));
        QVERIFY2(tab->view()->callDetails()->plainText().contains("Allocations\n9 (5.166 KiB), directly"),
                 qPrintable(tab->view()->callDetails()->plainText()));
        const auto fill = regionId(*capture, "alloc: fill");
        for (const auto& row : capture->rows)
            if (row.region == fill)
                tab->view()->callDetails()->showCall(uint32_t(row.firstEvent));
        QVERIFY2(tab->view()->callDetails()->plainText().contains("3 (192 B) over 3 iterations"),
                 qPrintable(tab->view()->callDetails()->plainText()));
        QVERIFY(window.errors.isEmpty());
    }
#endif

    void unsavedCaptureIsNeverLostSilently()
    {
        RecordingMainWindow window;
        window.show();
        auto* tabs = window.findChild<QTabWidget*>("captureTabs");
        QVERIFY(tabs);
        app::LiveTab* tab = window.launchJob(workload({"basic"}));
        QVERIFY(tab && waitUntilOver(tab));
        QVERIFY(tab->hasUnsavedCapture());
        QCOMPARE(window.unsavedLiveCaptures(), 1);

        // Closing asks; Cancel keeps the tab.
        emit tabs->tabCloseRequested(0);
        QCOMPARE(window.questions.size(), 1);
        QCOMPARE(window.tabCount(), 1);
        // Quitting asks too; Cancel keeps the window.
        QVERIFY(!window.close());
        QCOMPARE(window.questions.size(), 2);
        QVERIFY(window.isVisible());

        // Save: the file is written, then the tab closes.
        QTemporaryDir dir;
        window.savePath = dir.filePath("kept.h5");
        window.answers = {RecordingMainWindow::UnsavedChoice::Save};
        QSignalSpy saved(&window, &app::MainWindow::captureSaved);
        emit tabs->tabCloseRequested(0);
        QVERIFY(saved.wait(kJobTimeoutMs));
        QTRY_COMPARE(window.tabCount(), 0);
        auto reopened = model::loadCapture(window.savePath.toStdString());
        QVERIFY(reopened.ok());
        QCOMPARE(reopened.value().capture->events.size(), size_t(kPushes + kRangeStarts));

        // A capture saved with Save As closes without a question; Discard closes at once.
        tab = window.launchJob(workload({"basic"}));
        QVERIFY(tab && waitUntilOver(tab));
        window.saveCapture(dir.filePath("again.h5"));
        QVERIFY(saved.wait(kJobTimeoutMs));
        QVERIFY(!tab->hasUnsavedCapture());
        const int asked = window.questions.size();
        emit tabs->tabCloseRequested(0);
        QCOMPARE(window.questions.size(), asked);
        QCOMPARE(window.tabCount(), 0);
        tab = window.launchJob(workload({"basic"}));
        QVERIFY(tab && waitUntilOver(tab));
        window.answers = {RecordingMainWindow::UnsavedChoice::Discard};
        QVERIFY(window.close());
    }

    // Quitting offers Save as well: the capture is written, then the window closes.
    void quitWithSaveWritesThenQuits()
    {
        RecordingMainWindow window;
        window.show();
        app::LiveTab* tab = window.launchJob(workload({"basic"}));
        QVERIFY(tab && waitUntilOver(tab));
        QTemporaryDir dir;
        window.savePath = dir.filePath("on-quit.h5");
        window.answers = {RecordingMainWindow::UnsavedChoice::Save};
        QSignalSpy saved(&window, &app::MainWindow::captureSaved);
        QVERIFY(!window.close()); // not yet: the save runs in the background
        QCOMPARE(window.questions.size(), 1);
        QVERIFY(window.questions.front().contains("Save it before quitting?"));
        QVERIFY(saved.wait(kJobTimeoutMs));
        QTRY_VERIFY(!window.isVisible());
        QCOMPARE(window.questions.size(), 1); // asked once
        auto reopened = model::loadCapture(window.savePath.toStdString());
        QVERIFY(reopened.ok());
        QCOMPARE(reopened.value().capture->events.size(), size_t(kPushes + kRangeStarts));
    }

    void stopEndsALongJob()
    {
        RecordingMainWindow window;
        app::LiveTab* tab = launchDemoAndWaitForView(window, 60);
        QVERIFY(tab);
        QVERIFY(tab->stopButton()->isEnabled());
        QTest::mouseClick(tab->stopButton(), Qt::LeftButton);
        QVERIFY(waitUntilOver(tab, 10'000));
        QCOMPARE(tab->state(), app::LiveTab::State::Ended);
        // SIGTERM ends the demo (the demo exits on it with its own code, else the signal
        // kills it); what arrived stays on screen.
        QVERIFY2(QTest::qWaitFor([tab] { return tab->statusText().contains("killed by a signal")
                                                || tab->statusText().contains("exit code"); },
                                 kJobTimeoutMs),
                 qPrintable(tab->statusText()));
        QVERIFY(tab->view()->capture()->callCount() > 0);
        QVERIFY(!tab->stopButton()->isEnabled());
    }

    void detachLeavesTheJobRunning()
    {
        RecordingMainWindow window;
        app::LiveTab* tab = launchDemoAndWaitForView(window, 3);
        QVERIFY(tab);
        QTest::mouseClick(tab->detachButton(), Qt::LeftButton);
        QVERIFY(waitUntilOver(tab, 10'000));
        QCOMPARE(tab->state(), app::LiveTab::State::Detached);
        QVERIFY(tab->stopButton()->isEnabled()); // the job still runs and can be stopped
        QVERIFY(QTest::qWaitFor([tab] { return tab->statusText().contains("exit code 0"); },
                                kJobTimeoutMs));
        // Once it ended, the status no longer says it carries on.
        QVERIFY2(tab->statusText().contains("detached before the job ended"), qPrintable(tab->statusText()));
        QVERIFY(!tab->statusText().contains("carries on"));
        QVERIFY(!tab->stopButton()->isEnabled());
    }

    void programThatCannotRun()
    {
        RecordingMainWindow window;
        window.show();
        app::LaunchSpec spec;
        spec.program = "/nonexistent/program";
        app::LiveTab* tab = window.launchJob(spec);
        QVERIFY(tab);
        QVERIFY(waitUntilOver(tab));
        // spanscope-run says why, and the job's exit code is its.
        QVERIFY2(tab->outputView()->toPlainText().contains("cannot run /nonexistent/program"),
                 qPrintable(tab->outputView()->toPlainText()));
        QVERIFY2(waitForStatus(tab, "exit code 2"), qPrintable(tab->statusText()));

        QVERIFY(!tab->view()); // nothing arrived: a page that says so, not an empty timeline

        qputenv("SPANSCOPE_RUN", "/nonexistent/spanscope-run");
        QVERIFY(!window.launchJob(workload({"basic"})));
        qputenv("SPANSCOPE_RUN", SPANSCOPE_RUN);
        QCOMPARE(window.errors.size(), 1);
        QVERIFY(window.errors.front().contains("spanscope-run was not found"));
    }

    void attachToAWaitingJob()
    {
        QTemporaryDir jobs;
        qputenv("SPANSCOPE_JOBS_DIR", jobs.path().toUtf8());
        QProcess waiting;
        waiting.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        waiting.start(SPANSCOPE_RUN, {"--wait", "--", SPANSCOPE_NVTX_WORKLOAD, "basic"});
        QVERIFY(waiting.waitForStarted());

        app::AttachDialog dialog;
        QTRY_COMPARE_WITH_TIMEOUT(dialog.jobList()->topLevelItemCount(), 1, 10'000);
        const auto job = dialog.selectedJob();
        QVERIFY(job);
        dialog.show();
        QVERIFY(testing::saveScreenshot(dialog, "attach-dialog"));
        QCOMPARE(job->pid, int(waiting.processId()));

        RecordingMainWindow window;
        window.show();
        app::LiveTab* tab = window.attachJob(*job);
        QVERIFY2(tab, qPrintable(window.errors.join('\n')));
        QVERIFY(waiting.waitForFinished(kJobTimeoutMs));
        QVERIFY(waitUntilOver(tab));
        QCOMPARE(tab->state(), app::LiveTab::State::Ended);
        QCOMPARE(tab->view()->capture()->callCount(), uint64_t(kPushes + kRangeStarts));
        QVERIFY(tab->outputView()->isHidden()); // its output went to its own terminal

        // The job is no longer waiting: attaching again fails with a message naming it.
        QVERIFY(!window.attachJob(*job));
        QVERIFY(window.errors.back().contains(QString("job %1").arg(job->pid)));
        qunsetenv("SPANSCOPE_JOBS_DIR");
    }

    void launchDialogChecksWhatWasEntered()
    {
        app::LaunchDialog dialog;
        app::LaunchSpec spec;
        dialog.setSpec(spec);
        QVERIFY(dialog.problem().contains("Enter the program"));
        spec.program = "/nonexistent/program";
        dialog.setSpec(spec);
        QVERIFY(dialog.problem().contains("does not exist"));
        spec.program = "no-such-program-on-path-spanscope";
        dialog.setSpec(spec);
        QVERIFY(dialog.problem().contains("not on PATH"));
        spec.program = SPANSCOPE_NVTX_WORKLOAD;
        spec.workingDirectory = "/nonexistent/dir";
        dialog.setSpec(spec);
        QVERIFY(dialog.problem().contains("working directory"));
        spec.workingDirectory.clear();
        spec.environment = {"NOEQUALS"};
        dialog.setSpec(spec);
        QVERIFY(dialog.problem().contains("KEY=VALUE"));
        spec.environment = {"A=1", "B=two words"};
        spec.arguments = {"basic", "an argument with spaces", "quote\"d"};
        spec.lossless = true;
        spec.alloc = true;
        dialog.setSpec(spec);
        QCOMPARE(dialog.problem(), QString());
        dialog.show();
        QVERIFY(testing::saveScreenshot(dialog, "launch-dialog"));
        const app::LaunchSpec back = dialog.spec();
        QCOMPARE(back.arguments, spec.arguments);
        QCOMPARE(back.environment, spec.environment);
        QVERIFY(back.lossless);
        QVERIFY(back.alloc);
    }
};

QTEST_MAIN(TestLiveTab)
#include "tst_live_tab.moc"
