#pragma once

// A LinearModel as a file other solvers read (HiGHS, Gurobi, SCIP, CBC): free-format MPS or CPLEX LP.
#include <string>

#include "lp/linear_model.h"
#include "reluopt/objective.h"

namespace reluopt {

// The model in free MPS: `sense` says which way the written objective goes. The model itself maximizes
// objective^T v + constant; for kMinimize the written objective is its negation (the user's own), and for
// kMaximize an OBJSENSE MAX section says so. The constant is a column `objective_constant` fixed at 1, which
// every reader takes the same way. Every column gets both bounds; integer columns lie between INTORG and INTEND
// markers. A row with two finite sides is a G row with a range.
std::string to_free_mps(const LinearModel& model, Sense sense, const std::string& name = "reluopt");

// The same model in CPLEX LP format; a row with two different finite sides becomes two rows (`_lo`, `_hi`).
std::string to_lp_format(const LinearModel& model, Sense sense);

}  // namespace reluopt
