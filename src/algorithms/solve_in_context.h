#pragma once

#include "algorithms/incumbent.h"  // RunContext
#include "reluopt/solve.h"
#include "reluopt/verify.h"

namespace reluopt {

// solve() and verify() (reluopt/solve.h, reluopt/verify.h) for a run that carries more than a caller's
// RunControl: the command line's runs over several processes (context.peers), where every process calls them.
SolveResult solve(const Network& network, const Domain& domain, const Objective& objective,
                  const SolveOptions& options, const RunContext& context);
VerifyResult verify(const Network& network, const VnnlibProperty& property, const VerifyOptions& options,
                    const RunContext& context);

}  // namespace reluopt
