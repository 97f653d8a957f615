#include "reluopt/objective.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/magnitude.h"
#include "reluopt/error.h"

namespace reluopt {

namespace {

void validate_term(const Eigen::VectorXd& weights, double constant, int num_outputs, const std::string& where) {
  if (weights.size() != num_outputs)
    throw Error("objective" + where + " has " + std::to_string(weights.size()) + " weights but the network has " +
                std::to_string(num_outputs) + " outputs (dimension mismatch)");
  if (!weights.allFinite() || !std::isfinite(constant))
    throw Error("objective" + where + " has a weight or constant that is not finite");
  const auto refuse = [&where](const std::string& entry, double value) {
    throw Error("objective" + where + " " + entry + " = " + magnitude_text(value) + " is beyond " +
                magnitude_text(kMaxMagnitude) +
                " in magnitude: no double-precision LP can use it (scale the weights; docs/NUMERICS.md)");
  };
  for (Eigen::Index i = 0; i < weights.size(); ++i)
    if (std::abs(weights[i]) > kMaxMagnitude) refuse("weight " + std::to_string(i), weights[i]);
  if (std::abs(constant) > kMaxMagnitude) refuse("constant", constant);
}

}  // namespace

Objective Objective::output(int num_outputs, int index) {
  Objective objective;
  objective.weights = Eigen::VectorXd::Zero(num_outputs);
  objective.weights[index] = 1.0;
  objective.description = "maximize output " + std::to_string(index);
  return objective;
}

Objective Objective::max_min(std::vector<std::vector<ObjectiveTerm>> disjuncts, Sense sense) {
  Objective objective;
  objective.sense = sense;
  if (disjuncts.size() == 1 && disjuncts[0].size() == 1) {
    objective.weights = disjuncts[0][0].weights;
    objective.constant = disjuncts[0][0].constant;
  } else {
    objective.disjuncts = std::move(disjuncts);
  }
  return objective;
}

std::vector<std::vector<ObjectiveTerm>> Objective::terms() const {
  if (!is_linear()) return disjuncts;
  return {{ObjectiveTerm{weights, constant}}};
}

double Objective::value(const Eigen::VectorXd& outputs) const {
  if (is_linear()) return weights.dot(outputs) + constant;
  double best = -std::numeric_limits<double>::infinity();
  for (const std::vector<ObjectiveTerm>& disjunct : disjuncts) {
    double low = std::numeric_limits<double>::infinity();
    for (const ObjectiveTerm& term : disjunct) low = std::min(low, term.value(outputs));
    best = std::max(best, low);
  }
  return best;
}

void Objective::validate(int num_outputs) const {
  if (is_linear()) {
    validate_term(weights, constant, num_outputs, "");
    return;
  }
  for (std::size_t k = 0; k < disjuncts.size(); ++k) {
    if (disjuncts[k].empty()) throw Error("objective disjunct " + std::to_string(k) + " has no terms");
    for (std::size_t l = 0; l < disjuncts[k].size(); ++l)
      validate_term(disjuncts[k][l].weights, disjuncts[k][l].constant, num_outputs,
                    " term " + std::to_string(l) + " of disjunct " + std::to_string(k));
  }
}

}  // namespace reluopt
