#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/options.h"  // BoundOptions
#include "reluopt/run_control.h"

namespace reluopt {

// Valid bounds lower <= h_k <= upper on the pre-activation of every hidden neuron over the domain.
struct NeuronBounds {
  std::vector<Eigen::VectorXd> lower;  // one vector per hidden layer
  std::vector<Eigen::VectorXd> upper;

  bool is_stable(int layer, int neuron) const {
    return upper[layer][neuron] <= 0.0 || lower[layer][neuron] >= 0.0;
  }
  int num_unstable() const;
};

// Interval arithmetic (MATH.md §4) over the domain's box; valid for any rows A x <= b as well, since the
// box contains P. With [lo, hi] bounding x_k: h = W x + b lies in [W+ lo + W- hi + b, W+ hi + W- lo + b].
NeuronBounds interval_bounds(const Network& network, const Domain& domain);
// The one interval step every bound starts from: for x in [lo, hi], h = W x + b lies in [l, u] =
// [W+ lo + W- hi + b, W+ hi + W- lo + b]. Null outputs are not computed; abs_reach gets |W| m + |b| with
// m = max(|lo|, |hi|), the magnitude of each row's terms, from which a caller takes a round-off margin
// (interval_layer, bounds/symbolic_bounds.h).
void interval_step(const Weights& weights, const Eigen::VectorXd& bias, const Eigen::VectorXd& lo,
                   const Eigen::VectorXd& hi, Eigen::VectorXd* l, Eigen::VectorXd* u,
                   Eigen::VectorXd* abs_reach = nullptr);
void interval_step(const Eigen::MatrixXd& weights, const Eigen::VectorXd& bias, const Eigen::VectorXd& lo,
                   const Eigen::VectorXd& hi, Eigen::VectorXd* l, Eigen::VectorXd* u,
                   Eigen::VectorXd* abs_reach = nullptr);

// Valid bounds on every pre-activation. An LP that fails or is cut off by the deadline leaves the interval
// bound of that neuron, which is always valid; LP values are loosened by a small tolerance so that solver
// round-off can never make a bound cut off a feasible point.
NeuronBounds compute_bounds(const Network& network, const Domain& domain, const BoundOptions& options,
                            const Deadline& deadline);

}  // namespace reluopt
