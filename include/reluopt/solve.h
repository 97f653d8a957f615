#pragma once

#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

// The library's front door: validates the problem (throws reluopt::Error on bad input) and runs the
// chosen method. The outcome, including "nothing found", is in the result.
SolveResult solve(const Network& network, const Domain& domain, const Objective& objective,
                  const SolveOptions& options, const RunControl& control = {});

// The root LP relaxation of a MIP method's formulation (options.method: mip, mip-cuts without its cuts, or
// partition), with the bounds of options.mip.bounds: a valid bound on the optimum, in the user's sense.
RelaxationReport relax(const Network& network, const Domain& domain, const Objective& objective,
                       const SolveOptions& options, const RunControl& control = {});

// How many MIP solver threads this process has left running past a time limit or a stop request (they stop at
// the solver's next check; docs/SOLVER-NOTES.md, "Time limits"). A program that exits while one may still run
// ends with std::quick_exit, so that no static destructor runs under it.
int abandoned_solver_threads();

}  // namespace reluopt
