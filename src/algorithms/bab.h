#pragma once

#include <optional>

#include "reluopt/options.h"
#include "reluopt/problem.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

// The branch-and-bound prover (docs/MATH.md §11): best-first over sub-boxes of P's box and ReLU splits, each
// node bounded by linear bound propagation and its LP relaxation, points from forward passes at the LP optima
// and at the propagation's best vertex. Uses options.bab, options.threads and options.relax_concave. With
// `start`, that point is the first incumbent; with control.peers, points are traded with the other processes. The result's bound is the largest bound of any node left open
// (or pruned within the optimality tolerance), so it is valid when the run stops early.
SolveResult run_bab(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                    const RunControl& control, const std::optional<EvaluatedPoint>& start = std::nullopt);

// The branch-and-bound over the processes of control.peers (bab_split.cc): P's box is cut into one slab per
// process along its widest coordinate and each process searches its slab alone. The lead reports the best
// point of all and the largest of the slabs' bounds, which is valid for P whenever the run stops; it reports
// no bound when a process's slab has none (a process lost, or stopped before its first bound).
SolveResult run_bab_split(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                          const RunControl& control);

}  // namespace reluopt
