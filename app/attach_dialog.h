#pragma once
// File > Attach: the local jobs started with `spanscope-run --wait` that wait for a viewer
// (model/live/job_registry.h), refreshed every second: pid, command, working directory and
// how long each has waited. Attach takes the selected one. GUI thread only.

#include "model/live/job_registry.h"

#include <QDialog>
#include <optional>
#include <vector>

class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QTreeWidget;

namespace spanscope::app {

class AttachDialog : public QDialog
{
    Q_OBJECT

public:
    explicit AttachDialog(QWidget* parent = nullptr);
    ~AttachDialog() override;

    // Reads the registry again (also every second on its own).
    void refresh();
    std::optional<model::live::WaitingJob> selectedJob() const;
    // Spans per second per process the viewer keeps (0 = all); remembered (QSettings).
    double maxSpansPerSecond() const;
    QTreeWidget* jobList() const { return m_list; }

private:
    void updateButtons();

    std::vector<model::live::WaitingJob> m_jobs;
    QTreeWidget* m_list = nullptr;
    QLabel* m_note = nullptr;
    QDoubleSpinBox* m_budget = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace spanscope::app
