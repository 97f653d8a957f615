#pragma once

#include <limits>
#include <vector>

namespace reluopt {

// What an LP solver adapter returns.
enum class LpStatus { kOptimal, kInfeasible, kUnbounded, kTimeLimit, kError };

// A simplex basis: one status per column, then one per row (a row's status is its slack's: basic, or the row's
// activity at its lower or upper side). kFree is a nonbasic variable between its bounds (free or superbasic).
enum class BasisStatus : unsigned char { kBasic, kAtLower, kAtUpper, kFree };
struct LpBasis {
  std::vector<BasisStatus> cols, rows;
  bool empty() const { return cols.empty() && rows.empty(); }
};

struct LpSolution {
  LpStatus status = LpStatus::kError;
  double objective = 0.0;  // in the model's (maximized) sense, constant included
  // An upper bound on the maximum that holds whatever the solver's tolerances did (weak duality from its row
  // duals, solver/clp_lp.cc); +infinity where the adapter computes none.
  double bound = std::numeric_limits<double>::infinity();
  std::vector<double> values;
  int iterations = 0;
  LpBasis basis;  // the optimal basis (empty when not optimal), to start a related LP from (LpSolver::solve_from)
};

// One objective of a kept model (LpSolver::maximize): no primal values, but a bound that is safe to use.
struct LpBound {
  LpStatus status = LpStatus::kError;
  double objective = 0.0;  // the solver's optimal value, constant included
  // An upper bound on the maximum from weak duality with the solver's row duals y: for any y,
  //   c^T v = y^T (A v) + (c - A^T y)^T v <= sum_r y_r (row_upper if y_r > 0 else row_lower)
  //                                          + sum_c r_c (col_upper if r_c > 0 else col_lower),
  // so it holds whatever the solver's tolerances and scaling did, plus an allowance for the rounding of this
  // sum (solver/clp_lp.cc). +infinity when not optimal or when a needed bound is infinite.
  double bound = std::numeric_limits<double>::infinity();
  int iterations = 0;
};

}  // namespace reluopt
