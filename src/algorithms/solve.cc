#include "reluopt/solve.h"

#include <cmath>

#include "algorithms/bab.h"
#include "algorithms/enhanced.h"
#include "algorithms/mip.h"
#include "algorithms/proof_check.h"
#include "algorithms/sampling.h"
#include "reluopt/error.h"
#include "reluopt/problem.h"

namespace reluopt {

Method parse_method(const std::string& name) {
  for (Method method :
       {Method::kSampling, Method::kEnhanced, Method::kMip, Method::kMipCuts, Method::kPartition, Method::kBab})
    if (name == method_name(method)) return method;
  throw Error("unknown method '" + name + "' (available: enhanced, sampling, mip, mip-cuts, partition, bab)");
}

std::string method_name(Method method) {
  switch (method) {
    case Method::kSampling: return "sampling";
    case Method::kMip: return "mip";
    case Method::kMipCuts: return "mip-cuts";
    case Method::kPartition: return "partition";
    case Method::kEnhanced: return "enhanced";
    case Method::kBab: return "bab";
  }
  return "unknown";
}

std::string status_name(SolveStatus status) {
  switch (status) {
    case SolveStatus::kOptimal: return "optimal";
    case SolveStatus::kFeasible: return "feasible";
    case SolveStatus::kNoSolution: return "no_solution";
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
                       const RunControl& control) {
  switch (options.method) {
    case Method::kSampling: return run_sampling(problem, options, deadline, control);
    case Method::kEnhanced: return run_enhanced(problem, options, deadline, control);
    case Method::kBab: return run_bab(problem, options, deadline, control);
    case Method::kMip:
    case Method::kMipCuts:
    case Method::kPartition: return run_mip(problem, options, deadline, control);
  }
  throw Error("unknown method");
}

}  // namespace

SolveResult solve(const Network& network, const Domain& domain, const Objective& objective,
                  const SolveOptions& options, const RunControl& control) {
  validate_options(options, control.time_limit);
  const Deadline deadline(control.time_limit, control.stop);
  const Problem problem = make_problem(network, domain, objective);
  // With a time limit, the proof's cross-check gets its share of it.
  const bool timed_check = options.check_proof && std::isfinite(deadline.remaining());
  SolveResult result = run_method(problem, options, timed_check ? deadline.share(1.0 - kProofCheckShare) : deadline, control);
  check_against_run(problem, result);
  check_proof(problem, options, deadline, result);
  result.seconds = deadline.elapsed();
  return result;
}

}  // namespace reluopt
