// Power-of-two scaling of a problem so that the LP and MIP solvers see numbers near 1 (reluopt/scaling.h).
#include "reluopt/scaling.h"

#include <algorithm>
#include <cmath>

namespace reluopt {

namespace {

// 2^floor(log2 m): m / power_of_two(m) lies in [1, 2). 1 for 0 (a dead neuron, an input fixed at 0).
double power_of_two(double magnitude) {
  if (!(magnitude > 0.0) || !std::isfinite(magnitude)) return 1.0;
  return std::ldexp(1.0, std::ilogb(magnitude));
}

// The largest |x_i| of each input over the domain's box.
Eigen::VectorXd input_magnitudes(const Domain& domain) {
  return domain.lower.cwiseAbs().cwiseMax(domain.upper.cwiseAbs());
}

// Bounds on |y_o| from the last hidden layer's interval bounds (or the inputs' for a network without one).
Eigen::VectorXd output_magnitudes(const Network& network, const Domain& domain, const NeuronBounds& interval) {
  const int last = network.num_hidden_layers() - 1;
  const Eigen::VectorXd previous =
      last < 0 ? input_magnitudes(domain) : interval.upper[last].cwiseMax(0.0).eval();
  const DenseLayer& layer = network.output_layer();
  return layer.weights.cwiseAbs() * previous + layer.bias.cwiseAbs();
}

// s_j: the magnitude of row j's bound, of its bias and of its largest term W[j][i] p_i, so that every scaled
// coefficient is at most 2 even where the terms cancel over the domain.
Eigen::VectorXd row_scales(const DenseLayer& layer, const Eigen::VectorXd& previous, const Eigen::VectorXd& bound) {
  const Eigen::VectorXd terms = (layer.weights.cwiseAbs() * previous.asDiagonal()).rowwise().maxCoeff();
  return bound.cwiseMax(terms).cwiseMax(layer.bias.cwiseAbs()).unaryExpr(&power_of_two);
}

// W'[j][i] = W[j][i] p_i / s_j and b'_j = b_j / s_j: exact, every factor a power of two.
DenseLayer scale_layer(const DenseLayer& layer, const Eigen::VectorXd& previous, const Eigen::VectorXd& scale) {
  DenseLayer scaled;
  scaled.weights = scale.cwiseInverse().asDiagonal() * layer.weights * previous.asDiagonal();
  scaled.bias = layer.bias.cwiseQuotient(scale);
  return scaled;
}

Domain scale_domain(const Domain& domain, const Eigen::VectorXd& t) {
  Domain scaled = Domain::box(domain.lower.cwiseQuotient(t), domain.upper.cwiseQuotient(t));
  scaled.description = domain.description;
  scaled.A = domain.A * t.asDiagonal();
  scaled.b = domain.b;
  for (Eigen::Index r = 0; r < scaled.A.rows(); ++r) {
    const double rho = power_of_two(scaled.A.row(r).cwiseAbs().maxCoeff());
    scaled.A.row(r) /= rho;
    scaled.b[r] /= rho;
  }
  return scaled;
}

}  // namespace

ScaledProblem scale_problem(const Network& network, const Domain& domain, const Objective& objective,
                            const NeuronBounds& interval) {
  const Eigen::VectorXd t = input_magnitudes(domain).unaryExpr(&power_of_two);
  std::vector<DenseLayer> layers;
  Eigen::VectorXd previous = t;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    const Eigen::VectorXd bound = interval.lower[k].cwiseAbs().cwiseMax(interval.upper[k].cwiseAbs());
    Eigen::VectorXd s = row_scales(network.hidden_layer(k), previous, bound);
    layers.push_back(scale_layer(network.hidden_layer(k), previous, s));
    previous = std::move(s);
  }
  const Eigen::VectorXd u =
      row_scales(network.output_layer(), previous, output_magnitudes(network, domain, interval));
  layers.push_back(scale_layer(network.output_layer(), previous, u));

  const Eigen::VectorXd weighted = objective.weights.cwiseProduct(u);  // g = weighted^T y' + constant
  const double sigma = power_of_two(weighted.cwiseAbs().maxCoeff());
  Objective scaled_objective = objective;
  scaled_objective.weights = weighted / sigma;
  scaled_objective.constant = objective.constant / sigma;
  return ScaledProblem{Network(std::move(layers)), scale_domain(domain, t), std::move(scaled_objective), t, u, sigma};
}

bool needs_scaling(const Network& network, const Domain& domain, const Objective& objective,
                   const NeuronBounds& interval) {
  double largest = input_magnitudes(domain).maxCoeff();
  for (int k = 0; k < network.num_hidden_layers(); ++k)
    largest = std::max({largest, interval.lower[k].cwiseAbs().maxCoeff(), interval.upper[k].cwiseAbs().maxCoeff()});
  const double value = objective.weights.cwiseAbs().cwiseProduct(output_magnitudes(network, domain, interval)).maxCoeff();
  largest = std::max(largest, value);
  return largest > 1e6 || (largest > 0.0 && largest < 1e-6);
}

SolveResult unscale_result(SolveResult result, const ScaledProblem& scaled, const Network& network,
                           const Domain& domain, const Objective& objective) {
  const double sigma = scaled.value_scale;
  if (result.status != SolveStatus::kNoSolution) {
    result.x = scaled.original_x(result.x);
    result.outputs = network.forward(result.x);
    result.objective = objective.value(result.outputs);
    result.domain_violation = domain.max_violation(result.x);
  }
  if (result.bound) *result.bound *= sigma;
  for (auto* series : {&result.trajectory, &result.bound_trajectory})
    for (auto& [seconds, value] : *series) value *= sigma;
  for (auto& [index, value] : result.sample_values) value *= sigma;
  if (result.stop_rule) {
    StopRuleReport& rule = *result.stop_rule;
    for (double* value : {&rule.eps, &rule.estimate, &rule.lower, &rule.upper}) *value *= sigma;
  }
  return result;
}

}  // namespace reluopt
