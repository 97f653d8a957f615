// Max-min objectives as ReLU layers (docs/MATH.md section 13). Each value of the tree is an affine expression
// a^T z + c over the post-activations z of the last layer built; a new layer holds, per pair (a, b),
//   min: pass(a), relu(a - b)   ->   min(a, b) = a - relu(a - b)
//   max: pass(b), relu(a - b)   ->   max(a, b) = b + relu(a - b)
// and pass(v) for a value without a partner. A value v with a known lower bound L_v passes a layer as one
// neuron relu(v - L) + L with L = carry_shift(L_v) <= L_v - 1: it is active wherever v lies, so it needs no split
// and relaxes to v exactly. Without a bound it passes as relu(v) - relu(-v), whose relaxation is loose where v
// changes sign: a prover then has to split both neurons to see v. Every identity is exact in real arithmetic,
// so a bound proven on the compiled network bounds the max-min objective.
#include "core/max_min_network.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <string>
#include <vector>

#include "core/magnitude.h"
#include "core/model_reduction.h"
#include "reluopt/error.h"

namespace reluopt::detail {

namespace {

constexpr double kUnbounded = -std::numeric_limits<double>::infinity();

struct Expression {
  Eigen::RowVectorXd weights;  // over the post-activations of the last layer built
  double constant = 0.0;
  double lower = kUnbounded;  // a valid lower bound of the value over the domain, when one is known
};

using Groups = std::vector<std::vector<Expression>>;

enum class Reduce { kMin, kMax };

// Appends neuron relu(sign_a * a + sign_b * b) to `rows` and returns its index.
int add_neuron(std::vector<Expression>& rows, const Expression& a, double sign_a, const Expression* b = nullptr) {
  Expression row{sign_a * a.weights, sign_a * a.constant};
  if (b != nullptr) {
    row.weights -= b->weights;
    row.constant -= b->constant;
  }
  rows.push_back(std::move(row));
  return static_cast<int>(rows.size()) - 1;
}

// One neuron's coefficient in a new expression, over a layer whose width is known only at the end.
using Combination = std::vector<std::pair<int, double>>;

// Values in `carried` pass every layer as one neuron relu(v - L) each, which is v - L wherever v >= L.
struct Carried {
  std::vector<Expression> values;
  Eigen::VectorXd lower;  // L
};

// The neurons that pass value v through a layer, as (neuron, coefficient) pairs plus a constant: relu(v - L) + L
// when v has a lower bound, relu(v) - relu(-v) when not.
Combination pass(std::vector<Expression>& rows, const Expression& v, double& constant) {
  if (v.lower >= -0.5 * kMaxMagnitude) {  // carry_shift(L_v) <= L_v - 1 there
    const double shift = carry_shift(v.lower);
    const int neuron = add_neuron(rows, v, 1.0);
    rows.back().constant -= shift;
    constant += shift;
    return {{neuron, 1.0}};
  }
  return {{add_neuron(rows, v, 1.0), 1.0}, {add_neuron(rows, v, -1.0), -1.0}};
}

// A value of the next layer: its neurons, constant and lower bound.
struct Pending {
  Combination neurons;
  double constant = 0.0;
  double lower = kUnbounded;
};

// One ReLU layer that halves every group of more than one value (or passes a group of one value through).
// Appends the layer to `layers` and returns the groups as expressions over its outputs.
Groups reduce_once(const Groups& groups, Reduce op, std::vector<DenseLayer>& layers, Carried& carried) {
  std::vector<Expression> rows;
  std::vector<std::vector<Pending>> combos(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::vector<Expression>& values = groups[g];
    for (std::size_t i = 0; i < values.size(); i += 2) {
      Pending value;
      if (i + 1 == values.size()) {
        value.neurons = pass(rows, values[i], value.constant);
        value.lower = values[i].lower;
        combos[g].push_back(std::move(value));
        continue;
      }
      const Expression& a = values[i];
      const Expression& b = values[i + 1];
      const Expression& kept = op == Reduce::kMin ? a : b;
      const int difference = add_neuron(rows, a, 1.0, &b);
      value.neurons = pass(rows, kept, value.constant);
      value.neurons.push_back({difference, op == Reduce::kMin ? -1.0 : 1.0});
      // min(a, b) >= min(L_a, L_b) and max(a, b) >= max(L_a, L_b); an unknown bound is -infinity.
      value.lower = op == Reduce::kMin ? std::min(a.lower, b.lower) : std::max(a.lower, b.lower);
      combos[g].push_back(std::move(value));
    }
  }
  const std::size_t first_carried = rows.size();
  for (std::size_t i = 0; i < carried.values.size(); ++i) {
    add_neuron(rows, carried.values[i], 1.0);
    rows.back().constant -= carried.lower[static_cast<Eigen::Index>(i)];
  }
  const Eigen::Index width = static_cast<Eigen::Index>(rows.size());
  DenseLayer layer{Eigen::MatrixXd(width, rows.front().weights.size()), Eigen::VectorXd(width)};
  for (Eigen::Index r = 0; r < width; ++r) {
    layer.weights.dense().row(r) = rows[static_cast<std::size_t>(r)].weights;
    layer.bias[r] = rows[static_cast<std::size_t>(r)].constant;
  }
  layers.push_back(std::move(layer));
  Groups out(groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (const Pending& pending : combos[g]) {
      Expression value{Eigen::RowVectorXd::Zero(width), pending.constant, pending.lower};
      for (const auto& [neuron, coefficient] : pending.neurons) value.weights[neuron] += coefficient;
      out[g].push_back(std::move(value));
    }
  for (std::size_t i = 0; i < carried.values.size(); ++i) {
    Expression value{Eigen::RowVectorXd::Zero(width), carried.lower[static_cast<Eigen::Index>(i)]};
    value.weights[static_cast<Eigen::Index>(first_carried + i)] = 1.0;
    carried.values[i] = std::move(value);
  }
  return out;
}

bool reduced(const Groups& groups) {
  for (const std::vector<Expression>& values : groups)
    if (values.size() > 1) return false;
  return true;
}

// The width of the layer reduce_once makes of groups of `sizes` values, which become the sizes after it.
Eigen::Index reduce_sizes(std::vector<std::size_t>& sizes) {
  Eigen::Index width = 0;
  for (std::size_t& n : sizes) {
    width += static_cast<Eigen::Index>(3 * (n / 2) + 2 * (n % 2));
    n = (n + 1) / 2;
  }
  return width;
}

bool reduced(const std::vector<std::size_t>& sizes) {
  return std::all_of(sizes.begin(), sizes.end(), [](std::size_t n) { return n <= 1; });
}

// compile_max_min, carrying the outputs y through the appended layers when `carry_lower` is given.
std::optional<MaxMinNetwork> compile(const Network& network, const Objective& objective, const Deadline& deadline,
                                     const Eigen::VectorXd* carry_lower, const TermLowerBounds* term_lower) {
  const DenseLayer& out = network.output_layer();
  std::vector<DenseLayer> layers(network.layers().begin(), network.layers().end() - 1);
  Carried carried;
  if (carry_lower != nullptr) {
    carried.lower = *carry_lower;
    for (Eigen::Index i = 0; i < out.weights.rows(); ++i) carried.values.push_back({out.weights.row(i), out.bias[i]});
  }
  Groups groups;
  for (const std::vector<ObjectiveTerm>& disjunct : objective.terms()) {
    groups.emplace_back();
    for (const ObjectiveTerm& term : disjunct)
      groups.back().push_back({term.weights.transpose() * out.weights, term.weights.dot(out.bias) + term.constant});
    if (term_lower == nullptr) continue;
    const std::vector<double>& lower = (*term_lower)[groups.size() - 1];
    for (std::size_t l = 0; l < lower.size(); ++l) groups.back()[l].lower = lower[l];
  }
  for (; !reduced(groups); groups = reduce_once(groups, Reduce::kMin, layers, carried))
    if (deadline.expired()) return std::nullopt;
  Groups disjuncts(1);
  for (std::vector<Expression>& values : groups) disjuncts[0].push_back(std::move(values[0]));
  for (; !reduced(disjuncts); disjuncts = reduce_once(disjuncts, Reduce::kMax, layers, carried))
    if (deadline.expired()) return std::nullopt;
  std::vector<Expression> outputs{disjuncts[0][0]};
  outputs.insert(outputs.end(), carried.values.begin(), carried.values.end());
  DenseLayer last{Eigen::MatrixXd(static_cast<Eigen::Index>(outputs.size()), outputs[0].weights.size()),
                  Eigen::VectorXd(static_cast<Eigen::Index>(outputs.size()))};
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    last.weights.dense().row(static_cast<Eigen::Index>(i)) = outputs[i].weights;
    last.bias[static_cast<Eigen::Index>(i)] = outputs[i].constant;
  }
  layers.push_back(std::move(last));
  Objective linear = Objective::output(static_cast<int>(outputs.size()), 0);
  linear.sense = objective.sense;
  linear.description = objective.description;
  return MaxMinNetwork{Network(std::move(layers)), std::move(linear)};
}

}  // namespace

MaxMinNetwork compile_max_min(const Network& network, const Objective& objective) {
  return *compile_max_min(network, objective, Deadline());
}

std::optional<MaxMinNetwork> compile_max_min(const Network& network, const Objective& objective,
                                             const Deadline& deadline) {
  return compile(network, objective, deadline, nullptr, nullptr);
}

std::optional<MaxMinNetwork> compile_max_min(const Network& network, const Objective& objective,
                                             const Deadline& deadline, const TermLowerBounds& term_lower) {
  const std::vector<std::vector<ObjectiveTerm>> terms = objective.terms();
  if (term_lower.size() != terms.size())
    throw Error("compile_max_min: " + std::to_string(term_lower.size()) + " disjuncts' term bounds for " +
                std::to_string(terms.size()) + " disjuncts");
  for (std::size_t k = 0; k < terms.size(); ++k)
    if (term_lower[k].size() != terms[k].size())
      throw Error("compile_max_min: disjunct " + std::to_string(k) + " has " + std::to_string(terms[k].size()) +
                  " terms and " + std::to_string(term_lower[k].size()) + " term bounds");
  return compile(network, objective, deadline, nullptr, &term_lower);
}

TermLowerBounds term_lower_bounds(const Objective& objective, const Eigen::VectorXd& y_lower,
                                  const Eigen::VectorXd& y_upper) {
  TermLowerBounds lower;
  for (const std::vector<ObjectiveTerm>& disjunct : objective.terms()) {
    lower.emplace_back();
    for (const ObjectiveTerm& term : disjunct) {
      double sum = term.constant;
      for (Eigen::Index i = 0; i < term.weights.size(); ++i) {
        const double c = term.weights[i];
        if (c != 0.0) sum += c * (c > 0.0 ? y_lower[i] : y_upper[i]);
      }
      lower.back().push_back(std::isnan(sum) ? kUnbounded : sum);
    }
  }
  return lower;
}

MaxMinNetwork compile_max_min_carrying(const Network& network, const Objective& objective,
                                       const Eigen::VectorXd& lower) {
  return *compile(network, objective, Deadline(), &lower, nullptr);
}


double max_min_bytes(Eigen::Index width, const std::vector<std::size_t>& terms) {
  constexpr double kDouble = sizeof(double);
  double values = 0.0;
  for (const std::size_t n : terms) values += static_cast<double>(n);
  // The terms as expressions over the last hidden layer.
  double bytes = kDouble * values * static_cast<double>(width);
  double temporaries = 0.0;
  const auto reduce = [&](std::vector<std::size_t>& sizes) {
    const double before = static_cast<double>(width);
    width = reduce_sizes(sizes);
    const double layer = kDouble * static_cast<double>(width) * (before + 1.0);
    values = 0.0;
    for (const std::size_t n : sizes) values += static_cast<double>(n);
    // The layer's rows before they are copied into it, and the values as expressions over the new layer.
    temporaries = std::max(temporaries, layer + kDouble * values * static_cast<double>(width));
    bytes += layer;
  };
  std::vector<std::size_t> sizes = terms;
  while (!reduced(sizes)) reduce(sizes);
  std::vector<std::size_t> disjuncts{terms.size()};
  while (!reduced(disjuncts)) reduce(disjuncts);
  return bytes + temporaries;
}

SolveResult map_max_min_result(SolveResult result, const Network& network, const Objective& objective) {
  if (result.status == SolveStatus::kNoSolution || result.x.size() == 0) return result;
  result.outputs = network.forward(result.x);
  result.objective = objective.value(result.outputs);
  if (result.bound) {
    const double absolute = std::abs(*result.bound - result.objective);
    result.gap = absolute / std::max(std::abs(result.objective), 1e-9);
  }
  return result;
}

}  // namespace reluopt::detail
