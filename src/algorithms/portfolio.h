#pragma once

#include "algorithms/problem.h"
#include "algorithms/sampling.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "algorithms/incumbent.h"  // RunContext

namespace reluopt {

// How the default's search phase (docs/MATH.md §17) deals its threads: `walk_threads` run the relaxing walk,
// the others the ascended Algorithm 2.
struct PortfolioSplit {
  int walk_threads = 0;
  int search_threads = 1;
};

// The rule, by measurement (bench/results/heuristics_set.md): in a timed run on one process with at least two
// threads and at least kPortfolioWalkInputs inputs, one thread walks. Untimed runs end on their sample count and
// keep every thread on Algorithm 2, so that the same seed and thread count give the same answer.
constexpr int kPortfolioWalkInputs = 1000;
PortfolioSplit portfolio_split(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                               const RunContext& control);

// In a timed run the local search of each thread may take at most this share of the thread's time: the
// ascents and region LPs get the rest, so where a neighbour LP is expensive the default still climbs from as
// many samples as the gradient method (bench/results/heuristics_set.md).
constexpr double kLocalSearchShare = 0.2;

// The improvers of `inner`, each skipping the local search from a start below its thread's best while the
// thread has spent more than `share` of its time (since the improver was made) in local searches, and
// limiting such a search to what is left of `share` of the whole run. A start that is the thread's best
// always gets its whole search.
ImproverFactory budgeted_improvers(ImproverFactory inner, double share, const Deadline& deadline);

// The movers of `inner`, each skipping the region LP of a moved point that falls short of the best region
// optimum of its thread by
// more than twice the largest gain a region LP has shown over its moved point on that thread (after ten LPs).
MoverFactory hopeful_regions(MoverFactory inner);

// The default's search phase: Algorithm 2 with the ascent (improver, movers) and, by portfolio_split, the
// relaxing walk beside it, whose best point then gets a local search of its own; the result keeps the better
// point of both and both anytime profiles. In a timed run the local searches are budgeted (kLocalSearchShare) and hopeless regions skip their LP
// (hopeful_regions).
SolveResult run_portfolio_search(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                                 const RunContext& control, const ImproverFactory& improver,
                                 const MoverFactory& movers);

}  // namespace reluopt
