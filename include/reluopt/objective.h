#pragma once

#include <string>
#include <vector>

#include <Eigen/Dense>

namespace reluopt {

enum class Sense { kMaximize, kMinimize };

// One linear term c^T y + d over the network outputs y.
struct ObjectiveTerm {
  Eigen::VectorXd weights;  // one per network output
  double constant = 0.0;

  double value(const Eigen::VectorXd& outputs) const { return weights.dot(outputs) + constant; }
};

// g(y) over the network outputs y, maximized or minimized. Either linear, g = weights^T y + constant, or a
// max-min objective g = max_k min_l (c_kl^T y + d_kl) over the terms in `disjuncts` (disjunct k, term l).
// A max-min objective leaves `weights` empty; a linear one leaves `disjuncts` empty and is the max-min
// objective of one disjunct with one term. Every method sees linear objectives only: solve() compiles a
// max-min objective into extra ReLU layers (src/core/max_min_network.h, docs/MATH.md section 13).
// Internally every method maximizes sign() * g; reported values are always in the user's sense.
struct Objective {
  Sense sense = Sense::kMaximize;
  Eigen::VectorXd weights;  // one per network output
  double constant = 0.0;
  std::vector<std::vector<ObjectiveTerm>> disjuncts;
  std::string description;  // for reports, e.g. "maximize output 0 (default)"

  // Maximize output `index` of a network with `num_outputs` outputs.
  static Objective output(int num_outputs, int index = 0);
  // max_k min_l over `disjuncts`, in `sense`; one disjunct of one term gives the linear objective.
  static Objective max_min(std::vector<std::vector<ObjectiveTerm>> disjuncts, Sense sense = Sense::kMaximize);

  double sign() const { return sense == Sense::kMaximize ? 1.0 : -1.0; }
  bool is_linear() const { return disjuncts.empty(); }
  // The disjuncts of the max-min form; a linear objective is {{weights, constant}}.
  std::vector<std::vector<ObjectiveTerm>> terms() const;
  // g(y) in the user's sense.
  double value(const Eigen::VectorXd& outputs) const;
  // Throws reluopt::Error when the weights do not match the number of outputs or are not finite.
  void validate(int num_outputs) const;
};

}  // namespace reluopt
