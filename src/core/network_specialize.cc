// Linear neurons as stably active ReLUs (include/reluopt/network.h): v = relu(v - L) + L for v >= L. The bounds
// come from one interval pass, x in [l, u] -> h in [W c + b - |W| r, W c + b + |W| r] with c, r the centre and
// radius of [l, u], widened on both sides by kRelativeMargin of the magnitudes involved plus an absolute 1,
// which covers the round-off of the pass (n eps for n terms) by orders of magnitude; carry_shift then puts L
// at least about 1 below, so no rounding of the rewritten network's pre-activation makes the neuron inactive.
#include "core/network_specialize.h"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/model_reduction.h"
#include "reluopt/error.h"

namespace reluopt::detail {

namespace {

constexpr double kRelativeMargin = 1e-8;

// The interval of every hidden layer's pre-activations over the box, widened by the margin.
std::vector<std::pair<Eigen::VectorXd, Eigen::VectorXd>> hidden_intervals(const Network& network,
                                                                          Eigen::VectorXd lower,
                                                                          Eigen::VectorXd upper) {
  std::vector<std::pair<Eigen::VectorXd, Eigen::VectorXd>> intervals;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    const DenseLayer& layer = network.hidden_layer(k);
    const Eigen::VectorXd centre = 0.5 * (lower + upper);
    const Eigen::VectorXd radius = 0.5 * (upper - lower);
    const Eigen::VectorXd mid = layer.weights * centre + layer.bias;
    const Eigen::VectorXd spread = layer.weights.abs_times(radius);
    const Eigen::VectorXd reach = layer.weights.abs_reach(lower.cwiseAbs().cwiseMax(upper.cwiseAbs()));
    const Eigen::VectorXd margin = (kRelativeMargin * (reach + layer.bias.cwiseAbs())).array() + 1.0;
    Eigen::VectorXd h_lower = mid - spread - margin;
    Eigen::VectorXd h_upper = mid + spread + margin;
    if (!h_lower.allFinite() || !h_upper.allFinite())
      throw Error("the bounds of hidden layer " + std::to_string(k + 1) + " over the input box are not finite");
    intervals.emplace_back(h_lower, h_upper);
    lower = h_lower;
    upper = h_upper;
    for (Eigen::Index j = 0; j < lower.size(); ++j) {
      if (layer.is_linear(j)) continue;
      lower[j] = std::max(lower[j], 0.0);
      upper[j] = std::max(upper[j], 0.0);
    }
  }
  return intervals;
}

}  // namespace

Network specialize_linear_neurons(const Network& network, const Eigen::VectorXd& lower,
                                  const Eigen::VectorXd& upper) {
  if (!network.has_linear_neurons()) return network;
  if (!lower.allFinite() || !upper.allFinite())
    throw Error("a network with linear neurons needs a finite box on its input");
  const auto intervals = hidden_intervals(network, lower, upper);
  std::vector<DenseLayer> layers = network.layers();
  for (std::size_t k = 0; k + 1 < layers.size(); ++k) {
    DenseLayer& layer = layers[k];
    const Weights& next = layers[k + 1].weights;
    Eigen::VectorXd shifts = Eigen::VectorXd::Zero(layer.bias.size());
    for (Eigen::Index j = 0; j < layer.bias.size(); ++j) {
      if (!layer.is_linear(j)) continue;
      shifts[j] = carry_shift(intervals[k].first[j]);
      layer.bias[j] -= shifts[j];
      // A dense W adds its columns one by one; a sparse one's columns are scattered across its rows (a
      // convolution's are a product), so it adds W shifts below, in one pass.
      if (next.is_dense()) layers[k + 1].bias += shifts[j] * next.dense().col(j);
    }
    if (!next.is_dense()) layers[k + 1].bias += next * shifts;
    layer.linear.clear();
  }
  return Network(std::move(layers));
}

Eigen::VectorXd FixedInputs::expand(const Eigen::VectorXd& u) const {
  Eigen::VectorXd x = fixed;
  for (std::size_t i = 0; i < free.size(); ++i) x[free[i]] = u[static_cast<Eigen::Index>(i)];
  return x;
}

std::optional<FixedInputs> fix_inputs(const Network& network, const Eigen::VectorXd& lower,
                                      const Eigen::VectorXd& upper) {
  const Weights& w = network.layers().front().weights;
  if (!w.is_conv()) return std::nullopt;
  std::vector<Eigen::Index> free, position(static_cast<std::size_t>(lower.size()), -1);
  Eigen::VectorXd fixed = Eigen::VectorXd::Zero(lower.size());
  for (Eigen::Index i = 0; i < lower.size(); ++i) {
    if (lower[i] == upper[i]) {
      fixed[i] = lower[i];
    } else {
      position[static_cast<std::size_t>(i)] = static_cast<Eigen::Index>(free.size());
      free.push_back(i);
    }
  }
  if (free.empty() || free.size() == static_cast<std::size_t>(lower.size())) return std::nullopt;
  // The free columns, row by row over W's nonzeros (a pass over the receptive fields, no column written out).
  std::vector<DenseLayer> layers = network.layers();
  const Eigen::Index rows = w.rows(), k = static_cast<Eigen::Index>(free.size());
  std::vector<Eigen::Triplet<double>> entries;
  for (Eigen::Index j = 0; j < rows; ++j)
    w.for_each_in_row(j, [&](Eigen::Index i, double v) {
      const Eigen::Index p = position[static_cast<std::size_t>(i)];
      if (p >= 0) entries.emplace_back(j, p, v);
    });
  Weights::Sparse reduced(rows, k);
  reduced.setFromTriplets(entries.begin(), entries.end());
  layers.front().bias += w * fixed;
  layers.front().weights = Weights(std::move(reduced));
  return FixedInputs{Network(std::move(layers)), std::move(free), std::move(fixed)};
}

}  // namespace reluopt::detail
