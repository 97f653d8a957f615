#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "bounds/bounds.h"
#include "lp/linear_model.h"
#include "reluopt/network.h"
#include "reluopt/run_control.h"

namespace reluopt {

// A ReLU fixed by a branch: kFree is decided by the bounds alone; kActive restricts the node to h >= 0
// (relu(h) = h), kInactive to h <= 0 (relu(h) = 0).
enum class Split : std::int8_t { kFree = 0, kActive = 1, kInactive = -1 };
using SplitState = std::vector<std::vector<Split>>;  // [layer][neuron]; empty: nothing split

// A valid upper bound on c^T y + c0 over the box (y the network's outputs, under the node's splits), with the
// linear function of the input it was concretized from: c^T y + c0 <= lambda^T x + constant on the node.
struct PropagatedObjective {
  double upper = kInfinity;
  Eigen::VectorXd lambda;
  double constant = 0.0;
  // For each hidden layer, the intercept each unstable neuron's upper line adds to `upper`:
  // max(Lambda_j, 0) * t_j. A split of that neuron removes it (the branching score, docs/MATH.md §11).
  std::vector<Eigen::VectorXd> relaxation_share;
};

struct Propagation {
  NeuronBounds bounds;              // every pre-activation over the box, under the splits
  PropagatedObjective objective;
  bool empty = false;               // a split contradicts the bounds (h >= 0 with u < 0, or h <= 0 with l > 0)
};

// Linear bound propagation (DeepPoly / CROWN; docs/MATH.md §10) over the box [lo, hi]: layer by layer, the
// bounds of h_k by back-substitution through the triangle relaxations of the earlier layers, then the
// objective's upper bound the same way. `prior` (may be null) holds bounds already known to be valid on the
// box (typically those of a box containing it); each result is the tighter of it and the back-substitution's, and
// in the first layer also of interval arithmetic (past the first, the prior takes the interval bounds' place).
// Every bound carries a proven margin for round-off. Once `deadline` (may be null) has expired, the neurons not
// yet reached keep their interval (or prior) bounds (still valid), so a propagation over wide layers ends within
// one block of rows of it.
// With `objective_only`, the last hidden layer's neurons on which the objective is concave (its coefficient
// over them, c^T W_K e_j, <= 0) keep their interval (or prior) bounds: the objective's bound back-substitutes
// them by a lower line alpha h, valid for every alpha in [0, 1] whatever their bounds, with alpha chosen at the
// maximizing vertex (so stable ones are exact too). For bab with concave neurons relaxed (they are never split
// and its node LP models them as y >= h, y >= 0); the bounds reported for them are then only valid, not tight.
Propagation propagate(const Network& network, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                      const Eigen::VectorXd& output_weights, double constant, const SplitState& splits,
                      const NeuronBounds* prior, const Deadline* deadline = nullptr, bool objective_only = false);

// Interval bounds l <= W x + b <= u of a layer from the ranges [in_lo, in_hi] of its inputs, with abs_reach =
// |W| m + |b| (m bounding the inputs' magnitudes), in one pass over W; each bound carries its round-off margin.
void interval_layer(const DenseLayer& layer, const Eigen::VectorXd& in_lo, const Eigen::VectorXd& in_hi,
                    Eigen::VectorXd& l, Eigen::VectorXd& u, Eigen::VectorXd& abs_reach);

// The upper line a h + t >= relu(h) on [l, u], l < 0 < u: a = u / (u - l), t = -a l rounded up so that the line
// is valid for a as computed (t is the larger of relu(h) - a h at the endpoints, where that convex function peaks).
void relu_upper_line(double l, double u, double& a, double& t);

// The constant c of an upper function lambda^T x + c whose maximum over the box [lo, hi] is `upper`, rounded up.
double upper_function_constant(double upper, const Eigen::VectorXd& lambda, const Eigen::VectorXd& lo,
                               const Eigen::VectorXd& hi);

// The vertex of the box [lo, hi] where lambda^T x is largest (x_i = hi_i where lambda_i >= 0, else lo_i).
Eigen::VectorXd best_vertex(const Eigen::VectorXd& lambda, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi);

// The bounds alone (no objective), over the domain's box, never looser than interval arithmetic.
NeuronBounds symbolic_bounds(const Network& network, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                             const Deadline* deadline = nullptr);

// Valid bounds on every output of the network over the box [lo, hi].
struct OutputRange {
  Eigen::VectorXd lower, upper;
};
// Symbolic bounds on the hidden layers (interval ones for the neurons they have not reached when `deadline` ends),
// then interval arithmetic through the output layer, each with its round-off margin.
OutputRange output_range(const Network& network, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                         const Deadline* deadline = nullptr);

}  // namespace reluopt
