#include "algorithms/mip.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "algorithms/incumbent.h"
#include "algorithms/proof_check.h"
#include "algorithms/sampling.h"
#include "core/max_min_network.h"
#include "core/network_specialize.h"
#include "core/worker_threads.h"
#include "formulation/anderson_cuts.h"
#include "formulation/mip_formulation.h"
#include "reluopt/error.h"
#include "reluopt/solve.h"
#include "solver/lp_solver.h"
#include "solver/mip_solver.h"

namespace reluopt {

void close_gap(SolveResult& result) {
  if (result.status == SolveStatus::kNoSolution || !result.bound) return;
  const double absolute = std::abs(*result.bound - result.objective);
  result.gap = absolute / std::max(std::abs(result.objective), 1e-9);
  if (*result.gap <= kOptimalRelativeGap || absolute <= kOptimalAbsoluteGap) result.status = SolveStatus::kOptimal;
}

namespace {

// Points of P that the MIP start falls back on when there is no other: a forward pass each, microseconds on
// the networks we solve. A box draws them coordinate by coordinate; with rows, hit-and-run walks the same
// (10 + 32) * thinning steps that Algorithm 1 walks for 32 samples, without their LPs.
constexpr int kForwardPassPoints = 32;

}  // namespace

MipFormulation build_formulation(const Network& network, const Domain& domain, const Objective& objective,
                                 const SolveOptions& options, const NeuronBounds& bounds, const Deadline* deadline,
                                 const FreeMask* relaxed) {
  return options.method == Method::kPartition
             ? partition_formulation(network, domain, objective, bounds, options.mip.partitions, options.relax_concave,
                                     deadline, relaxed)
             : big_m_formulation(network, domain, objective, bounds, options.relax_concave, deadline, relaxed);
}

NeuronBounds mip_bounds(const Network& network, const Domain& domain, const SolveOptions& options,
                        const Deadline& deadline) {
  BoundOptions bound_options = options.mip.bounds;
  bound_options.threads = resolve_threads(options.threads);
  return compute_bounds(network, domain, bound_options, deadline);
}

// An upper bound on sign * g(x) over P from the last hidden layer's bounds alone (interval arithmetic, with a
// margin for round-off): the bound a MIP method reports when the solver gives none in the time it had.
// With v = sign W_L^T w, the objective is v^T a + sign (w^T b_L + c) over a_j in [max(l_j, 0), max(u_j, 0)];
// each of the n + m + 2 terms carries a relative error of at most gamma_{n+m+2} (Higham §3.1), doubled here.
double interval_objective_bound(const Network& network, const Objective& objective, const NeuronBounds& bounds) {
  const DenseLayer& last = network.layers().back();
  const Eigen::VectorXd w = objective.sign() * objective.weights;
  const Eigen::VectorXd v = last.weights.transpose() * w;
  const Eigen::VectorXd v_abs = last.weights.cwiseAbs().transpose() * w.cwiseAbs();
  const Eigen::VectorXd a_lo = bounds.lower.back().cwiseMax(0.0);
  const Eigen::VectorXd a_hi = bounds.upper.back().cwiseMax(0.0);
  double value = w.dot(last.bias) + objective.sign() * objective.constant;
  double magnitude = w.cwiseAbs().dot(last.bias.cwiseAbs()) + std::abs(objective.constant);
  for (Eigen::Index j = 0; j < v.size(); ++j) {
    value += std::max(v[j] * a_lo[j], v[j] * a_hi[j]);
    magnitude += v_abs[j] * std::max(a_lo[j], a_hi[j]);
  }
  const double n = static_cast<double>(v.size() + w.size() + 2);
  const double eps = std::numeric_limits<double>::epsilon();
  return value + 2.0 * (n * eps / (1.0 - n * eps)) * magnitude;
}


// Share of the time left after the warm start that bound tightening may take.
constexpr double kBoundsTimeShare = 0.5;

namespace {

// CBC on the formulation, started from the incumbent's best point; every point it finds goes to the incumbent.
MipResult solve_formulation(const Problem& problem, const SolveOptions& options, const MipFormulation& formulation,
                            const Deadline& deadline, const RunContext& control, int threads, Incumbent& incumbent,
                            const SolveResult& result) {
  const Network& network = problem.network;
  std::unique_ptr<AndersonSeparator> separator;
  if (options.method == Method::kMipCuts) separator = std::make_unique<AndersonSeparator>(formulation, network);
  MipParameters mip;
  mip.threads = threads;
  mip.verbose = options.mip.verbose;
  mip.separator = separator.get();
  mip.cut_frequency = options.mip.cut_frequency;
  mip.primal_heuristics = true;  // bench/results/cbc_heuristics.md
  std::vector<double> mip_start;
  if (const std::optional<EvaluatedPoint> warm = incumbent.best()) {
    mip_start = warm_start(formulation, network, warm->x);
    mip.start = &mip_start;
  }
  const double sign = problem.objective.sign();
  if (control.on_progress) {
    mip.on_progress = [&](std::optional<double> best, double bound, long) {
      Progress progress;
      progress.seconds = deadline.elapsed();
      progress.samples = result.sampling.samples;
      progress.lps = result.run.lps;
      if (best) progress.incumbent = sign * *best;
      if (std::isfinite(bound)) progress.bound = sign * bound;
      control.on_progress(progress);
    };
  }
  auto offer_columns = [&](const double* values) {
    Eigen::VectorXd x(static_cast<Eigen::Index>(formulation.input.size()));
    for (std::size_t i = 0; i < formulation.input.size(); ++i) x[static_cast<Eigen::Index>(i)] = values[formulation.input[i]];
    incumbent.offer(evaluate_point(problem, x));
  };
  mip.on_solution = offer_columns;
  MipResult solution = make_mip_solver()->solve(formulation.model, deadline, mip);
  if (!solution.values.empty()) offer_columns(solution.values.data());
  return solution;
}

}  // namespace

SolveResult run_mip(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                    const RunContext& control, const std::optional<EvaluatedPoint>& start) {
  const int threads = affordable_threads(resolve_threads(options.threads));

  Incumbent incumbent(&deadline);
  SolveResult result;
  std::vector<std::pair<double, double>> warm_trajectory;
  if (start) {
    incumbent.offer(*start);
  } else if (options.mip.warm_start) {
    SolveOptions sampling = options;
    sampling.sampling.samples = options.mip.warm_start_samples;
    const SolveResult warm = run_sampling(problem, sampling, deadline, control);
    result.sampling.samples = warm.sampling.samples;
    result.run.lps = warm.run.lps;
    result.sampling.duplicate_patterns = warm.sampling.duplicate_patterns;
    result.sampling.lp_failures = warm.sampling.lp_failures;
    warm_trajectory = warm.trajectory;
    if (warm.status != SolveStatus::kNoSolution) incumbent.offer(evaluate_point(problem, warm.x));
  }
  // warm_started: a given start or the paper's warm start, not the forward passes below.
  result.mip.warm_started = incumbent.best().has_value();
  // Without a point CBC may end with none (deep networks); a few forward passes give it one, even when the
  // time is already up, so the MIP methods never end without a point.
  if (!result.mip.warm_started) offer_forward_passes(problem, options, kForwardPassPoints, incumbent, deadline);

  // Bounds after the warm start, so that a point exists whatever they cost, and within half of the time
  // left: neurons the LPs do not reach keep their (valid) interval bounds, which give the run a bound even when
  // no time is left. The formulation is built while time is left (seconds on a large convolution), and solved
  // only when it is whole.
  const NeuronBounds bounds = mip_bounds(problem.network, problem.domain, options, deadline.share(kBoundsTimeShare));
  const MipFormulation formulation =
      build_formulation(problem.network, problem.domain, problem.objective, options, bounds, &deadline);
  const MipResult solution =
      formulation.complete ? solve_formulation(problem, options, formulation, deadline, control, threads, incumbent, result)
                           : MipResult{};
  result.method = method_name(options.method);
  result.run.seed = options.seed;
  result.run.threads = threads;
  result.run.nodes = solution.nodes;
  result.mip.bound_method = bound_method_name(options.mip.bounds.method);
  result.mip.binaries = formulation.complete ? formulation.model.num_integer() : 0;
  result.run.concave_neurons = formulation.complete ? formulation.concave : 0;
  result.mip.partitions = options.method == Method::kPartition && formulation.complete ? formulation.partitions : 0;
  result.stopped_by = deadline.interrupted() ? StopReason::kInterrupted
                      : (solution.status == MipStatus::kOptimal || solution.status == MipStatus::kInfeasible)
                          ? StopReason::kCompleted
                          : StopReason::kTimeLimit;
  incumbent.fill(problem, result);
  const double sign = problem.objective.sign();
  // The anytime profile: the warm start's own improvements, then the MIP's.
  result.trajectory.insert(result.trajectory.begin(), warm_trajectory.begin(), warm_trajectory.end());
  // CBC's bound holds for every feasible point, so it is never below a point we evaluated ourselves, up to
  // round-off. One that is below by more is no bound (it would turn into a false proof): none is reported.
  // Without a bound from CBC (stopped before its root LP ended), the neuron bounds give one.
  const double solver_bound = solution.status == MipStatus::kError ? kInfinity : solution.bound;
  const double fallback = bounds.upper.empty() ? kInfinity : interval_objective_bound(problem.network, problem.objective, bounds);
  if (const double mip_bound = std::min(solver_bound, fallback); std::isfinite(mip_bound)) {
    double bound = mip_bound;
    bool valid = true;
    if (const std::optional<double> best = incumbent.best_value()) {
      valid = bound >= *best - contradiction_tolerance(*best);
      if (!valid)
        result.solver_failure = "CBC's bound " + std::to_string(sign * bound) + " lies on the wrong side of the value " +
                                std::to_string(sign * *best) + " of a point found in the same run";
      bound = std::max(bound, *best);
    }
    if (valid) result.bound = sign * bound;
  }
  close_gap(result);
  result.run.seconds = deadline.elapsed();
  return result;
}

RelaxationReport relax(const Network& network, const Domain& domain, const Objective& objective,
                       const SolveOptions& options, const RunControl& control) {
  if (!method_spec(options.method).relaxable)
    throw Error("relax needs a MIP method (" + method_list(&MethodSpec::relaxable, "or") + "), not " +
                method_name(options.method));
  const Deadline clock(control.time_limit, control.stop);  // the rewrites' time counts against the limit
  if (network.has_linear_neurons())
    return relax(detail::specialize_linear_neurons(network, domain.lower, domain.upper), domain, objective, options,
                 remaining_after(control, clock));
  if (!objective.is_linear()) {
    objective.validate(network.output_dim());
    const detail::MaxMinNetwork compiled = compile_objective(network, domain, objective, clock);
    return relax(compiled.network, domain, compiled.objective, options, remaining_after(control, clock));
  }
  validate_options(options, control.time_limit);
  const Deadline deadline(control.time_limit, control.stop);
  const Problem problem = make_problem(network, domain, objective);
  RelaxationReport report;
  const NeuronBounds bounds = mip_bounds(problem.network, problem.domain, options, deadline);
  report.bounds_seconds = deadline.elapsed();
  const MipFormulation formulation =
      build_formulation(problem.network, problem.domain, problem.objective, options, bounds, &deadline);
  if (!formulation.complete) throw Error("the formulation could not be built within the limits");
  report.binaries = formulation.model.num_integer();
  report.bound_method = bound_method_name(options.mip.bounds.method);
  report.formulation = options.method == Method::kPartition
                           ? "partition (N=" + std::to_string(formulation.partitions) + ")"
                           : "big-M";
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  lp->set_stop_request(deadline.stop_request());
  const LpSolution solution = lp->solve(formulation.model, deadline.remaining());
  if (solution.status != LpStatus::kOptimal) throw Error("the LP relaxation could not be solved within the limits");
  report.bound = objective.sign() * solution.objective;
  report.lp_seconds = deadline.elapsed() - report.bounds_seconds;
  return report;
}

}  // namespace reluopt
