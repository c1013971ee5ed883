// Runs saved inputs through a fuzz target, in any build: the seed corpora and every input
// that once crashed (tests/data/fuzz/<target>/). A CTest per target; under the sanitizers
// in the ASan pass. Prints how many inputs ran.
//   fuzz_replay TARGET FILE_OR_FOLDER...
#include "fuzz_targets.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char** argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: fuzz_replay TARGET FILE_OR_FOLDER...\n");
        return 2;
    }
    const spanscope::fuzz::Target* target = nullptr;
    for (const auto& t : spanscope::fuzz::kTargets)
        if (std::strcmp(t.name, argv[1]) == 0)
            target = &t;
    if (!target) {
        std::fprintf(stderr, "fuzz_replay: no target named %s\n", argv[1]);
        return 2;
    }
    std::vector<fs::path> inputs;
    for (int i = 2; i < argc; ++i) {
        std::error_code ec;
        if (fs::is_directory(argv[i], ec)) {
            for (const auto& entry : fs::directory_iterator(argv[i]))
                if (entry.is_regular_file())
                    inputs.push_back(entry.path());
        } else {
            inputs.emplace_back(argv[i]);
        }
    }
    std::sort(inputs.begin(), inputs.end());
    if (inputs.empty()) {
        std::fprintf(stderr, "fuzz_replay: no inputs for %s\n", argv[1]);
        return 1;
    }
    for (const auto& path : inputs) {
        std::ifstream file(path, std::ios::binary);
        if (!file) {
            std::fprintf(stderr, "fuzz_replay: cannot read %s\n", path.c_str());
            return 1;
        }
        const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), {});
        std::printf("%s: %s (%zu bytes)\n", argv[1], path.filename().c_str(), bytes.size());
        std::fflush(stdout); // so a crash's input is named
        target->run(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("%s: %zu inputs, no crash\n", argv[1], inputs.size());
    return 0;
}
