#include "reluopt/solve.h"

#include "algorithms/sampling.h"
#include "reluopt/error.h"
#include "reluopt/problem.h"

namespace reluopt {

Method parse_method(const std::string& name) {
  if (name == "sampling") return Method::kSampling;
  throw Error("unknown method '" + name + "' (available: sampling)");
}

std::string method_name(Method method) {
  switch (method) {
    case Method::kSampling: return "sampling";
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
  if (options.sampling.threads < 0) throw Error("the number of threads must be >= 0");
  const Problem problem = make_problem(network, domain, objective);
  switch (options.method) {
    case Method::kSampling: return run_sampling(problem, options.sampling, control);
  }
  throw Error("unknown method");
}

}  // namespace reluopt
