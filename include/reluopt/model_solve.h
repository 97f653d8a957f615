#pragma once

// Solving a model around networks (reluopt/model.h, docs/PROBLEM.md).
#include <optional>

#include "reluopt/model.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

struct ModelResult {
  // status (kInfeasible when the MIP proves that no point exists), bound and gap in the model's sense; objective
  // is point->objective, x is point->v.
  SolveResult result;
  // The reported point, re-evaluated by evaluate(model, v): present unless the status is no_solution or
  // infeasible, and within model_tolerance(model) of every bound, integrality and constraint.
  std::optional<ModelPoint> point;
};

// Reduces the model (core/model_reduction.h) and runs options.method on it. The MIP methods (mip, mip-cuts,
// partition) take every model; the other methods take a model without constraints on network outputs and
// without integer variables (others throw reluopt::Error naming the method and the methods that take it).
ModelResult solve(const Model& model, const SolveOptions& options, const RunControl& control = {});

// Whether options.method takes `model` (see solve above).
bool method_takes_model(Method method, const Model& model);

// The largest violation evaluate() may find at a reported point: 1e-6 relative to the largest right-hand side of
// the model's constraints (at least 1e-6). Reported points lie within their bounds and are integral exactly.
double model_tolerance(const Model& model);

}  // namespace reluopt
