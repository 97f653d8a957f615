#include "algorithms/model_mip.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>

#include "algorithms/mip.h"
#include "algorithms/proof_check.h"
#include "core/worker_threads.h"
#include "formulation/anderson_cuts.h"
#include "solver/mip_solver.h"

namespace reluopt {

namespace {

// Share of the time that bound tightening may take (as for the MIP methods on one network).
constexpr double kModelBoundsTimeShare = 0.5;

// The composite's outputs differ from the networks' own forward passes by the rounding of the carried shift,
// about eps (|v| + |L|) (docs/PROBLEM.md §2), which a bound over the composite does not see: the bound is
// widened by 5e-10 relative, far above that rounding and far below the 1e-6 gap that counts as optimal.
double composite_margin(double bound) { return 5e-10 * std::max(1.0, std::abs(bound)); }

// The best point of the model found so far, by its re-evaluated objective; CBC offers points from its thread.
class ModelIncumbent {
 public:
  ModelIncumbent(const Model& model, const ReducedModel& reduced, const Deadline& clock)
      : model_(model), reduced_(reduced), clock_(clock), tolerance_(model_tolerance(model)),
        sign_(model.sense == Sense::kMaximize ? 1.0 : -1.0) {}

  // u from the solver: clipped to the box of u and rounded on the integer coordinates, mapped to v, evaluated.
  void offer(Eigen::VectorXd u) {
    const Domain& domain = reduced_.domain;
    u = u.cwiseMax(domain.lower).cwiseMin(domain.upper);
    for (Eigen::Index i = 0; i < u.size(); ++i)
      if (!reduced_.integer.empty() && reduced_.integer[static_cast<std::size_t>(i)]) u[i] = std::round(u[i]);
    ModelPoint point = evaluate(model_, reduced_.variables(u));
    if (!(point.max_violation <= tolerance_)) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (best_ && sign_ * point.objective <= sign_ * best_->objective) return;
    trajectory_.emplace_back(clock_.elapsed(), point.objective);
    best_ = std::move(point);
  }

  std::optional<ModelPoint> best() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return best_;
  }
  std::vector<std::pair<double, double>> trajectory() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return trajectory_;
  }

 private:
  const Model& model_;
  const ReducedModel& reduced_;
  const Deadline& clock_;
  double tolerance_;
  double sign_;
  mutable std::mutex mutex_;
  std::optional<ModelPoint> best_;
  std::vector<std::pair<double, double>> trajectory_;
};

// The formulation of options.method over the composite with the model's rows and integers. Concave neurons keep
// their binary when there are output rows: y >= max(h, 0) alone is exact only for the objective, and a row on
// the outputs could be met by a post-activation above max(h, 0).
MipFormulation formulate(const ReducedModel& reduced, SolveOptions options, const NeuronBounds& bounds) {
  if (reduced.has_output_rows()) options.relax_concave = false;
  MipFormulation f = build_formulation(*reduced.composite, reduced.domain, reduced.objective, options, bounds);
  add_output_rows(f, *reduced.composite, reduced.output_rows, reduced.output_rhs);
  set_integer_inputs(f, reduced.integer);
  return f;
}

// The solver's bound (or the interval bound when it gave none) widened by the composite's margin, in the
// maximized sense; +inf when there is none. A bound below a point evaluated in the same run is withdrawn.
double model_bound(const MipResult& solution, const ReducedModel& reduced, const NeuronBounds& bounds,
                   std::optional<double> best, SolveResult& result) {
  const double solver_bound = solution.status == MipStatus::kError ? kInfinity : solution.bound;
  const double fallback =
      bounds.upper.empty() ? kInfinity : interval_objective_bound(*reduced.composite, reduced.objective, bounds);
  double bound = std::min(solver_bound, fallback);
  if (!std::isfinite(bound)) return kInfinity;
  bound += composite_margin(bound);
  if (best && bound < *best - contradiction_tolerance(*best)) {
    result.solver_failure = "CBC's bound " + std::to_string(bound) + " lies on the wrong side of the value " +
                            std::to_string(*best) + " of a point found in the same run (maximized sense)";
    return kInfinity;
  }
  return best ? std::max(bound, *best) : bound;
}

}  // namespace

MipFormulation model_formulation(const ReducedModel& reduced, const SolveOptions& options, const Deadline& deadline) {
  const NeuronBounds bounds = mip_bounds(*reduced.composite, reduced.domain, options, deadline);
  return formulate(reduced, options, bounds);
}

ModelResult run_model_mip(const Model& model, const ReducedModel& reduced, const SolveOptions& options,
                          const Deadline& deadline, const RunControl& control) {
  const Network& network = *reduced.composite;
  const double sign = reduced.objective.sign();
  const NeuronBounds bounds = mip_bounds(network, reduced.domain, options, deadline.share(kModelBoundsTimeShare));
  const MipFormulation formulation = formulate(reduced, options, bounds);
  std::unique_ptr<AndersonSeparator> separator;
  if (options.method == Method::kMipCuts) separator = std::make_unique<AndersonSeparator>(formulation, network);

  ModelIncumbent incumbent(model, reduced, deadline);
  MipParameters mip;
  mip.threads = affordable_threads(resolve_threads(options.threads));
  mip.verbose = options.mip.verbose;
  mip.separator = separator.get();
  mip.cut_frequency = options.mip.cut_frequency;
  mip.primal_heuristics = true;
  if (control.on_progress) {
    mip.on_progress = [&](std::optional<double> best, double bound, long nodes) {
      Progress progress;
      progress.seconds = deadline.elapsed();
      progress.nodes = nodes;
      if (best) progress.incumbent = sign * *best;
      if (std::isfinite(bound)) progress.bound = sign * bound;
      control.on_progress(progress);
    };
  }
  const auto offer_columns = [&](const double* values) {
    Eigen::VectorXd u(static_cast<Eigen::Index>(formulation.input.size()));
    for (std::size_t i = 0; i < formulation.input.size(); ++i)
      u[static_cast<Eigen::Index>(i)] = values[formulation.input[i]];
    incumbent.offer(std::move(u));
  };
  mip.on_solution = offer_columns;
  const MipResult solution = make_mip_solver()->solve(formulation.model, deadline, mip);
  if (!solution.values.empty()) offer_columns(solution.values.data());

  ModelResult out;
  SolveResult& result = out.result;
  result.method = method_name(options.method);
  result.run.seed = options.seed;
  result.run.threads = mip.threads;
  result.run.nodes = solution.nodes;
  result.mip.bound_method = bound_method_name(options.mip.bounds.method);
  // Binaries of unstable neurons, as for one network: the integer inputs are the model's own variables.
  const auto integer_inputs = std::count(reduced.integer.begin(), reduced.integer.end(), true);
  result.mip.binaries = formulation.model.num_integer() - static_cast<int>(integer_inputs);
  result.run.concave_neurons = formulation.concave;
  result.mip.partitions = options.method == Method::kPartition ? formulation.partitions : 0;
  const bool completed = solution.status == MipStatus::kOptimal || solution.status == MipStatus::kInfeasible;
  result.stopped_by = deadline.interrupted() ? StopReason::kInterrupted
                      : completed            ? StopReason::kCompleted
                                             : StopReason::kTimeLimit;
  out.point = incumbent.best();
  result.trajectory = incumbent.trajectory();
  if (!out.point) {
    result.status = solution.status == MipStatus::kInfeasible ? SolveStatus::kInfeasible : SolveStatus::kNoSolution;
  } else {
    result.status = SolveStatus::kFeasible;
    result.objective = out.point->objective;
    result.x = out.point->v;
    result.domain_violation = out.point->max_violation;
  }
  if (result.status == SolveStatus::kInfeasible) return out;
  const std::optional<double> best = out.point ? std::optional(sign * out.point->objective) : std::nullopt;
  if (const double bound = model_bound(solution, reduced, bounds, best, result); std::isfinite(bound))
    result.bound = sign * bound;
  close_gap(result);
  result.run.seconds = deadline.elapsed();
  return out;
}

}  // namespace reluopt
