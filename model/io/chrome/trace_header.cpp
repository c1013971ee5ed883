#include "trace_header.h"

#include "decimal_time.h"

#include <algorithm>

namespace spanscope::model::io::chrome {

namespace {

void addMetadata(Metadata& metadata, std::string key, sj::value value)
{
    MetadataValue entry;
    sj::json_type type;
    if (value.type().get(type))
        return;
    std::string_view text;
    if (type == sj::json_type::string && !value.get_string().get(text)) {
        entry.kind = MetadataValue::Kind::String;
        entry.text = std::string(text.substr(0, kMaxMetadataBytes));
    } else if (type == sj::json_type::number) {
        text = trimmed(value.raw_json_token());
        if (const auto integer = decimalToInt64(text)) {
            entry.kind = MetadataValue::Kind::Integer;
            entry.integer = *integer;
        } else {
            entry.kind = MetadataValue::Kind::Float;
            double number = 0;
            if (value.get_double().get(number))
                return;
            entry.number = number;
        }
    } else if (type == sj::json_type::boolean) {
        entry.kind = MetadataValue::Kind::Bool;
        bool flag = false;
        if (value.get_bool().get(flag))
            return;
        entry.flag = flag;
    } else if (type == sj::json_type::object || type == sj::json_type::array) {
        std::string_view raw;
        bool ok = false;
        if (type == sj::json_type::object) {
            sj::object object;
            ok = !value.get_object().get(object) && !object.raw_json().get(raw);
        } else {
            sj::array array;
            ok = !value.get_array().get(array) && !array.raw_json().get(raw);
        }
        if (!ok)
            return;
        if (type == sj::json_type::array && listOfStrings(trimmed(raw), entry.list)) {
            entry.kind = MetadataValue::Kind::StringList;
        } else {
            entry.kind = MetadataValue::Kind::String;
            entry.text = std::string(trimmed(raw).substr(0, kMaxMetadataBytes));
        }
    } else {
        return;
    }
    metadata.push_back({std::move(key), std::move(entry)});
}

void readSpanscopeHeader(sj::value value, TraceRecords& records)
{
    sj::object header;
    if (value.get_object().get(header))
        return;
    for (auto field : header) {
        std::string_view key;
        sj::value v;
        if (field.unescaped_key().get(key) || field.value().get(v))
            break;
        sj::array rows;
        if (key != "rows" || v.get_array().get(rows))
            continue;
        for (auto element : rows) {
            sj::object row;
            if (element.get_object().get(row))
                continue;
            RowSource source;
            for (auto part : row) {
                std::string_view name, text;
                sj::value item;
                if (part.unescaped_key().get(name) || part.value().get(item))
                    break;
                if (name == "name" && scalarText(item, text))
                    source.name = std::string(text);
                else if (name == "kind" && scalarText(item, text))
                    source.kind = std::string(text);
                else if (name == "rank")
                    source.rank = integerOf(item).value_or(0);
                else if (name == "source_file" && scalarText(item, text))
                    source.file = std::string(text);
                else if (name == "source_text" && scalarText(item, text))
                    source.text = std::string(text);
                else if (name == "source_line")
                    source.line = integerOf(item).value_or(-1);
                else if (name == "tags") {
                    sj::array tags;
                    if (!item.get_array().get(tags))
                        for (auto tag : tags)
                            if (std::string_view t; !tag.get_string().get(t))
                                source.tags.emplace_back(t);
                }
            }
            records.rowSources.push_back(std::move(source));
        }
    }
}

} // namespace

void readTopLevel(std::string_view key, sj::value value, Capture& capture, TraceRecords& records)
{
    if (key == "schemaVersion" || key == "traceName")
        records.kineto = true;
    if (key == "spanscope") {
        records.spanscopeExport = true;
        readSpanscopeHeader(value, records);
        return;
    }
    if (key == "deviceProperties") {
        sj::array devices;
        if (value.get_array().get(devices))
            return;
        for (auto element : devices) {
            sj::object device;
            if (element.get_object().get(device))
                continue;
            DeviceInfo info;
            for (auto field : device) {
                std::string_view name;
                sj::value v;
                if (field.unescaped_key().get(name) || field.value().get(v))
                    break;
                std::string_view text;
                if (name == "id")
                    info.device =
                        int32_t(std::clamp<int64_t>(integerOf(v).value_or(0), 0, INT32_MAX));
                else if (name == "name" && scalarText(v, text))
                    info.name = capture.strings.intern(text.substr(0, 256));
                else if (name == "totalGlobalMem")
                    info.totalMemoryBytes = integerOf(v).value_or(-1);
                else if (name == "numSms")
                    info.multiprocessors =
                        int32_t(std::clamp<int64_t>(integerOf(v).value_or(-1), -1, INT32_MAX));
                else if (name == "computeMajor")
                    info.computeMajor =
                        int32_t(std::clamp<int64_t>(integerOf(v).value_or(-1), -1, INT32_MAX));
                else if (name == "computeMinor")
                    info.computeMinor =
                        int32_t(std::clamp<int64_t>(integerOf(v).value_or(-1), -1, INT32_MAX));
                else if (name == "warpSize")
                    info.warpSize =
                        int32_t(std::clamp<int64_t>(integerOf(v).value_or(-1), -1, INT32_MAX));
            }
            records.devices.push_back(info);
        }
        return;
    }
    if (key == "distributedInfo") {
        sj::object info;
        if (value.get_object().get(info))
            return;
        for (auto field : info) {
            std::string_view name;
            sj::value v;
            if (field.unescaped_key().get(name) || field.value().get(v))
                break;
            if (name == "rank")
                records.distributedRank = integerOf(v);
            else if (name == "world_size")
                records.worldSize = integerOf(v);
            else if (name == "backend")
                addMetadata(records.metadata, "distributed_backend", v);
        }
        return;
    }
    if (key == "otherData" || key == "metadata") {
        sj::object object;
        if (value.get_object().get(object))
            return;
        for (auto field : object) {
            std::string_view name;
            sj::value v;
            if (field.unescaped_key().get(name) || field.value().get(v))
                break;
            addMetadata(records.metadata, std::string(name), v);
        }
        return;
    }
    if (key == "systemTraceEvents" || key == "stackFrames" || key == "samples" ||
        key == "powerTraceAsString") {
        records.warnings.push_back({"the trace's '" + std::string(key) + "' are not shown", {}});
        return;
    }
    addMetadata(records.metadata, std::string(key), value);
}

} // namespace spanscope::model::io::chrome
