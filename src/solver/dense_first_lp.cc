#include "solver/dense_first_lp.h"

#include <chrono>

namespace reluopt {

// CLP gets what the dense attempt left of the time: a dense solve that stalls after seconds of pivots must not
// hand CLP the whole limit again.
LpSolution DenseFirstLp::solve(const LinearModel& model, double time_limit_seconds) {
  if (static_cast<double>(model.num_rows()) * model.num_cols() <= kMaxDenseEntries) {
    const auto start = std::chrono::steady_clock::now();
    LpSolution solution = dense_.solve(model, time_limit_seconds);
    if (solution.status == LpStatus::kOptimal || solution.status == LpStatus::kTimeLimit) return solution;
    ++fallbacks_;
    time_limit_seconds = time_left(time_limit_seconds, start);
    if (time_limit_seconds <= 0.0) {
      solution.status = LpStatus::kTimeLimit;
      return solution;
    }
  }
  return clp_.solve(model, time_limit_seconds);
}

}  // namespace reluopt
