#include "reluopt/solve.h"

#include "algorithms/enhanced.h"
#include "algorithms/mip.h"
#include "algorithms/sampling.h"
#include "reluopt/error.h"
#include "reluopt/problem.h"

namespace reluopt {

Method parse_method(const std::string& name) {
  for (Method method : {Method::kSampling, Method::kEnhanced, Method::kMip, Method::kMipCuts, Method::kPartition})
    if (name == method_name(method)) return method;
  throw Error("unknown method '" + name + "' (available: enhanced, sampling, mip, mip-cuts, partition)");
}

std::string method_name(Method method) {
  switch (method) {
    case Method::kSampling: return "sampling";
    case Method::kMip: return "mip";
    case Method::kMipCuts: return "mip-cuts";
    case Method::kPartition: return "partition";
    case Method::kEnhanced: return "enhanced";
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
  }
  return "unknown";
}

SolveResult solve(const Network& network, const Domain& domain, const Objective& objective,
                  const SolveOptions& options, const RunControl& control) {
  if (options.sampling.samples < 0) throw Error("the number of samples must be >= 0");
  if (options.threads < 0) throw Error("the number of threads must be >= 0");
  if (options.mip.partitions < 1) throw Error("the number of partitions must be >= 1");
  if (options.mip.warm_start_samples < 1) throw Error("the number of warm-start samples must be >= 1");
  const Deadline deadline(control.time_limit, control.stop);
  const Problem problem = make_problem(network, domain, objective);
  switch (options.method) {
    case Method::kSampling: return run_sampling(problem, options, deadline, control);
    case Method::kEnhanced: return run_enhanced(problem, options, deadline, control);
    case Method::kMip:
    case Method::kMipCuts:
    case Method::kPartition: return run_mip(problem, options, deadline, control);
  }
  throw Error("unknown method");
}

}  // namespace reluopt
