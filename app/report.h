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

// A command's exit code once its stdout is out: what could not be written there (a full disk, a closed pipe)
// is a lost result, reported in one line on stderr with exit code 1 (a command that failed keeps its code).
int check_stdout(int code);

}  // namespace reluopt::cli
