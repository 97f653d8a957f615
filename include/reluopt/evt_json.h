#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "reluopt/evt.h"

namespace reluopt {

// The values of a CSV with a header naming a "value" column, as `reluopt solve --values-out` writes
// ("sample,value", then "index,value" lines), or of a plain column of numbers (no header: the first line is a
// number). Blank lines are skipped. Throws reluopt::Error naming the file (and line) for a missing, unreadable or
// empty file, a directory, a first line that is neither a number nor a header with "value", a line with a
// different number of fields, or a value that is not a finite number. on_lines, when given, is called with the
// count of values read every 65,536 values (for a progress line).
std::vector<double> read_values_csv(const std::string& path, const std::function<void(std::size_t)>& on_lines = {});

// The report as JSON:
//   {"n", "min", "max",
//    "fits": [{"family", "params": {name: value}, "rss", "log_likelihood", "gamma"}, ...]  (every fit, best first),
//    "gamma": {"best_fit", "best_fit_family", "moment", "moment_ci": [lo, hi], "moment_k", "moment_resamples",
//              "moment_seed"},
//    "endpoint": {"estimate", "ci": [lo, hi], "family", "method"} or null,
//    "sample_complexity": {"eps", "delta", "n_tail", "n_closed_form", "probability_now"},
//    "histogram": {"bin_rule", "bins", "width"}, "confidence"}   (the level of moment_ci and endpoint.ci)
// An estimate that does not exist is null.
std::string evt_report_to_json(const EvtReport& report);

// Writes `text` to `path`; throws reluopt::Error naming the path when it cannot.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace reluopt
