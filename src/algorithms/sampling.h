#pragma once

#include "reluopt/options.h"
#include "reluopt/problem.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

// Algorithm 1 of Perakis & Tsiourvas (the sampling algorithm): sample x in P, fix its activation pattern,
// solve the pattern's LP in input space, keep the best, re-evaluated by a forward pass.
//
// Threads: thread t draws samples t, t + T, t + 2T, ... from its own seeded stream and owns one LP object.
// A pattern already solved (by any thread) skips its LP and counts as a duplicate; since the LP of a pattern
// always gives the same point, the set of candidates, and so the answer, depends only on the seed and T when
// the run ends on its sample count.
// Uses options.sampling, options.threads and options.seed; stops at the sample count, the deadline or its
// stop request.
SolveResult run_sampling(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                         const RunControl& control);

// 0 threads means all cores.
int resolve_threads(int threads);

}  // namespace reluopt
