#include "reluopt/network.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/magnitude.h"
#include "reluopt/error.h"

namespace reluopt {

std::size_t ActivationPattern::hash() const {
  // Pack the bits into 64-bit words and mix each with splitmix64's finalizer; layer ends are mixed in too,
  // so patterns of different shapes differ. Used to skip regions already solved.
  auto mix = [](std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  std::uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (const auto& layer : active) {
    std::uint64_t word = 0;
    int filled = 0;
    for (std::uint8_t bit : layer) {
      word = (word << 1) | (bit & 1U);
      if (++filled == 64) {
        h = mix(h ^ word) + 0x9E3779B97F4A7C15ULL;
        word = 0;
        filled = 0;
      }
    }
    h = mix(h ^ word ^ (static_cast<std::uint64_t>(layer.size()) << 48)) + 0x9E3779B97F4A7C15ULL;
  }
  return static_cast<std::size_t>(h);
}

int ActivationPattern::num_neurons() const {
  int n = 0;
  for (const auto& layer : active) n += static_cast<int>(layer.size());
  return n;
}

std::string magnitude_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

namespace {

// Names the first weight or bias beyond kMaxMagnitude by its row and column (from 0, as in W[row][column]).
void check_magnitudes(const DenseLayer& layer, const std::string& where) {
  const auto refuse = [&](const std::string& entry, double value) {
    throw Error(where + " has " + entry + " = " + magnitude_text(value) + ", beyond " + magnitude_text(kMaxMagnitude) +
                " in magnitude: no double-precision LP can use it (corrupt file or wrong units? docs/NUMERICS.md)");
  };
  for (Eigen::Index row = 0; row < layer.weights.rows(); ++row) {
    layer.weights.for_each_in_row(row, [&](Eigen::Index column, double w) {
      if (std::abs(w) > kMaxMagnitude) refuse("weight W[" + std::to_string(row) + "][" + std::to_string(column) + "]", w);
    });
    if (std::abs(layer.bias[row]) > kMaxMagnitude) refuse("bias b[" + std::to_string(row) + "]", layer.bias[row]);
  }
}

}  // namespace

Network::Network(std::vector<DenseLayer> layers) : layers_(std::move(layers)) {
  if (layers_.empty()) throw Error("network has no layers");
  for (std::size_t k = 0; k < layers_.size(); ++k) {
    const DenseLayer& layer = layers_[k];
    const std::string where = "layer " + std::to_string(k + 1);
    if (layer.weights.rows() == 0 || layer.weights.cols() == 0)
      throw Error(where + " has an empty weight matrix");
    const bool hidden = k + 1 < layers_.size();
    if (!layer.linear.empty() && (!hidden || layer.linear.size() != static_cast<std::size_t>(layer.weights.rows())))
      throw Error(where + " has " + std::to_string(layer.linear.size()) +
                  " linear-neuron flags; a hidden layer takes one per neuron, the output layer none");
    if (layer.bias.size() != layer.weights.rows())
      throw Error("inconsistent shapes: " + where + " has " + std::to_string(layer.weights.rows()) +
                  " neurons but " + std::to_string(layer.bias.size()) + " biases");
    if (k > 0 && layer.weights.cols() != layers_[k - 1].weights.rows())
      throw Error("inconsistent shapes: " + where + " takes " + std::to_string(layer.weights.cols()) +
                  " inputs but the previous layer has " + std::to_string(layers_[k - 1].weights.rows()) +
                  " outputs");
    // One pass in memory order for the common case (NaN fails the comparison); the checks that name the
    // offender walk W row by row, across the columns of a column-major matrix, which misses the cache on every
    // entry of a wide layer.
    if (layer.weights.within(kMaxMagnitude) && (layer.bias.array().abs() <= kMaxMagnitude).all())
      continue;
    if (!layer.weights.allFinite() || !layer.bias.allFinite())
      throw Error(where + " has a weight or bias that is not finite");
    check_magnitudes(layer, where);
  }
}

int Network::num_hidden_neurons() const {
  int n = 0;
  for (int k = 0; k < num_hidden_layers(); ++k) n += hidden_width(k);
  return n;
}

bool Network::has_linear_neurons() const {
  for (int k = 0; k < num_hidden_layers(); ++k)
    for (std::uint8_t flag : layers_[k].linear)
      if (flag) return true;
  return false;
}

namespace {

// The post-activations of hidden layer `layer` from its pre-activations h (one column per input).
template <typename Matrix>
Matrix hidden_outputs(const DenseLayer& layer, const Matrix& h) {
  Matrix value = h.cwiseMax(0.0);
  if (layer.linear.empty()) return value;
  for (Eigen::Index j = 0; j < h.rows(); ++j)
    if (layer.is_linear(j)) value.row(j) = h.row(j);
  return value;
}

}  // namespace

Eigen::VectorXd Network::forward(const Eigen::VectorXd& x) const {
  return forward_batch(x);
}

Eigen::MatrixXd Network::forward_batch(const Eigen::MatrixXd& inputs) const {
  if (inputs.rows() != input_dim())
    throw Error("input has dimension " + std::to_string(inputs.rows()) + " but the network expects " +
                std::to_string(input_dim()));
  Eigen::MatrixXd value = inputs;
  for (int k = 0; k < num_hidden_layers(); ++k) {
    const Eigen::MatrixXd h = (layers_[k].weights * value).colwise() + layers_[k].bias;
    value = hidden_outputs(layers_[k], h);
  }
  return (output_layer().weights * value).colwise() + output_layer().bias;
}

ForwardTrace Network::trace(const Eigen::VectorXd& x) const {
  if (x.size() != input_dim())
    throw Error("input has dimension " + std::to_string(x.size()) + " but the network expects " +
                std::to_string(input_dim()));
  ForwardTrace result;
  Eigen::VectorXd value = x;
  for (int k = 0; k < num_hidden_layers(); ++k) {
    Eigen::VectorXd h = layers_[k].weights * value + layers_[k].bias;
    value = hidden_outputs(layers_[k], h);
    result.pre_activation.push_back(std::move(h));
  }
  result.output = output_layer().weights * value + output_layer().bias;
  return result;
}

ActivationPattern Network::activation_pattern(const Eigen::VectorXd& x) const {
  ForwardTrace t = trace(x);
  ActivationPattern pattern;
  pattern.active.reserve(t.pre_activation.size());
  for (const Eigen::VectorXd& h : t.pre_activation) {
    std::vector<std::uint8_t> bits(h.size());
    for (Eigen::Index j = 0; j < h.size(); ++j) bits[j] = h[j] > 0.0 ? 1 : 0;
    pattern.active.push_back(std::move(bits));
  }
  return pattern;
}

std::string Network::describe() const {
  std::ostringstream out;
  out << input_dim();
  for (const DenseLayer& layer : layers_) out << " -> " << layer.weights.rows();
  return out.str();
}

}  // namespace reluopt
