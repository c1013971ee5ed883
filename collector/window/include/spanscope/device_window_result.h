// spanscope device windows: the errors and results of <spanscope/device_window.h> (included by
// it; see there). Header-only, C++17.
#pragma once

#include <cassert>
#include <utility>

namespace spanscope::device_window {

// ---------------------------------------------------------------------------------------------
// Errors

enum class ErrorCode {
    NotRegistered, // the token was never issued by this object, or its window is already closed
                   // or abandoned; also wait() on an empty (default or moved-from) duration
    NoEvent,       // no event available: the backend could not create one (backendCode says
                   // why) or Options::maxEvents is reached (backendCode 0)
    Server,        // the device or stream refused: recording an event, synchronizing it or
                   // reading its time (backendCode says why)
    DeviceFailure, // device work failed while the window was open: the error given to failure()
};

inline const char* errorName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::NotRegistered:
        return "window not registered";
    case ErrorCode::NoEvent:
        return "no event available";
    case ErrorCode::Server:
        return "device refused the event";
    case ErrorCode::DeviceFailure:
        return "device work failed inside the window";
    }
    return "unknown error";
}

struct Error
{
    ErrorCode code = ErrorCode::Server;
    int backendCode = 0; // the backend's own code (a cudaError_t for CUDA); 0 when it gave none
};

// A value or an Error; never throws. value() only when ok(), error() only when not.
template <typename T> class [[nodiscard]] Result
{
public:
    Result(T value) : m_value(std::move(value)), m_ok(true) {}
    Result(Error error) : m_error(error) {}

    bool ok() const { return m_ok; }
    explicit operator bool() const { return m_ok; }
    T& value() &
    {
        assert(m_ok);
        return m_value;
    }
    const T& value() const&
    {
        assert(m_ok);
        return m_value;
    }
    T&& value() &&
    {
        assert(m_ok);
        return std::move(m_value);
    }
    const Error& error() const
    {
        assert(!m_ok);
        return m_error;
    }

private:
    T m_value{};
    Error m_error{};
    bool m_ok = false;
};

template <> class [[nodiscard]] Result<void>
{
public:
    Result() : m_ok(true) {}
    Result(Error error) : m_error(error) {}

    bool ok() const { return m_ok; }
    explicit operator bool() const { return m_ok; }
    const Error& error() const
    {
        assert(!m_ok);
        return m_error;
    }

private:
    Error m_error{};
    bool m_ok = false;
};

} // namespace spanscope::device_window
