#pragma once

// Runs a MIP backend in a worker thread that can be left behind, so that a time limit and a stop request hold
// within a second whatever the backend is doing (docs/SOLVER-NOTES.md, "Time limits").
#include "solver/mip_solver.h"

namespace reluopt {

// A backend's solve in the calling thread. It looks at the deadline's stop request now and then.
using MipSolveFunction = MipResult (*)(const LinearModel& model, const Deadline& deadline,
                                       const MipParameters& parameters);

// solve(model, deadline, parameters) in a worker thread: returns its result, or, when it has not returned
// kGraceSeconds past the deadline or past a stop request, leaves it behind and returns the last bound it
// reported (status kNoSolution; its points went to on_solution as it found them). A model of at most a few
// thousand nonzeros is solved in the calling thread instead (mip_worker.cc).
MipResult solve_in_worker(MipSolveFunction solve, const LinearModel& model, const Deadline& deadline,
                          const MipParameters& parameters);

}  // namespace reluopt
