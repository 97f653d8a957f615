#pragma once

#include <string>
#include <utility>
#include <vector>

#include "reluopt/domain.h"
#include "reluopt/objective.h"
#include "reluopt/result.h"

namespace reluopt {

// {"lower": [...], "upper": [...], "A": [[...], ...], "b": [...]}; A and b are optional.
// Throws reluopt::Error naming the file on unreadable or malformed JSON or missing fields.
Domain read_domain_json(const std::string& path);

// {"sense": "max" | "min" (or "maximize" | "minimize"), "weights": [m numbers], "constant": c}; sense and
// constant are optional. Every number must be finite.
Objective read_objective_json(const std::string& path);

// Context of a run that the result JSON records beside the result itself.
struct RunInfo {
  std::string model;      // the model path
  std::string domain;     // the domain's description
  std::string objective;  // the objective's description
  // Analyses of the run added to the result under their keys, each a JSON text (e.g. "evt").
  std::vector<std::pair<std::string, std::string>> sections;
  double load_seconds = 0.0;  // reading the model, domain and objective, before the run's own clock started
};

// The result as JSON (a contract other tools read; docs/CLI.md lists its keys). Values are in the user's sense.
std::string result_to_json(const SolveResult& result, const RunInfo& info);

// X_i per sample as CSV: a header "sample,value", then one line per sample (index, value in the user's sense).
void write_values_csv(const SolveResult& result, const std::string& path);

// {"formulation", "bound_method", "bound", "binaries", "bounds_seconds", "lp_seconds"}.
std::string relaxation_to_json(const RelaxationReport& report);

}  // namespace reluopt
