#include "reluopt/objective.h"

#include <cmath>

#include "reluopt/error.h"
#include "reluopt/magnitude.h"

namespace reluopt {

Objective Objective::output(int num_outputs, int index) {
  Objective objective;
  objective.weights = Eigen::VectorXd::Zero(num_outputs);
  objective.weights[index] = 1.0;
  objective.description = "maximize output " + std::to_string(index);
  return objective;
}

void Objective::validate(int num_outputs) const {
  if (weights.size() != num_outputs)
    throw Error("objective has " + std::to_string(weights.size()) + " weights but the network has " +
                std::to_string(num_outputs) + " outputs (dimension mismatch)");
  if (!weights.allFinite() || !std::isfinite(constant))
    throw Error("objective has a weight or constant that is not finite");
  const auto refuse = [](const std::string& entry, double value) {
    throw Error("objective " + entry + " = " + magnitude_text(value) + " is beyond " + magnitude_text(kMaxMagnitude) +
                " in magnitude: no double-precision LP can use it (scale the weights; docs/NUMERICS.md)");
  };
  for (Eigen::Index i = 0; i < weights.size(); ++i)
    if (std::abs(weights[i]) > kMaxMagnitude) refuse("weight " + std::to_string(i), weights[i]);
  if (std::abs(constant) > kMaxMagnitude) refuse("constant", constant);
}

}  // namespace reluopt
