#pragma once

#include <optional>

#include "algorithms/problem.h"
#include "bounds/bounds.h"
#include "formulation/mip_formulation.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "algorithms/incumbent.h"  // RunContext

namespace reluopt {

// The MIP baselines of the paper on CBC: big-M (kMip), big-M + Anderson cuts (kMipCuts) and the partition
// formulation (kPartition), with bounds from options.mip.bounds and, optionally, Algorithm 1 run first within
// the same deadline to give CBC a MIP start (the paper's warm start, Section 5.2).
// With `start`, that point is CBC's MIP start and no warm-start sampling runs.
// Without either (or when the warm start found nothing), the best forward pass at the interior point of P and
// at 32 points sampled uniformly from P (seeded by options.seed) is the MIP start, so a run on a non-empty P
// always ends with a point, even when the deadline has already passed or a stop was requested.
// result.mip.warm_started is true only for a given start or a warm start that found a point.
SolveResult run_mip(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                    const RunContext& control, const std::optional<EvaluatedPoint>& start = std::nullopt);

// The formulation of options.method (big-M for mip and mip-cuts, partition with options.mip.partitions) with
// options.relax_concave (on the concave neurons of `relaxed` alone when given), over `bounds`; incomplete past
// `deadline` (MipFormulation::complete).
MipFormulation build_formulation(const Network& network, const Domain& domain, const Objective& objective,
                                 const SolveOptions& options, const NeuronBounds& bounds,
                                 const Deadline* deadline = nullptr, const FreeMask* relaxed = nullptr);

// The neuron bounds the MIP methods build their formulation with: options.mip.bounds on options.threads.
NeuronBounds mip_bounds(const Network& network, const Domain& domain, const SolveOptions& options,
                        const Deadline& deadline);

// An upper bound on sign * g over the domain from the last hidden layer's bounds alone, with a round-off margin:
// the bound a MIP method reports when the solver gives none in the time it had.
double interval_objective_bound(const Network& network, const Objective& objective, const NeuronBounds& bounds);

// Sets gap and status from objective and bound: optimal when the gap is closed (see result.h).
void close_gap(SolveResult& result);

}  // namespace reluopt
