// Interval bounds on pre-activations (MATH.md §4):
//   with lo_k <= x_k <= hi_k,  W+ lo_k + W- hi_k + b  <=  h_k = W x_k + b  <=  W+ hi_k + W- lo_k + b,
// where W+ = max(W, 0), W- = min(W, 0); then x_{k+1} = max(h_k, 0) lies in [max(l,0), max(u,0)].
#include "bounds/bounds.h"

#include <algorithm>
#include <cmath>

namespace reluopt {

int NeuronBounds::num_unstable() const {
  int count = 0;
  for (std::size_t k = 0; k < lower.size(); ++k)
    for (Eigen::Index j = 0; j < lower[k].size(); ++j) count += is_stable(static_cast<int>(k), j) ? 0 : 1;
  return count;
}

void interval_step(const Eigen::MatrixXd& weights, const Eigen::VectorXd& bias, const Eigen::VectorXd& lo,
                   const Eigen::VectorXd& hi, Eigen::VectorXd* l, Eigen::VectorXd* u, Eigen::VectorXd* abs_reach) {
  // Column by column, in memory order and without the matrices W+ and W- (two copies of W); an input fixed at 0
  // (a neuron off over the box) adds nothing.
  if (l) *l = bias;
  if (u) *u = bias;
  if (abs_reach) *abs_reach = bias.cwiseAbs();
  for (Eigen::Index i = 0; i < weights.cols(); ++i) {
    if (lo[i] == 0.0 && hi[i] == 0.0) continue;
    const auto w = weights.col(i).array();
    if (l) l->array() += w.max(0.0) * lo[i] + w.min(0.0) * hi[i];
    if (u) u->array() += w.max(0.0) * hi[i] + w.min(0.0) * lo[i];
    if (abs_reach) abs_reach->array() += w.abs() * std::max(std::abs(lo[i]), std::abs(hi[i]));
  }
}

void interval_step(const Weights& weights, const Eigen::VectorXd& bias, const Eigen::VectorXd& lo,
                   const Eigen::VectorXd& hi, Eigen::VectorXd* l, Eigen::VectorXd* u, Eigen::VectorXd* abs_reach) {
  if (weights.is_dense()) return interval_step(weights.dense(), bias, lo, hi, l, u, abs_reach);
  if (weights.is_conv()) {
    // Two convolutions, W c + b -+ |W| r with c, r the centre and radius of [lo, hi] (the radius often zero but
    // near a few free pixels, a product by its nonzeros), rather than a pass over every receptive field: the same
    // bounds in exact arithmetic, whose round-off the margins built on abs_reach cover (gamma_{2n+1} times
    // |W| max(|lo|, |hi|) + |b|, bounded by Weights::abs_reach).
    const Eigen::VectorXd centre = 0.5 * (lo + hi), radius = 0.5 * (hi - lo);
    const Eigen::VectorXd mid = weights * centre + bias, spread = weights.abs_times(radius);
    if (l) *l = mid - spread;
    if (u) *u = mid + spread;
    if (abs_reach) *abs_reach = bias.cwiseAbs() + weights.abs_reach(lo.cwiseAbs().cwiseMax(hi.cwiseAbs()));
    return;
  }
  // Row by row over the nonzeros, each row's terms in the order of their columns as above.
  if (l) *l = bias;
  if (u) *u = bias;
  if (abs_reach) *abs_reach = bias.cwiseAbs();
  for (Eigen::Index j = 0; j < weights.rows(); ++j)
    weights.for_each_in_row(j, [&](Eigen::Index i, double w) {
      if (l) (*l)[j] += std::max(w, 0.0) * lo[i] + std::min(w, 0.0) * hi[i];
      if (u) (*u)[j] += std::max(w, 0.0) * hi[i] + std::min(w, 0.0) * lo[i];
      if (abs_reach) (*abs_reach)[j] += std::abs(w) * std::max(std::abs(lo[i]), std::abs(hi[i]));
    });
}

NeuronBounds interval_bounds(const Network& network, const Domain& domain) {
  NeuronBounds bounds;
  Eigen::VectorXd lo = domain.lower;
  Eigen::VectorXd hi = domain.upper;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    Eigen::VectorXd l, u;
    interval_step(network.hidden_layer(k).weights, network.hidden_layer(k).bias, lo, hi, &l, &u);
    lo = l.cwiseMax(0.0);
    hi = u.cwiseMax(0.0);
    bounds.lower.push_back(std::move(l));
    bounds.upper.push_back(std::move(u));
  }
  return bounds;
}

}  // namespace reluopt
