#include "trace_walker.h"

#include "../../stats/saturating.h"
#include "decimal_time.h"
#include "trace_header.h"

#include <algorithm>
#include <cstring>

namespace spanscope::model::io::chrome {

namespace walk {

int64_t Walker::keyOf(sj::value value, bool& ok)
{
    std::string_view text;
    ok = scalarText(value, text);
    if (!ok)
        return 0;
    if (const auto number = decimalToInt64(text))
        return *number;
    // A string pid/tid ("Spans", "") gets a synthetic key far from any real id.
    auto [it, added] =
        m_stringKeys.try_emplace(std::string(text), INT64_MIN / 2 + int64_t(m_stringKeys.size()));
    if (added)
        m_records.stringPids[std::to_string(it->second)] = std::string(text);
    return it->second;
}

bool Walker::openArgs(std::string_view raw, sj::document& doc, sj::object& object)
{
    if (raw.empty())
        return false;
    const char* end = m_input.data() + m_input.capacity();
    const size_t capacity = size_t(end - raw.data());
    if (m_argsParser.iterate(raw.data(), raw.size(), capacity).get(doc))
        return false;
    return !doc.get_object().get(object);
}

void Walker::skip(const std::string& why, size_t offset)
{
    if (m_records.skippedEvents++ == 0)
        m_records.firstSkipped = why + " (event at byte " + std::to_string(offset) + ")";
}

void Walker::readFields(sj::object event, Fields& f)
{
    for (auto field : event) {
        // Keys compared where they lie (no unescaping): the format's keys have no escapes.
        sj::raw_json_string key;
        if (field.key().get(key)) {
            f.bad = "a key is not a valid string";
            return;
        }
        sj::value value;
        if (field.value().get(value)) {
            f.bad = "a value is not valid JSON";
            return;
        }
        // Dispatch on the key's first letter: a handful of comparisons at most per field.
        const char first = *key.raw();
        if (first == 'p' && key == "ph") {
            if (!stringText(value, f.ph))
                f.bad = "'ph' is not a string";
        } else if (first == 'n' && key == "name") {
            if (!scalarText(value, f.name))
                f.bad = "'name' is not a string";
        } else if (first == 'c' && key == "cat") {
            if (!scalarText(value, f.cat))
                f.bad = "'cat' is not a string";
        } else if (first == 'p' && key == "pid") {
            f.pid = keyOf(value, f.hasPid);
            if (!f.hasPid)
                f.bad = "'pid' is neither a number nor a string";
        } else if (first == 't' && key == "tid") {
            f.tid = keyOf(value, f.hasTid);
            if (!f.hasTid)
                f.bad = "'tid' is neither a number nor a string";
        } else if ((first == 't' && key == "ts") || (first == 'd' && key == "dur")) {
            const bool ts = first == 't';
            std::string_view text;
            std::optional<int64_t> ns;
            if (scalarText(value, text))
                ns = decimalMicrosToNs(text);
            // Bounded, so that every later sum or difference of two times fits.
            if (ns && (*ns > kTimeLimitNs || *ns < -kTimeLimitNs))
                ns.reset();
            if (!ns)
                f.bad = ts ? "'ts' is not a number of microseconds within ±73 years"
                           : "'dur' is not a number of microseconds within ±73 years";
            (ts ? f.ts : f.dur) = ns;
        } else if (first == 'a' && key == "args") {
            sj::object args;
            std::string_view raw;
            if (!value.get_object().get(args) && !args.raw_json().get(raw))
                f.args = trimmed(raw);
        } else if (first == 'i' && key == "id") {
            f.hasId = scalarText(value, f.id);
        } else if (first == 'i' && key == "id2") {
            sj::object id2;
            if (!value.get_object().get(id2))
                for (auto part : id2) {
                    std::string_view which;
                    sj::value idValue;
                    if (part.unescaped_key().get(which) || part.value().get(idValue))
                        break;
                    if (scalarText(idValue, f.id)) {
                        f.hasId = true;
                        f.idGlobal = which == "global";
                    }
                }
        } else if (first == 'b' && key == "bp") {
            if (!stringText(value, f.bp))
                f.bp = {};
        } else if (first == 's' && key == "s") {
            if (!stringText(value, f.scope))
                f.scope = {};
        } else if (first == 's' && key == "scope") {
            if (!scalarText(value, f.idScope))
                f.idScope = {};
        }
        if (!f.bad.empty())
            return;
    }
}

void Walker::walkEvents(sj::array events)
{
    const char* begin = m_input.data();
    for (auto element : events) {
        sj::value value;
        if (element.get(value))
            throw simdjson::simdjson_error(element.error());
        const char* at = value.raw_json_token().data();
        const size_t offset = size_t(at - begin);
        sj::object event;
        if (value.get_object().get(event)) {
            skip("an event is not an object", offset);
            continue;
        }
        Fields f;
        readFields(event, f);
        if (!f.bad.empty()) {
            skip(f.bad, offset);
            continue;
        }
        handle(f, offset);
        if ((++m_events & 4095) == 0) {
            m_progress.report(double(offset) / double(std::max<size_t>(1, m_input.size)));
            if (m_progress.cancelled()) {
                m_cancelled = true;
                return;
            }
        }
    }
}

void Walker::handle(const Fields& f, size_t offset)
{
    if (f.ph.empty()) {
        skip("an event has no 'ph'", offset);
        return;
    }
    const char phase = f.ph.size() == 1 ? f.ph[0] : '?';
    if (phase != 'M' && !f.ts) {
        skip("an event has no 'ts'", offset);
        return;
    }
    switch (phase) {
    case 'X':
        complete(f, offset);
        return;
    case 'B':
    case 'E': {
        RawBeginEnd record;
        record.ts = *f.ts;
        record.begin = phase == 'B';
        record.name = intern(f.name);
        record.cat = intern(f.cat);
        record.lane = cpuLane(f);
        record.args = storeArgs(f.args);
        record.order = m_records.nextOrder++;
        m_records.beginEnds.push_back(record);
        return;
    }
    case 'i':
    case 'I':
    case 'R':
        instant(f);
        return;
    case 'C':
        counter(f);
        return;
    case 's':
    case 't':
    case 'f':
        flow(f);
        return;
    case 'b':
    case 'e':
    case 'n':
    case 'S':
    case 'F':
        async(f);
        return;
    case 'M':
        metadataEvent(f);
        return;
    default:
        ++m_records.unknownPhases[std::string(f.ph.substr(0, 8))];
        return;
    }
}

// The Chrome array form may end without its ']' (a tracer that was stopped mid-write).
void closeOpenArray(JsonInput& input)
{
    std::string_view text = input.text();
    size_t first = 0;
    while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first])))
        ++first;
    if (first >= text.size() || text[first] != '[')
        return;
    size_t last = text.size();
    while (last > first && std::isspace(static_cast<unsigned char>(text[last - 1])))
        --last;
    if (text[last - 1] == ']')
        return;
    char* data = input.data();
    if (data[last - 1] == ',')
        data[last - 1] = ' ';
    data[input.size] = ']';
    ++input.size;
}

Status Walker::run()
{
    // Kineto writes about one event per 250 bytes, a bit more than half of them complete
    // events and a third flow ends. Room for more than that up front spares the copies of
    // growing vectors; a generous guess costs only untouched address space.
    const size_t expected = m_input.size / 200 + 16;
    m_records.slices.reserve(expected);
    m_records.flows.reserve(expected / 2);
    m_records.gpuActivities.reserve(expected / 3);
    m_records.launchCorrelations.reserve(expected / 3);
    closeOpenArray(m_input);
    const size_t before = m_records.slices.size();
    const char* begin = m_input.data();
    sj::document doc;
    auto iterateError = m_parser.iterate(m_input.data(), m_input.size, m_input.capacity()).get(doc);
    // A file cut short: parse what precedes the cut, and say so.
    const bool incomplete =
        iterateError == simdjson::UNCLOSED_STRING ||
        iterateError == simdjson::INCOMPLETE_ARRAY_OR_OBJECT ||
        (!iterateError && doc.type().error() == simdjson::INCOMPLETE_ARRAY_OR_OBJECT);
    if (incomplete) {
        const size_t fullSize = m_input.size;
        if (const auto cut = closeTruncatedJson(m_input)) {
            iterateError =
                m_parser.iterate(m_input.data(), m_input.size, m_input.capacity()).get(doc);
            if (!iterateError)
                m_records.warnings.push_back(
                    {"the file is cut short: it ends inside a value at byte " +
                         std::to_string(fullSize) + "; what came before byte " +
                         std::to_string(*cut) + " was read",
                     {}});
        }
    }
    if (iterateError)
        return Error{ErrorCode::Corrupt,
                     std::string("is not JSON: ") + simdjson::error_message(iterateError),
                     m_path,
                     {}};
    try {
        sj::json_type type = doc.type();
        if (type == sj::json_type::array) {
            walkEvents(doc.get_array());
        } else if (type == sj::json_type::object) {
            bool sawEvents = false;
            for (auto field : doc.get_object()) {
                std::string_view key = field.unescaped_key();
                sj::value value = field.value();
                if (key == "traceEvents") {
                    sawEvents = true;
                    walkEvents(value.get_array());
                    if (m_cancelled)
                        break;
                } else {
                    readTopLevel(key, value, m_capture, m_records);
                }
            }
            if (!sawEvents)
                return Error{ErrorCode::InvalidSchema,
                             "has no \"traceEvents\" array: this JSON is not a Chrome trace",
                             m_path,
                             {}};
        } else {
            return Error{ErrorCode::InvalidSchema,
                         "is JSON but neither an object nor an array of trace events",
                         m_path,
                         {}};
        }
    } catch (const simdjson::simdjson_error& error) {
        size_t offset = 0;
        const char* location = nullptr;
        if (!doc.current_location().get(location) && location >= begin)
            offset = size_t(location - begin);
        const uint64_t kept = m_events;
        if (kept == 0 && m_records.slices.size() == before)
            return Error{ErrorCode::Corrupt,
                         "is not a valid trace: " + std::string(error.what()) + " at byte " +
                             std::to_string(offset),
                         m_path,
                         {}};
        m_records.warnings.push_back({"the JSON is damaged or cut short near byte " +
                                          std::to_string(offset) + " (" + error.what() + "); the " +
                                          std::to_string(kept) + " events before it were read",
                                      {}});
    }
    if (m_cancelled)
        return Error{ErrorCode::Cancelled, "loading was cancelled", m_path, {}};
    return Ok{};
}

} // namespace walk

Status walkTrace(JsonInput& input, const std::string& path, Capture& capture, TraceRecords& records,
                 const ChromeImportOptions& options, const ProgressRange& progress)
{
    walk::Walker walker(input, path, capture, records, options, progress);
    return walker.run();
}

} // namespace spanscope::model::io::chrome
