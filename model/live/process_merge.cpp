#include "process_merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>

namespace spanscope::model::live {

namespace {

// Appends `from` to `to`, or `count` copies of `fill` when `from` is absent (a process that
// did not record that column) while another process did.
template <typename T>
void appendColumn(Column<T>& to, const Column<T>& from, size_t count, T fill, bool wanted)
{
    if (!wanted)
        return;
    if (from.size() == count)
        to.insert(to.end(), from.begin(), from.end());
    else
        to.insert(to.end(), count, fill);
}

// Metadata of several processes as one: pids listed, counts summed, flags all-of, lists
// united, text from the first process that has it.
Metadata mergeMetadata(const std::vector<ProcessCapture>& processes)
{
    Metadata merged;
    auto find = [&](const std::string& key) -> MetadataValue* {
        for (auto& entry : merged)
            if (entry.key == key)
                return &entry.value;
        return nullptr;
    };
    MetadataValue pids;
    pids.kind = MetadataValue::Kind::StringList;
    for (const auto& process : processes) {
        pids.list.push_back(std::to_string(process.pid));
        for (const auto& entry : process.capture->metadata) {
            if (entry.key == "pid")
                continue;
            MetadataValue* value = find(entry.key);
            if (!value) {
                merged.push_back(entry);
                continue;
            }
            if (value->kind != entry.value.kind)
                continue;
            switch (value->kind) {
            case MetadataValue::Kind::Integer:
                value->integer += entry.value.integer;
                break;
            case MetadataValue::Kind::Bool:
                value->flag = value->flag && entry.value.flag;
                break;
            case MetadataValue::Kind::StringList:
                for (const auto& item : entry.value.list)
                    if (std::find(value->list.begin(), value->list.end(), item) ==
                        value->list.end())
                        value->list.push_back(item);
                break;
            default:
                break;
            }
        }
    }
    MetadataValue count;
    count.kind = MetadataValue::Kind::Integer;
    count.integer = int64_t(processes.size());
    merged.insert(merged.begin(), {{"pids", pids}, {"processes", count}});
    return merged;
}

} // namespace

std::shared_ptr<Capture> mergeProcesses(const std::vector<ProcessCapture>& processes)
{
    auto result = std::make_shared<Capture>();
    Capture& c = *result;
    c.schema = 3;
    c.layout = StorageLayout::Columnar;
    c.numRanks = int32_t(processes.size());
    if (processes.size() == 1) {
        const Capture& only = *processes.front().capture;
        c = only;
        c.numRanks = 1;
        c.ranks = {0};
        return result;
    }

    // An optional column goes into the merge if any process recorded it; thread and task
    // ids always do, as they tell the processes' lanes apart.
    std::set<std::string_view> wanted{"thread_ids", "task_ids"};
    for (const auto& process : processes)
        for (const auto& optional : kOptionalEventColumns)
            if (!(process.capture->events.*optional.member).empty())
                wanted.insert(optional.name);

    std::map<std::string, uint32_t> regionOf;
    std::map<std::string, uint32_t> domainOf{{"default", 0}};
    uint32_t nextDomain = 1;
    std::set<uint32_t> listed; // merged domain ids already in c.nvtx.domains
    std::map<std::pair<uint32_t, uint32_t>, NameId> categories;
    for (size_t rank = 0; rank < processes.size(); ++rank) {
        const Capture& p = *processes[rank].capture;
        const int32_t r = int32_t(rank);
        const uint64_t base = c.events.size();
        const size_t n = p.events.size();
        c.ranks.push_back(r);
        const std::string who = "process " + std::to_string(processes[rank].pid) + " (rank " +
                                std::to_string(rank) + "): ";

        std::vector<uint32_t> regions(p.regionNames.size());
        for (size_t i = 0; i < p.regionNames.size(); ++i) {
            const std::string& name = p.regionName(uint32_t(i));
            auto [it, added] = regionOf.emplace(name, uint32_t(c.regionNames.size()));
            if (added)
                c.regionNames.push_back(c.strings.intern(name));
            regions[i] = it->second;
        }
        // Domain ids are the process's own; the same name is the same domain everywhere.
        std::map<uint32_t, uint32_t> domains;
        for (const auto& d : p.nvtx.domains) {
            const std::string& name = p.strings.text(d.name);
            auto [it, added] = domainOf.emplace(name, nextDomain);
            if (added)
                ++nextDomain;
            if (!listed.count(it->second)) {
                listed.insert(it->second);
                c.nvtx.domains.push_back({it->second, c.strings.intern(name)});
            }
            domains[d.id] = it->second;
        }
        auto domain = [&](uint32_t id) {
            auto it = domains.find(id);
            return it == domains.end() ? id : it->second;
        };
        for (const auto& cat : p.nvtx.categories)
            categories.try_emplace({domain(cat.domain), cat.category},
                                   c.strings.intern(p.strings.text(cat.name)));

        for (const RegionRow& row : p.rows) {
            RegionRow copy = row;
            copy.region = regions[row.region];
            copy.rank = r;
            copy.offset = base + row.offset;
            auto reintern = [&](NameId id) { return c.strings.intern(p.strings.text(id)); };
            copy.sourceFile = reintern(row.sourceFile);
            copy.sourceText = reintern(row.sourceText);
            for (NameId& tag : copy.tags)
                tag = reintern(tag);
            c.rows.push_back(std::move(copy));
        }
        c.events.start.insert(c.events.start.end(), p.events.start.begin(), p.events.start.end());
        c.events.end.insert(c.events.end.end(), p.events.end.begin(), p.events.end.end());
        for (const auto& optional : kOptionalEventColumns)
            appendColumn(c.events.*optional.member, p.events.*optional.member, n, optional.none,
                         wanted.count(optional.name) > 0);

        for (ThreadInfo thread : p.threads) {
            thread.rank = r;
            thread.name = c.strings.intern(p.strings.text(thread.name));
            c.threads.push_back(thread);
        }
        for (TaskInfo task : p.tasks) {
            task.rank = r;
            task.kind = c.strings.intern(p.strings.text(task.kind));
            task.name = c.strings.intern(p.strings.text(task.name));
            task.coroName = c.strings.intern(p.strings.text(task.coroName));
            c.tasks.push_back(task);
        }

        const bool perCall = p.nvtx.callDomains.size() == n;
        for (size_t i = 0; i < n; ++i) {
            c.nvtx.callDomains.push_back(perCall ? domain(p.nvtx.callDomains[i]) : 0);
            c.nvtx.callCategories.push_back(perCall ? p.nvtx.callCategories[i] : 0);
        }
        for (const uint64_t e : p.nvtx.closedAtEnd)
            c.nvtx.closedAtEnd.push_back(base + e);
        for (const NvtxCrossThreadEnd& end : p.nvtx.crossThreadEnds)
            c.nvtx.crossThreadEnds.push_back({base + end.event, end.endThread});
        for (NvtxMark mark : p.nvtx.marks) {
            mark.rank = r;
            mark.domain = domain(mark.domain);
            mark.message = c.strings.intern(p.strings.text(mark.message));
            if (mark.enclosingEvent >= 0)
                mark.enclosingEvent += int64_t(base);
            c.nvtx.marks.push_back(mark);
        }
        for (const Warning& warning : p.warnings)
            c.warnings.push_back({who + warning.message, warning.object});
        // Its rank stays (and survives saving: ranks are listed by the processes count),
        // but a process whose stream brought nothing to show is said out loud.
        if (n == 0 && p.nvtx.marks.empty())
            c.warnings.push_back({who + "recorded no range and no mark", {}});
    }
    for (const auto& [key, name] : categories)
        c.nvtx.categories.push_back({key.first, key.second, name});
    std::sort(c.nvtx.domains.begin(), c.nvtx.domains.end(),
              [](const NvtxDomain& a, const NvtxDomain& b) { return a.id < b.id; });
    std::stable_sort(c.nvtx.marks.begin(), c.nvtx.marks.end(),
                     [](const NvtxMark& a, const NvtxMark& b) { return a.timeNs < b.timeNs; });
    c.metadata = mergeMetadata(processes);
    c.rowExclusive.assign(c.rows.size(), -1);
    return result;
}

} // namespace spanscope::model::live
