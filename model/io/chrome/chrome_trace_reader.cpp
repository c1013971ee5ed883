#include "chrome_trace_reader.h"

#include "../../gpu/launch_gpu_time.h"
#include "json_input.h"
#include "trace_build.h"
#include "trace_walk.h"

namespace spanscope::model::io {

Result<std::shared_ptr<Capture>>
readChromeTrace(const std::string& path, const ProgressRange& progress, ChromeImportOptions options)
{
    auto input = readJsonInput(path, progress.sub(0.0, 0.25));
    if (!input)
        return input.error();
    auto capture = std::make_shared<Capture>();
    capture->sourcePath = path;
    capture->schema = 0; // not a scope-profiler schema
    capture->layout = StorageLayout::Columnar;
    chrome::TraceRecords records;
    for (const auto& warning : input.value().warnings)
        records.warnings.push_back({warning, {}});
    if (auto walked = chrome::walkTrace(input.value(), path, *capture, records, options,
                                        progress.sub(0.25, 0.8));
        !walked)
        return walked.error();
    input = JsonInput{}; // the text is no longer needed: free it before laying out
    if (auto built = chrome::buildTrace(records, *capture, progress.sub(0.8, 1.0)); !built) {
        Error error = built.error();
        error.file = path;
        return error;
    }
    deriveLaunchGpuTime(*capture);
    return capture;
}

} // namespace spanscope::model::io
