#include "solver/dense_first_lp.h"

namespace reluopt {

LpSolution DenseFirstLp::solve(const LinearModel& model, double time_limit_seconds) {
  if (static_cast<double>(model.num_rows()) * model.num_cols() <= kMaxDenseEntries) {
    LpSolution solution = dense_.solve(model, time_limit_seconds);
    if (solution.status == LpStatus::kOptimal || solution.status == LpStatus::kTimeLimit) return solution;
    ++fallbacks_;
  }
  return clp_.solve(model, time_limit_seconds);
}

}  // namespace reluopt
