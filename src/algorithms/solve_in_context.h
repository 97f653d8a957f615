#pragma once

#include "algorithms/incumbent.h"  // RunContext
#include "algorithms/problem.h"    // ModelRows
#include "reluopt/solve.h"
#include "reluopt/verify.h"

namespace reluopt {

// solve() and verify() (reluopt/solve.h, reluopt/verify.h) for a run that carries more than a caller's
// RunControl: the command line's runs over several processes (context.peers), where every process calls them.
SolveResult solve(const Network& network, const Domain& domain, const Objective& objective,
                  const SolveOptions& options, const RunContext& context);
// solve() on the composite network of a reduced model (core/model_reduction.h) with its rows on the outputs and
// its integer inputs, for the methods that meet them (method_takes_rows). With empty rows it is the solve() above.
// The problem runs unscaled (core/scaling.h): the rows are in the network's own units.
SolveResult solve(const Network& network, const Domain& domain, const Objective& objective, ModelRows rows,
                  const SolveOptions& options, const RunContext& context);
// Whether run_method's `method` meets ModelRows. The MIP methods take a model through algorithms/model_mip.h.
bool method_takes_rows(Method method);
VerifyResult verify(const Network& network, const VnnlibProperty& property, const VerifyOptions& options,
                    const RunContext& context);

}  // namespace reluopt
