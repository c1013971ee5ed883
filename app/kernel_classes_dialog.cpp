#include "kernel_classes_dialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace spanscope::app {

namespace {

constexpr const char* kKey = "gpu/kernelClasses";

} // namespace

std::optional<model::analysis::KernelClasses> kernelClassesOf(const QStringList& specs, QString* problem)
{
    model::analysis::KernelClasses classes;
    for (int i = 0; i < specs.size(); ++i) {
        const QString line = specs[i].trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#')))
            continue;
        if (const auto error = classes.add(line.toStdString())) {
            if (problem)
                *problem = QObject::tr("Line %1, \u201c%2\u201d: %3").arg(i + 1).arg(line, QString::fromStdString(*error));
            return std::nullopt;
        }
    }
    return classes;
}

QStringList savedKernelClassSpecs()
{
    return QSettings().value(QLatin1String(kKey)).toStringList();
}

void saveKernelClassSpecs(const QStringList& specs)
{
    QSettings().setValue(QLatin1String(kKey), specs);
}

model::analysis::KernelClasses savedKernelClasses()
{
    return kernelClassesOf(savedKernelClassSpecs(), nullptr).value_or(model::analysis::KernelClasses{});
}

KernelClassesDialog::KernelClassesDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Kernel Classes"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(
        tr("How the GPU analyses sort kernels, one <tt>NAME=REGEX</tt> per line (a regular expression searched in "
           "the kernel's name, ignoring case). <tt>communication=…</tt> and <tt>memory=…</tt> replace those "
           "classes' patterns (defaults: <tt>communication=^(nccl|rccl)</tt>, no memory kernels; copies and "
           "memsets are always memory); any other name adds a label, e.g. <tt>attention=flash|fmha</tt>. "
           "Every other kernel is compute. The same as <tt>spanscope-cli --kernel-class</tt>."));
    intro->setWordWrap(true);
    intro->setTextFormat(Qt::RichText);
    layout->addWidget(intro);
    m_editor = new QPlainTextEdit;
    m_editor->setObjectName(QStringLiteral("kernelClassSpecs"));
    m_editor->setPlaceholderText(QStringLiteral("attention=flash|fmha\ngemm=gemm|cutlass"));
    layout->addWidget(m_editor, 1);
    m_problem = new QLabel;
    m_problem->setObjectName(QStringLiteral("kernelClassProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #c83232"));
    m_problem->hide();
    layout->addWidget(m_problem);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults);
    connect(buttons, &QDialogButtonBox::accepted, this, &KernelClassesDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [this] {
        m_editor->clear();
        m_problem->hide();
    });
    layout->addWidget(buttons);
    resize(560, 360);
}

QStringList KernelClassesDialog::specs() const
{
    QStringList lines = m_editor->toPlainText().split(QLatin1Char('\n'));
    while (!lines.isEmpty() && lines.back().trimmed().isEmpty())
        lines.removeLast();
    return lines;
}

void KernelClassesDialog::setSpecs(const QStringList& specs)
{
    m_editor->setPlainText(specs.join(QLatin1Char('\n')));
}

void KernelClassesDialog::accept()
{
    QString problem;
    if (!kernelClassesOf(specs(), &problem)) {
        m_problem->setText(problem);
        m_problem->show();
        return;
    }
    QDialog::accept();
}

} // namespace spanscope::app
