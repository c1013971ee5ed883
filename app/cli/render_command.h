#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace spanscope::app::cli {

// `spanscope-cli render FILE --output OUT.png [--width W] [--height H] [--from NS] [--to NS]
// [--lanes REGEX]`: draws the timeline headless with the viewer's own widget. --from/--to
// are ns from the start of the run (as the ruler shows them). Exit codes: 0 written, 1 the
// file could not be read or the image not written, 2 usage error.
int runRender(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

} // namespace spanscope::app::cli
