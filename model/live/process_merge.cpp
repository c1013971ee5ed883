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
template <typename C, typename T> // C: a Column or an EventColumn of T
void appendColumn(C& to, const C& from, size_t count, T fill, bool wanted)
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

// Process `p`'s tracks as rank `rank` of `c` (ids from `trackBase` on), and what sits on
// them: counters, allocations one by one (AllocationTable::finish() is left to the caller),
// counted allocations (`regions` maps p's region ids to c's).
void appendTracks(Capture& c, const Capture& p, int32_t rank, uint32_t trackBase,
                  const std::vector<uint32_t>& regions)
{
    auto reintern = [&](NameId id) { return c.strings.intern(p.strings.text(id)); };
    for (Track track : p.tracks) {
        track.rank = rank;
        track.name = reintern(track.name);
        c.tracks.push_back(track);
    }
    for (const CounterSeries& series : p.counters) {
        CounterSeries copy = series; // shares its samples' chunks
        copy.track = TrackId{series.track.value + trackBase};
        copy.unit = reintern(series.unit);
        c.counters.push_back(std::move(copy));
    }
    const AllocationTable& a = p.allocations;
    for (size_t i = 0; i < a.size(); ++i)
        c.allocations.add(a.time(i), TrackId{a.track(i).value + trackBase}, a.address(i),
                          a.bytes(i), a.device(i));
    for (CountedAllocations counted : p.countedAllocations) {
        counted.track.value += trackBase;
        if (counted.region >= 0)
            counted.region = int64_t(regions[size_t(counted.region)]);
        c.countedAllocations.push_back(counted);
    }
}

// Process `p`'s GPU side tables, its events from `base` on in `c` (finish() is left to the
// caller). Devices are the machine's: one entry per device id.
void appendGpu(Capture& c, const Capture& p, uint64_t base)
{
    const GpuActivityTable& a = p.gpuActivities;
    for (size_t i = 0; i < a.size(); ++i) {
        const auto event = uint32_t(base + a.event(i));
        if (const auto shape = a.kernelShape(i))
            c.gpuActivities.addKernel(event, a.correlation(i), a.context(i), *shape);
        else if (const auto bytes = a.copyBytes(i))
            c.gpuActivities.addCopy(event, a.correlation(i), a.context(i), *bytes, a.copyKind(i));
        else
            c.gpuActivities.addOther(event, a.correlation(i), a.context(i));
    }
    for (size_t f = 0; f < p.flows.size(); ++f)
        c.flows.add(uint32_t(base + p.flows.from(f)), uint32_t(base + p.flows.to(f)), p.flows.kind(f));
    for (DeviceInfo device : p.devices) {
        const bool known = std::any_of(c.devices.begin(), c.devices.end(),
                                       [&](const DeviceInfo& d) { return d.device == device.device; });
        if (known)
            continue;
        device.name = c.strings.intern(p.strings.text(device.name));
        c.devices.push_back(device);
    }
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

    // Processes assembled live come with their tracks (and their allocations and counters
    // on them): keep each process's, renumbered. Others get theirs at load time.
    const bool tracks = std::any_of(processes.begin(), processes.end(),
                                    [](const ProcessCapture& p) { return !p.capture->tracks.empty(); });
    // Each row keeps its calls, so its durations (stats/row_durations.h) carry over, where
    // every process has them.
    const bool durations = std::all_of(processes.begin(), processes.end(), [](const ProcessCapture& p) {
        return p.capture->rowDurations.size() == p.capture->rows.size();
    });
    // So do their GPU times' sums, where every process with GPU times has them (a process
    // without has none to sum).
    auto summedGpu = [](const ProcessCapture& p) { return p.capture->rowGpuTimes.size() == p.capture->rows.size(); };
    const bool gpuTimes = std::any_of(processes.begin(), processes.end(), summedGpu)
                          && std::all_of(processes.begin(), processes.end(), [&](const ProcessCapture& p) {
                                 return summedGpu(p) || p.capture->events.gpu.empty();
                             });
    std::map<std::string, uint32_t> regionOf;
    std::map<std::string, uint32_t> domainOf{{"default", 0}};
    uint32_t nextDomain = 1;
    std::set<uint32_t> listed; // merged domain ids already in c.nvtx.domains
    std::map<std::pair<uint32_t, uint32_t>, NameId> categories;
    for (size_t rank = 0; rank < processes.size(); ++rank) {
        std::shared_ptr<const Capture> process = processes[rank].capture;
        if (tracks && process->tracks.empty()) {
            auto withTracks = std::make_shared<Capture>(*process);
            assignTracks(*withTracks);
            process = std::move(withTracks);
        }
        const Capture& p = *process;
        const int32_t r = int32_t(rank);
        const uint64_t base = c.events.size();
        const uint32_t trackBase = uint32_t(c.tracks.size());
        const size_t n = p.events.size();
        c.ranks.push_back(r);
        const std::string who = "process " + std::to_string(processes[rank].pid) + " (rank " +
                                std::to_string(rank) + "): ";

        // Regions are keyed by (name, kind): a kernel and a range of one name are two.
        std::vector<uint32_t> regions(p.regionNames.size());
        for (size_t i = 0; i < p.regionNames.size(); ++i) {
            const std::string& name = p.regionName(uint32_t(i));
            const RegionKind kind = p.regionKind(uint32_t(i));
            const std::string key = kind == RegionKind::Cpu ? name : name + '\x1f' + regionKindName(kind);
            auto [it, added] = regionOf.emplace(key, uint32_t(c.regionNames.size()));
            if (added) {
                c.regionNames.push_back(c.strings.intern(name));
                if (kind != RegionKind::Cpu || !c.regionKinds.empty()) {
                    c.regionKinds.resize(c.regionNames.size(), RegionKind::Cpu);
                    c.regionKinds.back() = kind;
                }
            }
            regions[i] = it->second;
        }
        appendGpu(c, p, base);
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

        const uint32_t spanBase = uint32_t(c.rowSpans.size());
        for (const EventSpan& span : p.rowSpans) // the process's columns follow those before it
            c.rowSpans.push_back({base + span.begin, base + span.end});
        for (const RegionRow& row : p.rows) {
            RegionRow copy = row;
            copy.region = regions[row.region];
            copy.rank = r;
            copy.firstEvent = base + row.firstEvent;
            copy.firstSpan = spanBase + row.firstSpan;
            auto reintern = [&](NameId id) { return c.strings.intern(p.strings.text(id)); };
            copy.sourceFile = reintern(row.sourceFile);
            copy.sourceText = reintern(row.sourceText);
            for (NameId& tag : copy.tags)
                tag = reintern(tag);
            if (copy.track.valid())
                copy.track.value += trackBase;
            c.rows.push_back(std::move(copy));
        }
        if (durations)
            c.rowDurations.insert(c.rowDurations.end(), p.rowDurations.begin(), p.rowDurations.end());
        if (gpuTimes)
            c.rowGpuTimes.insert(c.rowGpuTimes.end(), p.rowGpuTimes.begin(), p.rowGpuTimes.end());
        if (gpuTimes && p.rowGpuTimes.empty())
            c.rowGpuTimes.resize(c.rows.size());
        c.events.start.insert(c.events.start.end(), p.events.start.begin(), p.events.start.end());
        c.events.end.insert(c.events.end.end(), p.events.end.begin(), p.events.end.end());
        for (const auto& optional : kOptionalEventColumns)
            appendColumn(c.events.*optional.member, p.events.*optional.member, n, optional.none,
                         wanted.count(optional.name) > 0);

        if (tracks) {
            appendTracks(c, p, r, trackBase, regions);
            // Per call; a process whose calls take their row's track gets it spelled out.
            c.events.track.resize(base + n, TrackId::kNone);
            uint32_t* const trackOut = c.events.track.mutableData();
            if (p.events.track.size() == n)
                for (size_t i = 0; i < n; ++i)
                    trackOut[base + i] = p.events.track[i] + trackBase;
            else
                for (const RegionRow& row : p.rows)
                    for (const uint64_t i : p.rowEvents(row))
                        if (i < n)
                            trackOut[base + i] =
                                row.track.valid() ? row.track.value + trackBase : TrackId::kNone;
        }

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

        for (size_t i = 0; i < n; ++i) {
            c.nvtx.callDomains.push_back(domain(p.nvtx.domainOf(i)));
            c.nvtx.callCategories.push_back(p.nvtx.categoryOf(i));
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
    c.allocations.finish();
    c.gpuActivities.finish();
    c.flows.finish();
    if (!c.regionKinds.empty())
        c.regionKinds.resize(c.regionNames.size(), RegionKind::Cpu);
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
