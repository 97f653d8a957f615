#pragma once

#include <vector>

#include <Eigen/Dense>

#include "reluopt/domain.h"
#include "reluopt/network.h"

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

}  // namespace reluopt
