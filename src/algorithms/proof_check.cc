// Cross-checks of a proven bound (docs/MATH.md §12). A bound U on max sign * g over P is contradicted by any
// point x of P with sign * g(x) > sign * U + tol: whatever proved U was wrong. Such failures are numerical and
// rare, and they look exactly like proofs: CBC with CLP's scaling proved 10.15 optimal on a digits classifier
// where 16.81 is feasible (bench/results/repro_mip_wrong_optimal). The checks can only refute a proof, never
// confirm one; a refuted proof is reported as a solver failure with the better point, never as `optimal`.

#include "algorithms/proof_check.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "algorithms/enhanced.h"

namespace reluopt {

namespace {

// Algorithm 2's samples in the check: enough for its local searches to reach the good regions on the networks of
// bench/results/repro_mip_wrong_optimal, few enough to cost a fraction of a second there.
constexpr long kCheckSamples = 100;

std::string number(double value) {
  std::ostringstream out;
  out.precision(10);
  out << value;
  return out.str();
}

void adopt(const EvaluatedPoint& point, const Problem& problem, SolveResult& result) {
  result.x = point.x;
  result.outputs = point.outputs;
  result.objective = problem.objective.sign() * point.value;
  result.domain_violation = problem.domain.max_violation(point.x);
}

}  // namespace

double row_tolerance(const Problem& problem) {
  double scale = 1.0;
  if (problem.rows.has_output_rows()) scale = std::max(scale, problem.rows.output_rhs.cwiseAbs().maxCoeff());
  if (problem.domain.has_rows()) scale = std::max(scale, problem.domain.b.cwiseAbs().maxCoeff());
  return 1e-8 * scale;
}

std::optional<EvaluatedPoint> feasible_point(const Problem& problem, Eigen::VectorXd x) {
  if (problem.rows.empty()) return evaluate_point(problem, std::move(x));
  if (!x.allFinite()) return std::nullopt;
  const double tolerance = row_tolerance(problem);
  EvaluatedPoint point;
  if (problem.rows.has_integers()) {
    // The box's integer coordinates have integral bounds: rounding after clipping stays in the box. No move
    // towards the interior, which would take the coordinates off the integers.
    x = x.cwiseMax(problem.domain.lower).cwiseMin(problem.domain.upper);
    for (Eigen::Index i = 0; i < x.size(); ++i)
      if (problem.rows.integer[static_cast<std::size_t>(i)]) x[i] = std::round(x[i]);
    if (!(problem.domain.max_violation(x) <= tolerance)) return std::nullopt;
    point.outputs = problem.network.forward(x);
    point.value = problem.objective.sign() * problem.objective.value(point.outputs);
    point.x = std::move(x);
  } else {
    point = evaluate_point(problem, std::move(x));
  }
  if (problem.rows.has_output_rows() &&
      !((problem.rows.output_rows * point.outputs - problem.rows.output_rhs).maxCoeff() <= tolerance))
    return std::nullopt;
  return point;
}

double contradiction_tolerance(double value) { return 1e-6 * std::max(1.0, std::abs(value)); }

void withdraw_bound(SolveResult& result, const std::string& why) {
  result.solver_failure = why;
  result.bound.reset();
  result.gap.reset();
  if (result.status == SolveStatus::kOptimal) result.status = SolveStatus::kFeasible;
}

void check_against_run(const Problem& problem, SolveResult& result) {
  if (!result.bound || result.status == SolveStatus::kNoSolution) return;
  const double sign = problem.objective.sign();
  if (sign * (result.objective - *result.bound) > contradiction_tolerance(result.objective))
    withdraw_bound(result, "the bound " + number(*result.bound) + " lies on the wrong side of the value " +
                               number(result.objective) + " evaluated at the reported point");
}

void check_proof(const Problem& problem, const SolveOptions& options, const Deadline& deadline, SolveResult& result) {
  if (!options.check_proof) return;
  if (!result.bound || result.status == SolveStatus::kNoSolution) {
    result.proof_check = "not run: no bound to check";
    return;
  }
  if (deadline.expired()) {
    result.proof_check = "not run: no time left";
    return;
  }
  const double sign = problem.objective.sign();
  const double bound = sign * *result.bound;  // maximized sense
  // Local search from the claimed point, then Algorithm 2 from another seed; the first point above the bound ends it.
  std::optional<EvaluatedPoint> found = local_search_from(problem, options, evaluate_point(problem, result.x),
                                                          deadline.share(0.5));
  // The searches know nothing of a model's rows: only their feasible points may refute the bound.
  if (found && !problem.rows.empty()) found = feasible_point(problem, found->x);
  std::string source = "the local search from the reported point";
  double best = found ? found->value : sign * result.objective;
  if (!found || found->value <= bound + contradiction_tolerance(bound)) {
    SolveOptions sampling = options;
    sampling.method = Method::kEnhanced;
    sampling.seed = options.seed + 1;
    sampling.sampling.samples = kCheckSamples;
    sampling.sampling.stop_rule.reset();
    sampling.enhanced.mip_share = 0.0;
    const SolveResult run = run_enhanced(problem, sampling, deadline, RunContext{});
    std::optional<EvaluatedPoint> point;
    if (run.status != SolveStatus::kNoSolution) point = feasible_point(problem, run.x);
    if (point) {
      best = std::max(best, point->value);
      if (!found || point->value > found->value) {
        found = std::move(point);
        source = "Algorithm 2 with " + std::to_string(run.sampling.samples) + " samples (seed " +
                 std::to_string(sampling.seed) + ")";
      }
    }
  }
  if (found && found->value > bound + contradiction_tolerance(bound)) {
    adopt(*found, problem, result);
    withdraw_bound(result, "the proof failed its check: " + source + " found " + number(result.objective) +
                               " beyond the bound " + number(sign * bound));
    return;
  }
  result.proof_check = "passed: the local search from the reported point and " + std::to_string(kCheckSamples) +
                       " samples of Algorithm 2 found nothing beyond the bound" +
                       (problem.rows.empty() ? "" : " that meets the model's rows") + " (best " + number(sign * best) +
                       ")";
}

}  // namespace reluopt
