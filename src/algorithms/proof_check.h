#pragma once

#include <optional>
#include <string>

#include "algorithms/problem.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

// The rows' tolerance of a problem with ModelRows: 1e-8 times the largest right-hand side of its rows (at least
// 1), a tenth of the 1e-6 a model's own evaluation allows (algorithms/solve_model.cc), so that a point taken here
// passes there.
double row_tolerance(const Problem& problem);

// x as a point of the problem: for the plain problem, evaluate_point(x); with ModelRows, x clipped to the box and
// its integer coordinates rounded, evaluated by a forward pass, and kept only when it meets A x <= b and
// C f(x) <= e within row_tolerance (continuous points are first moved into P as evaluate_point does). The only
// points that may count for a problem with rows: as incumbents, and as points refuting a bound.
std::optional<EvaluatedPoint> feasible_point(const Problem& problem, Eigen::VectorXd x);

// How far a bound may lie on the wrong side of a value we evaluated and still count as valid: the round-off of
// the forward passes and the solvers' feasibility tolerances.
double contradiction_tolerance(double value);

// Withdraws the result's bound (and gap), says why in solver_failure, and takes back an `optimal` status.
void withdraw_bound(SolveResult& result, const std::string& why);

// Every run: a bound on the wrong side of the result's own objective contradicts itself and is withdrawn.
void check_against_run(const Problem& problem, SolveResult& result);

// SolveOptions::check_proof (docs/MATH.md §12): Algorithm 2's local search from the claimed point, then a short
// Algorithm 2 run from another seed, both within `deadline`; with ModelRows only the points they find that are
// feasible_point()s count. A point above the bound becomes the result's point
// and withdraws the bound. Writes what was checked into result.proof_check.
void check_proof(const Problem& problem, const SolveOptions& options, const Deadline& deadline, SolveResult& result);

}  // namespace reluopt
