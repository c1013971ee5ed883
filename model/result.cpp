#include "result.h"

namespace spanscope::model {

const char* errorCodeName(ErrorCode code)
{
    switch (code) {
    case ErrorCode::NotFound: return "not-found";
    case ErrorCode::NotHdf5: return "not-hdf5";
    case ErrorCode::Corrupt: return "corrupt";
    case ErrorCode::UnsupportedSchema: return "unsupported-schema";
    case ErrorCode::InvalidSchema: return "invalid-schema";
    case ErrorCode::WrongType: return "wrong-type";
    case ErrorCode::LengthMismatch: return "length-mismatch";
    case ErrorCode::OutOfRange: return "out-of-range";
    case ErrorCode::Overlap: return "overlap";
    case ErrorCode::UnknownFilter: return "unknown-filter";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::Io: return "io";
    }
    return "unknown";
}

std::string Error::toString() const
{
    std::string text;
    if (!file.empty())
        text += file + ": ";
    if (!object.empty())
        text += object + ": ";
    text += message;
    return text;
}

} // namespace spanscope::model
