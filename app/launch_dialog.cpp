#include "launch_dialog.h"

#include "span_budget_box.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace spanscope::app {

namespace {

const QString kProgramKey = QStringLiteral("launch/program");
const QString kArgumentsKey = QStringLiteral("launch/arguments");
const QString kDirectoryKey = QStringLiteral("launch/directory");
const QString kEnvironmentKey = QStringLiteral("launch/environment");
const QString kBudgetKey = QStringLiteral("launch/spanBudget");
const QString kLosslessKey = QStringLiteral("launch/lossless");
const QString kCudaKey = QStringLiteral("launch/cuda");
const QString kAllocKey = QStringLiteral("launch/alloc");

// "KEY=VALUE" lines; blank lines and # comments are skipped.
QStringList environmentLines(const QString& text)
{
    QStringList lines;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const QString trimmed = line.trimmed();
        if (!trimmed.isEmpty() && !trimmed.startsWith(QLatin1Char('#')))
            lines << trimmed;
    }
    return lines;
}

QWidget* withButton(QLineEdit* edit, QPushButton* button)
{
    auto* row = new QWidget;
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(edit, 1);
    layout->addWidget(button);
    return row;
}

} // namespace

LaunchDialog::LaunchDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Launch a Job"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("The program runs with spanscope's NVTX collector injected; its "
                                "timeline grows here while it runs."));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto* form = new QFormLayout;
    m_program = new QLineEdit;
    m_program->setObjectName(QStringLiteral("launchProgram"));
    m_program->setPlaceholderText(tr("a program on PATH or its path"));
    auto* browseProgram = new QPushButton(tr("Browse\u2026"));
    m_arguments = new QLineEdit;
    m_arguments->setObjectName(QStringLiteral("launchArguments"));
    m_arguments->setPlaceholderText(tr("arguments, quoted as in a shell"));
    m_directory = new QLineEdit;
    m_directory->setObjectName(QStringLiteral("launchDirectory"));
    m_directory->setPlaceholderText(QDir::toNativeSeparators(QDir::currentPath()));
    auto* browseDirectory = new QPushButton(tr("Browse\u2026"));
    m_environment = new QPlainTextEdit;
    m_environment->setObjectName(QStringLiteral("launchEnvironment"));
    m_environment->setPlaceholderText(tr("KEY=VALUE, one per line, added to the viewer's own"));
    m_environment->setFixedHeight(m_environment->fontMetrics().lineSpacing() * 5);
    m_budget = createSpanBudgetBox();
    form->addRow(tr("&Program:"), withButton(m_program, browseProgram));
    form->addRow(tr("&Arguments:"), m_arguments);
    form->addRow(tr("&Working directory:"), withButton(m_directory, browseDirectory));
    form->addRow(tr("&Environment:"), m_environment);
    form->addRow(tr("Span &budget:"), m_budget);
    m_lossless = new QCheckBox(tr("&Keep every range"));
    m_lossless->setObjectName(QStringLiteral("launchLossless"));
    m_lossless->setToolTip(tr("When the job records faster than the viewer takes its ranges, queue "
                              "them in the job's memory (up to 1 GiB a process) instead of "
                              "dropping and counting them. The job may take longer to exit."));
    form->addRow(tr("Lossless:"), m_lossless);
    m_alloc = new QCheckBox(tr("Count a&llocations"));
    m_alloc->setObjectName(QStringLiteral("launchAlloc"));
    m_alloc->setToolTip(tr("Count every malloc and new of the job and attribute them to the range "
                           "open on their thread (allocations and bytes per call in the region "
                           "table). Adds about 5 ns to each allocation."));
    form->addRow(tr("Allocations:"), m_alloc);
    m_cuda = new QCheckBox(tr("Record &CUDA activity"));
    m_cuda->setObjectName(QStringLiteral("launchCuda"));
    m_cuda->setToolTip(tr("For CUDA programs: record kernels, copies, memsets, CUDA API calls and "
                          "device memory through CUPTI, each kernel under the NVTX range that "
                          "launched it. Needs the NVIDIA driver and libcupti; without them the "
                          "capture says why and records NVTX only."));
    form->addRow(tr("CUDA:"), m_cuda);
    layout->addLayout(form);

    m_problem = new QLabel;
    m_problem->setObjectName(QStringLiteral("launchProblem"));
    m_problem->setWordWrap(true);
    m_problem->setStyleSheet(QStringLiteral("color: #c0392b"));
    layout->addWidget(m_problem);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Launch"));
    layout->addWidget(m_buttons);

    const QSettings settings;
    m_program->setText(settings.value(kProgramKey).toString());
    m_arguments->setText(settings.value(kArgumentsKey).toString());
    m_directory->setText(settings.value(kDirectoryKey).toString());
    m_environment->setPlainText(settings.value(kEnvironmentKey).toString());
    m_budget->setValue(settings.value(kBudgetKey, 0.0).toDouble());
    m_lossless->setChecked(settings.value(kLosslessKey, false).toBool());
    m_alloc->setChecked(settings.value(kAllocKey, false).toBool());
    m_cuda->setChecked(settings.value(kCudaKey, true).toBool());

    connect(browseProgram, &QPushButton::clicked, this, &LaunchDialog::browseProgram);
    connect(browseDirectory, &QPushButton::clicked, this, &LaunchDialog::browseDirectory);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &LaunchDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &LaunchDialog::reject);
    for (QLineEdit* edit : {m_program, m_arguments, m_directory})
        connect(edit, &QLineEdit::textChanged, this, &LaunchDialog::validate);
    connect(m_environment, &QPlainTextEdit::textChanged, this, &LaunchDialog::validate);
    validate();
    resize(640, sizeHint().height());
}

LaunchDialog::~LaunchDialog() = default;

LaunchSpec LaunchDialog::spec() const
{
    LaunchSpec spec;
    spec.program = m_program->text().trimmed();
    spec.arguments = QProcess::splitCommand(m_arguments->text());
    spec.workingDirectory = m_directory->text().trimmed();
    spec.environment = environmentLines(m_environment->toPlainText());
    spec.maxSpansPerSecond = m_budget->value();
    spec.lossless = m_lossless->isChecked();
    spec.alloc = m_alloc->isChecked();
    spec.cuda = m_cuda->isChecked();
    return spec;
}

void LaunchDialog::setSpec(const LaunchSpec& spec)
{
    m_program->setText(spec.program);
    QStringList quoted;
    for (const QString& argument : spec.arguments)
        quoted << (argument.contains(QRegularExpression(QStringLiteral("[\\s\"']")))
                       ? QLatin1Char('"') +
                             QString(argument).replace(QLatin1Char('"'), QStringLiteral("\"\"\"")) +
                             QLatin1Char('"')
                       : argument);
    m_arguments->setText(quoted.join(QLatin1Char(' ')));
    m_directory->setText(spec.workingDirectory);
    m_environment->setPlainText(spec.environment.join(QLatin1Char('\n')));
    m_budget->setValue(spec.maxSpansPerSecond);
    m_lossless->setChecked(spec.lossless);
    m_alloc->setChecked(spec.alloc);
    m_cuda->setChecked(spec.cuda);
}

QString LaunchDialog::problem() const
{
    const LaunchSpec s = spec();
    if (s.program.isEmpty())
        return tr("Enter the program to run.");
    const bool hasPath = s.program.contains(QLatin1Char('/'));
    const QString directory =
        s.workingDirectory.isEmpty() ? QDir::currentPath() : s.workingDirectory;
    if (!s.workingDirectory.isEmpty() && !QFileInfo(s.workingDirectory).isDir())
        return tr("The working directory %1 does not exist.").arg(s.workingDirectory);
    if (hasPath) {
        const QFileInfo program(QDir(directory).filePath(s.program));
        if (!program.exists())
            return tr("%1 does not exist.").arg(program.filePath());
        if (!program.isExecutable() || program.isDir())
            return tr("%1 is not an executable program.").arg(program.filePath());
    } else if (QStandardPaths::findExecutable(s.program).isEmpty()) {
        return tr("%1 is not on PATH.").arg(s.program);
    }
    for (const QString& line : s.environment)
        if (line.indexOf(QLatin1Char('=')) <= 0)
            return tr("\u201c%1\u201d is not KEY=VALUE.").arg(line);
    return {};
}

void LaunchDialog::validate()
{
    const QString issue = problem();
    m_problem->setText(issue);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(issue.isEmpty());
}

void LaunchDialog::accept()
{
    if (!problem().isEmpty())
        return;
    QSettings settings;
    settings.setValue(kProgramKey, m_program->text());
    settings.setValue(kArgumentsKey, m_arguments->text());
    settings.setValue(kDirectoryKey, m_directory->text());
    settings.setValue(kEnvironmentKey, m_environment->toPlainText());
    settings.setValue(kBudgetKey, m_budget->value());
    settings.setValue(kLosslessKey, m_lossless->isChecked());
    settings.setValue(kAllocKey, m_alloc->isChecked());
    settings.setValue(kCudaKey, m_cuda->isChecked());
    QDialog::accept();
}

void LaunchDialog::browseProgram()
{
    const QString file = QFileDialog::getOpenFileName(this, tr("Program to Launch"),
                                                      QFileInfo(m_program->text()).absolutePath());
    if (!file.isEmpty())
        m_program->setText(file);
}

void LaunchDialog::browseDirectory()
{
    const QString directory =
        QFileDialog::getExistingDirectory(this, tr("Working Directory"), m_directory->text());
    if (!directory.isEmpty())
        m_directory->setText(directory);
}

} // namespace spanscope::app
