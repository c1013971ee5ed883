#include "activity_launch.h"

#include <string_view>

namespace spanscope::model {

namespace {

bool isDriverName(std::string_view name)
{
    // cuLaunchKernel, cuMemcpyHtoDAsync_v2: "cu" and a capital; the runtime's are cudaXxx.
    return name.size() > 2 && name[0] == 'c' && name[1] == 'u' && name[2] >= 'A' && name[2] <= 'Z';
}

} // namespace

bool isDriverRegion(const Capture& capture, uint32_t region)
{
    std::string_view category;
    if (region < capture.regionCategories.size())
        category = capture.strings.text(capture.regionCategories[region]);
    if (category == "cuda_driver" || category == "driver")
        return true;
    if (category == "cuda_runtime" || category == "runtime")
        return false;
    return isDriverName(capture.regionName(region));
}

std::vector<uint8_t> driverRegions(const Capture& capture)
{
    std::vector<uint8_t> driver(capture.regionNames.size(), 0);
    for (uint32_t region = 0; region < driver.size(); ++region)
        driver[region] = isDriverRegion(capture, region) ? 1 : 0;
    return driver;
}

bool betterLaunch(const Capture& capture, uint32_t a, bool aDriver, uint32_t b, bool bDriver)
{
    const auto& e = capture.events;
    if (aDriver != bDriver)
        return !aDriver;
    if (e.start[a] != e.start[b])
        return e.start[a] < e.start[b];
    return a < b;
}

std::vector<uint32_t> launchOfActivities(const Capture& capture)
{
    const auto& e = capture.events;
    std::vector<uint32_t> launch(e.size(), kNoLaunch);
    if (capture.flows.empty())
        return launch;
    // The region of each launch call, to tell runtime from driver calls.
    std::vector<uint32_t> regionOf(e.size(), UINT32_MAX);
    bool anyLaunch = false;
    for (size_t f = 0; f < capture.flows.size(); ++f)
        if (capture.flows.kind(f) == FlowKind::Launch) {
            anyLaunch = true;
            break;
        }
    if (!anyLaunch)
        return launch;
    for (uint32_t r = 0; r < capture.rows.size(); ++r) {
        const RegionRow& row = capture.rows[r];
        if (capture.regionKind(row.region) != RegionKind::Cpu)
            continue;
        for (const uint64_t i : capture.rowEvents(row))
            regionOf[i] = row.region;
    }
    const std::vector<uint8_t> driver = driverRegions(capture);
    auto isDriver = [&](uint32_t call) {
        return regionOf[call] != UINT32_MAX && driver[regionOf[call]] != 0;
    };
    auto better = [&](uint32_t a, uint32_t b) { return betterLaunch(capture, a, isDriver(a), b, isDriver(b)); };
    for (size_t f = 0; f < capture.flows.size(); ++f) {
        if (capture.flows.kind(f) != FlowKind::Launch)
            continue;
        const uint32_t from = capture.flows.from(f), to = capture.flows.to(f);
        if (from >= e.size() || to >= e.size() || regionOf[from] == UINT32_MAX)
            continue; // a launch is a CPU call
        if (launch[to] == kNoLaunch || better(from, launch[to]))
            launch[to] = from;
    }
    return launch;
}

} // namespace spanscope::model
