#pragma once

// The LP solvers of the algorithms and the bounds, in the manner of OR-Tools' linear_solver: one small
// interface, one adapter per backend (solver/clp_lp.h, solver/clp_warm_lp.h), and factories that pick the
// backend, so that no code outside src/solver/ names one. Integrality is ignored (LP relaxation). One object per
// thread. (The sampling hot path solves its LPs through DenseFirstLp, solver/dense_first_lp.h.)
#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <vector>

#include "lp/linear_model.h"
#include "solver/lp_solution.h"

namespace reluopt {

// Where LpSolver::maximize starts the simplex.
//   kWarmPrimal  primal simplex from the previous optimal basis, which stays primal feasible when only the
//                objective changes. Best when the objective sits on columns deep inside the model (bounds on a
//                later layer: 1.4-2x faster than a fresh dual simplex, bench/bench_bounds.cc).
//   kSlackDual   dual simplex from the all-slack basis, as a fresh solve would, without reloading. With every
//                column at the bound its objective favours, that basis is dual feasible, and over a box cut by
//                a few rows it is a few iterations from the optimum (bounds on the first layer over P: 7x
//                faster than warm starts at d = 100, 50x at d = 1000).
//   kWarmDual    dual simplex from the basis the model holds (maximize_from's start): when only rows or bounds
//                were added or changed since that basis was optimal for the same objective, it is still dual
//                feasible.
enum class LpStart { kWarmPrimal, kSlackDual, kWarmDual };

// solve(): one LP, from scratch (LpSolution::bound is safe); solve_from(): the same from a given basis.
// load() + maximize(): many LPs over one polyhedron that differ only in the objective (bound tightening: max
// and min of every pre-activation). The model stays loaded, so a solve costs no reload and can start from the
// previous basis (LpStart).
class LpSolver {
 public:
  virtual ~LpSolver() = default;

  virtual LpSolution solve(const LinearModel& model, double time_limit_seconds = kInfinity) = 0;
  // solve() by the dual simplex from `start`, a basis of `model` (one status per column and per row), e.g. a
  // related LP's optimal basis mapped onto this model's columns and rows. A basis of the wrong size, or one the
  // simplex cannot finish from, gives a fresh solve instead: the answer and its bound are solve()'s either way.
  virtual LpSolution solve_from(const LinearModel& model, const LpBasis& start,
                                double time_limit_seconds = kInfinity) = 0;

  // A stop request (Ctrl-C; may be null) that every later solve looks at after each simplex iteration: a solve
  // it stops ends without an optimum. The flag must outlive the solver.
  virtual void set_stop_request(const std::atomic<bool>* stop) = 0;

  // Keeps `model` (its rows and bounds; its objective is ignored) for maximize(). The time limit of
  // maximize() is wall-clock time.
  virtual void load(const LinearModel& model) = 0;
  virtual LpBound maximize(const std::vector<double>& objective, double constant, LpStart start,
                           double time_limit_seconds = kInfinity) = 0;
  // maximize() by the dual simplex from `start` (one status per column and row of the kept model; null: the
  // all-slack basis, as LpStart::kSlackDual), giving the optimal basis in `end` and the optimum in `point` (each
  // may be null). A start of the
  // wrong size or one the simplex cannot finish from gives the all-slack start instead; the bound is safe
  // either way.
  virtual LpBound maximize_from(const std::vector<double>& objective, double constant, const LpBasis* start,
                                double time_limit_seconds, LpBasis* end, std::vector<double>* point = nullptr) = 0;
};

// One LP kept loaded and re-solved after column-bound changes, each time by the dual simplex from the previous
// optimal basis (which stays dual feasible when only bounds change). This is the node LP of a small
// branch-and-bound: fixing a binary to 0 or 1 is a bound change.
class WarmLpSolver {
 public:
  virtual ~WarmLpSolver() = default;

  virtual void set_col_bounds(int col, double lower, double upper) = 0;
  // Objective in the model's (maximized) sense, constant included.
  virtual LpSolution solve(double time_limit_seconds = kInfinity) = 0;

  // The basis of the last solve, kept so that several neighbours of one LP can each start from it rather than
  // from the previous neighbour's optimum (which is usually farther away).
  virtual void save_basis() = 0;
  virtual void restore_basis() = 0;
};

// What is left of `limit` seconds since `started` (never negative): a second attempt at an LP after a failed
// first one gets only this, so that the two together keep the caller's limit.
inline double time_left(double limit, std::chrono::steady_clock::time_point started) {
  const double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return std::max(0.0, limit - used);
}

// The backend: COIN-OR CLP.
std::unique_ptr<LpSolver> make_lp_solver();
std::unique_ptr<WarmLpSolver> make_warm_lp_solver(const LinearModel& model);

}  // namespace reluopt
