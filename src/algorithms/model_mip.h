#pragma once

#include <optional>

#include "core/model_reduction.h"
#include "formulation/mip_formulation.h"
#include "reluopt/solve.h"
#include "reluopt/options.h"
#include "reluopt/run_control.h"

namespace reluopt {

// A MIP method (options.method: mip, mip-cuts, partition) on a reduced model: the formulation of the composite
// over the domain of u with the output rows C y <= e and the integer flags of u, on CBC. Every point CBC finds
// is rounded on the integer coordinates, mapped to v = R u + r and re-evaluated by evaluate(model, v); the best
// within model_tolerance(model) is reported. The bound carries a margin for the composite's rounding; the status
// is infeasible only when CBC proves that the formulation has no point.
//
// With output rows or integers and a composite of one hidden layer, a first CBC run over options.mip.bounds stops
// after first_run_nodes nodes: the small models end within it. A deeper composite has that first run (with
// Anderson et al.'s cuts at its root for mip) only when its formulation is small. The others go on with a MIP
// start from 16 samples (their region problems, then the enhanced search from them, then, where the integer
// neighbourhood is small, search_integer_neighbourhoods from their best point) and the formulation over the
// box and neuron bounds tightened with the rows, integrality and the objective cutoff of that start (every better
// point meets it; algorithms/root_tightening.h), with Anderson et al.'s cuts at its root for mip; both runs'
// bounds hold and the least is reported.
inline constexpr long kFirstRunNodes = 200;
ModelResult run_model_mip(const Model& model, const ReducedModel& reduced, const SolveOptions& options,
                          const Deadline& deadline, const RunControl& control, long first_run_nodes = kFirstRunNodes);

// The integer neighbourhood search of the model MIP (Danna, Rothberg & Le Pape 2005 and Fischetti & Lodi 2003
// search the neighbourhood of an incumbent by a sub-MIP in the same way): the model MIP over the box where each
// integer coordinate of u lies within 1 of the incumbent's, the continuous ones free, with neuron bounds
// propagated over that box, from `start` (a point u of the composite's input); then again around each better
// point, a few times. The best point found by evaluate(model, .), never worse than start's when start is
// feasible; nullopt when neither start nor any point found is feasible.
std::optional<ModelPoint> search_integer_neighbourhoods(const Model& model, const ReducedModel& reduced,
                                                         const SolveOptions& options, const Deadline& deadline,
                                                         const Eigen::VectorXd& start);

// The big-M formulation of a model over the bounds the MIP methods use (options.mip.bounds), with its output
// rows and integer inputs: what `reluopt formulate` writes. Maximizes sign * objective.
MipFormulation model_formulation(const ReducedModel& reduced, const SolveOptions& options, const Deadline& deadline);

}  // namespace reluopt
