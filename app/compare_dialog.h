#pragma once
// Chooses the runs of a comparison and their order: a list of files, the first marked as
// the baseline, with buttons to add more files, remove one, move one up or down, or make
// one the baseline. OK needs two files or more. GUI thread only.

#include <QDialog>
#include <QStringList>

class QDialogButtonBox;
class QListWidget;
class QPushButton;

namespace spanscope::app {

class CompareDialog : public QDialog
{
    Q_OBJECT

public:
    // `files`: the runs chosen so far, baseline first; `directory`: where Add… starts.
    explicit CompareDialog(const QStringList& files, const QString& directory,
                           QWidget* parent = nullptr);
    ~CompareDialog() override;

    // Absolute paths in the chosen order, the baseline first.
    QStringList files() const;
    // The folder Add… last chose from.
    QString directory() const { return m_directory; }

    void moveCurrent(int delta);
    void makeCurrentBaseline();
    void removeCurrent();

private:
    void addFiles();
    void appendFiles(const QStringList& files);
    void relabel();
    void updateButtons();

    QString m_directory;
    QListWidget* m_list = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_remove = nullptr;
    QPushButton* m_up = nullptr;
    QPushButton* m_down = nullptr;
    QPushButton* m_baseline = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace spanscope::app
