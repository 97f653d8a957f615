#pragma once

#include <Eigen/Dense>

#include "reluopt/network.h"

namespace reluopt::detail {

// The network with every linear hidden neuron v rewritten as relu(v - L) + L, L below v's lower bound over the
// box [lower, upper] of the input (interval arithmetic with a margin beyond any round-off, then carry_shift):
// the ReLU is active at every point of the box, so the rewritten network equals the original there, and it
// costs no binary and no split. The + L goes into the next layer's bias. The network itself when it has no
// linear neuron. Throws Error when the box is not finite.
Network specialize_linear_neurons(const Network& network, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper);

}  // namespace reluopt::detail
