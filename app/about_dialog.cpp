#include "about_dialog.h"

#include "application_icon.h"
#include "build_info.h"
#include "spanscope_version.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace spanscope::app {

namespace {

constexpr int kIconPx = 64;
constexpr int kWidthPx = 640; // room for a collector path on one line

} // namespace

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("About spanscope"));

    auto* icon = new QLabel;
    icon->setPixmap(applicationIcon().pixmap(kIconPx, kIconPx));
    icon->setAlignment(Qt::AlignTop);
    auto* text = new QLabel(
        tr("<h2>spanscope %1</h2>"
           "<p>A profile viewer for GPU and CPU programs: scope-profiler HDF5 region files, "
           "PyTorch profiler and other Chrome traces, and live NVTX and CUDA captures. Timelines with "
           "GPU streams, flows and counters, span trees, statistics per region, rank and "
           "thread, allocations, and comparison of runs.</p>"
           "<p><a href=\"%2\">%2</a></p>")
            .arg(QStringLiteral(SPANSCOPE_VERSION), QStringLiteral(SPANSCOPE_HOMEPAGE_URL)));
    text->setWordWrap(true);
    text->setOpenExternalLinks(true);
    text->setTextInteractionFlags(Qt::TextBrowserInteraction);
    auto* header = new QHBoxLayout;
    header->addWidget(icon);
    header->addWidget(text, 1);

    const QList<BuildInfoRow> rows = buildInfo();
    m_table = new QTableWidget(int(rows.size()), 2);
    m_table->setHorizontalHeaderLabels({tr("Component"), tr("Version or state")});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setWordWrap(true);
    for (int row = 0; row < rows.size(); ++row) {
        m_table->setItem(row, 0, new QTableWidgetItem(rows[row].component));
        auto* value = new QTableWidgetItem(rows[row].value);
        value->setToolTip(rows[row].value);
        m_table->setItem(row, 1, value);
    }
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_table->resizeRowsToContents();
    // Tall enough for every row, so the dialog has no empty table area.
    m_table->setMinimumHeight(m_table->horizontalHeader()->height() +
                              m_table->verticalHeader()->length() + 2 * m_table->frameWidth());

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    QPushButton* copy = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copy->setToolTip(tr("Copy the versions, for a bug report"));
    connect(copy, &QPushButton::clicked, this,
            [rows] { QApplication::clipboard()->setText(buildInfoText(rows)); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(header);
    layout->addWidget(m_table, 1);
    layout->addWidget(buttons);
    resize(kWidthPx, sizeHint().height());
}

} // namespace spanscope::app
