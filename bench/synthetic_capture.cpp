#include "synthetic_capture.h"

#include <string>
#include <vector>

namespace spanscope::bench {

std::shared_ptr<model::Capture> syntheticCapture(int64_t calls, int ranks, double scale)
{
    auto capture = std::make_shared<model::Capture>();
    auto& c = *capture;
    c.schema = 3;
    const int regions = 1 + 9 + 1;
    for (int r = 0; r < regions; ++r)
        c.regionNames.push_back(c.strings.intern(r == 0 ? "step" : r == 10 ? "kernel" : "child." + std::to_string(r)));
    const int64_t perStep = 1 + 9 + 3;
    const int64_t steps = calls / perStep / ranks;
    const int64_t total = steps * perStep * ranks;
    c.events.start.resize(size_t(total));
    c.events.end.resize(size_t(total));
    uint64_t offset = 0;
    for (int rank = 0; rank < ranks; ++rank) {
        c.ranks.push_back(rank);
        // Row layout per rank: step calls, then each child region, then kernels.
        std::vector<uint64_t> cursor(regions);
        for (int r = 0; r < regions; ++r) {
            cursor[size_t(r)] = offset;
            model::RegionRow row;
            row.region = uint32_t(r);
            row.rank = rank;
            row.firstEvent = offset;
            row.count = uint64_t(r == 10 ? steps * 3 : steps);
            offset += row.count;
            c.rows.push_back(row);
        }
        int64_t t = 1'000'000 + rank * 777;
        for (int64_t s = 0; s < steps; ++s) {
            const int64_t stepStart = t;
            t += 20;
            for (int child = 1; child <= 9; ++child) {
                const auto length = int64_t(double(200 + (s * 37 + child * 101) % 3000) * scale);
                const uint64_t e = cursor[size_t(child)]++;
                c.events.start.mutableData()[e] = t;
                c.events.end.mutableData()[e] = t + length;
                if (child == 3)
                    for (int k = 0; k < 3; ++k) {
                        const uint64_t g = cursor[10]++;
                        c.events.start.mutableData()[g] = t + 10 + k * (length / 3);
                        c.events.end.mutableData()[g] = t + (k + 1) * (length / 3) - 5;
                    }
                t += length + 15;
            }
            const uint64_t e = cursor[0]++;
            c.events.start.mutableData()[e] = stepStart;
            c.events.end.mutableData()[e] = t;
            t += 40 + s % 500;
        }
    }
    c.numRanks = ranks;
    c.rowExclusive.assign(c.rows.size(), -1);
    return capture;
}

} // namespace spanscope::bench
