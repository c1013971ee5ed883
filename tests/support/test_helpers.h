#pragma once
// Small helpers shared by the model tests.

#include "model/capture_loader.h"

#include <QTemporaryDir>
#include <QtTest>

#include <string>

namespace spanscope::testing {

// A column as a plain vector, for QCOMPARE against literals.
template <typename Column>
std::vector<typename Column::value_type> toVector(const Column& column)
{
    return {column.begin(), column.end()};
}

inline std::string dataFile(const char* relative)
{
    // Appended, not `std::string(a) + "/" + b`: GCC 12 at -O2 warns falsely (-Warray-bounds)
    // on that one where the standard headers come precompiled.
    std::string path = SPANSCOPE_TEST_DATA;
    path.append("/").append(relative);
    return path;
}

// Index of the row for (region name, rank), or -1.
inline int findRow(const model::Capture& capture, const std::string& region, int rank)
{
    for (size_t r = 0; r < capture.rows.size(); ++r)
        if (capture.regionName(capture.rows[r].region) == region && capture.rows[r].rank == rank)
            return int(r);
    return -1;
}

// Region id for a name, or -1.
inline int findRegion(const model::Capture& capture, const std::string& region)
{
    for (size_t i = 0; i < capture.regionNames.size(); ++i)
        if (capture.regionName(uint32_t(i)) == region)
            return int(i);
    return -1;
}

inline bool hasWarningContaining(const model::Capture& capture, const std::string& text)
{
    for (const auto& w : capture.warnings)
        if (w.message.find(text) != std::string::npos)
            return true;
    return false;
}

// The first event of region `region`, or -1.
inline int64_t firstEventOf(const model::Capture& capture, const std::string& region)
{
    for (const auto& row : capture.rows)
        if (capture.regionName(row.region) == region && row.count > 0)
            return int64_t(row.firstEvent);
    return -1;
}

// An integer metadata value, or -1 when the key is missing.
inline int64_t metadataInt(const model::Capture& capture, const char* key)
{
    const model::MetadataValue* v = model::findMetadata(capture.metadata, key);
    return v ? v->integer : -1;
}

} // namespace spanscope::testing

// Loads a file that must load; fails the test otherwise.
#define SPANSCOPE_LOAD(var, path)                                                                  \
    auto var##Result = spanscope::model::loadCapture(path);                                        \
    QVERIFY2(var##Result.ok(),                                                                     \
             var##Result.ok() ? "" : var##Result.error().toString().c_str());                     \
    const auto& var = var##Result.value()
