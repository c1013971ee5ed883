// MainWindow's comparisons: File > Compare… (choose the runs and their order), opening a
// comparison tab, and what the window does when one loads, fails or is cancelled. Kept
// apart from the file tabs in main_window.cpp.

#include "compare_dialog.h"
#include "compare_tab.h"
#include "main_window.h"
#include "profile_file_filters.h"
#include "recent_files.h"
#include "views/compare/comparison_view.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QStatusBar>
#include <QTabWidget>

namespace spanscope::app {

namespace {

constexpr int kStatusMessageMs = 4000;

} // namespace

CompareTab* MainWindow::compareTab(int index) const
{
    return qobject_cast<CompareTab*>(m_tabs->widget(index));
}

CompareTab* MainWindow::currentCompareTab() const
{
    return qobject_cast<CompareTab*>(m_tabs->currentWidget());
}

void MainWindow::compareFiles(const QStringList& paths)
{
    QStringList files;
    for (const QString& path : paths)
        files << QFileInfo(path).absoluteFilePath();
    if (files.size() < 2) {
        const QString message =
            tr("A comparison needs two files or more; the first is the baseline.");
        emit errorReported(files.value(0), message);
        showError(tr("Cannot compare"), tr("Choose at least two region files to compare."),
                  message);
        return;
    }
    for (int i = 0; i < m_tabs->count(); ++i)
        if (compareTab(i) && compareTab(i)->paths() == files) {
            m_tabs->setCurrentIndex(i);
            return;
        }

    auto* tab = new CompareTab(files);
    connect(tab, &CompareTab::loaded, this, [this, tab] { onCompareTabLoaded(tab); });
    connect(tab, &CompareTab::loadFailed, this,
            [this, tab](const QString& path, const model::Error& error) {
                if (!tab->view() || !tab->view()->comparison())
                    closeTab(m_tabs->indexOf(tab));
                if (error.code == model::ErrorCode::NotFound)
                    m_recent->remove(path);
                reportError(path, error);
            });
    connect(tab, &CompareTab::loadCancelled, this, [this, tab](bool hadView) {
        if (!hadView)
            closeTab(m_tabs->indexOf(tab));
        statusBar()->showMessage(tr("Loading cancelled"), kStatusMessageMs);
    });
    connect(tab, &CompareTab::loadingChanged, this, &MainWindow::onTabLoadingChanged);

    const int index = m_tabs->addTab(tab, tab->title());
    QStringList toolTip{tr("Comparison, baseline first:")};
    for (const QString& file : files)
        toolTip << QDir::toNativeSeparators(file);
    m_tabs->setTabToolTip(index, toolTip.join(QLatin1Char('\n')));
    m_tabs->setCurrentIndex(index);
    tab->load();
    updateState();
}

void MainWindow::onCompareTabLoaded(CompareTab* tab)
{
    views::ComparisonView* view = tab->view();
    // As with file tabs: new comparisons take the splitter layout last chosen.
    static const char* const kLayoutHooked = "spanscopeLayoutHooked";
    if (!view->property(kLayoutHooked).toBool()) {
        view->setProperty(kLayoutHooked, true);
        if (!m_compareLayout.isEmpty())
            view->restoreLayoutState(m_compareLayout);
        connect(view, &views::ComparisonView::layoutStateChanged, this,
                [this, view] { rememberCompareLayout(view->saveLayoutState()); });
    }
    statusBar()->showMessage(tr("Compared %1").arg(tab->title()), kStatusMessageMs);
    updateState();
}

void MainWindow::compareDialog()
{
    const QString start = m_lastDirectory.isEmpty() ? QDir::homePath() : m_lastDirectory;
    const QStringList chosen =
        QFileDialog::getOpenFileNames(this, tr("Choose Runs to Compare"), start,
                                      profileFileFilters());
    if (chosen.isEmpty())
        return;
    m_lastDirectory = QFileInfo(chosen.front()).absolutePath();
    // The order: the first chosen is the baseline until the user says otherwise.
    CompareDialog dialog(chosen, m_lastDirectory, this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_lastDirectory = dialog.directory();
    compareFiles(dialog.files());
}

} // namespace spanscope::app
