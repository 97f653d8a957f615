#pragma once

// The MIP solver of the algorithms, in the manner of OR-Tools' linear_solver and of solver/lp_solver.h: one
// small interface with solver-neutral parameters, one adapter per backend (solver/cbc_mip.h), and a factory that
// picks the backend, so that no code outside src/solver/ names one.
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "lp/linear_model.h"
#include "reluopt/run_control.h"
#include "solver/cut_separator.h"

namespace reluopt {

enum class MipStatus { kOptimal, kFeasible, kInfeasible, kNoSolution, kError };

struct MipResult {
  MipStatus status = MipStatus::kError;
  std::optional<double> objective;  // incumbent, model's (maximized) sense, constant included
  double bound = kInfinity;         // best bound, model's sense, constant included (+inf when unknown)
  long nodes = 0;
  std::vector<double> values;       // incumbent's column values
};

// The cut frequency that separates cuts at the root node only.
inline constexpr int kRootOnly = -1;

struct MipParameters {
  int threads = 1;
  bool verbose = false;                        // the solver's own log on stdout
  const std::vector<double>* start = nullptr;  // a full feasible column vector (MIP start)
  const CutSeparator* separator = nullptr;     // extra cuts, e.g. Anderson et al.
  // Where the separator runs: kRootOnly (any negative value) at the root node, k > 0 every k nodes of the tree
  // (a tree with cuts runs on one thread, solver/cbc_mip.cc).
  int cut_frequency = kRootOnly;
  long node_limit = 0;  // stop after this many branch-and-bound nodes; 0: no limit
  // The solver stops when its incumbent lies within either gap of its bound. The defaults lie far below the
  // 1e-6 relative gap the algorithms report as optimal, which the solver's own defaults would stop short of.
  double relative_gap = 1e-9;
  double absolute_gap = 1e-10;
  // The solver's primal heuristics (rounding and a feasibility pump, Fischetti, Glover & Lodi 2005). Off, the
  // solver branches with none.
  bool primal_heuristics = false;
  // Strong branchings on a variable before branching trusts its pseudo-costs (Achterberg, Koch & Martin 2005's
  // reliability; CBC's numberBeforeTrust); none: the solver's default.
  std::optional<int> reliability;
  // Node selection. From this many nodes on (none: never) the open node of the best bound comes first
  // (best-first search, Land & Doig 1960), which raises the proven bound fastest; before, the solver's own choice
  // (CBC: depth first until a point, then a mix of bound and depth), which finds points sooner and closes small
  // trees in fewer nodes. CBC switches at a multiple of 1000 nodes (at once for 0).
  std::optional<long> best_bound_after;
  // Called now and then from the solver's thread with (incumbent, bound, nodes) in the model's sense.
  std::function<void(std::optional<double>, double, long)> on_progress;
  // Called with the column values of every new incumbent, as the solver finds it.
  std::function<void(const double*)> on_solution;
};

// solve(): maximizes `model` over its integer columns within `deadline`, whose stop request (Ctrl-C) also ends
// the solve. The time limit and the stop request hold within a second whatever the solver is doing: a solver
// that does not return within a moment of either is left behind in its thread (solver/mip_worker.h), and the
// result carries the last bound it reported; its points went to on_solution as it found them. One object per
// thread.
class MipSolver {
 public:
  virtual ~MipSolver() = default;
  virtual MipResult solve(const LinearModel& model, const Deadline& deadline, const MipParameters& parameters) = 0;
};

enum class MipBackend { kCbc };

// The backend: COIN-OR CBC.
std::unique_ptr<MipSolver> make_mip_solver(MipBackend backend = MipBackend::kCbc);

// How many solves this process has left behind, their threads perhaps still running: a program that exits
// while one runs ends with std::quick_exit, not with static destructors that the solver's thread may still use.
int abandoned_mip_solves();

}  // namespace reluopt
