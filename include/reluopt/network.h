#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace reluopt {

// One affine map h = W x + b. W has one row per output neuron.
struct DenseLayer {
  Eigen::MatrixXd weights;
  Eigen::VectorXd bias;
  // In a hidden layer, linear[j] = 1 marks a neuron that passes h_j on as it is, without a ReLU (a value that
  // a later layer needs again: a residual branch, or b in max(a, b) = b + relu(a - b)). Empty: all are ReLUs.
  std::vector<std::uint8_t> linear = {};

  bool is_linear(Eigen::Index j) const { return !linear.empty() && linear[static_cast<std::size_t>(j)] != 0; }
};

// Which hidden neurons are active (pre-activation > 0), layer by layer. Two samples with the same
// pattern lie in the same linear region of the network.
struct ActivationPattern {
  std::vector<std::vector<std::uint8_t>> active;  // active[k][j] in {0, 1}

  bool operator==(const ActivationPattern& other) const = default;
  std::size_t hash() const;
  int num_neurons() const;
};

// The pre-activations of every hidden layer at one input, from a forward pass.
struct ForwardTrace {
  std::vector<Eigen::VectorXd> pre_activation;  // h_k = W_k x_k + b_k for hidden layer k
  Eigen::VectorXd output;
};

// A feed-forward ReLU network: x_1 = x, h_k = W_k x_k + b_k, x_{k+1} = max(h_k, 0) for the hidden layers
// k = 1..K-1, and a linear output layer y = W_K x_K + b_K with m >= 1 outputs (no ReLU). A hidden neuron marked
// linear passes h_kj on as it is; the methods take the network with those rewritten as relu(h - L) + L over the
// domain (core/network_specialize.h), so that every one of them sees ReLUs only.
// Pure data: it knows no file format and no solver. The constructor validates shapes and finiteness.
class Network {
 public:
  explicit Network(std::vector<DenseLayer> layers);

  int input_dim() const { return static_cast<int>(layers_.front().weights.cols()); }
  int output_dim() const { return static_cast<int>(layers_.back().weights.rows()); }
  // Hidden (ReLU) layers; the last affine layer is the linear output layer.
  int num_hidden_layers() const { return static_cast<int>(layers_.size()) - 1; }
  int num_hidden_neurons() const;
  int hidden_width(int k) const { return static_cast<int>(layers_[k].weights.rows()); }
  // Whether some hidden neuron is linear (DenseLayer::linear).
  bool has_linear_neurons() const;

  const std::vector<DenseLayer>& layers() const { return layers_; }
  const DenseLayer& hidden_layer(int k) const { return layers_[k]; }
  const DenseLayer& output_layer() const { return layers_.back(); }

  Eigen::VectorXd forward(const Eigen::VectorXd& x) const;
  // Batched forward pass: one input per column, one output per column.
  Eigen::MatrixXd forward_batch(const Eigen::MatrixXd& inputs) const;
  ForwardTrace trace(const Eigen::VectorXd& x) const;
  ActivationPattern activation_pattern(const Eigen::VectorXd& x) const;

  // One line such as "10 -> 100 -> 100 -> 1".
  std::string describe() const;

 private:
  std::vector<DenseLayer> layers_;
};

}  // namespace reluopt
