#include "stream_file_reader.h"

#include "../live/job_assembler.h"
#include "protocol/spanscope_protocol.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

namespace spanscope::model::io {

bool looksLikeCollectorStream(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    char magic[4] = {};
    return in.read(magic, 4) && std::memcmp(magic, protocol::kMagic, 4) == 0;
}

Result<std::shared_ptr<Capture>> readCollectorStream(const std::string& path, const ProgressRange& progress)
{
    errno = 0;
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        return Error{ErrorCode::Io, std::string("cannot open the file (") + std::strerror(errno) + ")", path, {}};
    const auto size = std::streamoff(in.tellg());
    in.seekg(0);
    live::JobAssembler job;
    const size_t stream = job.addStream(path);
    std::vector<char> chunk(size_t(1) << 20);
    std::streamoff done = 0;
    while (in) {
        in.read(chunk.data(), std::streamsize(chunk.size()));
        const auto got = in.gcount();
        if (got <= 0)
            break;
        if (!job.feed(stream, chunk.data(), size_t(got)))
            break; // malformed: the stream's warning says where; what came before is kept
        done += got;
        progress.report(size > 0 ? 0.8 * double(done) / double(size) : 0.8);
        if (progress.cancelled())
            return Error{ErrorCode::Cancelled, "loading was cancelled", path, {}};
    }
    if (in.bad())
        return Error{ErrorCode::Io, "cannot read the file", path, {}};
    job.finishStream(stream);
    job.jobEnded();
    std::shared_ptr<Capture> capture = job.snapshot();
    capture->sourcePath = path;
    progress.report(1.0);
    return capture;
}

} // namespace spanscope::model::io
