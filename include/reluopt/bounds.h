#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

#include "reluopt/domain.h"
#include "reluopt/network.h"
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
// The same for one layer: [l, u] bounds h = W x + b for x in [lo, hi].
void interval_layer_bounds(const DenseLayer& layer, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                           Eigen::VectorXd& l, Eigen::VectorXd& u);

// How bounds for the MIP formulations are computed (MATH.md §4).
//   kInterval    interval arithmetic only
//   kLp          two LPs (max and min of h_kj) for every neuron over the LP relaxation of the big-M model of
//                layers < k and P, layer by layer with the LP bounds of earlier layers (Fischetti & Jo 2018)
//   kProgressive per layer: interval bounds from the tightened earlier layers, intersected with the symbolic
//                bounds, then LPs only for the neurons that are still unstable
//   kSymbolic    linear bound propagation (DeepPoly / CROWN, docs/MATH.md §10) over the domain's box: no LP
enum class BoundMethod { kInterval, kLp, kProgressive, kSymbolic };

BoundMethod parse_bound_method(const std::string& name);  // throws reluopt::Error naming the method
std::string bound_method_name(BoundMethod method);

struct BoundOptions {
  BoundMethod method = BoundMethod::kProgressive;
  int threads = 0;  // 0: all cores
};

// Valid bounds on every pre-activation. An LP that fails or is cut off by the deadline leaves the interval
// bound of that neuron, which is always valid; LP values are loosened by a small tolerance so that solver
// round-off can never make a bound cut off a feasible point.
NeuronBounds compute_bounds(const Network& network, const Domain& domain, const BoundOptions& options,
                            const Deadline& deadline);

}  // namespace reluopt
