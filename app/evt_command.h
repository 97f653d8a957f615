#pragma once

#include <string>
#include <vector>

namespace reluopt::cli {

// `reluopt evt VALUES.csv [--json F] [--plot F.png] [--eps E] [--delta D] [--threads T]`, given the arguments after "evt".
// Prints the report on stdout and returns the exit code (0). Throws UsageError (cli_options.h) for a bad
// command line and reluopt::Error for bad input (missing or malformed CSV, too few or all-equal values) or a
// plot that cannot be drawn.
int run_evt_command(const std::vector<std::string>& args);

std::string evt_help_text();

// Runs gnuplot on `script` (evt_plot_script) to draw `png`; throws reluopt::Error when gnuplot is missing or fails.
void draw_evt_plot(const std::string& script, const std::string& png);

}  // namespace reluopt::cli
