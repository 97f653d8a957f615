#pragma once

#include <memory>
#include <vector>

#include "reluopt/linear_model.h"

class ClpSimplex;

namespace reluopt {

enum class LpStatus { kOptimal, kInfeasible, kUnbounded, kTimeLimit, kError };

struct LpSolution {
  LpStatus status = LpStatus::kError;
  double objective = 0.0;  // in the model's (maximized) sense, constant included
  std::vector<double> values;
  int iterations = 0;
};

// COIN-OR CLP behind the LinearModel interface. One object per thread: it keeps one ClpSimplex and
// reloads it for every model. Each solve starts from a fresh dual simplex, which SOLVER-NOTES.md measured
// faster than warm starts between unrelated activation regions. Integrality is ignored (LP relaxation).
class ClpLp {
 public:
  ClpLp();
  ~ClpLp();
  ClpLp(const ClpLp&) = delete;
  ClpLp& operator=(const ClpLp&) = delete;

  LpSolution solve(const LinearModel& model, double time_limit_seconds = kInfinity);

 private:
  std::unique_ptr<ClpSimplex> simplex_;
};

}  // namespace reluopt
