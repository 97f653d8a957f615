#pragma once

#include <atomic>
#include <utility>
#include <vector>

#include "lp/linear_model.h"
#include "solver/lp_solution.h"

namespace reluopt {

// A dense dual simplex method in tableau form, for the small dense LPs of the sampling hot path (the
// fixed-pattern LP of MATH.md §2: d columns in a box, one dense row per unstable neuron).
//
// With x the columns (bounded: l <= x <= u) and r = A x the row activities (L <= r <= U), the m basic
// variables are written in the n nonbasic ones, x_B = -T x_N, and the m x n tableau T is kept explicitly.
// It starts from the slack basis (x_B = r, T = -A) with every column at the bound its objective coefficient
// favours, which is dual feasible, and runs the bounded dual simplex (Dantzig 1954; the textbook form of
// Chvatal, Linear Programming, ch. 8 and 10): the leaving row is the most infeasible basic variable relative
// to its tableau row norm; the entering column comes from a bound-flipping ratio test (boxed columns whose
// breakpoint is passed jump to their other bound) with Harris' two passes at the blocking breakpoint. A
// pivot updates all
// of T, O(m n) flops of contiguous row arithmetic: for m ~ n ~ 100 that is a few microseconds, where CLP's
// sparse LU machinery spends ~40 us an iteration on the same dense model.
//
// The answer is checked before it is returned: the point must satisfy every row and column bound of the
// original model, and the reduced costs recomputed from the final tableau must be dual feasible. Whatever
// fails (an infinite column bound, an infeasible LP, too many iterations, a failed check) returns kError or
// kInfeasible, and the caller solves the model with CLP instead (see PatternLpSolver).
class DenseDualSimplex {
 public:
  LpSolution solve(const LinearModel& model, double time_limit_seconds = kInfinity);
  // The solve stops (kTimeLimit) soon after *stop becomes true: a tableau of a million entries takes about a
  // millisecond a pivot, and a solve can take thousands of pivots.
  void set_stop_request(const std::atomic<bool>* stop) { stop_ = stop; }

 private:
  bool load(const LinearModel& model);  // the slack basis; false for an infinite column bound
  int leaving_row() const;              // the most infeasible basic row relative to its weight; -1: optimal
  // The entering column for leaving row p (-1: none, the LP is infeasible); the columns to flip in flips_.
  int entering_column(int p, bool to_lower, double shortfall);
  void flip_bounds();                   // moves the columns of flips_ to their other bound
  void pivot(int p, int q, bool to_lower, double target);
  bool verified_point(const LinearModel& model, std::vector<double>& x) const;
  double* tableau_row(int i) { return &tableau_[static_cast<std::size_t>(i) * cols_]; }
  const double* tableau_row(int i) const { return &tableau_[static_cast<std::size_t>(i) * cols_]; }

  const std::atomic<bool>* stop_ = nullptr;
  int cols_ = 0;                        // n
  // Reused between solves so that the hot path does not allocate.
  std::vector<double> tableau_;         // m x n, row-major
  std::vector<double> reduced_cost_;    // of the n nonbasic variables (minimization of -objective)
  std::vector<double> row_weight_;      // 1 + ||row i of T||^2
  std::vector<int> basic_, nonbasic_;   // variable in each row / tableau column
  std::vector<double> lower_, upper_, cost_, value_;  // per variable: n columns, then the kept rows
  std::vector<char> at_upper_;          // nonbasic variables: at the upper bound
  std::vector<int> rows_;               // model rows with a finite side
  std::vector<std::pair<double, int>> candidates_;  // ratio test: (|d_j / alpha_j|, tableau column j)
  std::vector<int> flips_;              // columns that move to their other bound in this iteration
};

}  // namespace reluopt
