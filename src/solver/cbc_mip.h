#pragma once

// The CBC adapter of MipSolver (solver/mip_solver.h). Only make_mip_solver and the adapter's tests include this
// header; only cbc_mip.cc includes COIN-OR's CBC, CGL and OSI headers.
#include "solver/mip_solver.h"

namespace reluopt {

// COIN-OR CBC in a worker thread that the caller leaves behind when CBC does not return within a moment of the
// deadline or of a stop request (CBC does not look at the clock inside its root LP and its root strong
// branching; solver/mip_worker.h).
class CbcMipSolver : public MipSolver {
 public:
  MipResult solve(const LinearModel& model, const Deadline& deadline, const MipParameters& parameters) override;
};

// COIN-OR CBC behind the LinearModel interface, in the calling thread: a new CbcModel per solve
// (SOLVER-NOTES.md: reusing one gave wrong answers), wall-clock limit from the deadline, which also carries the
// stop request (Ctrl-C).
MipResult solve_mip_cbc(const LinearModel& model, const Deadline& deadline, const MipParameters& parameters);

// CBC's howOften for a cut frequency of MipParameters: -99 (root only) for any negative frequency, so that the
// solver-neutral kRootOnly and CBC's own -99 both mean the root; k > 0 every k nodes.
int cbc_how_often(int cut_frequency);

}  // namespace reluopt
