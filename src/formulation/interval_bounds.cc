// Interval bounds on pre-activations (MATH.md §4):
//   with lo_k <= x_k <= hi_k,  W+ lo_k + W- hi_k + b  <=  h_k = W x_k + b  <=  W+ hi_k + W- lo_k + b,
// where W+ = max(W, 0), W- = min(W, 0); then x_{k+1} = max(h_k, 0) lies in [max(l,0), max(u,0)].
#include "reluopt/bounds.h"

namespace reluopt {

int NeuronBounds::num_unstable() const {
  int count = 0;
  for (std::size_t k = 0; k < lower.size(); ++k)
    for (Eigen::Index j = 0; j < lower[k].size(); ++j) count += is_stable(static_cast<int>(k), j) ? 0 : 1;
  return count;
}

void interval_layer_bounds(const DenseLayer& layer, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                           Eigen::VectorXd& l, Eigen::VectorXd& u) {
  // Column by column, in memory order and without the matrices W+ and W- (two copies of W, 800 MB each for a
  // 32-channel convolution of a 32 x 32 image).
  l = layer.bias;
  u = layer.bias;
  for (Eigen::Index i = 0; i < layer.weights.cols(); ++i) {
    const auto w = layer.weights.col(i).array();
    l.array() += w.max(0.0) * lo[i] + w.min(0.0) * hi[i];
    u.array() += w.max(0.0) * hi[i] + w.min(0.0) * lo[i];
  }
}

NeuronBounds interval_bounds(const Network& network, const Domain& domain) {
  NeuronBounds bounds;
  Eigen::VectorXd lo = domain.lower;
  Eigen::VectorXd hi = domain.upper;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    Eigen::VectorXd l, u;
    interval_layer_bounds(network.hidden_layer(k), lo, hi, l, u);
    lo = l.cwiseMax(0.0);
    hi = u.cwiseMax(0.0);
    bounds.lower.push_back(std::move(l));
    bounds.upper.push_back(std::move(u));
  }
  return bounds;
}

}  // namespace reluopt
