#pragma once
// What the tests of real NVTX jobs under libspanscope-collector share
// (tst_collector_capture.cpp, tst_collector_viewer.cpp; one per executable): a decoded
// stream kept record by record, the job's environment, running the workload to a file,
// and a fake viewer on the job's socket.
#include "collector/nvtx_workload_counts.h"
#include "protocol/spanscope_decoder.h"

#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <map>
#include <set>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace spanscope::protocol;
using namespace spanscope::test;

namespace {

// Everything a stream held, in stream order where it matters.
struct Capture : DecoderHandler
{
    struct Timed
    {
        std::uint32_t tid;
        std::uint64_t timestamp;
    };
    std::map<std::uint32_t, std::string> strings;
    std::vector<ThreadInfoRecord> threads;
    std::vector<PushRecord> pushes;
    std::vector<PopRecord> pops;
    std::vector<RangeStartRecord> starts;
    std::vector<RangeEndRecord> ends;
    std::vector<MarkRecord> marks;
    std::vector<DomainCreateRecord> domains;
    std::vector<CategoryNameRecord> categories;
    std::vector<ClockCalibrationRecord> calibrations;
    std::vector<Timed> timeline; // every timed record, in stream order
    // Push (+1) and pop (-1) per (tid, domain), in stream order, with the pushed message.
    std::vector<std::pair<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t>> stackOps;
    std::uint64_t dropped = 0;
    bool hello = false, end = false;
    // Timed records stamped after the latest calibration before them in the stream: the
    // viewer maps those by extrapolating the clocks' rate (clock_calibrator.h).
    int stampedAfterTheirCalibration = 0;

    void timed(std::uint32_t tid, std::uint64_t timestamp)
    {
        timeline.push_back({tid, timestamp});
        stampedAfterTheirCalibration += calibrations.empty() || timestamp > calibrations.back().ticks;
    }

    void onHello(const HelloPayload&) override { hello = true; }
    void onEnd() override { end = true; }
    void onString(std::uint32_t id, std::string_view s) override { strings[id] = std::string(s); }
    void onThreadInfo(const ThreadInfoRecord& r) override { threads.push_back(r); }
    void onPush(const PushRecord& r) override
    {
        pushes.push_back(r);
        timed(r.tid, r.timestamp);
        stackOps.push_back({{r.tid, r.domain}, r.message});
    }
    void onPop(const PopRecord& r) override
    {
        pops.push_back(r);
        timed(r.tid, r.timestamp);
        stackOps.push_back({{r.tid, r.domain}, 0xFFFFFFFFu});
    }
    void onRangeStart(const RangeStartRecord& r) override
    {
        starts.push_back(r);
        timed(r.tid, r.timestamp);
    }
    void onRangeEnd(const RangeEndRecord& r) override
    {
        ends.push_back(r);
        timed(r.tid, r.timestamp);
    }
    void onMark(const MarkRecord& r) override
    {
        marks.push_back(r);
        timed(r.tid, r.timestamp);
    }
    void onDomainCreate(const DomainCreateRecord& r) override { domains.push_back(r); }
    void onCategoryName(const CategoryNameRecord& r) override { categories.push_back(r); }
    void onClockCalibration(const ClockCalibrationRecord& r) override { calibrations.push_back(r); }
    void onDropped(const DroppedRecord& r) override { dropped += r.count; }

    std::string str(std::uint32_t id) const
    {
        auto it = strings.find(id);
        return it == strings.end() ? std::string() : it->second;
    }
    std::uint32_t tidNamed(const std::string& name) const
    {
        for (const auto& t : threads)
            if (str(t.nameId) == name)
                return t.tid;
        return 0;
    }
};

inline QProcessEnvironment collectorEnv(const char* var, const QString& value)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("NVTX_INJECTION64_PATH", SPANSCOPE_COLLECTOR_LIB);
    env.remove("SPANSCOPE_OUTPUT");
    env.remove("SPANSCOPE_SOCKET");
    env.insert(var, value);
    return env;
}

// Runs the workload with SPANSCOPE_OUTPUT=<file>; returns false (with a QTest failure) if it
// does not finish within `timeoutMs` or fails.
inline bool runToFile(const QStringList& args, const QString& file, QByteArray* out = nullptr,
               int timeoutMs = 30000, bool forks = false, const QStringList& extraEnv = {})
{
    QProcess p;
    QProcessEnvironment env = collectorEnv("SPANSCOPE_OUTPUT", file);
    for (const QString& entry : extraEnv)
        env.insert(entry.section('=', 0, 0), entry.section('=', 1));
    if (forks) {
        // In a sanitizer build, a child forked while the collector's sender thread holds
        // the sanitizer allocator's lock deadlocks in LeakSanitizer's exit check (GCC 12's
        // runtime takes no fork handler for it): the job forks without exec, so no leak
        // check in this run. The collector's own behaviour in the child is what is tested.
        const QString asan = env.value("ASAN_OPTIONS");
        env.insert("ASAN_OPTIONS", asan.isEmpty() ? QStringLiteral("detect_leaks=0") : asan + QStringLiteral(":detect_leaks=0"));
    }
    p.setProcessEnvironment(env);
    p.start(SPANSCOPE_NVTX_WORKLOAD, args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        qWarning("workload %s timed out", qPrintable(args.join(' ')));
        return false;
    }
    const QByteArray err = p.readAllStandardError();
    if (!err.isEmpty())
        qWarning("workload stderr: %s", err.constData());
    if (out)
        *out = p.readAllStandardOutput();
    return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

// Decodes a whole file; the error, empty when the stream is well-formed.
inline std::string decodeFile(const QString& path, Capture& capture)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return "cannot open " + path.toStdString();
    const QByteArray bytes = f.readAll();
    Decoder d(capture);
    // Feed in odd-sized chunks to exercise frames split across reads.
    for (qsizetype i = 0; i < bytes.size(); i += 4093)
        d.feed(bytes.constData() + i, std::size_t(std::min<qsizetype>(4093, bytes.size() - i)));
    d.finish();
    return d.error();
}

// How many records of each type the stream file holds, as written (the decoder hands short
// pushes and pops on in their long form). Assumes a well-formed stream (decodeFile first).
inline std::map<RecordType, int> recordTypesIn(const QString& path)
{
    QFile f(path);
    std::map<RecordType, int> counts;
    if (!f.open(QIODevice::ReadOnly))
        return counts;
    const QByteArray bytes = f.readAll();
    for (qsizetype at = 0; at + qsizetype(sizeof(FrameHeader)) <= bytes.size();) {
        FrameHeader fh;
        std::memcpy(&fh, bytes.constData() + at, sizeof fh);
        const qsizetype payload = at + qsizetype(sizeof fh);
        if (fh.type == std::uint16_t(FrameType::Data)) {
            for (qsizetype pos = payload;
                 pos + qsizetype(sizeof(RecordHeader)) <= payload + fh.payloadBytes;) {
                RecordHeader rh;
                std::memcpy(&rh, bytes.constData() + pos, sizeof rh);
                ++counts[RecordType(rh.type)];
                pos += rh.size ? rh.size : fh.payloadBytes; // a 0 size would loop
            }
        }
        at = payload + fh.payloadBytes;
    }
    return counts;
}

// Empty when every thread's push/pop stack in the stream never goes below zero and ends
// empty: no pop the viewer would match with the wrong range, no range left open because its
// pop was lost. Otherwise what is wrong.
inline std::string unbalancedStacks(const Capture& c)
{
    std::map<std::uint32_t, int64_t> depth;
    for (const auto& op : c.stackOps) {
        int64_t& level = depth[op.first.first];
        level += op.second == 0xFFFFFFFFu ? -1 : 1; // see onPop
        if (level < 0)
            return "thread " + std::to_string(op.first.first) + ": a pop with nothing open";
    }
    for (const auto& [tid, level] : depth)
        if (level != 0)
            return "thread " + std::to_string(tid) + ": " + std::to_string(level) +
                   " ranges never closed";
    return {};
}

// Decodes a stream that must be whole (every frame complete, ending in its End frame) into
// `c` and checks that each of `pairs` push/pop pairs is in it or in its Dropped counts, and
// that only whole ranges were lost. Records a QTest failure otherwise.
inline void checkWholeStreamOfPairs(const QByteArray& bytes, std::uint64_t pairs, Capture& c)
{
    Decoder d(c);
    QVERIFY2(d.feed(bytes.constData(), std::size_t(bytes.size())), d.error().c_str());
    QVERIFY2(d.finish(), d.error().c_str());
    QVERIFY(c.end);
    QCOMPARE(std::uint64_t(c.pushes.size() + c.pops.size() + c.dropped), 2 * pairs);
    const std::string unbalanced = unbalancedStacks(c);
    QVERIFY2(unbalanced.empty(), unbalanced.c_str());
}

// A Unix socket server on a temp path that accepts one connection and then never reads it,
// closes it at once, or reads it to the end. Test thread only.
class FakeViewer
{
public:
    enum class Mode { NeverRead, CloseAtOnce, ReadAll };

    FakeViewer(const QString& path, Mode mode) : m_mode(mode)
    {
        m_listen = ::socket(AF_UNIX, SOCK_STREAM, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, path.toLocal8Bit().constData(), sizeof addr.sun_path - 1);
        ::bind(m_listen, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
        ::listen(m_listen, 1);
        m_thread = std::thread([this] {
            m_conn = ::accept(m_listen, nullptr, nullptr);
            if (m_mode == Mode::CloseAtOnce && m_conn >= 0) {
                ::close(m_conn);
                m_conn = -1;
            }
            if (m_mode == Mode::ReadAll)
                drain();
        });
    }
    ~FakeViewer()
    {
        ::shutdown(m_listen, SHUT_RDWR);
        if (m_thread.joinable())
            m_thread.join();
        if (m_conn >= 0)
            ::close(m_conn);
        ::close(m_listen);
    }
    // A viewer that never read starts reading now (in the background, to the end).
    void startReading()
    {
        if (m_thread.joinable())
            m_thread.join(); // the job connected
        m_thread = std::thread([this] { drain(); });
    }
    // After the job ended: everything it managed to send.
    QByteArray readAll()
    {
        if (m_thread.joinable())
            m_thread.join();
        drain();
        return m_received;
    }

private:
    void drain()
    {
        char buf[65536];
        ssize_t n;
        while (m_conn >= 0 && (n = ::read(m_conn, buf, sizeof buf)) > 0)
            m_received.append(buf, n);
    }

    Mode m_mode;
    QByteArray m_received;
    int m_listen = -1;
    int m_conn = -1;
    std::thread m_thread;
};

constexpr int kLosslessPairs = 2000000;

} // namespace
