#pragma once

#include "algorithms/incumbent.h"  // RunContext
#include "algorithms/problem.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

// The relaxing walk (docs/MATH.md §15; Tong, Cai & Serra, CPAIOR 2024, arXiv 2401.03451): the LP relaxation of
// the big-M model gives a start; a walk fixes the pattern at its point, solves the region's LP, steps a little
// past the optimum and repeats while the value improves, never solving a pattern twice. Then options.walk
// rounds of diversification: force first-layer (then second-layer) neurons to the state opposite to the best
// point's with a probability of |state - relaxed value|, re-solve the relaxation with those fixings and walk
// from its optimum. The rounds run on options.threads threads, sharing the incumbent and the visited patterns.
// The root relaxation gets at most half of the time; when it is not solved by then, the walks start from
// uniform samples of P (options.sampling.samples of them at most) instead of the diversified relaxations.
// Every LP has the deadline's remaining time as its limit and stops at the deadline's stop request.
SolveResult run_walk(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                     const RunContext& control);

}  // namespace reluopt
