// The front door for models around networks (reluopt/solve.h).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "algorithms/first_proof.h"
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

// Whether the default's first proof (algorithms/first_proof.h) on a model with output rows or integers is the
// mip method's model MIP: it proves the example models in the time `--method mip` takes, sooner than the MIP of
// the composite network (bench/results/default_proof.md).
bool first_proof_on_model(const ReducedModel& reduced, const SolveOptions& options, const RunControl& control) {
  const EnhancedOptions& enhanced = options.enhanced;
  return options.method == Method::kEnhanced && needs_mip(reduced) && std::isfinite(control.time_limit) &&
         enhanced.mip_share > 0.0 && enhanced.first_proof > 0.0 && !options.sampling.stop_rule;
}

// The first proof by the model MIP; without a proof, the default on the composite for the rest of the run (with
// no second first proof), reporting the better point and the tighter bound of both, one anytime profile.
ModelResult run_default_on_model(const Model& model, const ReducedModel& reduced, const SolveOptions& options,
                                 const RunControl& control) {
  const Deadline deadline(control.time_limit, control.stop);
  SolveOptions mip_options = options;
  mip_options.method = Method::kMip;
  ModelResult first = run_model_mip(model, reduced, mip_options, deadline.share(options.enhanced.first_proof), control);
  first.result.prover = prover_name(Prover::kMip);
  if (proven(first.result) || deadline.expired()) {
    first.result = first_proof_result(std::move(first.result), deadline);
    return first;
  }
  SolveOptions rest_options = options;
  rest_options.enhanced.first_proof = 0.0;
  RunControl rest = control;
  rest.time_limit = deadline.remaining();
  const double rest_start = deadline.elapsed();
  ModelResult out = run_on_composite(model, reduced, rest_options, rest);
  SolveResult& result = out.result;
  const double sign = reduced.objective.sign();
  for (auto* profile : {&result.trajectory, &result.bound_trajectory})
    for (auto& [seconds, value] : *profile) seconds += rest_start;
  result.trajectory.insert(result.trajectory.begin(), first.result.trajectory.begin(), first.result.trajectory.end());
  result.bound_trajectory.insert(result.bound_trajectory.begin(), first.result.bound_trajectory.begin(),
                                 first.result.bound_trajectory.end());
  if (first.point && (!out.point || sign * first.result.objective > sign * result.objective)) {
    result.status = SolveStatus::kFeasible;
    result.objective = first.result.objective;
    result.x = first.result.x;
    result.outputs = first.result.outputs;
    result.domain_violation = first.result.domain_violation;
    out.point = first.point;
  }
  if (first.result.bound && (!result.bound || sign * *first.result.bound < sign * *result.bound))
    result.bound = first.result.bound;
  result.run.nodes += first.result.run.nodes;
  if (result.prover.empty()) result.prover = first.result.prover;
  result.gap.reset();
  close_gap(result);
  result.run.seconds = deadline.elapsed();
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
  // solve() compiles a max-min objective itself, but not beside rows or integers, and the model MIP needs a
  // linear one.
  if (needs_mip(reduced) || is_mip_method(options.method)) reduced = with_linear_objective(std::move(reduced));
  if (first_proof_on_model(reduced, options, control)) return run_default_on_model(model, reduced, options, control);
  if (!is_mip_method(options.method) || (reduced.plain() && !needs_mip(reduced)))
    return run_on_composite(model, reduced, options, control);
  const Deadline deadline(control.time_limit, control.stop);
  ModelResult out = run_model_mip(model, reduced, options, deadline, control);
  out.result.run.seconds = deadline.elapsed();
  return out;
}

}  // namespace reluopt
