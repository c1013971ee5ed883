#include "fuzz_support.h"

#include "fuzz_targets.h"
#include "model/analysis/gpu_analysis.h"
#include "model/analysis/nccl_kernel.h"
#include "model/capture_loader.h"
#include "model/report/json_writer.h"
#include "model/report/summary_report.h"
#include "model/stats/saturating.h"
#include "model/tables/args_fields.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sys/mman.h>
#include <unistd.h>

namespace spanscope::fuzz {

void checkFailed(const char* condition, const char* file, int line)
{
    std::fprintf(stderr, "FUZZ_CHECK failed: %s at %s:%d\n", condition, file, line);
    std::abort();
}

namespace {

// Never destroyed: the exit handler that removes the folder still needs its name.
const std::string& scratchFolder()
{
    static const std::string& folder = *new std::string([] {
        std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "";
        if (base.empty()) {
            const char* tmp = std::getenv("TMPDIR");
            base = tmp && *tmp ? tmp : "/tmp";
        }
        std::string pattern = base + "/spanscope-fuzz-XXXXXX";
        if (!mkdtemp(pattern.data())) {
            std::perror("spanscope fuzz: cannot create a scratch folder");
            std::abort();
        }
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(scratchFolder(), ec);
        });
        return pattern;
    }());
    return folder;
}

} // namespace

std::string scratchPath(const std::string& name)
{
    return scratchFolder() + "/" + name;
}

std::string memoryFile(const std::string& bytes)
{
    static int fd = -1;
    if (fd < 0)
        fd = memfd_create("spanscope-fuzz-input", MFD_CLOEXEC);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(ftruncate(fd, 0) == 0);
    for (size_t done = 0; done < bytes.size();) {
        const ssize_t n = pwrite(fd, bytes.data() + done, bytes.size() - done, off_t(done));
        FUZZ_CHECK(n > 0);
        done += size_t(n);
    }
    return "/proc/self/fd/" + std::to_string(fd);
}

void analyze(std::shared_ptr<model::Capture> capture)
{
    if (!capture)
        return;
    model::LoadOptions options;
    options.timeline = true;
    auto loaded = model::analyzeCapture(std::move(capture), model::ProgressRange(nullptr, 0, 1), options);
    FUZZ_CHECK(loaded.has_value());
    // The GPU analyses of whatever the input holds, in the report as the CLI writes it.
    const auto gpu = model::analysis::analyzeGpu(*loaded->capture);
    for (const auto& path : gpu.criticalPaths) {
        int64_t shares = 0;
        for (const int64_t ns : path.boundBy)
            shares = model::addSaturating(shares, ns);
        FUZZ_CHECK(shares == path.lengthNs || path.lengthNs == INT64_MAX); // saturated: a hostile clock
    }
    for (const auto& d : gpu.devices) {
        const auto& u = d.utilization;
        FUZZ_CHECK(u.computeNs + u.communicationNs + u.memoryNs + u.idleNs == u.spanNs);
    }
    model::report::JsonWriter json;
    model::report::summaryJson({*loaded->capture, *loaded->summary, &gpu}, json);
    // The args as Call details reads them (fields, an NCCL kernel's message).
    const auto& c = *loaded->capture;
    for (size_t e = 0; e < c.events.args.size() && e < 2000; ++e)
        if (model::ArgsRef ref{c.events.args[e]}; ref.valid()) {
            const auto fields = model::argsFields(c.args.text(ref));
            (void)model::analysis::ncclKernelInfo("ncclKernel_AllReduce_RING_LL_Sum_float", fields, {fields});
        }
}

} // namespace spanscope::fuzz
