#pragma once

#include <optional>

#include "algorithms/incumbent.h"  // RunContext
#include "algorithms/problem.h"
#include "reluopt/options.h"
#include "reluopt/result.h"

namespace reluopt {

// The prover a timed default run uses for `problem` (docs/METHODS.md, "The prover at the end of a timed run"):
// with a model's rows or integers the model MIP (run_rows_mip) when options.enhanced.prover is mip, else bab (both
// provers at once are for the plain problem only); on the plain problem options.enhanced.prover.
Prover prover_for(const Problem& problem, const SolveOptions& options);

// That prover from `start` (or from nothing) within `deadline`: bab, the big-M MIP, both at once (each on half of
// the threads, the first proof ends both) or, with a model's rows, the model MIP.
SolveResult run_prover(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                       const RunContext& control, const std::optional<EvaluatedPoint>& start);

// The first proof of a timed default run: the prover from nothing for `deadline` (the first
// options.enhanced.first_proof of the run), so that what bab or the MIP proves in a fraction of a second the
// default proves in about that time. A result with status optimal or infeasible ends the run; otherwise its best
// point joins the search's when the prover resumes at the end.
SolveResult run_first_proof(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                            const RunContext& control);

// Whether a prover's result settles the run: a proven optimum, or proven infeasibility.
bool proven(const SolveResult& result);

// The run's result when the first proof ends it (a proof, or the run's own limit): the prover's, as the default's.
SolveResult first_proof_result(SolveResult first, const Deadline& deadline);

// Joins the first proof to the search that followed it (started `search_start` seconds into the run): the search's
// profiles go on the run's clock after the prover's, and the better point of both is the one the prover resumes from.
void join_first_proof(const Problem& problem, const SolveResult& first, double search_start, SolveResult& result);

// After the prover at the end: the tighter of both bounds, and the nodes of both.
void keep_first_bound(const Problem& problem, const SolveResult& first, SolveResult& result);

}  // namespace reluopt
