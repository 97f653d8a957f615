#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace reluopt {

// What the optimizer found (never whether a call worked: bad input is an exception).
enum class SolveStatus {
  kOptimal,     // the bound closes on the objective
  kFeasible,    // a solution, not proven optimal
  kNoSolution,  // nothing found within the limits
  kInfeasible,  // proven: no point satisfies the constraints (a model's MIP, reluopt/solve.h)
};

enum class StopReason { kCompleted, kTimeLimit, kInterrupted, kStopRule };

std::string status_name(SolveStatus status);

// A relative gap of at most 1e-6, or an absolute one of at most 1e-9, counts as proven optimal.
inline constexpr double kOptimalRelativeGap = 1e-6;
inline constexpr double kOptimalAbsoluteGap = 1e-9;
std::string stop_reason_name(StopReason reason);

// What the stopping rule (SamplingOptions::stop_rule) decided, from its last check. Values in the user's sense:
// for a minimization the rule runs on -g and estimate, lower and upper are turned back (lower <= upper).
enum class StopRuleVerdict {
  kStopped,     // a check passed: the run stopped there
  kNotReached,  // the sample cap, the time limit or Ctrl-C came first (the last check had a fit)
  kNoFit,       // no check had a finite-endpoint fit to decide on (too few or all-equal values)
};
std::string stop_rule_verdict_name(StopRuleVerdict verdict);  // "stopped", "not_reached", "no_fit"

struct StopRuleReport {
  double eps = 0.0;
  double delta = 0.0;
  StopRuleVerdict verdict = StopRuleVerdict::kNoFit;
  long samples_at_decision = 0;  // n of the last check (0: none)
  int checks = 0;
  bool fitted = false;           // the last check had a fit; the fields below are from it
  std::string family;            // the fit used ("beta", "reversed_weibull", "genextreme")
  double estimate = 0.0;         // the fitted optimum M
  double lower = 0.0;            // [lower, upper]: from the best value so far to the far end of M's interval
  double upper = 0.0;            //   (+-infinity when the likelihood is too flat to bound M)
  double probability = 1.0;      // P(best value is more than eps short of M) under the fit
  double probability_upper = 1.0;  // the same with M at the far end of its interval (what the rule tests)
  double n_required = 0.0;       // samples at which the test would pass if the fit stayed the same
};

// How a run went, in units that every method shares.
struct RunStats {
  double seconds = 0.0;
  std::uint64_t seed = 0;
  int threads = 1;
  long lps = 0;    // LPs solved: per sample, per walk step, per bab node, per local-search node
  long nodes = 0;  // branch-and-bound nodes (bab, the MIP methods, enhanced's prover)
  // Unstable neurons modelled without a fixed state or a binary (SolveOptions::relax_concave), in the region LPs
  // and the MIPs alike.
  int concave_neurons = 0;
  std::string version = RELUOPT_VERSION;
};

// Sampling and enhanced sampling (and a MIP's warm start, which samples).
struct SamplingStats {
  long samples = 0;
  long duplicate_patterns = 0;
  long lp_failures = 0;  // LPs that ended without an optimum (the sample itself was kept)
  long infeasible_regions = 0;  // a model's region problems that its rows (or integrality) left without a point
  // X_i, the best value reached from sample i's region (its LP maximum; for the enhanced algorithm the local
  // search's result when that is higher), in the user's sense, by sample index (SamplingOptions::record_values).
  std::vector<std::pair<long, double>> values;
};

// Enhanced sampling's local searches (Algorithm 2).
struct EnhancedStats {
  long local_searches = 0;  // local searches started
  long local_mips = 0;      // local MIPs solved
};

// The gradient ascent (the gradient method, and the ascents of enhanced sampling).
struct GradientStats {
  long steps = 0;          // forward and backward passes of the ascents
  long perturbations = 0;  // restarts from a perturbed best point
};

struct WalkStats {
  long walks = 0;  // walks through regions started (one per relaxation solved)
};

// How a MIP was built (the MIP methods, and enhanced's MIP prover).
struct MipStats {
  std::string bound_method;  // "interval", "lp", "progressive"; empty when no MIP was built
  int binaries = 0;          // unstable neurons, each with a binary
  int partitions = 0;        // N of the partition formulation
  bool warm_started = false;
};

// A run over several processes (mpirun): how many, and from how many the lead heard at the end.
struct DistributedStats {
  int ranks = 1;
  int ranks_finished = 1;
  double communication_seconds = 0.0;  // the lead's Peers::communication_seconds()
};

// What a run found (the outcome) and how it went (the statistics, grouped by the part of the run that counts them).
struct SolveResult {
  std::string method;
  SolveStatus status = SolveStatus::kNoSolution;
  StopReason stopped_by = StopReason::kCompleted;
  // Objective g(x) in the user's sense, from a double-precision forward pass at x (never the solver's value).
  double objective = 0.0;
  Eigen::VectorXd x;
  Eigen::VectorXd outputs;           // network outputs at x
  double domain_violation = 0.0;     // largest bound/row violation of x (0 when inside)
  std::optional<double> bound;       // a valid bound in the user's sense, when a method proves one
  std::optional<double> gap;         // |bound - objective| / max(|objective|, 1e-9), when both exist
  std::string prover;                // what proved the bound: "bab", "mip" or "both" (bab, a timed enhanced run)
  // (seconds, objective) each time the incumbent improved, objective in the user's sense.
  std::vector<std::pair<double, double>> trajectory;
  // (seconds, bound) each time the proven bound improved (bab, and the proving share of enhanced), user's sense.
  std::vector<std::pair<double, double>> bound_trajectory;
  std::optional<StopRuleReport> stop_rule;  // with SamplingOptions::stop_rule
  // Not empty when the run contradicted its own proof: a bound below a value it evaluated, or a point that
  // SolveOptions::check_proof found above the bound. The bound is then withdrawn and the status never optimal.
  std::string solver_failure;
  // With SolveOptions::check_proof: what the check ran and found; empty without it.
  std::string proof_check;

  RunStats run;
  SamplingStats sampling;
  EnhancedStats enhanced;
  GradientStats gradient;
  WalkStats walk;
  MipStats mip;
  DistributedStats distributed;
};

// What relax() (reluopt/solve.h) reports: the root LP relaxation's bound of a MIP formulation.
struct RelaxationReport {
  double bound = 0.0;
  int binaries = 0;          // unstable neurons
  double bounds_seconds = 0.0;
  double lp_seconds = 0.0;
  std::string formulation;   // "big-M" or "partition (N=..)"
  std::string bound_method;
};

}  // namespace reluopt
