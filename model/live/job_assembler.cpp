#include "job_assembler.h"

#include "process_merge.h"

namespace spanscope::model::live {

struct JobAssembler::Stream
{
    explicit Stream(const NvtxAssemblerOptions& options, std::string name)
        : source(std::move(name)), assembler(options), decoder(assembler)
    {
    }
    std::string source;
    NvtxAssembler assembler;
    std::shared_ptr<MemoSlot> layoutMemo = std::make_shared<MemoSlot>();
    protocol::Decoder decoder;
    uint64_t bytesFed = 0;
    bool finished = false;
    bool detached = false;
};

JobAssembler::JobAssembler(NvtxAssemblerOptions options) : m_options(std::move(options)) {}

JobAssembler::~JobAssembler() = default;

size_t JobAssembler::addStream(std::string source)
{
    m_streams.push_back(std::make_unique<Stream>(m_options, std::move(source)));
    return m_streams.size() - 1;
}

bool JobAssembler::feed(size_t stream, const void* data, size_t size)
{
    Stream& s = *m_streams[stream];
    if (s.finished)
        return false;
    ++m_version;
    s.bytesFed += size;
    return s.decoder.feed(data, size);
}

void JobAssembler::finishStream(size_t stream)
{
    Stream& s = *m_streams[stream];
    if (s.finished)
        return;
    s.finished = true;
    ++m_version;
    std::string error;
    // An empty stream (the process connected and left without a word) is not damage.
    if (!s.decoder.finish() && s.bytesFed > 0)
        error = s.source + ": " + s.decoder.error();
    s.assembler.finish(error);
}

void JobAssembler::detachStream(size_t stream)
{
    Stream& s = *m_streams[stream];
    if (s.finished)
        return;
    s.finished = s.detached = true;
    ++m_version;
}

size_t JobAssembler::openStreams() const
{
    size_t open = 0;
    for (const auto& s : m_streams)
        open += s->finished ? 0 : 1;
    return open;
}

NvtxCounts JobAssembler::counts() const
{
    NvtxCounts sum;
    for (const auto& s : m_streams) {
        const NvtxCounts c = s->assembler.counts();
        sum.calls += c.calls;
        sum.marks += c.marks;
        sum.droppedRecords += c.droppedRecords;
        sum.unmatchedPops += c.unmatchedPops;
        sum.unknownEnds += c.unknownEnds;
        sum.endsBeforeStart += c.endsBeforeStart;
        sum.budgetDroppedSpans += c.budgetDroppedSpans;
    }
    return sum;
}

std::shared_ptr<const JobAssembler::JobSnapshot> JobAssembler::freeze() const
{
    auto frozen = std::make_shared<JobSnapshot>();
    frozen->m_options = m_options;
    for (const auto& s : m_streams) {
        // Nothing decoded yet (connected, or the first frame still on its way): left out,
        // unless the stream ended that way, which its warning must say.
        if (s->decoder.bytesDecoded() == 0 && !(s->finished && s->bytesFed > 0))
            continue;
        frozen->m_processes.push_back({s->assembler, s->detached, s->layoutMemo});
    }
    frozen->m_nothingAndEnded = frozen->m_processes.empty() && m_jobEnded && openStreams() == 0;
    return frozen;
}

std::shared_ptr<Capture> JobAssembler::snapshot() const
{
    return freeze()->build();
}

std::shared_ptr<Capture> JobAssembler::JobSnapshot::build() const
{
    std::vector<ProcessCapture> processes;
    std::shared_ptr<Capture> only; // the first process's capture, returned as is when alone
    for (const auto& process : m_processes) {
        std::unique_lock memoInUse(process.layoutMemo->mutex, std::try_to_lock);
        auto capture = process.assembler.snapshot(memoInUse.owns_lock() ? &process.layoutMemo->memo : nullptr);
        memoInUse = {};
        const MetadataValue* pid = findMetadata(capture->metadata, "pid");
        if (process.detached)
            capture->warnings.push_back(
                {"the viewer detached while the process was running; what it recorded later "
                 "was not captured",
                 {}});
        if (!only)
            only = capture;
        processes.push_back({pid ? uint32_t(pid->integer) : 0u, std::move(capture)});
    }
    if (processes.empty()) {
        NvtxAssembler nothing(m_options);
        if (m_nothingAndEnded)
            nothing.finish();
        return nothing.snapshot();
    }
    if (processes.size() == 1) // already rank 0: no copy
        return only;
    return mergeProcesses(processes);
}

} // namespace spanscope::model::live
