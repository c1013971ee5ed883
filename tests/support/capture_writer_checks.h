#pragma once
// What the capture writer's tests share: reading a file back, comparing two captures as a
// round trip must keep them, the files a failed write may not leave behind, and a large
// capture to write.

#include "model/capture.h"
#include "model/io/region_file_reader.h"
#include "support/test_helpers.h"

#include <QTest>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace spanscope::testing {

inline std::shared_ptr<model::Capture> read(const std::string& path)
{
    auto result = model::io::readRegionFile(path);
    if (!result) {
        qWarning("%s", result.error().toString().c_str());
        return nullptr;
    }
    return result.value();
}

inline std::vector<std::string> texts(const model::Capture& c, const std::vector<model::NameId>& ids)
{
    std::vector<std::string> out;
    for (auto id : ids)
        out.push_back(c.strings.text(id));
    return out;
}

// Files left in a directory other than `keep` (temporary files must not survive).
inline std::vector<std::string> otherFiles(const std::string& directory, const std::string& keep)
{
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(directory))
        if (entry.path().filename() != keep)
            names.push_back(entry.path().filename().string());
    return names;
}

// Compares what a round trip must keep: everything but the source path, the schema number,
// the storage layout of schema 1 (written as columnar) and warnings about the schema.
inline void compareCaptures(const model::Capture& a, const model::Capture& b, bool summariesComputed)
{
    QCOMPARE(texts(b, b.regionNames), texts(a, a.regionNames));
    QCOMPARE(b.rows.size(), a.rows.size());
    for (size_t i = 0; i < a.rows.size(); ++i) {
        const auto &x = a.rows[i], &y = b.rows[i];
        QCOMPARE(y.region, x.region);
        QCOMPARE(y.rank, x.rank);
        QCOMPARE(y.firstEvent, x.firstEvent);
        QCOMPARE(y.count, x.count);
        QCOMPARE(b.strings.text(y.sourceFile), a.strings.text(x.sourceFile));
        QCOMPARE(b.strings.text(y.sourceText), a.strings.text(x.sourceText));
        QCOMPARE(y.sourceLine, x.sourceLine);
        QCOMPARE(texts(b, y.tags), texts(a, x.tags));
        QCOMPARE(y.storedExclusive, x.storedExclusive);
        QCOMPARE(y.aggregate.has_value(), x.aggregate.has_value());
        if (x.aggregate) {
            QCOMPARE(y.aggregate->count, x.aggregate->count);
            QCOMPARE(y.aggregate->total, x.aggregate->total);
            QCOMPARE(y.aggregate->minimum, x.aggregate->minimum);
            QCOMPARE(y.aggregate->maximum, x.aggregate->maximum);
            QCOMPARE(y.aggregate->exclusive, x.aggregate->exclusive);
        }
        if (x.stored) {
            QVERIFY(y.stored.has_value());
            QCOMPARE(y.stored->total, x.stored->total);
            QCOMPARE(y.stored->gpuCount, x.stored->gpuCount);
            QCOMPARE(y.stored->m2, x.stored->m2);
        } else if (summariesComputed && a.layout != model::StorageLayout::Aggregate) {
            QVERIFY(y.stored.has_value()); // computed by the writer from the calls
            int64_t total = 0;
            for (uint64_t k = x.firstEvent; k < x.firstEvent + x.count; ++k)
                total += a.events.end[k] - a.events.start[k];
            QCOMPARE(y.stored->total, total);
        }
    }
    const auto &e = a.events, &f = b.events;
    QCOMPARE(toVector(f.start), toVector(e.start));
    QCOMPARE(toVector(f.end), toVector(e.end));
    QCOMPARE(toVector(f.gpu), toVector(e.gpu));
    QCOMPARE(toVector(f.callIds), toVector(e.callIds));
    QCOMPARE(toVector(f.parentIds), toVector(e.parentIds));
    QCOMPARE(toVector(f.threadIds), toVector(e.threadIds));
    QCOMPARE(toVector(f.taskIds), toVector(e.taskIds));
    QCOMPARE(toVector(f.awaitNs), toVector(e.awaitNs));
    QCOMPARE(b.metadata.size(), a.metadata.size());
    for (size_t i = 0; i < a.metadata.size(); ++i) {
        const auto &x = a.metadata[i], &y = b.metadata[i];
        QCOMPARE(y.key, x.key);
        QCOMPARE(int(y.value.kind), int(x.value.kind));
        QCOMPARE(y.value.text, x.value.text);
        QCOMPARE(y.value.integer, x.value.integer);
        QCOMPARE(y.value.number, x.value.number);
        QCOMPARE(y.value.flag, x.value.flag);
        QCOMPARE(y.value.list, x.value.list);
    }
    QCOMPARE(b.threads.size(), a.threads.size());
    for (size_t i = 0; i < a.threads.size(); ++i) {
        const auto &x = a.threads[i], &y = b.threads[i];
        QCOMPARE(y.rank, x.rank);
        QCOMPARE(y.index, x.index);
        QCOMPARE(y.ident, x.ident);
        QCOMPARE(y.nativeId, x.nativeId);
        QCOMPARE(y.daemon, x.daemon);
        QCOMPARE(b.strings.text(y.name), a.strings.text(x.name));
        QCOMPARE(y.startNs, x.startNs);
        QCOMPARE(y.endNs, x.endNs);
        QCOMPARE(y.cpuNs, x.cpuNs);
    }
    QCOMPARE(b.tasks.size(), a.tasks.size());
    for (size_t i = 0; i < a.tasks.size(); ++i) {
        const auto &x = a.tasks[i], &y = b.tasks[i];
        QCOMPARE(y.rank, x.rank);
        QCOMPARE(y.index, x.index);
        QCOMPARE(y.threadIndex, x.threadIndex);
        QCOMPARE(y.createdNs, x.createdNs);
        QCOMPARE(y.doneNs, x.doneNs);
        QCOMPARE(y.steps, x.steps);
        QCOMPARE(y.runningNs, x.runningNs);
        QCOMPARE(y.suspendedNs, x.suspendedNs);
        QCOMPARE(b.strings.text(y.kind), a.strings.text(x.kind));
        QCOMPARE(b.strings.text(y.name), a.strings.text(x.name));
        QCOMPARE(b.strings.text(y.coroName), a.strings.text(x.coroName));
    }
    QCOMPARE(b.ranks, a.ranks);
    QCOMPARE(b.numRanks, a.numRanks);
    QCOMPARE(b.eventDataAvailable, a.eventDataAvailable);
    QCOMPARE(b.schema, 3);
}

// 100 000 calls in three rows on two ranks, with GPU times and an unclosed call.
inline std::shared_ptr<model::Capture> largeCapture()
{
    auto c = std::make_shared<model::Capture>();
    c->schema = 3;
    c->regionNames = {c->strings.intern("step"), c->strings.intern("io")};
    const uint64_t n = 100000;
    auto& e = c->events;
    e.start.resize(n);
    e.end.resize(n);
    e.gpu.resize(n);
    int64_t t = 1700000000000;
    uint64_t random = 12345; // a fixed LCG: data that does not compress to nothing
    for (uint64_t i = 0; i < n; ++i) {
        random = random * 6364136223846793005ULL + 1442695040888963407ULL;
        t += int64_t(random >> 44);
        e.start.mutableData()[i] = t;
        e.end.mutableData()[i] = t + int64_t((random >> 20) & 0xFFFFF);
        e.gpu.mutableData()[i] = i % 3 ? int64_t((random >> 8) & 0xFFF) : -1;
    }
    e.end.mutableData()[n - 1] = e.start[n - 1] - 1; // never closed
    const uint64_t counts[3] = {60000, 30000, 10000};
    const int32_t ranks[3] = {0, 0, 1};
    const uint32_t regions[3] = {0, 1, 0};
    uint64_t offset = 0;
    for (int r = 0; r < 3; ++r) {
        model::RegionRow row;
        row.region = regions[r];
        row.rank = ranks[r];
        row.firstEvent = offset;
        row.count = counts[r];
        offset += counts[r];
        c->rows.push_back(row);
    }
    c->ranks = {0, 1};
    c->numRanks = 2;
    return c;
}

} // namespace spanscope::testing
