// What a Report holds: every span of every operation, sorted, so figures are computed the
// same way whatever order the spans were recorded or merged in.
#pragma once

#include "span_statistics.h"

#include <spanscope/alloc.h>

#include <map>
#include <string>
#include <vector>

struct spanscope::alloc::Report::Data
{
    std::map<std::string, std::vector<alloc_internal::SpanRecord>, std::less<>> operations;
};
