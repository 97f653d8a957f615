#include "algorithms/model_region.h"

#include <algorithm>
#include <cmath>

#include "algorithms/gradient.h"
#include "algorithms/mip.h"
#include "algorithms/proof_check.h"
#include "core/worker_threads.h"
#include "formulation/mip_formulation.h"
#include "solver/clp_lp.h"

namespace reluopt {

bool add_output_rows_on_region(const Problem& problem, const ActivationPattern& pattern, const FreeMask* free,
                               const Deadline& deadline, LinearModel& model) {
  const Network& network = problem.network;
  const int layers = network.num_hidden_layers();
  const RegionAffine region = compose_region(network, problem.objective, pattern, free, &deadline);
  if (!region.complete) return false;
  const int d = network.input_dim();
  const int dim = d + region.num_free;
  const Eigen::MatrixXd push = problem.rows.output_rows * network.output_layer().weights;
  Eigen::VectorXd rhs = problem.rows.output_rhs - problem.rows.output_rows * network.output_layer().bias;
  RowMajorMatrix rows = RowMajorMatrix::Zero(push.rows(), dim);
  if (layers == 0) {
    rows.leftCols(d) = push;
  } else {
    const int last = layers - 1;
    for (int j = 0; j < network.hidden_width(last); ++j) {
      if (const int f = region.free_index[last][j]; f >= 0) {
        rows.col(d + f) += push.col(j);
      } else if (pattern.active[last][j]) {
        region.G[last].for_each_in_row(j, [&](Eigen::Index i, double w) {
          if (w != 0.0) rows.col(i) += w * push.col(j);
        });
        rhs -= push.col(j) * region.g[last][j];
      }
    }
  }
  for (Eigen::Index i = 0; i < rows.rows(); ++i) model.add_dense_row(rows.row(i).data(), dim, 0, -kInfinity, rhs[i]);
  return true;
}

std::optional<LinearModel> region_problem(const Problem& problem, const ActivationPattern& pattern,
                                          const FreeMask* concave, const Deadline& deadline) {
  std::optional<LinearModel> model = pattern_lp_within(problem.network, problem.domain, problem.objective, pattern,
                                                       &problem.interval, concave, deadline);
  if (!model || problem.rows.empty()) return model;
  FreeMask free;
  if (concave != nullptr) {  // as pattern_lp_within leaves them free
    free = *concave;
    for (int k = 0; k < problem.network.num_hidden_layers(); ++k)
      for (int j = 0; j < problem.network.hidden_width(k); ++j)
        if (problem.interval.is_stable(k, j)) free[k][j] = 0;
  }
  if (problem.rows.has_output_rows() &&
      !add_output_rows_on_region(problem, pattern, concave != nullptr ? &free : nullptr, deadline, *model))
    return std::nullopt;
  for (std::size_t i = 0; i < problem.rows.integer.size(); ++i)
    if (problem.rows.integer[i]) model->set_integer(static_cast<int>(i), true);
  return model;
}

RegionSolver::RegionSolver(const Problem& problem, const FreeMask* concave, const Deadline& deadline)
    : problem_(problem), concave_(concave), mip_(problem.rows.has_integers() ? make_mip_solver() : nullptr) {
  lp_.set_stop_request(deadline.stop_request());
}

RegionOutcome RegionSolver::solve(const ActivationPattern& pattern, const Deadline& deadline) {
  RegionOutcome stopped;
  stopped.status = RegionStatus::kStopped;
  if (deadline.remaining() < declined_seconds_) return stopped;
  const double started = deadline.elapsed();
  const std::optional<LinearModel> model = region_problem(problem_, pattern, concave_, deadline);
  if (!model) return stopped;
  if (const double setup = ClpLp::setup_seconds(*model); mip_ == nullptr && setup > deadline.remaining()) {
    declined_seconds_ = deadline.elapsed() - started + setup;
    return stopped;
  }
  RegionOutcome outcome;
  std::vector<double> values;
  if (mip_ != nullptr) {
    MipResult solution = mip_->solve(*model, deadline, MipParameters{});
    if (solution.status == MipStatus::kInfeasible) outcome.status = RegionStatus::kInfeasible;
    else if (solution.values.empty()) outcome.status = deadline.expired() ? RegionStatus::kStopped : RegionStatus::kFailed;
    values = std::move(solution.values);
  } else {
    LpSolution solution = lp_.solve(*model, deadline.remaining());
    if (solution.status == LpStatus::kInfeasible) outcome.status = RegionStatus::kInfeasible;
    else if (solution.status == LpStatus::kTimeLimit) outcome.status = RegionStatus::kStopped;
    else if (solution.status != LpStatus::kOptimal) outcome.status = RegionStatus::kFailed;
    else values = std::move(solution.values);
  }
  if (values.empty()) return outcome;
  outcome.status = RegionStatus::kSolved;
  outcome.optimum = evaluate_point(problem_, Eigen::Map<const Eigen::VectorXd>(values.data(), problem_.network.input_dim()));
  return outcome;
}

RowViolation row_violation(const Problem& problem, const Eigen::VectorXd& x) {
  const ModelRows& rows = problem.rows;
  const Eigen::VectorXd y = problem.network.forward(x);
  RowViolation violation;
  violation.excess = output_row_excess(rows, y);
  Objective penalty;  // the violated rows, each over its scale: its gradient is the penalty's
  penalty.weights = Eigen::VectorXd::Zero(problem.network.output_dim());
  for (Eigen::Index i = 0; i < rows.output_rows.rows(); ++i) {
    const double over = rows.output_rows.row(i).dot(y) - rows.output_rhs[i];
    if (over <= 0.0) continue;
    const double scale = std::max(1.0, std::abs(rows.output_rhs[i]));
    violation.penalty += over / scale;
    penalty.weights += rows.output_rows.row(i).transpose() / scale;
  }
  violation.gradient = region_gradient(problem.network, penalty, x).gradient;
  return violation;
}

Eigen::VectorXd descend_row_violation(const Problem& problem, const Eigen::VectorXd& x, int steps,
                                      const Deadline& deadline) {
  if (!problem.rows.has_output_rows()) return x;
  const Projector projector(problem.domain);
  const double diameter = (problem.domain.upper - problem.domain.lower).norm();
  Eigen::VectorXd current = x;
  RowViolation at = row_violation(problem, current);
  double step = 0.0;
  for (int s = 0; s < steps && at.excess > 0.0 && !deadline.expired(); ++s) {
    const double norm = at.gradient.norm();
    if (norm == 0.0) break;  // flat: every violated row is constant on the region
    if (step == 0.0) step = 0.1 * diameter / norm;
    if (step * norm < 1e-9 * diameter) break;
    Eigen::VectorXd next = projector.project(current - step * at.gradient);
    if (problem.domain.has_rows()) next = evaluate_point(problem, std::move(next)).x;
    RowViolation there = row_violation(problem, next);
    if (there.penalty < at.penalty) {
      current = std::move(next);
      at = std::move(there);
      step *= 1.5;
    } else {
      step *= 0.5;
    }
  }
  return current;
}

SolveResult run_rows_mip(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                         const RunContext& control, const std::optional<EvaluatedPoint>& start) {
  const Network& network = problem.network;
  SolveOptions mip_options = options;
  // y >= max(h, 0) alone is exact for the objective only; a row on the outputs could be met by a larger y.
  if (problem.rows.has_output_rows()) mip_options.relax_concave = false;
  const NeuronBounds bounds = mip_bounds(network, problem.domain, mip_options, deadline.share(0.5));
  MipFormulation formulation = build_formulation(network, problem.domain, problem.objective, mip_options, bounds);
  add_output_rows(formulation, network, problem.rows.output_rows, problem.rows.output_rhs);
  if (problem.rows.has_integers()) set_integer_inputs(formulation, problem.rows.integer);

  Incumbent incumbent(&deadline);
  if (start) incumbent.offer(*start);
  MipParameters mip;
  mip.threads = affordable_threads(resolve_threads(options.threads));
  mip.primal_heuristics = true;
  const auto offer_columns = [&](const double* values) {
    Eigen::VectorXd x(static_cast<Eigen::Index>(formulation.input.size()));
    for (std::size_t i = 0; i < formulation.input.size(); ++i) x[static_cast<Eigen::Index>(i)] = values[formulation.input[i]];
    incumbent.offer(evaluate_point(problem, std::move(x)));
  };
  mip.on_solution = offer_columns;
  if (control.on_progress) {
    mip.on_progress = [&](std::optional<double> best, double bound, long nodes) {
      Progress progress;
      progress.seconds = deadline.elapsed();
      progress.nodes = nodes;
      if (best) progress.incumbent = problem.objective.sign() * *best;
      if (std::isfinite(bound)) progress.bound = problem.objective.sign() * bound;
      control.on_progress(progress);
    };
  }
  const MipResult solution = make_mip_solver()->solve(formulation.model, deadline, mip);
  if (!solution.values.empty()) offer_columns(solution.values.data());

  SolveResult result;
  result.method = method_name(options.method);
  result.run.nodes = solution.nodes;
  result.run.threads = mip.threads;
  result.mip.binaries = formulation.model.num_integer();
  result.mip.bound_method = bound_method_name(mip_options.mip.bounds.method);
  const bool completed = solution.status == MipStatus::kOptimal || solution.status == MipStatus::kInfeasible;
  result.stopped_by = deadline.interrupted() ? StopReason::kInterrupted
                      : completed            ? StopReason::kCompleted
                                             : StopReason::kTimeLimit;
  incumbent.fill(problem, result);
  if (result.status == SolveStatus::kNoSolution && solution.status == MipStatus::kInfeasible) {
    result.status = SolveStatus::kInfeasible;
    return result;
  }
  const double sign = problem.objective.sign();
  const std::optional<double> best = incumbent.best_value();
  if (solution.status != MipStatus::kError && std::isfinite(solution.bound) &&
      !(best && solution.bound < *best - contradiction_tolerance(*best)))
    result.bound = sign * (best ? std::max(solution.bound, *best) : solution.bound);
  close_gap(result);
  return result;
}

}  // namespace reluopt
