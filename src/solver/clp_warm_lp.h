#pragma once

#include <memory>
#include <vector>

#include "lp/linear_model.h"
#include "solver/lp_solver.h"

class ClpSimplex;

namespace reluopt {

// The COIN-OR CLP adapter of WarmLpSolver: the LP stays loaded in one ClpSimplex, and each solve() is CLP's
// dual simplex from the basis the previous one left.
class ClpWarmLp final : public WarmLpSolver {
 public:
  explicit ClpWarmLp(const LinearModel& model);
  ~ClpWarmLp() override;
  ClpWarmLp(const ClpWarmLp&) = delete;
  ClpWarmLp& operator=(const ClpWarmLp&) = delete;

  void set_col_bounds(int col, double lower, double upper) override;
  LpSolution solve(double time_limit_seconds = kInfinity) override;
  void save_basis() override;
  void restore_basis() override;

 private:
  std::unique_ptr<ClpSimplex> simplex_;
  double constant_ = 0.0;
  std::vector<unsigned char> saved_status_;
};

}  // namespace reluopt
