#pragma once

#include <string>

#include <Eigen/Dense>

namespace reluopt {

enum class Sense { kMaximize, kMinimize };

// g(x) = weights^T y(x) + constant over the network outputs y, maximized or minimized.
// Internally every method maximizes sign() * g; reported values are always in the user's sense.
struct Objective {
  Sense sense = Sense::kMaximize;
  Eigen::VectorXd weights;  // one per network output
  double constant = 0.0;
  std::string description;  // for reports, e.g. "maximize output 0 (default)"

  // Maximize output `index` of a network with `num_outputs` outputs.
  static Objective output(int num_outputs, int index = 0);

  double sign() const { return sense == Sense::kMaximize ? 1.0 : -1.0; }
  // g(y) in the user's sense.
  double value(const Eigen::VectorXd& outputs) const { return weights.dot(outputs) + constant; }
  // Throws reluopt::Error when the weights do not match the number of outputs or are not finite.
  void validate(int num_outputs) const;
};

}  // namespace reluopt
