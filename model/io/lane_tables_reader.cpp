// /metadata attributes and the optional /thread_table and /task_table.

#include "reader_parts.h"

#include <climits>
#include <optional>

namespace spanscope::model::io {

void readMetadata(const H5File& file, Capture& capture)
{
    if (!file.isGroup("/metadata"))
        return;
    for (const auto& key : file.attributeNames("/metadata")) {
        auto value = file.readAttribute("/metadata", key);
        if (value)
            capture.metadata.push_back({key, std::move(value.value())});
        else
            capture.warnings.push_back({"metadata '" + key + "' cannot be read: " + value.error().message,
                                        "/metadata"});
    }
}

namespace {

// Columns of one lane table, all of the same length; absent optional columns stay empty.
class TableReader
{
public:
    TableReader(const H5File& file, std::string group) : m_file(file), m_group(std::move(group)) {}

    Result<std::vector<int64_t>> ints(const char* name, bool required)
    {
        const std::string path = m_group + "/" + name;
        if (!m_file.isDataset(path)) {
            if (required)
                return m_file.error(ErrorCode::InvalidSchema, "required dataset is missing", path);
            return std::vector<int64_t>{};
        }
        auto values = m_file.readInt64Column(path);
        if (values && !checkLength(values.value().size(), path))
            return lengthError(values.value().size(), path);
        return values;
    }
    Result<std::vector<std::string>> strings(const char* name)
    {
        const std::string path = m_group + "/" + name;
        if (!m_file.isDataset(path))
            return std::vector<std::string>{};
        auto values = m_file.readStrings(path);
        if (values && !checkLength(values.value().size(), path))
            return lengthError(values.value().size(), path);
        return values;
    }
    size_t rows() const { return m_rows; }

private:
    bool checkLength(size_t length, const std::string&)
    {
        if (m_rows == SIZE_MAX)
            m_rows = length;
        return length == m_rows;
    }
    Error lengthError(size_t length, const std::string& path) const
    {
        return m_file.error(ErrorCode::LengthMismatch,
                            "has " + std::to_string(length) + " rows, the table's other columns "
                                + std::to_string(m_rows),
                            path);
    }

    const H5File& m_file;
    std::string m_group;
    size_t m_rows = SIZE_MAX;
};

int64_t at(const std::vector<int64_t>& column, size_t i, int64_t fallback)
{
    return i < column.size() ? column[i] : fallback;
}

#define SPANSCOPE_READ(var, expr)                                                                  \
    auto var = (expr);                                                                             \
    if (!var)                                                                                      \
        return var.error();

// A lane table row's rank, or nullopt (counted in `bad`) when it is no rank at all.
std::optional<int32_t> laneRank(int64_t rank, size_t& bad)
{
    if (rank >= 0 && rank <= INT32_MAX)
        return int32_t(rank);
    ++bad;
    return std::nullopt;
}

void warnBadRanks(Capture& capture, size_t bad, const char* table)
{
    if (bad)
        capture.warnings.push_back({std::to_string(bad) + " rows of " + table +
                                        " have a rank that is negative or too large; they are "
                                        "left out",
                                    table});
}

Status readThreadTable(const H5File& file, Capture& capture)
{
    TableReader table(file, "/thread_table");
    SPANSCOPE_READ(ranks, table.ints("ranks", true));
    SPANSCOPE_READ(index, table.ints("index", true));
    SPANSCOPE_READ(ident, table.ints("ident", false));
    SPANSCOPE_READ(nativeId, table.ints("native_id", false));
    SPANSCOPE_READ(daemon, table.ints("daemon", false));
    SPANSCOPE_READ(names, table.strings("name"));
    SPANSCOPE_READ(start, table.ints("start_ns", false));
    SPANSCOPE_READ(end, table.ints("end_ns", false));
    SPANSCOPE_READ(cpu, table.ints("cpu_ns", false));
    size_t badRanks = 0;
    for (size_t i = 0; i < ranks.value().size(); ++i) {
        const auto rank = laneRank(ranks.value()[i], badRanks);
        if (!rank)
            continue;
        ThreadInfo info;
        info.rank = *rank;
        info.index = index.value()[i];
        info.ident = at(ident.value(), i, 0);
        info.nativeId = at(nativeId.value(), i, 0);
        info.daemon = at(daemon.value(), i, 0) != 0;
        if (i < names.value().size())
            info.name = capture.strings.intern(names.value()[i]);
        info.startNs = at(start.value(), i, -1);
        info.endNs = at(end.value(), i, -1);
        info.cpuNs = at(cpu.value(), i, -1);
        capture.threads.push_back(info);
    }
    warnBadRanks(capture, badRanks, "/thread_table");
    return Ok{};
}

Status readTaskTable(const H5File& file, Capture& capture)
{
    TableReader table(file, "/task_table");
    SPANSCOPE_READ(ranks, table.ints("ranks", true));
    SPANSCOPE_READ(index, table.ints("index", true));
    SPANSCOPE_READ(threadIndex, table.ints("thread_index", false));
    SPANSCOPE_READ(created, table.ints("created_ns", false));
    SPANSCOPE_READ(done, table.ints("done_ns", false));
    SPANSCOPE_READ(steps, table.ints("steps", false));
    SPANSCOPE_READ(running, table.ints("running_ns", false));
    SPANSCOPE_READ(suspended, table.ints("suspended_ns", false));
    SPANSCOPE_READ(kind, table.strings("kind"));
    SPANSCOPE_READ(names, table.strings("name"));
    SPANSCOPE_READ(coro, table.strings("coro_name"));
    auto text = [&](const std::vector<std::string>& column, size_t i) {
        return capture.strings.intern(i < column.size() ? column[i] : std::string());
    };
    size_t badRanks = 0;
    for (size_t i = 0; i < ranks.value().size(); ++i) {
        const auto rank = laneRank(ranks.value()[i], badRanks);
        if (!rank)
            continue;
        TaskInfo info;
        info.rank = *rank;
        info.index = index.value()[i];
        info.threadIndex = at(threadIndex.value(), i, -1);
        info.createdNs = at(created.value(), i, -1);
        info.doneNs = at(done.value(), i, -1);
        info.steps = at(steps.value(), i, 0);
        info.runningNs = at(running.value(), i, 0);
        info.suspendedNs = at(suspended.value(), i, 0);
        info.kind = text(kind.value(), i);
        info.name = text(names.value(), i);
        info.coroName = text(coro.value(), i);
        capture.tasks.push_back(info);
    }
    warnBadRanks(capture, badRanks, "/task_table");
    return Ok{};
}

#undef SPANSCOPE_READ

} // namespace

Status readLaneTables(const H5File& file, Capture& capture)
{
    if (file.isGroup("/thread_table"))
        if (auto s = readThreadTable(file, capture); !s)
            return s;
    if (file.isGroup("/task_table"))
        if (auto s = readTaskTable(file, capture); !s)
            return s;
    return Ok{};
}

} // namespace spanscope::model::io
