#include "job_registry.h"

#include "unix_socket.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

namespace spanscope::model::live {

namespace {

constexpr const char* kRequest = "spanscope-attach 1 ";

Error registryError(std::string message, const std::string& path)
{
    return Error{ErrorCode::Io, std::move(message), path, {}};
}

bool processAlive(int pid)
{
    return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

std::string jobPath(const std::string& directory, int pid, const char* suffix)
{
    return directory + "/" + std::to_string(pid) + suffix;
}

} // namespace

std::string escapeEntryValue(const std::string& value)
{
    std::string out;
    for (const char c : value) {
        if (c == '\\')
            out += "\\\\";
        else if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else
            out += c;
    }
    return out;
}

std::string unescapeEntryValue(const std::string& value)
{
    std::string out;
    for (size_t i = 0; i < value.size(); ++i) {
        if (value[i] != '\\' || i + 1 == value.size()) {
            out += value[i];
            continue;
        }
        const char next = value[++i];
        out += next == 'n' ? '\n' : next == 'r' ? '\r' : next;
    }
    return out;
}

std::string registryDirectory()
{
    if (const char* dir = std::getenv("SPANSCOPE_JOBS_DIR"); dir && *dir)
        return dir;
    if (const char* runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime)
        return std::string(runtime) + "/spanscope-jobs";
    return "/tmp/spanscope-jobs-" + std::to_string(::getuid());
}

Result<std::vector<WaitingJob>> listWaitingJobs()
{
    const std::string directory = registryDirectory();
    std::vector<WaitingJob> jobs;
    DIR* dir = ::opendir(directory.c_str());
    if (!dir) {
        if (errno == ENOENT)
            return jobs;
        return registryError(std::string("cannot list waiting jobs: ") + std::strerror(errno),
                             directory);
    }
    std::string problem;
    if (!ensurePrivateDirectory(directory, problem)) {
        ::closedir(dir);
        return registryError(problem, directory);
    }
    while (const dirent* entry = ::readdir(dir)) {
        const std::string name = entry->d_name;
        if (name.size() < 5 || name.compare(name.size() - 4, 4, ".job") != 0)
            continue;
        std::ifstream in(directory + "/" + name);
        WaitingJob job;
        std::string line;
        while (std::getline(in, line)) {
            const auto eq = line.find('=');
            if (eq == std::string::npos)
                continue;
            const std::string key = line.substr(0, eq);
            const std::string value = unescapeEntryValue(line.substr(eq + 1));
            if (key == "pid")
                job.pid = std::atoi(value.c_str());
            else if (key == "command")
                job.command = value;
            else if (key == "cwd")
                job.workingDirectory = value;
            else if (key == "since")
                job.waitingSince = std::atoll(value.c_str());
        }
        if (job.pid <= 0 || name != std::to_string(job.pid) + ".job")
            continue; // not one of ours, or half written
        job.controlSocket = jobPath(directory, job.pid, ".sock");
        if (!processAlive(job.pid)) {
            // Its spanscope-run was killed before it could clean up.
            ::unlink((directory + "/" + name).c_str());
            ::unlink(job.controlSocket.c_str());
            continue;
        }
        jobs.push_back(std::move(job));
    }
    ::closedir(dir);
    std::sort(jobs.begin(), jobs.end(), [](const WaitingJob& a, const WaitingJob& b) {
        return a.waitingSince != b.waitingSince ? a.waitingSince < b.waitingSince : a.pid < b.pid;
    });
    return jobs;
}

Result<int> attachToJob(const WaitingJob& job, const std::string& viewerSocket, int timeoutMs)
{
    const std::string who = "job " + std::to_string(job.pid) + " (" + job.command + ")";
    std::string error;
    const int fd = connectUnix(job.controlSocket, error);
    if (fd < 0)
        return registryError(who + " is no longer waiting: " + error, job.controlSocket);
    std::string answer;
    const bool ok =
        writeAll(fd, kRequest + viewerSocket + "\n") && readLine(fd, answer, timeoutMs, error);
    ::close(fd);
    if (!ok)
        return registryError(who + " did not answer: " + error, job.controlSocket);
    if (answer.rfind("ok ", 0) == 0) {
        const int pid = std::atoi(answer.c_str() + 3);
        if (pid > 0)
            return pid;
    }
    if (answer.rfind("error ", 0) == 0)
        return registryError(who + " refused: " + answer.substr(6), job.controlSocket);
    return registryError(who + " gave an answer spanscope does not understand: " + answer,
                         job.controlSocket);
}

WaitingJobEntry::~WaitingJobEntry()
{
    remove();
}

Status WaitingJobEntry::publish(const std::string& command, const std::string& workingDirectory)
{
    const std::string directory = registryDirectory();
    std::string error;
    if (!ensurePrivateDirectory(directory, error))
        return registryError(error, directory);
    const int pid = ::getpid();
    m_socket = jobPath(directory, pid, ".sock");
    m_listen = listenUnix(m_socket, error, 4);
    if (m_listen < 0)
        return registryError(error, m_socket);
    // Written under a temporary name and renamed: a reader never sees half an entry.
    m_info = jobPath(directory, pid, ".job");
    const std::string temporary = m_info + ".tmp";
    {
        std::ofstream out(temporary);
        out << "pid=" << pid << "\ncommand=" << escapeEntryValue(command)
            << "\ncwd=" << escapeEntryValue(workingDirectory) << "\nsince=" << std::time(nullptr)
            << "\n";
        if (!out)
            return registryError("cannot write the job entry", temporary);
    }
    if (::rename(temporary.c_str(), m_info.c_str()) != 0)
        return registryError(std::string("cannot publish the job entry: ") + std::strerror(errno),
                             m_info);
    return Ok{};
}

std::string WaitingJobEntry::waitForViewer(bool (*keepWaiting)())
{
    while (m_listen >= 0 && keepWaiting()) {
        pollfd p{m_listen, POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0)
            continue;
        const int fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        std::string line, error;
        if (!readLine(fd, line, 2000, error)) {
            ::close(fd);
            continue;
        }
        const size_t prefix = std::strlen(kRequest);
        if (line.rfind(kRequest, 0) != 0 || line.size() == prefix) {
            writeAll(fd, "error not a spanscope attach request (version 1 expected)\n");
            ::close(fd);
            continue;
        }
        const std::string socket = line.substr(prefix);
        writeAll(fd, "ok " + std::to_string(::getpid()) + "\n");
        ::close(fd);
        return socket;
    }
    return {};
}

void WaitingJobEntry::remove()
{
    if (m_listen >= 0)
        ::close(m_listen);
    m_listen = -1;
    if (!m_info.empty())
        ::unlink(m_info.c_str());
    if (!m_socket.empty())
        ::unlink(m_socket.c_str());
    m_info.clear();
    m_socket.clear();
}

} // namespace spanscope::model::live
