#pragma once

#include <optional>
#include <vector>

#include <Eigen/Dense>

#include "reluopt/network.h"

namespace reluopt::detail {

// The network with every linear hidden neuron v rewritten as relu(v - L) + L, L below v's lower bound over the
// box [lower, upper] of the input (interval arithmetic with a margin beyond any round-off, then carry_shift):
// the ReLU is active at every point of the box, so the rewritten network equals the original there, and it
// costs no binary and no split. The + L goes into the next layer's bias. The network itself when it has no
// linear neuron. Throws Error when the box is not finite.
Network specialize_linear_neurons(const Network& network, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper);

// A network with the inputs that a box fixes (lower == upper) folded into its first layer: the first layer keeps
// the columns of the free inputs, sparse, and adds the fixed inputs' contribution W x_fixed (one product, a single
// convolution of the fixed image for a VGG's first layer) to its bias. A VNN-COMP image property perturbs a few
// pixels of 150528: the first layer of the folded network is a small sparse matrix, which is what bounds and
// formulations of the whole network can afford.
struct FixedInputs {
  Network network;
  std::vector<Eigen::Index> free;  // the original inputs the folded network's inputs stand for, in order
  Eigen::VectorXd fixed;           // the original input with the fixed values, zero at the free inputs

  // The original input at the folded network's input u.
  Eigen::VectorXd expand(const Eigen::VectorXd& u) const;
};

// The fold when the first layer is an implicit convolution (Weights::is_conv) and the box fixes some input but not
// all; otherwise none (small networks stay as they are).
std::optional<FixedInputs> fix_inputs(const Network& network, const Eigen::VectorXd& lower,
                                      const Eigen::VectorXd& upper);

}  // namespace reluopt::detail
