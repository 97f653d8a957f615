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
};

enum class StopReason { kCompleted, kTimeLimit, kInterrupted };

std::string status_name(SolveStatus status);

// A relative gap of at most 1e-6, or an absolute one of at most 1e-9, counts as proven optimal.
inline constexpr double kOptimalRelativeGap = 1e-6;
inline constexpr double kOptimalAbsoluteGap = 1e-9;
std::string stop_reason_name(StopReason reason);

struct SolveResult {
  std::string method;
  SolveStatus status = SolveStatus::kNoSolution;
  StopReason stopped_by = StopReason::kCompleted;
  // Objective g(x) in the user's sense, from a double-precision forward pass at x (never the solver's value).
  double objective = 0.0;
  Eigen::VectorXd x;
  Eigen::VectorXd outputs;           // network outputs at x
  std::optional<double> bound;       // a valid bound in the user's sense, when a method proves one
  std::optional<double> gap;         // |bound - objective| / max(|objective|, 1e-9), when both exist
  long nodes = 0;                    // branch-and-bound nodes (MIP methods)
  long local_searches = 0;           // enhanced sampling: local searches started
  long mips = 0;                     // enhanced sampling: local MIPs solved
  // MIP methods: how the model was built.
  std::string bound_method;          // "interval", "lp", "progressive"
  int binaries = 0;                  // unstable neurons, each with a binary
  int partitions = 0;                // N of the partition formulation
  bool warm_started = false;
  long samples = 0;
  long lps = 0;
  long duplicate_patterns = 0;
  long lp_failures = 0;              // LPs that ended without an optimum (the sample itself was kept)
  double seconds = 0.0;
  std::uint64_t seed = 0;
  int threads = 1;
  double domain_violation = 0.0;     // largest bound/row violation of x (0 when inside)
  // Sampling methods: X_i, the best value reached from sample i's region (its LP maximum; for the enhanced
  // algorithm the local search's result when that is higher), in the user's sense, by sample index.
  std::vector<std::pair<long, double>> sample_values;
  // (seconds, objective) each time the incumbent improved, objective in the user's sense.
  std::vector<std::pair<double, double>> trajectory;
  std::string version = RELUOPT_VERSION;
};

}  // namespace reluopt
