#include "loading_page.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace spanscope::app {

namespace {
constexpr int kProgressSteps = 1000; // the bar counts in tenths of a percent
} // namespace

LoadingPage::LoadingPage(const QString& heading, const QString& detail, const QString& cancelToolTip,
                         QWidget* parent)
    : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    auto* column = new QWidget;
    column->setMaximumWidth(480);
    auto* layout = new QVBoxLayout(column);
    auto* title = new QLabel(heading);
    title->setAlignment(Qt::AlignCenter);
    QFont font = title->font();
    font.setPointSizeF(font.pointSizeF() * 1.2);
    title->setFont(font);
    auto* detailLabel = new QLabel(detail);
    detailLabel->setAlignment(Qt::AlignCenter);
    detailLabel->setEnabled(false);
    detailLabel->setWordWrap(true);
    m_progress = new QProgressBar;
    m_progress->setObjectName(QStringLiteral("loadProgress"));
    m_progress->setRange(0, kProgressSteps);
    m_progress->setMinimumWidth(360);
    m_cancel = new QPushButton(tr("Cancel"));
    m_cancel->setObjectName(QStringLiteral("cancelLoad"));
    m_cancel->setToolTip(cancelToolTip);
    layout->addWidget(title);
    layout->addWidget(detailLabel);
    layout->addSpacing(8);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel, 0, Qt::AlignHCenter);
    outer->addStretch(1);
    outer->addWidget(column, 0, Qt::AlignHCenter);
    outer->addStretch(2);
    connect(m_cancel, &QPushButton::clicked, this, &LoadingPage::cancelRequested);
}

void LoadingPage::restart()
{
    m_progress->setValue(0);
    m_cancel->setFocus();
}

void LoadingPage::setProgress(double fraction)
{
    m_progress->setValue(int(fraction * kProgressSteps));
}

} // namespace spanscope::app
