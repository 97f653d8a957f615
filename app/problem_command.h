#pragma once

// The commands on problem files (docs/PROBLEM.md): solve --problem and formulate.
#include <atomic>

#include "cli_options.h"
#include "reluopt/model.h"

namespace reluopt::cli {

// solve --problem P: the run of P's model (read by the caller within the time limit), its summary on stdout and, with --json, the result with "variables" and
// "networks" (each name's values at the reported point). `time_limit` is what the command has left.
int run_problem_solve(const CliOptions& options, const Model& model, double time_limit, double load_seconds,
                      std::atomic<bool>* stop);

// formulate P --out F: the big-M formulation with the MIP methods' neuron bounds, as free MPS (.mps) or CPLEX LP
// (.lp).
int run_formulate(const CliOptions& options, const Model& model, double time_limit, std::atomic<bool>* stop);

}  // namespace reluopt::cli
