#pragma once

#include <optional>

#include "algorithms/problem.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "algorithms/incumbent.h"  // RunContext

namespace reluopt {

// The branch-and-bound prover (docs/MATH.md §11): best-first over sub-boxes of P's box and ReLU splits, each
// node bounded by linear bound propagation and its LP relaxation, points from forward passes at the LP optima
// and at the propagation's best vertex. Uses options.bab, options.threads and options.relax_concave. With
// `start`, that point is the first incumbent. The result's bound is the largest bound of any node left open (or
// pruned within the optimality tolerance), so it is valid when the run stops early. With ModelRows (problem.rows)
// the node LPs carry the rows C f(x) <= e, a node whose LP is proven empty is dropped, integer coordinates are
// branched on with integral bounds, only points that meet the rows with integral integer coordinates become
// incumbents (proof_check.h's feasible_point), and a search that completes with every node proven empty and no
// point reports SolveStatus::kInfeasible. With control.peers the
// search runs over every process of the run: points are traded, open nodes handed between them (bab_share.h),
// and the lead's result has every process's best point, counts and their global bound (valid whenever the run
// stops, a process lost or not); options.bab.node_limit then counts the nodes of all.
SolveResult run_bab(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                    const RunContext& control, const std::optional<EvaluatedPoint>& start = std::nullopt);

}  // namespace reluopt
