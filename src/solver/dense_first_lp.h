#pragma once

#include "lp/linear_model.h"
#include "solver/clp_lp.h"
#include "solver/dense_dual_simplex.h"

namespace reluopt {

// The LP of the sampling hot path: DenseDualSimplex when the model is small enough to hold as a dense
// tableau, CLP when it is larger or when the dense method declines (a check failed, an infinite column
// bound, an infeasible or stalled LP), so the answer never depends on the dense method alone.
// Measured on the fixed-pattern LPs of Xavier 2 x 100 networks (bench/bench_sampling.py, SOLVER-NOTES.md):
// 3.8x CLP's LPs per second at d = 100, 1.6x at d = 1000, the same optima within 1e-6.
class DenseFirstLp {
 public:
  // Tableaus up to this many entries (8 MB) are solved densely.
  static constexpr double kMaxDenseEntries = 1e6;

  LpSolution solve(const LinearModel& model, double time_limit_seconds = kInfinity);
  // Both methods' solves stop on this request (LpSolver::set_stop_request).
  void set_stop_request(const std::atomic<bool>* stop) {
    dense_.set_stop_request(stop);
    clp_.set_stop_request(stop);
  }
  long fallbacks() const { return fallbacks_; }  // models the dense method declined

 private:
  DenseDualSimplex dense_;
  ClpLp clp_;
  long fallbacks_ = 0;
};

}  // namespace reluopt
