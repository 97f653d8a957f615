#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "bounds/bounds.h"
#include "bounds/symbolic_bounds.h"
#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/run_control.h"
#include "solver/lp_solver.h"

namespace reluopt {

// The first layer's bounds under a node's splits (docs/MATH.md §10, "first-layer bounds under splits"): for
// each neuron j of layer 0 that `bounds` leave unstable and `skip` (may be null) does not mark,
//     u_j = max { w_j^T x + b_j : x in Q },   l_j = min { same },
//     Q = { lo <= x <= hi, A x <= b, w_i^T x + b_i >= 0 (i split active), w_i^T x + b_i <= 0 (i split inactive) },
// each the safe dual bound of an LP in d columns (LpSolver::maximize), kept where tighter than `bounds`. A
// neuron of Q's constant sign becomes stable. An LP that is not solved to optimality (Q empty by the solver's
// tolerances, or the deadline) leaves the bounds as they are: emptiness is decided by safe bounds only (a split
// that contradicts them, symbolic_bounds.h). Counts the LPs solved in `lps` (may be null).
//
// The optimal bases of these LPs go to `bases` (may be null), and `from` (may be null) gives each LP the basis of
// the same neuron's LP at an ancestor node to start from: the node's Q is the ancestor's with more split rows
// and a smaller box, over which that basis is a few dual simplex iterations from the optimum. The start changes
// only the simplex's path, never the bound. Where the ancestor's optimal point (kept while d times the layer's
// width is at most 1e4) lies in the node's Q (to 1e-9), it
// is still optimal there and the LP is skipped: the bound stays the one `bounds` holds, which is valid on the
// ancestor's Q and so on the node's.
struct FirstLayerBases {
  std::vector<int> split_rows;        // the layer-0 neuron of each split row of Q, in row order
  std::vector<LpBasis> upper, lower;  // per neuron, the optimal basis of max h_j and of min h_j (empty: none)
  std::vector<std::vector<double>> upper_x, lower_x;  // and the optimal points (empty: none)
};

void tighten_first_layer(const Network& network, const Domain& domain, const Eigen::VectorXd& lo,
                         const Eigen::VectorXd& hi, const SplitState& splits,
                         const std::vector<std::uint8_t>* skip, NeuronBounds& bounds, LpSolver& lp,
                         const Deadline& deadline, long* lps = nullptr, const FirstLayerBases* from = nullptr,
                         FirstLayerBases* bases = nullptr);

// The number of layer-0 neurons the splits fix.
int first_layer_splits(const SplitState& splits);

}  // namespace reluopt
