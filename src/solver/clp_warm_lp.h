#pragma once

#include <memory>
#include <vector>

#include "reluopt/linear_model.h"
#include "solver/clp_lp.h"

class ClpSimplex;

namespace reluopt {

// One LP kept loaded in CLP and re-solved after column-bound changes, each time by the dual simplex from the
// previous optimal basis (which stays dual feasible when only bounds change). This is the node LP of a small
// branch-and-bound: fixing a binary to 0 or 1 is a bound change. Integrality is ignored.
class ClpWarmLp {
 public:
  explicit ClpWarmLp(const LinearModel& model);
  ~ClpWarmLp();
  ClpWarmLp(const ClpWarmLp&) = delete;
  ClpWarmLp& operator=(const ClpWarmLp&) = delete;

  void set_col_bounds(int col, double lower, double upper);
  // Objective in the model's (maximized) sense, constant included.
  LpSolution solve(double time_limit_seconds = kInfinity);

  // The basis of the last solve, kept so that several neighbours of one LP can each start from it rather than
  // from the previous neighbour's optimum (which is usually farther away).
  void save_basis();
  void restore_basis();

 private:
  std::unique_ptr<ClpSimplex> simplex_;
  double constant_ = 0.0;
  std::vector<unsigned char> saved_status_;
};

}  // namespace reluopt
