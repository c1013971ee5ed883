#pragma once
// The walker behind walkTrace (trace_walk.h), shared by its two halves: trace_walk.cpp reads
// the JSON (the event array, each event's fields) and trace_events.cpp turns each kind of
// event (complete, instant, counter, flow, async, metadata) into records.

#include "json_values.h"
#include "trace_walk.h"

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace spanscope::model::io::chrome::walk {

namespace sj = simdjson::ondemand;

constexpr size_t kMaxNameBytes = 64 * 1024; // longer names are cut: a 2 GB "name" stays usable

// The fields of one event, as found in any order.
struct Fields
{
    std::string_view ph, cat, name, id, bp, scope, idScope, args;
    std::optional<int64_t> ts, dur;
    bool hasPid = false, hasTid = false, hasTs = false, hasDur = false, hasId = false,
         idGlobal = false;
    int64_t pid = 0, tid = 0;
    std::string bad; // why the event cannot be used, empty if it can
};

class Walker
{
public:
    Walker(JsonInput& input, const std::string& path, Capture& capture, TraceRecords& records,
           const ChromeImportOptions& options, const ProgressRange& progress)
        : m_input(input), m_path(path), m_capture(capture), m_records(records), m_options(options),
          m_progress(progress)
    {
    }

    Status run();

private:
    void walkEvents(sj::array events);
    void readFields(sj::object event, Fields& f);
    void handle(const Fields& f, size_t offset);
    int64_t keyOf(sj::value value, bool& ok);
    uint32_t intern(std::string_view text)
    {
        if (text.size() > kMaxNameBytes) {
            std::string cut = std::string(utf8Prefix(text, kMaxNameBytes)) + "\xE2\x80\xA6";
            return m_capture.strings.intern(cut).value;
        }
        return m_capture.strings.intern(text).value;
    }
    uint64_t storeArgs(std::string_view raw)
    {
        if (!m_options.keepArgs || raw.size() <= 2)
            return ArgsRef::kNone;
        return m_capture.args.append(raw).packed;
    }
    // Parses an event's args object (raw text inside the input buffer) with the second
    // parser; false if it is not an object.
    bool openArgs(std::string_view raw, sj::document& doc, sj::object& object);
    // The integer value of the first field named `key` of an event's args, if it is one.
    std::optional<int64_t> integerArg(std::string_view raw, std::string_view key);
    void skip(const std::string& why, size_t offset);

    void complete(const Fields& f, size_t offset);
    void instant(const Fields& f);
    void readExtras(std::string_view rawArgs, uint32_t slice);
    void counter(const Fields& f);
    void flow(const Fields& f);
    void async(const Fields& f);
    void metadataEvent(const Fields& f);
    uint32_t cpuLane(const Fields& f)
    {
        return m_records.lane({false, f.pid, f.tid}, f.pid, f.tid);
    }
    const std::string& idKey(const Fields& f, bool processLocal);
    std::string m_key; // idKey()'s buffer

    JsonInput& m_input;
    const std::string& m_path;
    Capture& m_capture;
    TraceRecords& m_records;
    const ChromeImportOptions& m_options;
    const ProgressRange& m_progress;
    sj::parser m_parser, m_argsParser;
    std::unordered_map<std::string, int64_t> m_stringKeys;
    uint64_t m_events = 0;
    bool m_cancelled = false;
};

} // namespace spanscope::model::io::chrome::walk
