#include "compare_dialog.h"
#include "profile_file_filters.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace spanscope::app {

namespace {

constexpr int kPathRole = Qt::UserRole;

} // namespace

CompareDialog::CompareDialog(const QStringList& files, const QString& directory, QWidget* parent)
    : QDialog(parent), m_directory(directory)
{
    setWindowTitle(tr("Compare Runs"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("The first run is the baseline; every other run is compared "
                                "against it."));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* body = new QHBoxLayout;
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("compareFiles"));
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    m_list->setDragDropMode(QAbstractItemView::InternalMove);
    m_list->setMinimumWidth(420);
    body->addWidget(m_list, 1);
    auto* buttons = new QVBoxLayout;
    m_add = new QPushButton(tr("&Add\u2026"));
    m_remove = new QPushButton(tr("&Remove"));
    m_up = new QPushButton(style()->standardIcon(QStyle::SP_ArrowUp), tr("&Up"));
    m_down = new QPushButton(style()->standardIcon(QStyle::SP_ArrowDown), tr("&Down"));
    m_baseline = new QPushButton(tr("Make &Baseline"));
    m_baseline->setToolTip(tr("Move the selected run to the top: the run the others are "
                              "compared against"));
    for (QPushButton* button : {m_add, m_remove, m_up, m_down, m_baseline})
        buttons->addWidget(button);
    buttons->addStretch(1);
    body->addLayout(buttons);
    layout->addLayout(body, 1);

    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Compare"));
    layout->addWidget(m_buttons);

    connect(m_add, &QPushButton::clicked, this, &CompareDialog::addFiles);
    connect(m_remove, &QPushButton::clicked, this, &CompareDialog::removeCurrent);
    connect(m_up, &QPushButton::clicked, this, [this] { moveCurrent(-1); });
    connect(m_down, &QPushButton::clicked, this, [this] { moveCurrent(1); });
    connect(m_baseline, &QPushButton::clicked, this, &CompareDialog::makeCurrentBaseline);
    connect(m_list, &QListWidget::currentRowChanged, this, &CompareDialog::updateButtons);
    // Drag and drop reorders through the model: the baseline marker follows.
    connect(m_list->model(), &QAbstractItemModel::rowsMoved, this, &CompareDialog::relabel);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    appendFiles(files);
    if (m_list->count() > 0)
        m_list->setCurrentRow(0);
    updateButtons();
}

CompareDialog::~CompareDialog() = default;

QStringList CompareDialog::files() const
{
    QStringList files;
    for (int row = 0; row < m_list->count(); ++row)
        files << m_list->item(row)->data(kPathRole).toString();
    return files;
}

void CompareDialog::addFiles()
{
    const QStringList chosen = QFileDialog::getOpenFileNames(
        this, tr("Add Runs"), m_directory, profileFileFilters());
    if (chosen.isEmpty())
        return;
    m_directory = QFileInfo(chosen.front()).absolutePath();
    appendFiles(chosen);
    m_list->setCurrentRow(m_list->count() - 1);
}

void CompareDialog::appendFiles(const QStringList& files)
{
    for (const QString& file : files) {
        const QString path = QFileInfo(file).absoluteFilePath();
        if (this->files().contains(path))
            continue; // a run compared with itself says nothing
        auto* item = new QListWidgetItem;
        item->setData(kPathRole, path);
        item->setToolTip(QDir::toNativeSeparators(path));
        m_list->addItem(item);
    }
    relabel();
}

void CompareDialog::moveCurrent(int delta)
{
    const int row = m_list->currentRow();
    const int target = row + delta;
    if (row < 0 || target < 0 || target >= m_list->count())
        return;
    QListWidgetItem* item = m_list->takeItem(row);
    m_list->insertItem(target, item);
    m_list->setCurrentRow(target);
    relabel();
}

void CompareDialog::makeCurrentBaseline()
{
    moveCurrent(-m_list->currentRow());
}

void CompareDialog::removeCurrent()
{
    const int row = m_list->currentRow();
    if (row < 0)
        return;
    delete m_list->takeItem(row);
    relabel();
}

void CompareDialog::relabel()
{
    for (int row = 0; row < m_list->count(); ++row) {
        QListWidgetItem* item = m_list->item(row);
        const QFileInfo file(item->data(kPathRole).toString());
        const QString where = QDir::toNativeSeparators(file.absolutePath());
        item->setText(row == 0 ? tr("%1  (baseline)  \u2014  %2").arg(file.fileName(), where)
                               : tr("%1  \u2014  %2").arg(file.fileName(), where));
        QFont font = item->font();
        font.setBold(row == 0);
        item->setFont(font);
    }
    updateButtons();
}

void CompareDialog::updateButtons()
{
    const int row = m_list->currentRow();
    m_remove->setEnabled(row >= 0);
    m_up->setEnabled(row > 0);
    m_down->setEnabled(row >= 0 && row + 1 < m_list->count());
    m_baseline->setEnabled(row > 0);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(m_list->count() >= 2);
}

} // namespace spanscope::app
