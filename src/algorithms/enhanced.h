#pragma once

#include "algorithms/problem.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "algorithms/incumbent.h"  // RunContext

namespace reluopt {

// Algorithm 2 of Perakis & Tsiourvas (the enhanced sampling algorithm): Algorithm 1, plus a local search
// from each LP optimum that is close enough to the best value (the gap test), repeated while it improves.
SolveResult run_enhanced(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                         const RunContext& control);

// Algorithm 2's local search (options.enhanced.local_search) from one point, over interval bounds: a better point
// of a neighbouring region, or nothing when the point is a local optimum in the paper's sense.
std::optional<EvaluatedPoint> local_search_from(const Problem& problem, const SolveOptions& options,
                                                const EvaluatedPoint& start, const Deadline& deadline);

// The gap test of Algorithm 2, line 11, as the paper writes it: |(best - lp) / best| < gap.
bool paper_gap_test(double best, double lp, double gap);

// The same test made safe near zero, where the paper's quotient explodes or divides by zero:
// |best - lp| <= gap * max(|best|, |lp|). Scale-free like the paper's, and true when lp is the best so far.
bool gap_test(double best, double lp, double gap);

}  // namespace reluopt
