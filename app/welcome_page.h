#pragma once
// What the window shows while no file is open: a way to open one, the recent files, and a
// hint that files can be dropped here. GUI thread only.

#include <QWidget>

class QLabel;
class QListWidget;

namespace spanscope::app {

class WelcomePage : public QWidget
{
    Q_OBJECT

public:
    explicit WelcomePage(QWidget* parent = nullptr);

    // Newest first; full paths.
    void setRecentFiles(const QStringList& files);

signals:
    void openRequested();
    void launchRequested();
    void recentFileActivated(const QString& path);

private:
    QLabel* m_recentTitle = nullptr;
    QListWidget* m_recent = nullptr;
};

} // namespace spanscope::app
