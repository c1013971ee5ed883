#pragma once
// Error reporting for model/ and its readers: a value or an error that says what went
// wrong and where. No exception leaves model/.

#include <string>
#include <utility>
#include <variant>

namespace spanscope::model {

enum class ErrorCode {
    NotFound,          // the file does not exist or cannot be opened
    NotHdf5,           // the file is not an HDF5 file
    Corrupt,           // HDF5 could not read an object (truncated or damaged file)
    UnsupportedSchema, // schema version newer than this build understands
    InvalidSchema,     // structure breaks the format's rules (missing group, bad version, ...)
    WrongType,         // a dataset or attribute has a type the format does not allow
    LengthMismatch,    // columns that must have equal length do not
    OutOfRange,        // offsets, counts or ids point outside their table
    Overlap,           // two index rows claim the same events
    UnknownFilter,     // a dataset is compressed with a filter this build cannot decode
    Cancelled,         // the user cancelled the load
    Io,                // any other input/output failure
};

const char* errorCodeName(ErrorCode code);

struct Error
{
    ErrorCode code = ErrorCode::Io;
    std::string message; // what is wrong, in words a user understands
    std::string file;    // path of the file, empty when not file-related
    std::string object;  // HDF5 object path (dataset, group or attribute), may be empty

    // "file: object: message", leaving out empty parts.
    std::string toString() const;
};

// A value or an Error. Small on purpose: std::expected is C++23.
template <typename T>
class Result
{
public:
    Result(T value) : m_data(std::move(value)) {}
    Result(Error error) : m_data(std::move(error)) {}

    bool ok() const { return m_data.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(m_data); }
    const T& value() const& { return std::get<0>(m_data); }
    T&& value() && { return std::get<0>(std::move(m_data)); }
    const Error& error() const { return std::get<1>(m_data); }

private:
    std::variant<T, Error> m_data;
};

// Result for operations without a value.
struct Ok
{};
using Status = Result<Ok>;

} // namespace spanscope::model
