#include "live_tab.h"

#include "lane_layout_memory.h"
#include "views/capture_view.h"
#include "views/display_text.h"
#include "views/elided_label.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSplitter>
#include <QStackedWidget>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cerrno>
#include <csignal>

namespace spanscope::app {

QString spanscopeRunPath()
{
    const QString fromEnvironment = qEnvironmentVariable("SPANSCOPE_RUN");
    if (!fromEnvironment.isEmpty())
        return fromEnvironment;
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("spanscope-run"));
}

namespace {

constexpr int kOutputLines = 5000; // job output kept in the pane
constexpr int kKillAfterMs = 3000; // SIGTERM, then SIGKILL if the job is still there
constexpr int kCloseWaitMs = 2000; // closing the tab waits this long for a launched job

QString shellQuoted(const QStringList& words)
{
    QStringList quoted;
    for (const QString& word : words) {
        const bool plain = !word.isEmpty() &&
                           !word.contains(QRegularExpression(QStringLiteral("[^\\w@%+=:,./-]")));
        quoted << (plain ? word
                         : QLatin1Char('\'') +
                               QString(word).replace(QLatin1Char('\''), QStringLiteral("'\\''")) +
                               QLatin1Char('\''));
    }
    return quoted.join(QLatin1Char(' '));
}

model::Error liveError(const QString& message, const QString& what = {})
{
    return model::Error{model::ErrorCode::Io, message.toStdString(), what.toStdString(), {}};
}

bool processAlive(int pid)
{
    return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

} // namespace

LiveTab::LiveTab(QWidget* parent) : QWidget(parent)
{
    m_clock.start();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);

    auto* bar = new QWidget;
    bar->setObjectName(QStringLiteral("liveBar"));
    auto* barLayout = new QHBoxLayout(bar);
    barLayout->setContentsMargins(8, 4, 8, 4);
    m_stateLabel = new QLabel;
    m_stateLabel->setObjectName(QStringLiteral("liveState"));
    m_stateLabel->setTextFormat(Qt::RichText);
    // Elided: a long command line or end reason must never widen the window.
    m_figures = new views::ElidedLabel;
    m_figures->setObjectName(QStringLiteral("liveFigures"));
    m_stop = new QToolButton;
    m_stop->setText(tr("Stop Job"));
    m_stop->setIcon(style()->standardIcon(QStyle::SP_MediaStop));
    m_stop->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_stop->setToolTip(tr("End the job (SIGTERM, then SIGKILL after 3 s); what arrived stays"));
    m_detach = new QToolButton;
    m_detach->setText(tr("Detach"));
    m_detach->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_detach->setToolTip(tr("Stop capturing; the job carries on and what arrived stays"));
    barLayout->addWidget(m_stateLabel);
    barLayout->addSpacing(12);
    barLayout->addWidget(m_figures, 1);
    barLayout->addWidget(m_stop);
    barLayout->addWidget(m_detach);
    layout->addWidget(bar);

    m_stack = new QStackedWidget;
    m_waiting = new QLabel;
    m_waiting->setAlignment(Qt::AlignCenter);
    m_waiting->setWordWrap(true);
    m_stack->addWidget(m_waiting);
    m_view = nullptr;
    m_splitter = new QSplitter(Qt::Vertical);
    m_splitter->addWidget(m_stack);
    m_output = new QPlainTextEdit;
    m_output->setObjectName(QStringLiteral("jobOutput"));
    m_output->setReadOnly(true);
    m_output->setMaximumBlockCount(kOutputLines);
    m_output->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_output->setPlaceholderText(tr("The job's output (stdout and stderr) appears here."));
    m_output->hide();
    m_splitter->addWidget(m_output);
    m_splitter->setStretchFactor(0, 5);
    m_splitter->setStretchFactor(1, 1);
    layout->addWidget(m_splitter, 1);

    // The figures line (updates per second, a job that went quiet) stays current.
    auto* ticker = new QTimer(this);
    ticker->start(500);
    connect(ticker, &QTimer::timeout, this, &LiveTab::refreshStatus);
    connect(m_stop, &QToolButton::clicked, this, &LiveTab::stopJob);
    connect(m_detach, &QToolButton::clicked, this, &LiveTab::detach);
    setState(State::Waiting);
}

LiveTab::~LiveTab()
{
    m_ingest.reset(); // detaches if still reading, joins its threads
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->terminate();
        if (!m_process->waitForFinished(kCloseWaitMs)) {
            m_process->kill();
            m_process->waitForFinished(kCloseWaitMs);
        }
    }
}

model::Status LiveTab::startIngest(double maxSpansPerSecond)
{
    model::live::LiveIngestOptions options;
    options.assembler.maxSpansPerSecond = maxSpansPerSecond;
    options.assembler.commandLine = m_commandLine.toStdString();
    auto started = model::live::LiveIngest::start(
        std::move(options), [this](std::shared_ptr<const model::live::LiveUpdate> update) {
            // Analysis thread: keep only the newest; one queued call fetches it.
            bool post;
            {
                std::lock_guard lock(m_pendingMutex);
                post = !m_pending;
                m_pending = std::move(update);
            }
            if (post)
                QMetaObject::invokeMethod(this, &LiveTab::takeUpdate, Qt::QueuedConnection);
        });
    if (!started)
        return started.error();
    m_ingest = std::move(started.value());
    return model::Ok{};
}

model::Status LiveTab::launch(const LaunchSpec& spec)
{
    m_title = QFileInfo(spec.program).fileName();
    m_commandLine = shellQuoted(QStringList{spec.program} + spec.arguments);
    const QString run = spanscopeRunPath();
    if (!QFileInfo(run).isExecutable())
        return liveError(tr("spanscope-run was not found next to the viewer (set SPANSCOPE_RUN "
                            "to its path)"),
                         run);
    if (spec.program.trimmed().isEmpty())
        return liveError(tr("no program given"));
    if (auto started = startIngest(spec.maxSpansPerSecond); !started)
        return started;

    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const QString& line : spec.environment) {
        const qsizetype eq = line.indexOf(QLatin1Char('='));
        if (eq > 0)
            environment.insert(line.left(eq), line.mid(eq + 1));
    }
    m_process->setProcessEnvironment(environment);
    if (!spec.workingDirectory.isEmpty())
        m_process->setWorkingDirectory(spec.workingDirectory);
    connect(m_process, &QProcess::readyRead, this, &LiveTab::appendOutput);
    connect(m_process, &QProcess::started, this, [this] {
        m_pid = int(m_process->processId()); // spanscope-run execs into the job: same pid
        m_ingest->watchPid(m_pid);
        refreshStatus();
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        m_endNote =
            status == QProcess::CrashExit ? tr("killed by a signal") : tr("exit code %1").arg(code);
        if (m_ingest)
            m_ingest->jobExited();
        refreshStatus();
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error != QProcess::FailedToStart)
            return;
        m_endNote = tr("could not start: %1").arg(m_process->errorString());
        m_output->appendPlainText(m_endNote);
        if (m_ingest)
            m_ingest->jobExited();
        setState(State::FailedToStart);
    });
    m_output->show();
    // The capture gets the room; a few lines of output are enough to see what it says.
    // A few lines of output: more in a tall window, where the capture has room to spare.
    const int lines = window()->height() >= 850 ? 7 : 4;
    m_splitter->setSizes({4000, m_output->fontMetrics().lineSpacing() * lines});
    const QStringList arguments =
        QStringList{QStringLiteral("--connect"), QString::fromStdString(m_ingest->socketPath())}
        + (spec.lossless ? QStringList{QStringLiteral("--lossless")} : QStringList{})
        + (spec.alloc ? QStringList{QStringLiteral("--alloc")} : QStringList{})
        + (spec.cuda ? QStringList{} : QStringList{QStringLiteral("--no-cuda")})
        + QStringList{QStringLiteral("--")}
        << spec.program << spec.arguments;
    m_output->insertPlainText(tr("$ %1\n").arg(m_commandLine));
    m_process->start(run, arguments);
    m_process->closeWriteChannel(); // no terminal here: a job reading stdin gets end of file
    setState(State::Waiting);
    return model::Ok{};
}

model::Status LiveTab::attach(const model::live::WaitingJob& job, double maxSpansPerSecond)
{
    m_commandLine = QString::fromStdString(job.command);
    m_title = QFileInfo(m_commandLine.section(QLatin1Char(' '), 0, 0)).fileName();
    if (auto started = startIngest(maxSpansPerSecond); !started)
        return started;
    auto attached = model::live::attachToJob(job, m_ingest->socketPath());
    if (!attached) {
        m_ingest.reset();
        return attached.error();
    }
    m_pid = attached.value();
    m_ingest->watchPid(m_pid);
    setState(State::Waiting);
    return model::Ok{};
}

void LiveTab::stopJob()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        QTimer::singleShot(kKillAfterMs, m_process, [process = m_process] {
            if (process->state() != QProcess::NotRunning)
                process->kill();
        });
    } else if (processAlive(m_pid)) {
        ::kill(m_pid, SIGTERM);
        QTimer::singleShot(kKillAfterMs, this, [pid = m_pid] {
            if (processAlive(pid))
                ::kill(pid, SIGKILL);
        });
    }
}

void LiveTab::detach()
{
    if (m_ingest && isLive())
        m_ingest->detach(); // the final update sets the state
}

bool LiveTab::hasUnsavedCapture() const
{
    if (!m_view || !m_view->capture() || m_view->capture()->events.size() == 0)
        return false;
    return m_saved.lock() != m_view->capture();
}

int LiveTab::warningCount() const
{
    return m_last && m_last->loaded.capture ? int(m_last->loaded.capture->warnings.size()) : 0;
}

void LiveTab::takeUpdate()
{
    std::shared_ptr<const model::live::LiveUpdate> update;
    {
        std::lock_guard lock(m_pendingMutex);
        update = std::move(m_pending);
    }
    if (!update)
        return;
    showUpdate(*update);
    m_last = std::move(update);
    if (m_last && m_last->final) {
        const bool detached = m_last->endReason.rfind("detached", 0) == 0;
        setState(m_state == State::FailedToStart ? m_state
                 : detached                      ? State::Detached
                                                 : State::Ended);
    } else if (m_last && m_last->processes > 0 && m_state == State::Waiting) {
        setState(State::Recording);
    }
    refreshStatus();
}

void LiveTab::showUpdate(const model::live::LiveUpdate& update)
{
    const auto& loaded = update.loaded;
    if (!loaded.capture)
        return;
    m_updateTimes.push_back(m_clock.elapsed());
    ++m_updatesShown;
    if (!m_view) {
        if (loaded.capture->events.size() == 0 && !update.final)
            return; // nothing to draw yet: keep the waiting page
        if (loaded.capture->events.size() == 0 && loaded.capture->nvtx.marks.empty()) {
            // Nothing ever arrived: an empty timeline would only hide why.
            QStringList reasons;
            for (const auto& warning : loaded.capture->warnings)
                reasons << QString::fromStdString(warning.message).toHtmlEscaped();
            m_waiting->setText(tr("<h3>%1 recorded nothing</h3><p>%2</p><p>%3</p>")
                                   .arg(m_title.toHtmlEscaped(), m_commandLine.toHtmlEscaped(),
                                        reasons.join(QStringLiteral("<br>"))));
            emit updated();
            return;
        }
        m_view = new views::CaptureView;
        watchLaneLayout(m_view->timeline(), liveLayoutKey(m_commandLine));
        m_stack->addWidget(m_view);
        m_stack->setCurrentWidget(m_view);
    }
    m_view->updateCapture(loaded.capture, loaded.summary, loaded.timeline);
    emit updated();
}

void LiveTab::setState(State state)
{
    const bool changed = state != m_state;
    m_state = state;
    updateButtons();
    QString text;
    switch (state) {
    case State::Waiting:
        text = tr("<b style='color:#c0392b'>\u25cf</b> Waiting for the job");
        m_waiting->setText(tr("<h3>Waiting for %1</h3><p>%2</p><p>The timeline appears with "
                              "its first NVTX range.</p>")
                               .arg(m_title.toHtmlEscaped(), m_commandLine.toHtmlEscaped()));
        break;
    case State::Recording:
        text = tr("<b style='color:#c0392b'>\u25cf</b> Recording");
        break;
    case State::Ended:
        text = tr("<b>\u25a0</b> Ended");
        break;
    case State::Detached:
        text = tr("<b>\u25a0</b> Detached");
        break;
    case State::FailedToStart:
        text = tr("<b>\u25a0</b> Failed to start");
        break;
    }
    m_stateLabel->setText(text);
    if (changed)
        emit stateChanged();
}

QString LiveTab::statusText() const
{
    QStringList parts;
    parts << m_commandLine;
    if (m_pid > 0)
        parts << tr("pid %1").arg(m_pid);
    if (m_last) {
        const auto& u = *m_last;
        if (u.processes > 1)
            parts << views::countedText(u.processes, tr("process"), tr("processes"));
        parts << views::countedText(u.counts.calls, tr("range"), tr("ranges"))
              << views::countedText(u.counts.marks, tr("mark"), tr("marks"))
              << tr("%1 dropped").arg(views::countText(u.counts.droppedRecords));
        if (u.counts.anomalies() > 0)
            parts << views::countedText(u.counts.anomalies(), tr("anomaly"), tr("anomalies"));
        parts << tr("%1 received").arg(QLocale().formattedDataSize(qint64(u.bytesReceived)));
    }
    if (isLive()) {
        const qint64 now = m_clock.elapsed();
        const auto recent = std::count_if(m_updateTimes.begin(), m_updateTimes.end(),
                                          [now](qint64 t) { return now - t <= 1000; });
        parts << tr("%1 updates/s").arg(recent);
    }
    // Whether the job has ended, detached or not: a launched one's exit is ours to see; an
    // attached one is not our child, so only that its process is gone.
    const bool jobGone = m_process ? m_process->state() == QProcess::NotRunning
                                   : m_pid > 0 && !processAlive(m_pid);
    if (!m_endNote.isEmpty())
        parts << m_endNote;
    else if (!m_process && jobGone && m_state != State::Waiting)
        parts << tr("the job has ended");
    if (m_last && m_last->final && !m_last->endReason.empty()) {
        // "carries on without capture" stops being true once the job has ended.
        const bool detached = m_last->endReason.rfind("detached", 0) == 0;
        parts << (detached && jobGone ? tr("detached before the job ended")
                                      : QString::fromStdString(m_last->endReason));
    }
    return parts.join(QStringLiteral("  \u00b7  "));
}

void LiveTab::refreshStatus()
{
    const qint64 now = m_clock.elapsed();
    while (!m_updateTimes.empty() && now - m_updateTimes.front() > 1000)
        m_updateTimes.pop_front();
    m_figures->setText(statusText());
    updateButtons();
}

void LiveTab::updateButtons()
{
    m_detach->setEnabled(isLive());
    // A detached job still runs and may still be stopped.
    const bool running =
        m_process ? m_process->state() != QProcess::NotRunning : processAlive(m_pid);
    m_stop->setEnabled(running);
}

void LiveTab::appendOutput()
{
    const QString text = QString::fromLocal8Bit(m_process->readAll());
    m_output->moveCursor(QTextCursor::End);
    m_output->insertPlainText(text);
    m_output->moveCursor(QTextCursor::End);
}

} // namespace spanscope::app
