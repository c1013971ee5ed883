#pragma once
// What the device window tests share (tst_device_window*.cpp, one per executable): the
// reports a window sends, a host clock the tests set, and short ways to run and wait for a
// window over the fake backend (support/fake_device_window_backend.h). Included once per
// test executable: it defines the collector's entry point and the tests' globals.
#include "spanscope/device_window.h"
#include "support/fake_device_window_backend.h"

#include <QTest>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace spanscope::device_window;
using namespace spanscope::testing;

namespace {

using Windows = DeviceWindows<FakeBackend>;
using Duration = DeviceDuration<FakeBackend>;

// Reports, as received (the name copied).
struct Report
{
    std::uint32_t size;
    int device;
    std::uint64_t stream;
    bool hasName;
    std::string name;
    std::int64_t hostStartNs, hostEndNs, deviceStartNs, deviceEndNs, deviceDurationNs;
};
std::mutex g_reportsMutex;
std::vector<Report> g_reports, g_collectorReports;

inline Report copyReport(const spanscope_device_window_report* r)
{
    return Report{
        r->size,        r->device,    r->stream,        r->name != nullptr, r->name ? r->name : "",
        r->hostStartNs, r->hostEndNs, r->deviceStartNs, r->deviceEndNs,     r->deviceDurationNs};
}
inline void captureReport(const spanscope_device_window_report* r)
{
    std::lock_guard<std::mutex> lock(g_reportsMutex);
    g_reports.push_back(copyReport(r));
}
inline std::vector<Report> reports()
{
    std::lock_guard<std::mutex> lock(g_reportsMutex);
    return g_reports;
}

// A host clock the tests set.
std::atomic<std::int64_t> g_hostNow{1000000};
inline std::int64_t fakeHostClock()
{
    return g_hostNow.load();
}

inline Options testOptions()
{
    Options options;
    options.reporter = captureReport;
    options.hostClock = fakeHostClock;
    return options;
}

// A result's error; for a success, one that no check expects.
template <typename T> Error errorOf(const Result<T>& result)
{
    return result ? Error{ErrorCode(-1), -1} : result.error();
}

// Waits; the device ns, or -1 for an empty result of stop() and -2 for an error of wait(), so
// that a wrong implementation fails a comparison instead of asserting in value().
inline std::int64_t waitNs(Duration& duration)
{
    Result<std::int64_t> ns = duration.wait();
    return ns ? ns.value() : -2;
}
inline std::int64_t waitNs(Result<Duration>& stopped)
{
    return stopped ? waitNs(stopped.value()) : -1;
}
inline WindowTimes waitTimes(Result<Duration>& stopped)
{
    WindowTimes failed;
    failed.deviceNs = -1;
    if (!stopped)
        return failed;
    Result<WindowTimes> times = stopped.value().waitTimes();
    return times ? times.value() : failed;
}

// Opens, runs `ns` of work, closes and waits; the device duration (or -1 on an error).
inline std::int64_t measure(Windows& windows, FakeDevice& fake, int stream, std::int64_t ns)
{
    Result<WindowToken> token = windows.start(stream);
    if (!token)
        return -1;
    fake.launch(stream, ns);
    Result<Duration> duration = windows.stop(stream, token.value());
    if (!duration)
        return -1;
    Result<std::int64_t> deviceNs = duration.value().wait();
    return deviceNs ? deviceNs.value() : -1;
}

// Before each test: no reports yet, the host clock at 1 ms.
inline void resetReports()
{
    std::lock_guard<std::mutex> lock(g_reportsMutex);
    g_reports.clear();
    g_collectorReports.clear();
    g_hostNow = 1000000;
}

} // namespace

// The collector's entry point, found by dlsym(RTLD_DEFAULT): the test executable exports it
// (ENABLE_EXPORTS) to stand in for libspanscope-collector.
extern "C" __attribute__((visibility("default"))) void
spanscope_report_device_window(const spanscope_device_window_report* report)
{
    std::lock_guard<std::mutex> lock(g_reportsMutex);
    g_collectorReports.push_back(copyReport(report));
}
