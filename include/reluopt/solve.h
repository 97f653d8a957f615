#pragma once

#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

// The library's front door: validates the problem (throws reluopt::Error on bad input) and runs the
// chosen method. The outcome, including "nothing found", is in the result.
SolveResult solve(const Network& network, const Domain& domain, const Objective& objective,
                  const SolveOptions& options, const RunControl& control = {});

}  // namespace reluopt
