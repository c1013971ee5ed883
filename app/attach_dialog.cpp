#include "attach_dialog.h"

#include "span_budget_box.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QTimer>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace spanscope::app {

namespace {

constexpr int kRefreshMs = 1000;
const QString kBudgetKey = QStringLiteral("attach/spanBudget");

QString waitedText(int64_t since)
{
    const qint64 seconds = std::max<qint64>(0, QDateTime::currentSecsSinceEpoch() - since);
    if (seconds < 60)
        return QObject::tr("%1 s").arg(seconds);
    if (seconds < 3600)
        return QObject::tr("%1 min").arg(seconds / 60);
    return QObject::tr("%1 h %2 min").arg(seconds / 3600).arg(seconds / 60 % 60);
}

} // namespace

AttachDialog::AttachDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Attach to a Waiting Job"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("Jobs started with <code>spanscope-run --wait -- COMMAND</code> wait here for a "
           "viewer; the job starts when you attach."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_list = new QTreeWidget;
    m_list->setObjectName(QStringLiteral("waitingJobs"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setHeaderLabels({tr("PID"), tr("Command"), tr("Working directory"), tr("Waiting")});
    m_list->header()->setSectionResizeMode(1, QHeaderView::Stretch);
    layout->addWidget(m_list, 1);
    m_note = new QLabel;
    m_note->setObjectName(QStringLiteral("attachNote"));
    m_note->setWordWrap(true);
    layout->addWidget(m_note);
    auto* form = new QFormLayout;
    m_budget = createSpanBudgetBox();
    m_budget->setValue(QSettings().value(kBudgetKey, 0.0).toDouble());
    form->addRow(tr("Span &budget:"), m_budget);
    layout->addLayout(form);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Attach"));
    auto* refreshButton = m_buttons->addButton(tr("&Refresh"), QDialogButtonBox::ActionRole);
    layout->addWidget(m_buttons);

    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        QSettings().setValue(kBudgetKey, m_budget->value());
        accept();
    });
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(refreshButton, &QPushButton::clicked, this, &AttachDialog::refresh);
    connect(m_list, &QTreeWidget::itemSelectionChanged, this, &AttachDialog::updateButtons);
    connect(m_list, &QTreeWidget::itemDoubleClicked, this, &QDialog::accept);
    auto* timer = new QTimer(this);
    connect(timer, &QTimer::timeout, this, &AttachDialog::refresh);
    timer->start(kRefreshMs);
    refresh();
    resize(760, 360);
}

AttachDialog::~AttachDialog() = default;

void AttachDialog::refresh()
{
    const auto selected = selectedJob();
    auto listed = model::live::listWaitingJobs();
    m_list->clear();
    m_jobs.clear();
    if (!listed) {
        m_note->setText(QString::fromStdString(listed.error().toString()));
        updateButtons();
        return;
    }
    m_jobs = std::move(listed.value());
    for (const auto& job : m_jobs) {
        auto* item = new QTreeWidgetItem(
            m_list, {QString::number(job.pid), QString::fromStdString(job.command),
                     QDir::toNativeSeparators(QString::fromStdString(job.workingDirectory)),
                     waitedText(job.waitingSince)});
        item->setToolTip(1, QString::fromStdString(job.command));
        if (selected && selected->pid == job.pid)
            m_list->setCurrentItem(item);
    }
    if (!m_list->currentItem() && m_list->topLevelItemCount() > 0)
        m_list->setCurrentItem(m_list->topLevelItem(0));
    m_note->setText(m_jobs.empty() ? tr("No job is waiting. Start one in a terminal, e.g. "
                                        "<code>spanscope-run --wait -- ./my_program</code>.")
                                   : QString());
    updateButtons();
}

std::optional<model::live::WaitingJob> AttachDialog::selectedJob() const
{
    const QTreeWidgetItem* item = m_list->currentItem();
    if (!item)
        return std::nullopt;
    const int index = m_list->indexOfTopLevelItem(const_cast<QTreeWidgetItem*>(item));
    if (index < 0 || size_t(index) >= m_jobs.size())
        return std::nullopt;
    return m_jobs[size_t(index)];
}

double AttachDialog::maxSpansPerSecond() const
{
    return m_budget->value();
}

void AttachDialog::updateButtons()
{
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(selectedJob().has_value());
}

} // namespace spanscope::app
