// The wire-format decoder: valid streams in any chunking, and malformed or truncated input,
// each rejected with a clear reason and the byte offset at fault.
#include "protocol/spanscope_decoder.h"

#include <QTest>
#include <cstring>
#include <string>
#include <vector>

using namespace spanscope::protocol;

namespace {

template <typename T> void appendPod(std::string& out, const T& v)
{
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

std::string frame(FrameType type, const std::string& payload)
{
    FrameHeader h{};
    std::memcpy(h.magic, kMagic, 4);
    h.version = kVersion;
    h.type = static_cast<std::uint16_t>(type);
    h.payloadBytes = static_cast<std::uint32_t>(payload.size());
    std::string out;
    appendPod(out, h);
    return out + payload;
}

std::string hello()
{
    HelloPayload p{1234, 0, 99};
    std::string s;
    appendPod(s, p);
    return frame(FrameType::Hello, s);
}

std::string stringDef(std::uint32_t id, const std::string& text)
{
    StringDefRecord r{};
    r.header = {static_cast<std::uint16_t>(RecordType::StringDef),
                static_cast<std::uint16_t>(stringDefSize(std::uint32_t(text.size())))};
    r.id = id;
    r.length = std::uint32_t(text.size());
    std::string s;
    appendPod(s, r);
    s += text;
    s.append(r.header.size - sizeof r - text.size(), '\0');
    return s;
}

std::string push(std::uint32_t message)
{
    PushRecord r{};
    r.header = {static_cast<std::uint16_t>(RecordType::Push), sizeof r};
    r.tid = 7;
    r.timestamp = 100;
    r.message = message;
    std::string s;
    appendPod(s, r);
    return s;
}

std::string pop()
{
    PopRecord r{};
    r.header = {static_cast<std::uint16_t>(RecordType::Pop), sizeof r};
    r.tid = 7;
    r.timestamp = 200;
    std::string s;
    appendPod(s, r);
    return s;
}

template <typename R> std::string record(RecordType type, R r)
{
    r.header = {static_cast<std::uint16_t>(type), sizeof r};
    std::string s;
    appendPod(s, r);
    return s;
}

std::string shortPush(std::uint32_t message, std::uint32_t domain = 0)
{
    PushShortRecord r{};
    r.tid = 7;
    r.timestamp = 100;
    r.domain = domain;
    r.message = message;
    return record(RecordType::PushShort, r);
}

std::string shortPop()
{
    PopShortRecord r{};
    r.tid = 7;
    r.timestamp = 200;
    return record(RecordType::PopShort, r);
}

struct Counter : DecoderHandler
{
    int strings = 0, pushes = 0, pops = 0, ends = 0;
    std::vector<AllocDeltaRecord> deltas;
    std::vector<AllocTotalsRecord> totals;
    std::vector<LargeAllocRecord> large;
    std::vector<AllocSpanRecord> spans;
    std::vector<AllocSizeBinRecord> bins;
    void onAllocSizeBin(const AllocSizeBinRecord& r) override { bins.push_back(r); }
    void onAllocDelta(const AllocDeltaRecord& r) override { deltas.push_back(r); }
    void onAllocTotals(const AllocTotalsRecord& r) override { totals.push_back(r); }
    void onLargeAlloc(const LargeAllocRecord& r) override { large.push_back(r); }
    void onAllocSpan(const AllocSpanRecord& r) override { spans.push_back(r); }
    std::string lastString;
    void onString(std::uint32_t, std::string_view s) override
    {
        ++strings;
        lastString = std::string(s);
    }
    void onPush(const PushRecord&) override { ++pushes; }
    void onPop(const PopRecord&) override { ++pops; }
    void onEnd() override { ++ends; }
};

std::string validStream()
{
    return hello() + frame(FrameType::Data, stringDef(1, "hello world") + push(1) + pop()) +
           frame(FrameType::End, {});
}

// Decodes `bytes` whole; returns the error ("" when fine).
std::string decodeError(const std::string& bytes, std::uint64_t* offset = nullptr)
{
    Counter c;
    Decoder d(c);
    d.feed(bytes.data(), bytes.size());
    d.finish();
    if (offset)
        *offset = d.errorOffset();
    return d.error();
}

} // namespace

class TestCollectorDecoder : public QObject
{
    Q_OBJECT
private slots:
    void validStreamInAnyChunking()
    {
        const std::string bytes = validStream();
        for (std::size_t chunk : {std::size_t(1), std::size_t(3), std::size_t(13), bytes.size()}) {
            Counter c;
            Decoder d(c);
            for (std::size_t i = 0; i < bytes.size(); i += chunk)
                QVERIFY2(d.feed(bytes.data() + i, std::min(chunk, bytes.size() - i)),
                         d.error().c_str());
            QVERIFY2(d.finish(), d.error().c_str());
            QCOMPARE(c.strings, 1);
            QCOMPARE(c.lastString, std::string("hello world"));
            QCOMPARE(c.pushes, 1);
            QCOMPARE(c.pops, 1);
            QCOMPARE(c.ends, 1);
            QVERIFY(d.sawEnd());
            QCOMPARE(d.bytesDecoded(), std::uint64_t(bytes.size()));
        }
    }

    void allocationRecords()
    {
        const std::string records =
            stringDef(1, "fan_out") +
            record(RecordType::AllocDelta, AllocDeltaRecord{{}, 7, 150, 3, 300, 2}) +
            record(RecordType::AllocSizeBin, AllocSizeBinRecord{{}, 7, 6, 0, 3, 300}) +
            record(RecordType::AllocTotals, AllocTotalsRecord{{}, 0, 160, 40, 4000, 30, -12}) +
            record(RecordType::LargeAlloc, LargeAllocRecord{{}, 7, 170, 0x1000, 1u << 21}) +
            record(RecordType::LargeAlloc, LargeAllocRecord{{}, 7, 180, 0x1000, 0}) +
            record(RecordType::AllocSpan, AllocSpanRecord{{}, 7, 100, 200, 4, 4096, 4, 1, 1});
        Counter c;
        Decoder d(c);
        const std::string bytes = hello() + frame(FrameType::Data, records) + frame(FrameType::End, {});
        QVERIFY2(d.feed(bytes.data(), bytes.size()) && d.finish(), d.error().c_str());
        QCOMPARE(c.deltas.size(), size_t(1));
        QCOMPARE(c.deltas[0].bytes, 300u);
        QCOMPARE(c.bins.size(), size_t(1));
        QCOMPARE(c.bins[0].bin, 6u);
        QCOMPARE(c.bins[0].allocations, 3u);
        QCOMPARE(c.totals.size(), size_t(1));
        QCOMPARE(c.totals[0].liveBytes, -12);
        QCOMPARE(c.large.size(), size_t(2));
        QCOMPARE(c.large[1].bytes, 0u);
        QCOMPARE(c.spans.size(), size_t(1));
        QCOMPARE(c.spans[0].operation, 1u);
        QCOMPARE(c.spans[0].iterations, 4u);

        // A span naming a string never defined, and a record of the wrong size, are damage.
        const std::string undefined =
            hello() + frame(FrameType::Data, record(RecordType::AllocSpan, AllocSpanRecord{{}, 7, 1, 2, 1, 0, 0, 9, 0}));
        QVERIFY(QString::fromStdString(decodeError(undefined)).contains("allocation span uses string id 9"));
        // A size bin past the 64 there are.
        const std::string farBin =
            hello() + frame(FrameType::Data, record(RecordType::AllocSizeBin, AllocSizeBinRecord{{}, 7, 64, 0, 1, 1}));
        QVERIFY(QString::fromStdString(decodeError(farBin)).contains("allocation size bin 64 out of range (0 to 63)"));
        std::string shortDelta = record(RecordType::AllocDelta, AllocDeltaRecord{});
        shortDelta[2] = 32;
        QVERIFY(QString::fromStdString(decodeError(hello() + frame(FrameType::Data, shortDelta.substr(0, 32))))
                    .contains("allocation delta record is 32 bytes, expected 40"));
    }

    // Version 5's short push and pop reach the handler as the long records they stand for:
    // the same thread, time, domain and message, no category, color or payload.
    void shortPushAndPopArriveInTheirLongForm()
    {
        struct Records : DecoderHandler
        {
            std::vector<PushRecord> pushes;
            std::vector<PopRecord> pops;
            void onPush(const PushRecord& r) override { pushes.push_back(r); }
            void onPop(const PopRecord& r) override { pops.push_back(r); }
        } records;
        Decoder d(records);
        const std::string bytes = hello() +
                                  frame(FrameType::Data, stringDef(1, "step") + shortPush(1, 3) +
                                                             shortPop() + push(1) + pop()) +
                                  frame(FrameType::End, {});
        d.feed(bytes.data(), bytes.size());
        d.finish();
        QCOMPARE(d.error(), std::string());
        QCOMPARE(records.pushes.size(), std::size_t(2));
        QCOMPARE(records.pops.size(), std::size_t(2));
        const PushRecord& p = records.pushes[0];
        QCOMPARE(p.header.type, std::uint16_t(RecordType::Push));
        QCOMPARE(p.header.size, std::uint16_t(sizeof(PushRecord)));
        QCOMPARE(p.tid, 7u);
        QCOMPARE(p.timestamp, std::uint64_t(100));
        QCOMPARE(p.domain, 3u);
        QCOMPARE(p.message, 1u);
        QCOMPARE(p.category, 0u);
        QCOMPARE(p.color, 0u);
        QCOMPARE(p.payloadKind, std::uint32_t(PayloadKind::None));
        QCOMPARE(p.payload, std::uint64_t(0));
        QCOMPARE(records.pushes[1].domain, 0u); // the stream's long push: otherwise the same
        records.pushes[1].domain = 3;
        QCOMPARE(std::memcmp(&records.pushes[0], &records.pushes[1], sizeof(PushRecord)), 0);
        QCOMPARE(records.pops[0].header.type, std::uint16_t(RecordType::Pop));
        QCOMPARE(records.pops[0].header.size, std::uint16_t(sizeof(PopRecord)));
        QCOMPARE(std::memcmp(&records.pops[0], &records.pops[1], sizeof(PopRecord)), 0);
    }

    void versionOneStreamsStillDecode()
    {
        std::string bytes = validStream();
        // Every frame header's version field (bytes 4-5 of each frame) set to 1.
        for (std::size_t at = 0; at + sizeof(FrameHeader) <= bytes.size();) {
            FrameHeader h;
            std::memcpy(&h, bytes.data() + at, sizeof h);
            h.version = 1;
            std::memcpy(bytes.data() + at, &h, sizeof h);
            at += sizeof h + h.payloadBytes;
        }
        QCOMPARE(decodeError(bytes), std::string());
    }

    void malformed_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<qulonglong>("offset");
        const auto qb = [](const std::string& s) {
            return QByteArray(s.data(), qsizetype(s.size()));
        };
        const std::string h = hello();
        const qulonglong dataStart = h.size();
        const qulonglong firstRecord = dataStart + sizeof(FrameHeader);

        std::string badMagic = validStream();
        badMagic[0] = 'X';
        QTest::newRow("bad magic") << qb(badMagic) << "bad frame magic" << 0ull;

        std::string badVersion = validStream();
        badVersion[4] = 9;
        QTest::newRow("bad version") << qb(badVersion) << "unsupported protocol version 9" << 0ull;

        std::string badType = h + frame(FrameType::Data, push(0));
        badType[dataStart + 6] = 42;
        QTest::newRow("bad frame type") << qb(badType) << "unknown frame type 42" << dataStart;

        QTest::newRow("no hello") << qb(frame(FrameType::Data, push(0)))
                                  << "does not start with a hello" << 0ull;
        QTest::newRow("two hellos") << qb(h + h) << "second hello" << dataStart;
        QTest::newRow("frame after end")
            << qb(h + frame(FrameType::End, {}) + frame(FrameType::Data, push(0)))
            << "frame after the end frame" << dataStart + sizeof(FrameHeader);
        QTest::newRow("short hello") << qb(frame(FrameType::Hello, std::string(8, '\0')))
                                     << "hello payload is 8 bytes" << 0ull;

        std::string huge = h + frame(FrameType::Data, {});
        const std::uint32_t big = kMaxPayloadBytes + 1;
        std::memcpy(&huge[dataStart + 8], &big, 4);
        QTest::newRow("huge payload") << qb(huge) << "exceeds the limit" << dataStart;

        std::string unknownRecord = push(0);
        unknownRecord[0] = 77;
        QTest::newRow("unknown record") << qb(h + frame(FrameType::Data, unknownRecord))
                                        << "unknown record type 77" << firstRecord;

        std::string wrongSize = push(0);
        wrongSize[2] = 40;
        QTest::newRow("wrong record size")
            << qb(h + frame(FrameType::Data, wrongSize + std::string(8, '\0')))
            << "push record is 40 bytes, expected 48" << firstRecord;

        std::string wrongShortSize = shortPop();
        wrongShortSize[2] = 24;
        QTest::newRow("wrong short pop size")
            << qb(h + frame(FrameType::Data, wrongShortSize + std::string(8, '\0')))
            << "short pop record is 24 bytes, expected 16" << firstRecord;
        QTest::newRow("short push of an undefined string")
            << qb(h + frame(FrameType::Data, shortPush(5))) << "uses string id 5" << firstRecord;

        QTest::newRow("record overruns frame")
            << qb(h + frame(FrameType::Data, push(0).substr(0, 20))) << "overruns its frame"
            << firstRecord;
        QTest::newRow("record header cut") << qb(h + frame(FrameType::Data, std::string(2, '\3')))
                                           << "record header cut" << firstRecord;

        QTest::newRow("undefined string")
            << qb(h + frame(FrameType::Data, push(5))) << "uses string id 5" << firstRecord;
        QTest::newRow("string defined twice")
            << qb(h + frame(FrameType::Data, stringDef(1, "a") + stringDef(1, "b")))
            << "defined twice" << firstRecord + stringDefSize(1);
        QTest::newRow("string id 0") << qb(h + frame(FrameType::Data, stringDef(0, "a")))
                                     << "string id 0 out of range" << firstRecord;
        std::string badLength = stringDef(1, "abc");
        badLength[8] = 50;
        QTest::newRow("string length mismatch") << qb(h + frame(FrameType::Data, badLength))
                                                << "does not match its length" << firstRecord;

        const std::string v = validStream();
        QTest::newRow("truncated in header")
            << qb(v.substr(0, h.size() + 5)) << "stream truncated" << dataStart;
        QTest::newRow("truncated in payload")
            << qb(v.substr(0, h.size() + 30)) << "stream truncated" << dataStart;
        QTest::newRow("empty") << QByteArray() << "stream is empty" << 0ull;
    }

    void malformed()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QFETCH(qulonglong, offset);
        std::uint64_t at = 0;
        const std::string error = decodeError(std::string(bytes.constData(), bytes.size()), &at);
        QVERIFY2(QString::fromStdString(error).contains(expected), error.c_str());
        QVERIFY2(error.rfind("at byte ", 0) == 0, error.c_str());
        QCOMPARE(qulonglong(at), offset);
    }

    // Every prefix and every single-byte corruption of a valid stream either decodes or fails
    // with a message; none crashes (run under the sanitizer build too).
    void noCrashOnAnyPrefixOrFlip()
    {
        const std::string bytes = validStream();
        for (std::size_t n = 0; n < bytes.size(); ++n) {
            // A prefix that ends between frames is a valid stream of a job that was killed:
            // it decodes, but without the End frame.
            Counter c;
            Decoder d(c);
            d.feed(bytes.data(), n);
            if (d.finish())
                QVERIFY(!d.sawEnd());
            else
                QVERIFY(!d.error().empty());
        }
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            for (int bit = 0; bit < 8; ++bit) {
                std::string flipped = bytes;
                flipped[i] = char(flipped[i] ^ (1 << bit));
                decodeError(flipped); // must not crash; may or may not be valid
            }
        }
    }

    // A job killed while its collector wrote a frame: the whole records before the cut
    // reach the handler, and the stream still ends in a truncation error.
    void cutFrameKeepsItsWholeRecords()
    {
        const std::string stream =
            hello() + frame(FrameType::Data, stringDef(1, "a") + push(1) + pop());
        Counter c;
        Decoder d(c);
        d.feed(stream.data(), stream.size() - 4); // inside the pop
        QVERIFY(!d.finish());
        QCOMPARE(c.strings, 1);
        QCOMPARE(c.pushes, 1);
        QCOMPARE(c.pops, 0);
        QVERIFY2(d.error().find("stream truncated") != std::string::npos &&
                     d.error().find("its first 2 whole records were kept") != std::string::npos,
                 d.error().c_str());
        QCOMPARE(qulonglong(d.errorOffset()), qulonglong(hello().size()));
    }

    void stopsAtFirstError()
    {
        Counter c;
        Decoder d(c);
        const std::string bad = hello() + frame(FrameType::Data, push(9));
        QVERIFY(!d.feed(bad.data(), bad.size()));
        const std::string good = frame(FrameType::Data, pop());
        QVERIFY(!d.feed(good.data(), good.size()));
        QCOMPARE(c.pops, 0);
        QVERIFY(!d.finish());
    }
};

QTEST_GUILESS_MAIN(TestCollectorDecoder)
#include "tst_collector_decoder.moc"
