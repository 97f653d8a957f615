#pragma once

#include <string>

#include "reluopt/json_io.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt::cli {

// The human summary printed on stdout at the end of a run.
std::string summary_text(const SolveResult& result, const RunInfo& info, const std::string& network_shape);

// One progress line (no newline): time, samples, LPs, incumbent, bound.
std::string progress_line(const Progress& progress);

}  // namespace reluopt::cli
