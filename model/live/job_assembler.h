#pragma once
// Assembles every process of one job: each collector stream (a socket connection or a
// per-process .sps file) gets its own protocol::Decoder and NvtxAssembler, and a snapshot
// merges them, one rank per process in the order the streams were added (mergeProcesses).
// One thread at a time (not thread-safe), like NvtxAssembler.

#include "nvtx_assembler.h"
#include "protocol/spanscope_decoder.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace spanscope::model::live {

class JobAssembler
{
public:
    explicit JobAssembler(NvtxAssemblerOptions options = {});
    ~JobAssembler();

    // A new process stream; `source` names it in messages ("connection 2", a file path).
    size_t addStream(std::string source);
    // Decodes more bytes of a stream. Returns false once the stream is malformed; what
    // decoded before the damage is kept and later bytes are ignored.
    bool feed(size_t stream, const void* data, size_t size);
    // The stream is over (connection closed, file read): a truncated or malformed stream
    // gets its warning, ends still waiting for their start become anomalies.
    void finishStream(size_t stream);
    // The viewer stopped reading a stream whose process still runs: nothing is finished
    // (ranges still open stay flagged as open) and the snapshot says records were left out.
    void detachStream(size_t stream);

    // No more streams will come (the job ended); an empty job's snapshot then says so.
    void jobEnded()
    {
        m_jobEnded = true;
        ++m_version;
    }

    size_t streamCount() const { return m_streams.size(); }
    size_t openStreams() const;
    // Bumps whenever a feed or finish changed something a snapshot would show.
    uint64_t version() const { return m_version; }
    // Sum over the streams.
    NvtxCounts counts() const;

    // The job as of now, in two steps so a live viewer keeps reading while the expensive
    // one runs elsewhere: freeze() copies every stream's state (the tables that grow with
    // the job are shared with the copy, model/live/shared_chunks.h: a pointer per chunk of
    // ~1 MiB, well under a millisecond at 10 M spans; the assembler's thread),
    // JobSnapshot::build() lays it out as a capture (any thread). Streams that sent
    // nothing are left out; a job that sent nothing at all gives an empty capture that
    // says so. Each stream's snapshots are laid out from the previous one's where they can
    // (NvtxAssembler::LayoutMemo: the calls that changed appended, O(changed log events),
    // instead of O(events log events) sorted): the memo is shared by the stream's frozen copies
    // and used by one build at a time; a build that finds it in use lays everything out.
    class JobSnapshot;
    std::shared_ptr<const JobSnapshot> freeze() const;
    std::shared_ptr<Capture> snapshot() const;

private:
    struct Stream;
    struct MemoSlot
    {
        std::mutex mutex;
        NvtxAssembler::LayoutMemo memo;
    };
    NvtxAssemblerOptions m_options;
    std::vector<std::unique_ptr<Stream>> m_streams;
    uint64_t m_version = 0;
    bool m_jobEnded = false;
};

class JobAssembler::JobSnapshot
{
public:
    std::shared_ptr<Capture> build() const;

private:
    friend class JobAssembler;
    struct Process
    {
        NvtxAssembler assembler; // a copy, frozen
        bool detached = false;
        std::shared_ptr<MemoSlot> layoutMemo; // the stream's
    };
    std::vector<Process> m_processes;
    NvtxAssemblerOptions m_options;
    bool m_nothingAndEnded = false; // no process sent anything and none will
};

} // namespace spanscope::model::live
