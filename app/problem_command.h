#pragma once

// The commands on problem files (docs/PROBLEM.md): solve --problem and formulate.
#include <atomic>

#include "cli_options.h"

namespace reluopt::cli {

// solve --problem P: the model's run, its summary on stdout and, with --json, the result with "variables" and
// "networks" (each name's values at the reported point). `time_limit` is what the command has left.
int run_problem_solve(const CliOptions& options, double time_limit, double load_seconds, std::atomic<bool>* stop);

// formulate P --out F: the big-M formulation with the MIP methods' neuron bounds, as free MPS (.mps) or CPLEX LP
// (.lp).
int run_formulate(const CliOptions& options, double time_limit, std::atomic<bool>* stop);

}  // namespace reluopt::cli
