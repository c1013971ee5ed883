#pragma once
// Which CPU call launched each GPU activity, by one rule every part of spanscope uses (the
// GPU analyses, their counters, Call details): of the calls whose launch flow reaches it
// (its correlation id's calls), the runtime call, else the driver call; the earliest if
// several. Any thread.

#include "../capture.h"

#include <cstdint>
#include <vector>

namespace spanscope::model {

inline constexpr uint32_t kNoLaunch = UINT32_MAX;

// The launch of each GPU activity (docs/gpu-analyses.md), indexed by event; kNoLaunch where
// none (and for events that are no activity). O(flows + events).
std::vector<uint32_t> launchOfActivities(const Capture& capture);

// Whether a CPU region is a driver API call (its category says so, else its name has the
// driver's cuXxx form), for launchOfActivities; per region, and for one region.
std::vector<uint8_t> driverRegions(const Capture& capture);
bool isDriverRegion(const Capture& capture, uint32_t region);
// Of launch calls `a` and `b` of one activity, whether `a` is its launch by the rule above
// (a runtime call before a driver call, then the earlier).
bool betterLaunch(const Capture& capture, uint32_t a, bool aDriver, uint32_t b, bool bDriver);

} // namespace spanscope::model
