#include "welcome_page.h"

#include <QDir>
#include <QFileInfo>
#include <QFontMetrics>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>
#include <algorithm>

namespace spanscope::app {

namespace {

// Width of the page's centred column (px): room for a long file name and its folder.
constexpr int kColumnWidth = 560;

} // namespace

WelcomePage::WelcomePage(QWidget* parent) : QWidget(parent)
{
    auto* outer = new QVBoxLayout(this);
    auto* column = new QWidget;
    column->setFixedWidth(kColumnWidth + 20);
    auto* layout = new QVBoxLayout(column);
    layout->setSpacing(10);

    auto* title = new QLabel(QStringLiteral("spanscope"));
    QFont titleFont = title->font();
    titleFont.setPointSizeF(titleFont.pointSizeF() * 2.2);
    titleFont.setBold(true);
    title->setFont(titleFont);
    title->setAlignment(Qt::AlignCenter);
    auto* subtitle = new QLabel(tr("Timelines and statistics of region files and live NVTX captures"));
    subtitle->setAlignment(Qt::AlignCenter);
    subtitle->setEnabled(false);

    auto* open = new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton),
                                 tr("Open a region file\u2026"));
    open->setObjectName(QStringLiteral("welcomeOpen"));
    open->setDefault(true);
    open->setMinimumHeight(open->sizeHint().height() + 10);
    auto* hint = new QLabel(tr("or drop region files (.h5) or Chrome/PyTorch traces (.json, .json.gz) onto this window (Ctrl+O opens too)"));
    auto* launch = new QPushButton(style()->standardIcon(QStyle::SP_MediaPlay),
                                   tr("Launch a program and watch it live…"));
    launch->setObjectName(QStringLiteral("welcomeLaunch"));
    launch->setMinimumHeight(launch->sizeHint().height() + 10);
    hint->setAlignment(Qt::AlignCenter);
    hint->setEnabled(false);

    m_recentTitle = new QLabel(tr("Recent files"));
    QFont sectionFont = m_recentTitle->font();
    sectionFont.setBold(true);
    m_recentTitle->setFont(sectionFont);
    m_recent = new QListWidget;
    m_recent->setObjectName(QStringLiteral("welcomeRecent"));
    m_recent->setMinimumHeight(200);
    m_recent->setAlternatingRowColors(true);
    m_recent->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_recent->setFixedWidth(kColumnWidth);

    layout->addWidget(title);
    layout->addWidget(subtitle);
    layout->addSpacing(16);
    layout->addWidget(open);
    layout->addWidget(hint);
    layout->addSpacing(8);
    layout->addWidget(launch);
    layout->addSpacing(16);
    layout->addWidget(m_recentTitle);
    layout->addWidget(m_recent);

    outer->addStretch(1);
    outer->addWidget(column, 0, Qt::AlignHCenter);
    outer->addStretch(2);

    connect(open, &QPushButton::clicked, this, &WelcomePage::openRequested);
    connect(launch, &QPushButton::clicked, this, &WelcomePage::launchRequested);
    // A click opens, like a link; Enter too. Opening a file twice only switches to its tab.
    const auto activate = [this](QListWidgetItem* item) {
        emit recentFileActivated(item->data(Qt::UserRole).toString());
    };
    connect(m_recent, &QListWidget::itemClicked, this, activate);
    connect(m_recent, &QListWidget::itemActivated, this, activate);
    setRecentFiles({});
}

void WelcomePage::setRecentFiles(const QStringList& files)
{
    m_recent->clear();
    const QIcon icon = style()->standardIcon(QStyle::SP_FileIcon);
    const QFontMetrics metrics(m_recent->font());
    // The column has a fixed width: shorten long folders in the middle so the list never
    // needs a horizontal scroll bar.
    const int textWidth = m_recent->width() - m_recent->iconSize().width() - 40;
    for (const QString& file : files) {
        const QFileInfo info(file);
        const QString name = info.fileName() + QStringLiteral("    ");
        const QString folder =
            metrics.elidedText(QDir::toNativeSeparators(info.absolutePath()), Qt::ElideMiddle,
                               std::max(textWidth - metrics.horizontalAdvance(name), 80));
        auto* item = new QListWidgetItem(icon, name + folder);
        item->setData(Qt::UserRole, file);
        item->setToolTip(QDir::toNativeSeparators(file));
        m_recent->addItem(item);
    }
    m_recentTitle->setVisible(!files.isEmpty());
    m_recent->setVisible(!files.isEmpty());
}

} // namespace spanscope::app
