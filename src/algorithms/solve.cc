#include "reluopt/solve.h"

#include <cmath>

#include "algorithms/bab.h"
#include "algorithms/enhanced.h"
#include "algorithms/gradient.h"
#include "algorithms/mip.h"
#include "algorithms/problem.h"
#include "algorithms/proof_check.h"
#include "algorithms/sampling.h"
#include "algorithms/solve_in_context.h"
#include "algorithms/walk.h"
#include "core/max_min_network.h"
#include "core/network_specialize.h"
#include "core/peers.h"
#include "core/scaling.h"
#include "reluopt/error.h"
#include "solver/mip_solver.h"

namespace reluopt {

std::string status_name(SolveStatus status) {
  switch (status) {
    case SolveStatus::kOptimal: return "optimal";
    case SolveStatus::kFeasible: return "feasible";
    case SolveStatus::kNoSolution: return "no_solution";
    case SolveStatus::kInfeasible: return "infeasible";
  }
  return "unknown";
}

std::string stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::kCompleted: return "completed";
    case StopReason::kTimeLimit: return "time_limit";
    case StopReason::kInterrupted: return "interrupted";
    case StopReason::kStopRule: return "stop_rule";
  }
  return "unknown";
}

std::string stop_rule_verdict_name(StopRuleVerdict verdict) {
  switch (verdict) {
    case StopRuleVerdict::kStopped: return "stopped";
    case StopRuleVerdict::kNotReached: return "not_reached";
    case StopRuleVerdict::kNoFit: return "no_fit";
  }
  return "unknown";
}

namespace {

// The share of a time limit that SolveOptions::check_proof keeps for its cross-check.
constexpr double kProofCheckShare = 0.1;

SolveResult run_method(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                       const RunContext& control) {
  switch (options.method) {
    case Method::kSampling: return run_sampling(problem, options, deadline, control);
    case Method::kEnhanced: return run_enhanced(problem, options, deadline, control);
    case Method::kBab: return run_bab(problem, options, deadline, control);
    case Method::kGradient: return run_gradient(problem, options, deadline, control);
    case Method::kWalk: return run_walk(problem, options, deadline, control);
    case Method::kMip:
    case Method::kMipCuts:
    case Method::kPartition: return run_mip(problem, options, deadline, control);
  }
  throw Error("unknown method");
}

// A problem whose numbers are far from 1 (core/scaling.h, docs/NUMERICS.md) runs on its exact power-of-two
// rescaling; the result is mapped back with a forward pass of the original network at x.
SolveResult run_checked(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                        const RunContext& control) {
  // With a time limit, the proof's cross-check gets its share of it.
  const bool timed_check = options.check_proof && std::isfinite(deadline.remaining());
  SolveResult result = run_method(problem, options, timed_check ? deadline.share(1.0 - kProofCheckShare) : deadline, control);
  check_against_run(problem, result);
  // Over several processes only the lead's result is reported, so only the lead checks it.
  if (control.peers == nullptr || control.peers->lead()) check_proof(problem, options, deadline, result);
  return result;
}

SolveResult run_scaled(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                       const RunContext& control) {
  const ScaledProblem scaled = scale_problem(problem.network, problem.domain, problem.objective);
  const double sigma = scaled.value_scale;
  SolveOptions scaled_options = options;
  if (scaled_options.sampling.stop_rule) scaled_options.sampling.stop_rule->eps /= sigma;
  RunContext scaled_control = control;
  if (control.on_progress) {
    scaled_control.on_progress = [&control, sigma](Progress progress) {
      if (progress.incumbent) *progress.incumbent *= sigma;
      if (progress.bound) *progress.bound *= sigma;
      control.on_progress(progress);
    };
  }
  const Problem scaled_problem = make_problem(scaled.network, scaled.domain, scaled.objective);
  return unscale_result(run_checked(scaled_problem, scaled_options, deadline, scaled_control), scaled,
                        problem.network, problem.domain, problem.objective);
}

}  // namespace

int abandoned_solver_threads() { return abandoned_mip_solves(); }

bool method_takes_rows(Method method) {
  switch (method) {
    case Method::kSampling:
    case Method::kEnhanced:
    case Method::kGradient:
    case Method::kWalk:
    case Method::kBab: return true;
    case Method::kMip:
    case Method::kMipCuts:
    case Method::kPartition: return false;
  }
  return false;
}

SolveResult solve(const Network& network, const Domain& domain, const Objective& objective, ModelRows rows,
                  const SolveOptions& options, const RunContext& context) {
  if (network.has_linear_neurons()) {  // as below
    const Deadline clock(context.time_limit, context.stop);
    const Network relus = detail::specialize_linear_neurons(network, domain.lower, domain.upper);
    return detail::map_max_min_result(
        solve(relus, domain, objective, std::move(rows), options, remaining_after(context, clock)), network, objective);
  }
  if (rows.empty()) return solve(network, domain, objective, options, context);
  if (!method_takes_rows(options.method))
    throw Error("method '" + method_name(options.method) + "' does not take rows on the network's outputs or integer inputs");
  validate_options(options, context.time_limit);
  const Deadline deadline(context.time_limit, context.stop);
  const Problem problem = make_problem(network, domain, objective, std::move(rows));
  SolveResult result = run_checked(problem, options, deadline, context);
  result.run.seconds = deadline.elapsed();
  return result;
}

SolveResult solve(const Network& network, const Domain& domain, const Objective& objective,
                  const SolveOptions& options, const RunContext& context) {
  // Every method takes ReLU networks: linear neurons (LeakyRelu's slope, a residual skip) become stably active
  // ReLUs over the domain, and the result is re-evaluated on the network as given. The rewrites' time counts
  // against the limit (a second on a CIFAR-size ResNet under load).
  const Deadline clock(context.time_limit, context.stop);
  if (network.has_linear_neurons()) {
    const Network relus = detail::specialize_linear_neurons(network, domain.lower, domain.upper);
    return detail::map_max_min_result(solve(relus, domain, objective, options, remaining_after(context, clock)),
                                      network, objective);
  }
  if (!objective.is_linear()) {
    objective.validate(network.output_dim());
    const detail::MaxMinNetwork compiled = compile_objective(network, domain, objective, clock);
    return detail::map_max_min_result(
        solve(compiled.network, domain, compiled.objective, options, remaining_after(context, clock)), network,
        objective);
  }
  validate_options(options, context.time_limit);
  const Deadline deadline(context.time_limit, context.stop);
  const Problem problem = make_problem(network, domain, objective);
  SolveResult result = needs_scaling(network, problem.domain, problem.objective)
                           ? run_scaled(problem, options, deadline, context)
                           : run_checked(problem, options, deadline, context);
  result.run.seconds = deadline.elapsed();
  return result;
}

SolveResult solve(const Network& network, const Domain& domain, const Objective& objective,
                  const SolveOptions& options, const RunControl& control) {
  return solve(network, domain, objective, options, RunContext(control));
}

}  // namespace reluopt
