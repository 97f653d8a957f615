// Power-of-two scaling of a problem so that the LP and MIP solvers see numbers near 1 (core/scaling.h).
#include "core/scaling.h"

#include <algorithm>
#include <cmath>

namespace reluopt {

namespace {

// Scaling by less than this is not worth a copy of the network (2^20, about 1e6).
constexpr double kScaleFrom = 1048576.0;

// 2^floor(log2 m): m / power_of_two(m) lies in [1, 2). 1 for 0 (a dead neuron, an input fixed at 0).
double power_of_two(double magnitude) {
  if (!(magnitude > 0.0) || !std::isfinite(magnitude)) return 1.0;
  return std::ldexp(1.0, std::ilogb(magnitude));
}

// The largest |x_i| of each input over the domain's box.
Eigen::VectorXd input_magnitudes(const Domain& domain) {
  return domain.lower.cwiseAbs().cwiseMax(domain.upper.cwiseAbs());
}

// One factor for a whole layer: the power of two of the median over its neurons of sum_i |W_ji| p_i + |b_j|, the
// size a neuron's pre-activation takes when the previous layer has its typical size p. The layer's typical neuron
// comes out near 1, and an outlier (one weight of 1e10 among weights near 1) stays as far from its neighbours as
// in the original: it changes neither its own layer's median nor, since p is the typical size and not its bound,
// the next layer's. Scaling by the outlier would shrink every other coefficient of the rows it feeds below the
// solvers' tolerances (measured: wrong optimal claims).
Eigen::VectorXd layer_scale(const DenseLayer& layer, const Eigen::VectorXd& previous) {
  Eigen::VectorXd size = layer.weights.abs_times(previous) + layer.bias.cwiseAbs();
  const auto middle = size.begin() + size.size() / 2;
  std::nth_element(size.begin(), middle, size.end());
  return Eigen::VectorXd::Constant(size.size(), power_of_two(*middle));
}

// W'[j][i] = W[j][i] p_i / s_j and b'_j = b_j / s_j: exact, every factor a power of two.
DenseLayer scale_layer(const DenseLayer& layer, const Eigen::VectorXd& previous, const Eigen::VectorXd& scale) {
  DenseLayer scaled;
  scaled.weights = layer.weights.scaled(scale.cwiseInverse(), previous);
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

// The factors of core/scaling.h: t per input, one per hidden layer (as a vector over its neurons), u, sigma.
struct Factors {
  Eigen::VectorXd t;
  std::vector<Eigen::VectorXd> layers;
  Eigen::VectorXd u;
  double sigma = 1.0;
};

Factors factors(const Network& network, const Domain& domain, const Objective& objective) {
  Factors f;
  f.t = input_magnitudes(domain).unaryExpr(&power_of_two);
  for (int k = 0; k < network.num_hidden_layers(); ++k)
    f.layers.push_back(layer_scale(network.hidden_layer(k), k == 0 ? f.t : f.layers.back()));
  f.u = layer_scale(network.output_layer(), f.layers.empty() ? f.t : f.layers.back());
  f.sigma = power_of_two(objective.weights.cwiseProduct(f.u).cwiseAbs().maxCoeff());
  return f;
}

}  // namespace

ScaledProblem scale_problem(const Network& network, const Domain& domain, const Objective& objective) {
  const Factors f = factors(network, domain, objective);
  std::vector<DenseLayer> layers;
  for (int k = 0; k < network.num_hidden_layers(); ++k)
    layers.push_back(scale_layer(network.hidden_layer(k), k == 0 ? f.t : f.layers[k - 1], f.layers[k]));
  layers.push_back(scale_layer(network.output_layer(), f.layers.empty() ? f.t : f.layers.back(), f.u));
  Objective scaled_objective = objective;
  scaled_objective.weights = objective.weights.cwiseProduct(f.u) / f.sigma;  // g = sigma (weights' y' + constant')
  scaled_objective.constant = objective.constant / f.sigma;
  return ScaledProblem{Network(std::move(layers)), scale_domain(domain, f.t), std::move(scaled_objective), f.t, f.u,
                       f.sigma};
}

bool needs_scaling(const Network& network, const Domain& domain, const Objective& objective) {
  const Factors f = factors(network, domain, objective);
  const auto far = [](double factor) { return factor > kScaleFrom || factor < 1.0 / kScaleFrom; };
  bool any = far(f.sigma) || far(f.u[0]) || f.t.unaryExpr(far).any();
  for (const Eigen::VectorXd& layer : f.layers) any = any || far(layer[0]);
  return any;
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
  for (auto& [index, value] : result.sampling.values) value *= sigma;
  if (result.stop_rule) {
    StopRuleReport& rule = *result.stop_rule;
    for (double* value : {&rule.eps, &rule.estimate, &rule.lower, &rule.upper}) *value *= sigma;
  }
  return result;
}

}  // namespace reluopt
