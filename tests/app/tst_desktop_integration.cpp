// The viewer as a desktop application: Help > About and what it reports about the build,
// the application icon, how programs find each other installed or in the build tree, plot
// saves that views/ requests and the main window answers (views open no dialogs), the
// keyboard shortcuts list, and widgets that keep the window calm (wheel, long status).
// Installs and the Debian package are checked end to end by tests/install/*.sh.

#include "support/isolated_settings.h"
#include "app/about_dialog.h"
#include "app/application_icon.h"
#include "app/build_info.h"
#include "app/capture_tab.h"
#include "app/install_paths.h"
#include "app/main_window.h"
#include "app/shortcuts_dialog.h"
#include "views/capture_view.h"
#include "views/plots/duration_histogram.h"
#include "views/elided_label.h"
#include "views/plots/plot_frame.h"
#include "views/timeline/timeline_bindings.h"
#include "views/wheel_guard.h"
#include "spanscope_version.h"
#include "support/screenshots.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QFile>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <hdf5.h>

using namespace spanscope;

namespace {

constexpr int kLoadTimeoutMs = 30'000;

// Answers save requests with a fixed path and filter, and records errors, without dialogs.
class ScriptedMainWindow : public app::MainWindow
{
public:
    QString answerPath, answerFilter;
    QList<views::SaveRequest> requests;
    QStringList errors;

protected:
    QString askRequestedSavePath(const views::SaveRequest& request, QString* chosenFilter) override
    {
        requests.append(request);
        *chosenFilter = answerFilter;
        return answerPath;
    }
    void showError(const QString& title, const QString& text, const QString& details) override
    {
        errors.append(title + QLatin1Char('|') + text + QLatin1Char('|') + details);
    }
};

QString valueOf(const QList<app::BuildInfoRow>& rows, const QString& component)
{
    for (const app::BuildInfoRow& row : rows)
        if (row.component == component)
            return row.value;
    return QStringLiteral("<no row %1>").arg(component);
}


} // namespace

class TestDesktopIntegration : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void cleanup();
    void aboutListsVersionsOfTheBuild();
    void aboutSaysWhetherLiveCaptureWorks();
    void applicationIconHasEverySize();
    void programsFindEachOtherInstalledOrInTheBuildTree();
    void plotSavesAreAnsweredByTheWindow();
    void shortcutsAreListedFromTheMenus();
    void wheelOverAnUnfocusedSpinBoxScrollsThePane();
    void longStatusNeverWidensTheWindow();
};

void TestDesktopIntegration::initTestCase()
{
    spanscope::testing::isolateSettings(); // no shared settings with the user or other test runs
    QCoreApplication::setOrganizationName(QStringLiteral("spanscope"));
    QCoreApplication::setApplicationName(QStringLiteral("spanscope-tests"));
}

void TestDesktopIntegration::cleanup()
{
    qunsetenv("SPANSCOPE_RUN");
    qunsetenv("SPANSCOPE_COLLECTOR");
}

void TestDesktopIntegration::aboutListsVersionsOfTheBuild()
{
    const QList<app::BuildInfoRow> rows = app::buildInfo();
    QCOMPARE(valueOf(rows, QStringLiteral("spanscope")), QStringLiteral(SPANSCOPE_VERSION));
    QVERIFY(valueOf(rows, QStringLiteral("Qt")).startsWith(QString::fromLatin1(qVersion())));
    unsigned major = 0, minor = 0, release = 0;
    QVERIFY(H5get_libversion(&major, &minor, &release) >= 0);
    QCOMPARE(valueOf(rows, QStringLiteral("HDF5")),
             QStringLiteral("%1.%2.%3").arg(major).arg(minor).arg(release));
    QVERIFY(valueOf(rows, QStringLiteral("QCustomPlot")).contains(QRegularExpression(QStringLiteral("^\\d+\\.\\d+"))));
#if defined(SPANSCOPE_RUN_PROGRAM) && defined(SPANSCOPE_TEST_HAS_CUPTI)
    QVERIFY(valueOf(rows, QStringLiteral("CUDA activity capture"))
                .startsWith(QStringLiteral("built: the collector records CUDA jobs through CUPTI")));
#else
    QVERIFY(valueOf(rows, QStringLiteral("CUDA activity capture")).startsWith(QStringLiteral("not in this build")));
#endif

    // The dialog shows every row, and Copy puts them on the clipboard as text.
    app::AboutDialog dialog;
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTableWidget* table = dialog.componentTable();
    QCOMPARE(table->rowCount(), rows.size());
    for (int row = 0; row < rows.size(); ++row) {
        QCOMPARE(table->item(row, 0)->text(), rows[row].component);
        QCOMPARE(table->item(row, 1)->text(), rows[row].value);
    }
    QVERIFY(testing::saveScreenshot(dialog, QStringLiteral("about")));
    const QString text = app::buildInfoText(rows);
    QVERIFY(text.startsWith(QStringLiteral("spanscope: " SPANSCOPE_VERSION "\n")));
    QCOMPARE(text.count(QLatin1Char('\n')), rows.size());
}

void TestDesktopIntegration::aboutSaysWhetherLiveCaptureWorks()
{
    const QString nvtx = QStringLiteral("NVTX capture");
#ifdef SPANSCOPE_RUN_PROGRAM
    // The build tree's spanscope-run finds the build tree's collector (<build>/lib).
    qputenv("SPANSCOPE_RUN", SPANSCOPE_RUN_PROGRAM);
    const QString available = valueOf(app::buildInfo(), nvtx);
    QVERIFY2(available.startsWith(QStringLiteral("available (")), qPrintable(available));
    QVERIFY(available.contains(QStringLiteral("libspanscope-collector.so")));

    qputenv("SPANSCOPE_COLLECTOR", "/nonexistent/libspanscope-collector.so");
    const QString noCollector = valueOf(app::buildInfo(), nvtx);
    QVERIFY2(noCollector.startsWith(QStringLiteral("unavailable: the collector library is not at "
                                                   "/nonexistent/libspanscope-collector.so")),
             qPrintable(noCollector));
#endif
    qputenv("SPANSCOPE_RUN", "/nonexistent/spanscope-run");
    const QString noRun = valueOf(app::buildInfo(), nvtx);
#ifdef SPANSCOPE_RUN_PROGRAM
    QVERIFY2(noRun.startsWith(QStringLiteral("unavailable: /nonexistent/spanscope-run is missing")),
             qPrintable(noRun));
#else
    QVERIFY2(noRun.startsWith(QStringLiteral("not in this build")), qPrintable(noRun));
#endif
}

void TestDesktopIntegration::applicationIconHasEverySize()
{
    const QIcon icon = app::applicationIcon();
    QVERIFY(!icon.isNull());
    for (const int size : {16, 32, 48, 256}) {
        const QImage image = icon.pixmap(size, size).toImage();
        QCOMPARE(image.size(), QSize(size, size));
        // Drawn, not blank: the centre is opaque (the icon's panel), the corner clear.
        QCOMPARE(qAlpha(image.pixel(size / 2, size / 2)), 255);
        QCOMPARE(qAlpha(image.pixel(0, 0)), 0);
    }
}

void TestDesktopIntegration::programsFindEachOtherInstalledOrInTheBuildTree()
{
    // Installed layout first, then the build tree (everything in <build>/bin, <build>/lib).
    const std::vector<std::string> helpers = app::helperProgramCandidates("/opt/s/bin/", "spanscope-cli-core");
    QCOMPARE(helpers.size(), size_t(2));
    QCOMPARE(QString::fromStdString(helpers[0]),
             QStringLiteral("/opt/s/bin/" SPANSCOPE_BIN_TO_LIBEXEC "/spanscope-cli-core"));
    QCOMPARE(QString::fromStdString(helpers[1]), QStringLiteral("/opt/s/bin/spanscope-cli-core"));
    const std::vector<std::string> collectors = app::collectorCandidates("/opt/s/bin/");
    QCOMPARE(collectors.size(), size_t(2));
    QCOMPARE(QString::fromStdString(collectors[0]),
             QStringLiteral("/opt/s/bin/" SPANSCOPE_BIN_TO_PLUGINS "/libspanscope-collector.so"));
    QCOMPARE(QString::fromStdString(collectors[1]),
             QStringLiteral("/opt/s/bin/../lib/libspanscope-collector.so"));
    // An unknown own location gives nothing to try rather than paths relative to the cwd.
    QVERIFY(app::collectorCandidates("").empty());
    QVERIFY(app::helperProgramCandidates("", "spanscope-render").empty());
    // $SPANSCOPE_COLLECTOR alone, when set.
    qputenv("SPANSCOPE_COLLECTOR", "/elsewhere/c.so");
    QCOMPARE(app::collectorCandidates("/opt/s/bin/"), std::vector<std::string>{"/elsewhere/c.so"});

    // The first that exists; programs must also be executable.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString plain = dir.filePath(QStringLiteral("plain")), program = dir.filePath(QStringLiteral("program"));
    for (const QString& path : {plain, program}) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
    }
    QVERIFY(QFile::setPermissions(program, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    const std::vector<std::string> both = {"/nonexistent/x", plain.toStdString(), program.toStdString()};
    QCOMPARE(QString::fromStdString(app::firstExisting(both, false)), plain);
    QCOMPARE(QString::fromStdString(app::firstExisting(both, true)), program);
    QVERIFY(app::firstExisting({"/nonexistent/x"}, false).empty());
    QVERIFY(!app::ownDirectory().empty());
    QVERIFY(app::ownDirectory().back() == '/');
}

void TestDesktopIntegration::plotSavesAreAnsweredByTheWindow()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ScriptedMainWindow window;
    window.show();
    window.openFile(QStringLiteral(SPANSCOPE_TEST_DATA "/scope-profiler/solver-2rank.h5"));
    QTRY_VERIFY_WITH_TIMEOUT(!window.isLoading(), kLoadTimeoutMs);
    views::CaptureView* view = window.currentTab()->view();
    QVERIFY(view);
    view->regionTable()->selectRow(0);
    view->sideTabs()->setCurrentWidget(view->histogram());
    views::PlotFrame* frame = view->histogram()->frame();
    QTRY_VERIFY_WITH_TIMEOUT(frame->plotShown(), kLoadTimeoutMs);

    // Save image: the window is asked (no dialog in views/); a name without a suffix gets
    // the chosen format's.
    window.answerPath = dir.filePath(QStringLiteral("histogram"));
    window.answerFilter = QStringLiteral("PDF document (*.pdf)");
    frame->exportActions().at(0)->trigger();
    QCOMPARE(window.requests.size(), 1);
    const views::SaveRequest& image = window.requests.front();
    QCOMPARE(image.suffixes, QStringList({QStringLiteral("png"), QStringLiteral("pdf"), QStringLiteral("svg")}));
    QCOMPARE(image.filters.size(), image.suffixes.size());
    QVERIFY(!image.suggestedName.isEmpty());
    QVERIFY(window.errors.isEmpty());
    QFile pdf(dir.filePath(QStringLiteral("histogram.pdf")));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
    QVERIFY(window.statusBar()->currentMessage().contains(QStringLiteral("histogram.pdf")));

    // Save data: a path with its suffix stays as it is.
    window.answerPath = dir.filePath(QStringLiteral("histogram.csv"));
    window.answerFilter.clear();
    frame->exportActions().at(1)->trigger();
    QCOMPARE(window.requests.size(), 2);
    QVERIFY(QFileInfo(dir.filePath(QStringLiteral("histogram.csv"))).size() > 0);

    // A failed write is reported with the file's name and the reason; nothing is left.
    window.answerPath = dir.filePath(QStringLiteral("missing-folder/histogram.png"));
    frame->exportActions().at(0)->trigger();
    QCOMPARE(window.errors.size(), 1);
    QVERIFY2(window.errors.front().startsWith(QStringLiteral("Save Plot Image|Could not save ")),
             qPrintable(window.errors.front()));
    QVERIFY(window.errors.front().contains(QStringLiteral("missing-folder")));
    QVERIFY(!QFile::exists(window.answerPath));

    // Cancelled: nothing written, nothing reported.
    window.answerPath.clear();
    frame->exportActions().at(0)->trigger();
    QCOMPARE(window.requests.size(), 4);
    QCOMPARE(window.errors.size(), 1);
}

void TestDesktopIntegration::shortcutsAreListedFromTheMenus()
{
    app::MainWindow window;
    window.show();
    const QList<app::ShortcutRow> rows = app::menuShortcuts(window.menuBar());
    const auto keysOf = [&](const QString& command) {
        for (const app::ShortcutRow& row : rows)
            if (row.command == command)
                return row.keys;
        return QStringLiteral("<not listed>");
    };
    // Save As has its own keys even where the platform's SaveAs sequence is empty.
    QCOMPARE(keysOf(QStringLiteral("File \u203a Save As\u2026")), QStringLiteral("Ctrl+Shift+S"));
    QCOMPARE(keysOf(QStringLiteral("File \u203a Open\u2026")), QStringLiteral("Ctrl+O"));
    QCOMPARE(keysOf(QStringLiteral("Help \u203a Keyboard Shortcuts")), QStringLiteral("F1, ?"));
    QCOMPARE(keysOf(QStringLiteral("View \u203a Filter Regions")), QStringLiteral("Ctrl+F"));

    // F1 opens the dialog: the menu rows, then the timeline's.
    auto* action = window.findChild<QAction*>(QStringLiteral("keyboardShortcutsAction"));
    QVERIFY(action);
    action->trigger();
    auto* dialog = window.findChild<app::ShortcutsDialog*>(QStringLiteral("keyboardShortcuts"));
    QVERIFY(dialog);
    QTRY_VERIFY(dialog->isVisible());
    QTreeWidget* tree = dialog->tree();
    QCOMPARE(tree->topLevelItemCount(), 2);
    QCOMPARE(tree->topLevelItem(0)->childCount(), rows.size());
    QCOMPARE(tree->topLevelItem(1)->childCount(), int(views::timelineBindings().size()));
    QVERIFY(testing::saveScreenshot(*dialog, QStringLiteral("keyboard-shortcuts")));
    // Asking again shows the same dialog.
    action->trigger();
    QCOMPARE(window.findChildren<app::ShortcutsDialog*>().size(), 1);
}

void TestDesktopIntegration::wheelOverAnUnfocusedSpinBoxScrollsThePane()
{
    QScrollArea area;
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    auto* spin = new QDoubleSpinBox;
    spin->setRange(0, 100);
    spin->setValue(50);
    views::takeWheelOnlyWhenFocused(spin);
    auto* elsewhere = new QLineEdit; // where the focus is while the pointer is over the spin box
    layout->addWidget(elsewhere);
    layout->addWidget(spin);
    layout->addSpacing(2000);
    area.setWidget(content);
    area.resize(300, 200);
    area.show();
    QApplication::setActiveWindow(&area);
    QVERIFY(QTest::qWaitForWindowActive(&area));
    elsewhere->setFocus();
    QTRY_VERIFY(elsewhere->hasFocus());
    QScrollBar* bar = area.verticalScrollBar();
    QCOMPARE(bar->value(), 0);

    const auto wheelDown = [&] {
        const QPointF at = spin->rect().center();
        QWheelEvent wheel(at, spin->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(spin, &wheel);
    };
    wheelDown(); // unfocused: the pane scrolls, the value stays
    QCOMPARE(spin->value(), 50.0);
    QVERIFY(bar->value() > 0);
    const int scrolled = bar->value();
    spin->setFocus();
    QTRY_VERIFY(spin->hasFocus());
    wheelDown(); // focused: the value changes, the pane stays
    QCOMPARE(spin->value(), 49.0);
    QCOMPARE(bar->value(), scrolled);
}

void TestDesktopIntegration::longStatusNeverWidensTheWindow()
{
    QWidget window;
    auto* layout = new QHBoxLayout(&window);
    auto* label = new views::ElidedLabel;
    layout->addWidget(label);
    window.resize(300, 40);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QString text = QStringLiteral("/usr/bin/python3 train.py --epochs 100 --batch-size 512  \u00b7  "
                                        "pid 4242  \u00b7  1 234 567 ranges  \u00b7  the job ended "
                                        "with exit code 0 after the viewer detached");
    label->setText(text);
    layout->activate();
    QCoreApplication::processEvents();
    QCOMPARE(window.width(), 300);
    QVERIFY(window.minimumSizeHint().width() < 300);
    QVERIFY(label->shownText().endsWith(QChar(0x2026)));
    QCOMPARE(label->text(), text);
    QCOMPARE(label->toolTip(), text);
    // The whole text can still be copied, as from the selectable label it replaced.
    QCOMPARE(label->contextMenuPolicy(), Qt::ActionsContextMenu);
    QCOMPARE(label->actions().size(), 1);
    label->actions().front()->trigger();
    QCOMPARE(QGuiApplication::clipboard()->text(), text);
}

QTEST_MAIN(TestDesktopIntegration)
#include "tst_desktop_integration.moc"
