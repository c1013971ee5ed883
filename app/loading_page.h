#pragma once
// The page a tab shows while its files load: a heading, a line of detail (path or file
// names), a progress bar and Cancel. GUI thread only.

#include <QWidget>

class QProgressBar;
class QPushButton;

namespace spanscope::app {

class LoadingPage : public QWidget
{
    Q_OBJECT

public:
    LoadingPage(const QString& heading, const QString& detail, const QString& cancelToolTip,
                QWidget* parent = nullptr);

    // Back to 0 % with the keyboard focus on Cancel, for a (re)load starting.
    void restart();
    void setProgress(double fraction); // 0..1

signals:
    void cancelRequested();

private:
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
};

} // namespace spanscope::app
