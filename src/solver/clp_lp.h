#pragma once

#include <memory>
#include <vector>

#include "reluopt/linear_model.h"
#include "solver/lp_solution.h"

class ClpSimplex;

namespace reluopt {

// One objective of a kept model (ClpLp::maximize): no primal values, but a bound that is safe to use.
struct LpBound {
  LpStatus status = LpStatus::kError;
  double objective = 0.0;  // CLP's optimal value, constant included
  // An upper bound on the maximum from weak duality with CLP's row duals y: for any y,
  //   c^T v = y^T (A v) + (c - A^T y)^T v <= sum_r y_r (row_upper if y_r > 0 else row_lower)
  //                                          + sum_c r_c (col_upper if r_c > 0 else col_lower),
  // so it holds whatever CLP's tolerances and scaling did, plus an allowance for the rounding of this sum.
  // +infinity when not optimal or when a needed bound is infinite.
  double bound = kInfinity;
  int iterations = 0;
};

// Where ClpLp::maximize starts the simplex.
//   kWarmPrimal  primal simplex from the previous optimal basis, which stays primal feasible when only the
//                objective changes. Best when the objective sits on columns deep inside the model (bounds on a
//                later layer: 1.4-2x faster than a fresh dual simplex, bench/bench_bounds.cc).
//   kSlackDual   dual simplex from the all-slack basis, as a fresh solve would, without reloading. With every
//                column at the bound its objective favours, that basis is dual feasible, and over a box cut by
//                a few rows it is a few iterations from the optimum (bounds on the first layer over P: 7x
//                faster than warm starts at d = 100, 50x at d = 1000).
enum class LpStart { kWarmPrimal, kSlackDual };

// COIN-OR CLP behind the LinearModel interface. One object per thread. Integrality is ignored (LP relaxation).
//
// solve(): the sampling hot path. It reloads one ClpSimplex for every model and starts a fresh dual simplex,
// which SOLVER-NOTES.md measured faster than warm starts between unrelated activation regions.
//
// load() + maximize(): many LPs over one polyhedron that differ only in the objective (bound tightening:
// max and min of every pre-activation). The model stays loaded in a second ClpSimplex, so a solve costs no
// reload and can start from the previous basis (LpStart).
class ClpLp {
 public:
  ClpLp();
  ~ClpLp();
  ClpLp(const ClpLp&) = delete;
  ClpLp& operator=(const ClpLp&) = delete;

  LpSolution solve(const LinearModel& model, double time_limit_seconds = kInfinity);

  // Keeps `model` (its rows and bounds; its objective is ignored) for maximize(). The time limit of
  // maximize() is wall-clock time.
  void load(const LinearModel& model);
  LpBound maximize(const std::vector<double>& objective, double constant, LpStart start,
                   double time_limit_seconds = kInfinity);

 private:
  std::unique_ptr<ClpSimplex> simplex_;
  std::unique_ptr<ClpSimplex> kept_;  // the model of load(), with the basis of the last maximize()
  LinearModel kept_model_;            // its rows and bounds, for the dual bound
};

}  // namespace reluopt
