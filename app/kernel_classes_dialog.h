#pragma once
// Settings › Kernel Classes: the patterns the GPU analyses sort kernels by
// (model/analysis/kernel_classes.h) — the communication and memory patterns and labels of
// the user's own, one NAME=REGEX per line, as `--kernel-class` takes them — checked before
// they are kept, and remembered for the next session. GUI thread only.

#include "model/analysis/kernel_classes.h"

#include <QDialog>
#include <QStringList>

class QLabel;
class QPlainTextEdit;

namespace spanscope::app {

// The classes saved in the settings (the defaults when none or when one no longer parses).
model::analysis::KernelClasses savedKernelClasses();
QStringList savedKernelClassSpecs();
void saveKernelClassSpecs(const QStringList& specs);
// The classes of `specs` (blank lines and lines starting with '#' skipped), or the first
// problem, naming its line.
std::optional<model::analysis::KernelClasses> kernelClassesOf(const QStringList& specs, QString* problem);

class KernelClassesDialog : public QDialog
{
    Q_OBJECT

public:
    explicit KernelClassesDialog(QWidget* parent = nullptr);

    QStringList specs() const;
    void setSpecs(const QStringList& specs);
    QPlainTextEdit* editor() const { return m_editor; }
    QLabel* problem() const { return m_problem; }

    void accept() override; // only when every line is a usable class

private:
    QPlainTextEdit* m_editor = nullptr;
    QLabel* m_problem = nullptr;
};

} // namespace spanscope::app
