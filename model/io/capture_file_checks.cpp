#include "capture_file_checks.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace spanscope::model::io {

namespace fs = std::filesystem;

bool hasGpuTables(const Capture& capture)
{
    for (const RegionKind kind : capture.regionKinds)
        if (kind != RegionKind::Cpu)
            return true;
    return !capture.flows.empty() || !capture.devices.empty() || !capture.gpuActivities.empty();
}

std::string regionFileLoses(const Capture& capture)
{
    std::vector<std::string> lost;
    // GPU work, flows and devices are kept (/spanscope/gpu) as long as GPU work sits on
    // GPU tracks; counters are kept (/spanscope/counters); allocations made on threads the
    // thread table lists or tied to a GPU (/spanscope/alloc). Others have no place.
    for (const RegionRow& row : capture.rows) {
        if (capture.regionKind(row.region) == RegionKind::Cpu || row.count == 0)
            continue;
        const TrackId track = capture.trackOfEvent(uint32_t(&row - capture.rows.data()), capture.rowEvents(row).front());
        if (!track.valid() || track.value >= capture.tracks.size() || !isGpuTrack(capture.track(track).kind)) {
            lost.push_back("GPU work outside GPU tracks");
            break;
        }
    }
    const AllocationTable& a = capture.allocations;
    for (size_t i = 0; i < a.size(); ++i) {
        const Track& track = capture.track(a.track(i));
        const bool onThread = track.kind == TrackKind::Thread && track.thread >= 0;
        const bool onGpu = track.kind == TrackKind::GpuDevice && track.stream < 0 && track.sortKey == 0 &&
                           track.device == a.device(i);
        if (!onThread && !onGpu) {
            lost.push_back("allocations");
            break;
        }
    }
    if (!capture.instants.empty())
        lost.push_back("instants");
    // A region file keeps lanes through its thread and task columns (and GPU work through
    // /spanscope/gpu); without those columns, CPU calls on tracks that only a source's own
    // layout has (Chrome threads and async lanes) would collapse into their rank's one.
    const EventColumns& e = capture.events;
    if (!e.track.empty() && !e.hasThreads() && !e.hasTasks()) {
        for (size_t i = 0; i < e.size(); ++i) {
            if (e.track[i] >= capture.tracks.size())
                continue; // no track at all: not for this check (readers never make one)
            const TrackKind kind = capture.tracks[e.track[i]].kind;
            if (kind != TrackKind::Process && !isGpuTrack(kind)) {
                lost.push_back("threads and async tracks");
                break;
            }
        }
    }
    if (lost.empty())
        return {};
    std::string text = lost.front();
    for (size_t i = 1; i < lost.size(); ++i)
        text += (i + 1 == lost.size() ? " and " : ", ") + lost[i];
    return text;
}

Status checkRowSpans(const Capture& capture, const std::string& path)
{
    for (size_t i = 0; i < capture.rows.size(); ++i) {
        const RegionRow& row = capture.rows[i];
        if (row.spanCount == 0)
            continue;
        auto bad = [&](const std::string& problem) {
            return Error{ErrorCode::InvalidSchema, "cannot save this capture: row " + std::to_string(i) + " " + problem,
                         path, {}};
        };
        if (row.firstSpan > capture.rowSpans.size() || row.spanCount > capture.rowSpans.size() - row.firstSpan)
            return bad("names spans of the event columns that do not exist");
        uint64_t calls = 0;
        for (uint32_t k = row.firstSpan; k < row.firstSpan + row.spanCount; ++k) {
            const EventSpan& span = capture.rowSpans[k];
            if (span.begin >= span.end || span.end > capture.events.size())
                return bad("has an empty span or one beyond the event columns");
            calls += span.size();
        }
        if (calls != row.count)
            return bad("holds " + std::to_string(calls) + " calls in its spans but counts " + std::to_string(row.count));
    }
    return Ok{};
}

// Everything the readers would reject, found before any file is touched.
Status checkCapture(const Capture& capture, const std::string& path)
{
    if (auto s = checkRowSpans(capture, path); !s)
        return s;
    if (const std::string lost = regionFileLoses(capture); !lost.empty())
        return Error{ErrorCode::InvalidSchema,
                     "cannot save this capture as a region file: the format has no place for its " + lost
                         + "; save it as Chrome trace JSON (.json.gz) to keep everything",
                     path,
                     {}};
    for (const auto* column : {&capture.nvtx.callDomains, &capture.nvtx.callCategories})
        if (!column->empty() && column->size() != capture.events.size())
            return Error{ErrorCode::InvalidSchema,
                         "cannot save this capture: an NVTX per-call column differs in length "
                         "from the start column",
                         path,
                         {}};
    auto bad = [&](const std::string& message) {
        return Error{ErrorCode::InvalidSchema, "cannot save this capture: " + message, path, {}};
    };
    const auto& e = capture.events;
    const bool aggregate = capture.layout == StorageLayout::Aggregate;
    if (e.end.size() != e.size())
        return bad("start and end columns differ in length");
    for (const auto& optional : kOptionalEventColumns)
        if (!(e.*optional.member).empty() && (e.*optional.member).size() != e.size())
            return bad("an optional event column (" + std::string(optional.name)
                       + ") differs in length from the start column");
    std::set<std::pair<uint32_t, int32_t>> seen;
    std::vector<std::pair<uint64_t, uint64_t>> slices;
    for (size_t i = 0; i < capture.rows.size(); ++i) {
        const auto& row = capture.rows[i];
        const std::string which = "row " + std::to_string(i);
        if (row.region >= capture.regionNames.size())
            return bad(which + " names a region that does not exist");
        if (row.rank < 0)
            return bad(which + " has a negative rank");
        if (!seen.emplace(row.region, row.rank).second)
            return bad(which + " repeats a (region, rank) pair");
        if (aggregate)
            continue;
        for (const EventSpan& span : capture.rowEvents(row).spans()) {
            if (span.begin > span.end || span.end > e.size())
                return bad(which + " addresses events beyond the event columns");
            slices.emplace_back(span.begin, span.end);
        }
    }
    std::sort(slices.begin(), slices.end());
    for (size_t k = 1; k < slices.size(); ++k)
        if (slices[k - 1].second > slices[k].first)
            return bad("two rows share events");
    for (const auto& t : capture.threads)
        if (t.rank < 0)
            return bad("a thread_table row has a negative rank");
    for (const auto& t : capture.tasks)
        if (t.rank < 0)
            return bad("a task_table row has a negative rank");
    return Ok{};
}

Status checkTarget(const std::string& path)
{
    std::error_code ec;
    const fs::path target(path);
    if (target.filename().empty())
        return Error{ErrorCode::NotFound, "is not a file name", path, {}};
    const fs::path directory = target.has_parent_path() ? target.parent_path() : fs::path(".");
    if (!fs::exists(directory, ec))
        return Error{
            ErrorCode::NotFound, "directory " + directory.string() + " does not exist", path, {}};
    if (!fs::is_directory(directory, ec))
        return Error{ErrorCode::NotFound, directory.string() + " is not a directory", path, {}};
    if (fs::is_directory(target, ec))
        return Error{ErrorCode::Io, "is a directory; cannot replace it with a file", path, {}};
    return Ok{};
}

// fsync the data, rename over the target, fsync the directory so the rename survives a crash.
Status publish(const std::string& temp, const std::string& path)
{
    auto ioError = [&](const std::string& what) {
        return Error{ErrorCode::Io, what + ": " + std::strerror(errno), path, {}};
    };
    const int fd = ::open(temp.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return ioError("cannot reopen the temporary file " + temp);
    const bool synced = ::fsync(fd) == 0;
    ::close(fd);
    if (!synced)
        return ioError("cannot sync the written file to disk");
    struct stat old;
    if (::stat(path.c_str(), &old) == 0)
        ::chmod(temp.c_str(), old.st_mode & 07777); // keep the replaced file's permissions
    if (std::rename(temp.c_str(), path.c_str()) != 0)
        return ioError("cannot rename " + temp + " over it");
    const fs::path target(path);
    const std::string directory =
        target.has_parent_path() ? target.parent_path().string() : std::string(".");
    const int dirFd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirFd >= 0) {
        ::fsync(dirFd); // best effort: the file itself is already complete
        ::close(dirFd);
    }
    return Ok{};
}

} // namespace spanscope::model::io
