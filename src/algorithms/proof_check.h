#pragma once

#include <string>

#include "algorithms/problem.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

// How far a bound may lie on the wrong side of a value we evaluated and still count as valid: the round-off of
// the forward passes and the solvers' feasibility tolerances.
double contradiction_tolerance(double value);

// Withdraws the result's bound (and gap), says why in solver_failure, and takes back an `optimal` status.
void withdraw_bound(SolveResult& result, const std::string& why);

// Every run: a bound on the wrong side of the result's own objective contradicts itself and is withdrawn.
void check_against_run(const Problem& problem, SolveResult& result);

// SolveOptions::check_proof (docs/MATH.md §12): Algorithm 2's local search from the claimed point, then a short
// Algorithm 2 run from another seed, both within `deadline`. A point above the bound becomes the result's point
// and withdraws the bound. Writes what was checked into result.proof_check.
void check_proof(const Problem& problem, const SolveOptions& options, const Deadline& deadline, SolveResult& result);

}  // namespace reluopt
