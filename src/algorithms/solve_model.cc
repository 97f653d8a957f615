// The front door for models around networks (reluopt/solve.h).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "algorithms/mip.h"
#include "algorithms/model_mip.h"
#include "algorithms/model_objective.h"
#include "algorithms/solve_in_context.h"
#include "core/model_reduction.h"
#include "lp/domain_rows.h"
#include "lp/linear_model.h"
#include "reluopt/error.h"
#include "reluopt/solve.h"
#include "solver/lp_solver.h"

namespace reluopt {

namespace {

bool is_mip_method(Method method) {
  return method == Method::kMip || method == Method::kMipCuts || method == Method::kPartition;
}

bool needs_mip(const ReducedModel& reduced) { return reduced.has_output_rows() || reduced.has_integers(); }


// A run of solve() on the composite, its point mapped to v and re-evaluated by the model's own networks. Outside
// the plain case the bound is over the composite and gets the margin of its rounding.
ModelResult run_on_composite(const Model& model, const ReducedModel& reduced, const SolveOptions& options,
                             const RunControl& control) {
  ModelResult out;
  ModelRows rows{reduced.output_rows, reduced.output_rhs, reduced.has_integers() ? reduced.integer : std::vector<bool>{}};
  out.result = solve(*reduced.composite, reduced.domain, reduced.objective, std::move(rows), options, RunContext(control));
  SolveResult& result = out.result;
  if (result.status != SolveStatus::kNoSolution && result.status != SolveStatus::kInfeasible) {
    ModelPoint point = evaluate(model, reduced.variables(result.x));
    if (point.max_violation <= model_tolerance(model)) {
      result.objective = point.objective;
      result.x = point.v;
      result.domain_violation = point.max_violation;
      out.point = std::move(point);
    } else {
      result.status = SolveStatus::kNoSolution;
      result.x.resize(0);
    }
  }
  if (result.bound && !reduced.plain())
    *result.bound += reduced.objective.sign() * 5e-10 * std::max(1.0, std::abs(*result.bound));
  result.gap.reset();
  if (result.status == SolveStatus::kOptimal) result.status = SolveStatus::kFeasible;
  close_gap(result);
  return out;
}

// Whether no u satisfies the reduced model's rows on variables alone within its box (an LP with those rows): the
// model is then infeasible whatever the networks do, and that is its outcome, not an error in its input.
bool variables_admit_no_point(const Domain& domain) {
  if (!domain.has_rows()) return false;
  LinearModel lp;
  for (int j = 0; j < domain.dim(); ++j) lp.add_column(domain.lower[j], domain.upper[j]);
  add_domain_rows(domain, lp);
  return make_lp_solver()->solve(lp).status == LpStatus::kInfeasible;
}

ModelResult infeasible_result(const SolveOptions& options) {
  ModelResult out;
  out.result.status = SolveStatus::kInfeasible;
  out.result.method = method_name(options.method);
  out.result.stopped_by = StopReason::kCompleted;
  return out;
}

}  // namespace

double model_tolerance(const Model& model) {
  double scale = 1.0;
  for (const LinearConstraint& c : model.constraints) scale = std::max(scale, std::abs(c.rhs));
  return 1e-6 * scale;
}

ModelResult solve(const Model& model, const SolveOptions& options, const RunControl& control) {
  validate_options(options, control.time_limit);
  ReducedModel reduced = reduce(model);
  if (variables_admit_no_point(reduced.domain)) return infeasible_result(options);
  // solve() compiles a max-min objective itself, but not beside rows on the outputs, and the model MIP needs
  // a linear one.
  if (reduced.has_output_rows() || is_mip_method(options.method)) reduced = with_linear_objective(std::move(reduced));
  if (!is_mip_method(options.method) || (reduced.plain() && !needs_mip(reduced)))
    return run_on_composite(model, reduced, options, control);
  const Deadline deadline(control.time_limit, control.stop);
  ModelResult out = run_model_mip(model, reduced, options, deadline, control);
  out.result.run.seconds = deadline.elapsed();
  return out;
}

}  // namespace reluopt
