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

NeuronBounds interval_bounds(const Network& network, const Domain& domain) {
  NeuronBounds bounds;
  Eigen::VectorXd lo = domain.lower;
  Eigen::VectorXd hi = domain.upper;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    const DenseLayer& layer = network.hidden_layer(k);
    const Eigen::MatrixXd positive = layer.weights.cwiseMax(0.0);
    const Eigen::MatrixXd negative = layer.weights.cwiseMin(0.0);
    Eigen::VectorXd l = positive * lo + negative * hi + layer.bias;
    Eigen::VectorXd u = positive * hi + negative * lo + layer.bias;
    lo = l.cwiseMax(0.0);
    hi = u.cwiseMax(0.0);
    bounds.lower.push_back(std::move(l));
    bounds.upper.push_back(std::move(u));
  }
  return bounds;
}

}  // namespace reluopt
