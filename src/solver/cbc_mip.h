#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "lp/linear_model.h"
#include "reluopt/run_control.h"
#include "solver/cut_separator.h"

namespace reluopt {

enum class MipStatus { kOptimal, kFeasible, kInfeasible, kNoSolution, kError };

struct MipSolution {
  MipStatus status = MipStatus::kError;
  std::optional<double> objective;  // incumbent, model's (maximized) sense, constant included
  double bound = kInfinity;         // best bound, model's sense, constant included (+inf when unknown)
  long nodes = 0;
  std::vector<double> values;       // incumbent's column values
};

struct MipOptions {
  int threads = 1;
  bool verbose = false;                    // CBC's own log on stdout
  const std::vector<double>* start = nullptr;  // a full feasible column vector (MIP start)
  const CutSeparator* separator = nullptr;     // extra cuts, e.g. Anderson et al.
  int cut_frequency = -99;                 // CBC's howOften: -99 root only, k > 0 every k nodes (one thread)
  long node_limit = 0;                     // stop after this many branch-and-bound nodes; 0: no limit
  // CBC's simple rounding and feasibility pump (Fischetti, Glover & Lodi 2005). Off, CBC branches with no
  // primal heuristic at all (CbcModel::branchAndBound adds none by itself).
  bool primal_heuristics = false;
  // Called now and then from the solver's thread with (incumbent, bound, nodes) in the model's sense.
  std::function<void(std::optional<double>, double, long)> on_progress;
  // Called with the column values of every new incumbent, as CBC finds it.
  std::function<void(const double*)> on_solution;
};

// The MIP solve every algorithm calls: CBC in a worker thread that the caller leaves behind when CBC does not
// return within a moment of the deadline or of a stop request (CBC does not look at the clock inside its root
// LP and its root strong branching). A solve left behind returns the points CBC reported through on_solution
// and the last bound it reported before the deadline; its thread runs on, detached, with its hooks cut off, until
// CBC next looks at its stop request (docs/SOLVER-NOTES.md, "Time limits").
MipSolution solve_mip(const LinearModel& model, const Deadline& deadline, const MipOptions& options);

// COIN-OR CBC behind the LinearModel interface, in the calling thread: a new CbcModel per solve
// (SOLVER-NOTES.md: reusing one gave wrong answers), wall-clock limit from the deadline, which also carries the
// stop request (Ctrl-C).
MipSolution solve_mip_cbc(const LinearModel& model, const Deadline& deadline, const MipOptions& options);

// How many solves this process has left behind, their threads perhaps still running: a program that exits
// while one runs ends with std::quick_exit, not with static destructors that CBC's thread may still use.
int abandoned_mip_solves();

}  // namespace reluopt
