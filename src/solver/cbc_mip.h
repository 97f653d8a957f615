#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "reluopt/cut_separator.h"
#include "reluopt/linear_model.h"
#include "reluopt/run_control.h"

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

// COIN-OR CBC behind the LinearModel interface: a new CbcModel per solve (SOLVER-NOTES.md: reusing one gave
// wrong answers), wall-clock limit from the deadline, which also carries the stop request (Ctrl-C).
MipSolution solve_mip(const LinearModel& model, const Deadline& deadline, const MipOptions& options);

}  // namespace reluopt
