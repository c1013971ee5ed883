#pragma once
// File > Launch: the program, its arguments (split as a shell would, with quotes), the
// working directory, extra environment variables (KEY=VALUE, one per line), an optional
// NVTX span budget, whether to keep every range (lossless), whether to count allocations and
// whether to record CUDA activity. Remembers the last values (QSettings). OK needs a program.
// GUI thread only.

#include "live_tab.h"

#include <QDialog>

class QCheckBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace spanscope::app {

class LaunchDialog : public QDialog
{
    Q_OBJECT

public:
    explicit LaunchDialog(QWidget* parent = nullptr);
    ~LaunchDialog() override;

    // What to launch, as entered. Also remembered for the next time.
    LaunchSpec spec() const;
    void setSpec(const LaunchSpec& spec);
    // The first problem with what was entered ("" when OK can be pressed).
    QString problem() const;

    void accept() override;

private:
    void browseProgram();
    void browseDirectory();
    void validate();

    QLineEdit* m_program = nullptr;
    QLineEdit* m_arguments = nullptr;
    QLineEdit* m_directory = nullptr;
    QPlainTextEdit* m_environment = nullptr;
    QDoubleSpinBox* m_budget = nullptr;
    QCheckBox* m_lossless = nullptr;
    QCheckBox* m_alloc = nullptr;
    QCheckBox* m_cuda = nullptr;
    QLabel* m_problem = nullptr;
    QDialogButtonBox* m_buttons = nullptr;
};

} // namespace spanscope::app
