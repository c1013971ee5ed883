#pragma once
// Builds a Capture in memory from a compact text, one call per line:
//   <region> <rank> <start> <end> [thread=<id>] [task=<id>] [gpu=<ns>] [await=<ns>]
// Calls of the same (region, rank) form one row, in the order given.

#include "model/capture.h"

#include <algorithm>
#include <map>
#include <memory>
#include <sstream>
#include <string>

namespace spanscope::testing {

inline std::shared_ptr<model::Capture> buildCapture(const std::string& text)
{
    struct Call
    {
        int64_t start, end, thread = -1, task = -1, gpu = -1, await = 0;
    };
    std::vector<std::pair<std::string, int32_t>> keys;
    std::map<std::pair<std::string, int32_t>, std::vector<Call>> calls;
    bool threads = false, tasks = false, gpu = false, await = false;
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream fields(line);
        std::string region;
        int32_t rank = 0;
        Call call{};
        if (!(fields >> region >> rank >> call.start >> call.end))
            continue;
        call.thread = call.task = call.gpu = -1;
        call.await = 0;
        std::string option;
        while (fields >> option) {
            const auto eq = option.find('=');
            const std::string key = option.substr(0, eq);
            const int64_t value = std::stoll(option.substr(eq + 1));
            if (key == "thread")
                call.thread = value, threads = true;
            else if (key == "task")
                call.task = value, tasks = true;
            else if (key == "gpu")
                call.gpu = value, gpu = true;
            else if (key == "await")
                call.await = value, await = true;
        }
        const auto key = std::make_pair(region, rank);
        if (!calls.count(key))
            keys.push_back(key);
        calls[key].push_back(call);
    }
    auto capture = std::make_shared<model::Capture>();
    capture->schema = 3;
    std::map<std::string, uint32_t> regionIds;
    auto& e = capture->events;
    for (const auto& key : keys) {
        auto [it, inserted] = regionIds.try_emplace(key.first, uint32_t(capture->regionNames.size()));
        if (inserted)
            capture->regionNames.push_back(capture->strings.intern(key.first));
        model::RegionRow row;
        row.region = it->second;
        row.rank = key.second;
        row.firstEvent = e.start.size();
        row.count = calls[key].size();
        capture->rows.push_back(row);
        for (const auto& call : calls[key]) {
            e.start.push_back(call.start);
            e.end.push_back(call.end);
            if (threads)
                e.threadIds.push_back(call.thread);
            if (tasks)
                e.taskIds.push_back(call.task);
            if (gpu)
                e.gpu.push_back(call.gpu);
            if (await)
                e.awaitNs.push_back(call.await);
        }
        if (std::find(capture->ranks.begin(), capture->ranks.end(), key.second) == capture->ranks.end())
            capture->ranks.push_back(key.second);
    }
    std::sort(capture->ranks.begin(), capture->ranks.end());
    capture->numRanks = capture->ranks.empty() ? 0 : capture->ranks.back() + 1;
    capture->rowExclusive.assign(capture->rows.size(), -1);
    return capture;
}

} // namespace spanscope::testing
