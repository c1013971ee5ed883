// Chrome trace / Kineto bytes (JSON, or gzip by content) through the importer and the
// analysis; a trace it accepts is exported back to Chrome JSON, which must import again.
#include "fuzz_support.h"
#include "fuzz_targets.h"
#include "model/io/chrome/chrome_trace_reader.h"
#include "model/io/chrome/chrome_trace_writer.h"

#include <string>

namespace spanscope::fuzz {

int chromeTrace(const std::uint8_t* data, std::size_t size)
{
    const model::ProgressRange progress(nullptr, 0, 1);
    // The input is the file as it is (so real traces are seeds); its length's parity
    // chooses whether args are kept (the viewer) or not (the CLI's summary).
    model::io::ChromeImportOptions options;
    options.keepArgs = size % 2 == 0;
    auto read = model::io::readChromeTrace(
        memoryFile(std::string(reinterpret_cast<const char*>(data), size)), progress, options);
    if (!read)
        return 0; // refused with a message: fine
    std::shared_ptr<model::Capture> capture = read.value();
    const std::string exported = scratchPath("export.json");
    FUZZ_CHECK(model::io::writeChromeTrace(*capture, exported, progress).ok());
    FUZZ_CHECK(model::io::readChromeTrace(exported, progress, options).ok());
    analyze(std::move(capture));
    return 0;
}

} // namespace spanscope::fuzz
