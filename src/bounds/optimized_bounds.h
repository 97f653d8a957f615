#pragma once

#include <vector>

#include <Eigen/Dense>

#include "bounds/bounds.h"
#include "bounds/symbolic_bounds.h"
#include "reluopt/network.h"
#include "reluopt/run_control.h"

namespace reluopt {

// The free parameters of a node's linear bound (optimized_bounds.cc): per hidden layer, the lower slope alpha in
// [0, 1] of each unstable neuron and the multiplier beta >= 0 of each split neuron's constraint (entries of other
// neurons are unused). Any values in range give a valid bound; a child starts from its parent's.
struct Multipliers {
  std::vector<Eigen::VectorXd> alpha, beta;
};

// One node: its box, valid neuron bounds on it under its splits (propagate's), the splits, a start (may be null).
struct OptimizedNode {
  const Eigen::VectorXd* lo = nullptr;
  const Eigen::VectorXd* hi = nullptr;
  const NeuronBounds* bounds = nullptr;
  const SplitState* splits = nullptr;  // empty: nothing split
  const Multipliers* start = nullptr;
};

struct OptimizedBound {
  double upper = kInfinity;           // valid in floating point: c^T y + c0 <= upper on the node
  Eigen::VectorXd lambda, vertex;     // the input slopes of the bound at the best parameters; their box maximizer
  Multipliers multipliers;            // the best parameters found
  // Per hidden layer, max(Lambda_j, 0) t_j at the best parameters (as PropagatedObjective::relaxation_share).
  std::vector<Eigen::VectorXd> relaxation_share;
};

struct OptimizeSettings {
  int iterations = 20;              // projected gradient steps per node
  double stop_below = -kInfinity;   // a node whose bound is below this stops early (it closes)
  double alpha_rate = 0.1, beta_rate = 0.05;  // Adam's step sizes (beta's relative to the coefficients' size)
};

// The bounds of max { c^T y + c0 } over each node, optimized over its Multipliers together (one dense product
// per layer for the whole batch). Stops at the deadline (may be null) with the best parameters so far.
std::vector<OptimizedBound> optimized_bounds(const Network& network, const Eigen::VectorXd& output_weights,
                                             double constant, const std::vector<OptimizedNode>& nodes,
                                             const OptimizeSettings& settings, const Deadline* deadline = nullptr);

// The node's pre-activation bounds tightened layer by layer (alpha-CROWN's intermediate bounds): for each hidden
// layer k >= 1 in turn, the upper bounds of h_k[i] and -h_k[i] for every unstable neuron not split, each optimized
// over its own slopes and multipliers of layers < k from CROWN's slopes, those layers at their tightened bounds.
// `bounds` (valid on the node; node.bounds and node.start are not used) come out no looser, still valid. Stops at
// the deadline with the bounds so far. True when the bounds contradict the node's splits: it has no point.
bool optimize_neuron_bounds(const Network& network, const OptimizedNode& node, NeuronBounds& bounds,
                            const OptimizeSettings& settings, const Deadline* deadline = nullptr);

}  // namespace reluopt
