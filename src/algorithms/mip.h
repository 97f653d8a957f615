#pragma once

#include <optional>

#include "reluopt/options.h"
#include "reluopt/problem.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

// The MIP baselines of the paper on CBC: big-M (kMip), big-M + Anderson cuts (kMipCuts) and the partition
// formulation (kPartition), with bounds from options.mip.bounds and, optionally, Algorithm 1 run first within
// the same deadline to give CBC a MIP start (the paper's warm start, Section 5.2).
// With `start`, that point is CBC's MIP start and no warm-start sampling runs.
SolveResult run_mip(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                    const RunControl& control, const std::optional<EvaluatedPoint>& start = std::nullopt);

// Sets gap and status from objective and bound: optimal when the gap is closed (see result.h).
void close_gap(SolveResult& result);

}  // namespace reluopt
