#pragma once

#include <optional>

#include "reluopt/domain.h"
#include "reluopt/model.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

// The library's front door: validates the problem (throws reluopt::Error on bad input) and runs the
// chosen method. The outcome, including "nothing found", is in the result.
SolveResult solve(const Network& network, const Domain& domain, const Objective& objective,
                  const SolveOptions& options, const RunControl& control = {});

// The root LP relaxation of a MIP method's formulation (options.method: mip, mip-cuts without its cuts, or
// partition), with the bounds of options.mip.bounds: a valid bound on the optimum, in the user's sense.
RelaxationReport relax(const Network& network, const Domain& domain, const Objective& objective,
                       const SolveOptions& options, const RunControl& control = {});

// How many MIP solver threads this process has left running past a time limit or a stop request (they stop at
// the solver's next check; docs/SOLVER-NOTES.md, "Time limits"). A program that exits while one may still run
// ends with std::quick_exit, so that no static destructor runs under it.
int abandoned_solver_threads();

// Solving a model around networks (reluopt/model.h, docs/PROBLEM.md).
struct ModelResult {
  // status (kInfeasible when the MIP proves that no point exists), bound and gap in the model's sense; objective
  // is point->objective, x is point->v.
  SolveResult result;
  // The reported point, re-evaluated by evaluate(model, v): present unless the status is no_solution or
  // infeasible, and within model_tolerance(model) of every bound, integrality and constraint.
  std::optional<ModelPoint> point;
};

// Reduces the model (core/model_reduction.h) and runs options.method on it; every method takes every model
// (docs/PROBLEM.md, "Methods").
ModelResult solve(const Model& model, const SolveOptions& options, const RunControl& control = {});

// The largest violation evaluate() may find at a reported point: 1e-6 relative to the largest right-hand side of
// the model's constraints (at least 1e-6). Reported points lie within their bounds and are integral exactly.
double model_tolerance(const Model& model);

}  // namespace reluopt
