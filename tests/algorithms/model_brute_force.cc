#include "algorithms/model_brute_force.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <stdexcept>
#include <vector>

#include "lp/linear_model.h"
#include "solver/lp_solver.h"
#include "test_networks.h"

namespace reluopt::testing {

namespace {

// sum coefficient * column within [lower, upper], a column named twice (a network reading one variable twice)
// summed into one entry.
void add_merged_row(LinearModel& lp, const std::map<int, double>& terms, double lower, double upper) {
  std::vector<int> index;
  std::vector<double> value;
  for (const auto& [col, coefficient] : terms) {
    index.push_back(col);
    value.push_back(coefficient);
  }
  lp.add_row(index, value, lower, upper);
}

// Network `use`'s layers on the columns `input`, its hidden neurons in the states of `bits` from bit `bit` on:
// an active neuron's column x = h >= 0, an inactive one's x = 0 >= h. Returns the columns of its outputs.
std::vector<int> add_network(LinearModel& lp, const NetworkUse& use, std::vector<int> input, long bits, int& bit) {
  const Network& net = *use.network;
  for (int t = 0; t <= net.num_hidden_layers(); ++t) {
    const DenseLayer& layer = net.layers()[static_cast<std::size_t>(t)];
    const bool hidden = t < net.num_hidden_layers();
    std::vector<int> columns;
    for (Eigen::Index i = 0; i < layer.weights.rows(); ++i) {
      std::map<int, double> h;  // W_i x (the bias apart)
      for (std::size_t j = 0; j < input.size(); ++j) h[input[j]] += layer.weights(i, static_cast<Eigen::Index>(j));
      const double b = layer.bias[i];
      const bool active = hidden && ((bits >> bit++) & 1L);
      if (hidden && !active) {
        add_merged_row(lp, h, -kInfinity, -b);
        columns.push_back(lp.add_column(0.0, 0.0));
        continue;
      }
      if (active) add_merged_row(lp, h, -b, kInfinity);
      const int col = lp.add_column(active ? 0.0 : -kInfinity, kInfinity);
      std::map<int, double> defining{{col, 1.0}};
      for (const auto& [c, w] : h) defining[c] -= w;
      add_merged_row(lp, defining, b, b);  // x - W_i x_prev = b
      columns.push_back(col);
    }
    input = columns;
  }
  return input;
}

std::map<int, double> expr_columns(const Model& model, const LinearExpr& expr,
                                   const std::vector<std::vector<int>>& outputs, double scale) {
  std::map<int, double> terms;
  for (const LinearExpr::Term& term : expr.terms) {
    const Reference& r = term.ref;
    const int col = r.kind == Reference::Kind::kVariable ? model.offset(r.index) + r.coordinate
                                                          : outputs[r.index][r.coordinate];
    terms[col] += scale * term.coefficient;
  }
  return terms;
}

// The piece of `bits` with v in [lower, upper] (integer coordinates fixed there): max sign * objective.
LinearModel piece_lp(const Model& model, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper, long bits) {
  LinearModel lp;
  for (Eigen::Index i = 0; i < lower.size(); ++i) lp.add_column(lower[i], upper[i]);
  std::vector<std::vector<int>> outputs;
  int bit = 0;
  for (const NetworkUse& use : model.networks) outputs.push_back(add_network(lp, use, use.input, bits, bit));
  for (const LinearConstraint& c : model.constraints) {
    const double rhs = c.rhs - c.expr.constant;
    add_merged_row(lp, expr_columns(model, c.expr, outputs, 1.0),
                   c.sense == ConstraintSense::kLessEqual ? -kInfinity : rhs,
                   c.sense == ConstraintSense::kGreaterEqual ? kInfinity : rhs);
  }
  const double sign = model.sense == Sense::kMaximize ? 1.0 : -1.0;
  for (const auto& [col, coefficient] : expr_columns(model, model.objective, outputs, sign))
    lp.set_objective(col, coefficient);
  lp.set_objective_constant(sign * model.objective.constant);
  return lp;
}

// The neuron states a piece over v in [lower, upper] may take (possible_states of each network, its neurons'
// bits after those of the networks before it).
PossibleStates piece_states(const Model& model, const Eigen::VectorXd& lower, const Eigen::VectorXd& upper) {
  PossibleStates states;
  int first = 0;
  for (const NetworkUse& use : model.networks) {
    Eigen::VectorXd lo(static_cast<Eigen::Index>(use.input.size())), hi(lo.size());
    for (std::size_t j = 0; j < use.input.size(); ++j) {
      lo[static_cast<Eigen::Index>(j)] = lower[use.input[j]];
      hi[static_cast<Eigen::Index>(j)] = upper[use.input[j]];
    }
    const PossibleStates own = possible_states(*use.network, lo, hi);
    states.fixed |= own.fixed << first;
    for (int bit : own.free) states.free.push_back(first + bit);
    first += use.network->num_hidden_neurons();
  }
  return states;
}

}  // namespace

void expect_oracles_answer(const Model& model, const ModelOptimum& exact, const ModelResult& got) {
  if (!exact.feasible) {
    EXPECT_EQ(got.result.status, SolveStatus::kInfeasible);
    EXPECT_FALSE(got.point.has_value());
    return;
  }
  ASSERT_EQ(got.result.status, SolveStatus::kOptimal);
  ASSERT_TRUE(got.point.has_value());
  const ModelPoint check = evaluate(model, got.point->v);
  EXPECT_LE(check.max_violation, model_tolerance(model));
  EXPECT_EQ(check.objective, got.result.objective);
  EXPECT_NEAR(got.result.objective, exact.objective, 1e-6 * std::max(1.0, std::abs(exact.objective)));
  ASSERT_TRUE(got.result.bound.has_value());
  const double sign = model.sense == Sense::kMaximize ? 1.0 : -1.0;
  EXPECT_GE(sign * *got.result.bound, sign * exact.objective) << "the bound cuts off the optimum";
}

LinearConstraint make_constraint(std::vector<LinearExpr::Term> terms, ConstraintSense sense, double rhs) {
  LinearConstraint c;
  c.expr.terms = std::move(terms);
  c.sense = sense;
  c.rhs = rhs;
  return c;
}

ModelOptimum brute_force_model(const Model& model) {
  model.validate();
  int neurons = 0;
  for (const NetworkUse& use : model.networks) neurons += use.network->num_hidden_neurons();
  if (neurons > 16) throw std::invalid_argument("brute_force_model: more than 16 hidden neurons");
  Eigen::VectorXd lower(model.num_variables()), upper(model.num_variables());
  std::vector<int> integer;  // coordinates of v on the grid
  for (std::size_t b = 0, i = 0; b < model.variables.size(); ++b)
    for (int j = 0; j < model.variables[b].size(); ++j, ++i) {
      const VariableBlock& block = model.variables[b];
      lower[static_cast<Eigen::Index>(i)] = block.is_integer(j) ? std::ceil(block.lower[j]) : block.lower[j];
      upper[static_cast<Eigen::Index>(i)] = block.is_integer(j) ? std::floor(block.upper[j]) : block.upper[j];
      if (block.is_integer(j)) integer.push_back(static_cast<int>(i));
    }
  double grid = 1.0;
  for (int i : integer) grid *= upper[i] - lower[i] + 1.0;
  if (grid * std::ldexp(1.0, neurons) > 100000) throw std::invalid_argument("brute_force_model: too many pieces");

  const double sign = model.sense == Sense::kMaximize ? 1.0 : -1.0;
  const std::unique_ptr<LpSolver> solver = make_lp_solver();
  ModelOptimum best;
  Eigen::VectorXd at = lower;  // the grid point: integer coordinates counted up like an odometer
  for (long point = 0; point < static_cast<long>(grid); ++point) {
    Eigen::VectorXd lo = lower, hi = upper;
    for (int i : integer) lo[i] = hi[i] = at[i];
    const PossibleStates states = piece_states(model, lo, hi);
    for (long k = 0; k < (1L << states.free.size()); ++k) {
      const LpSolution s = solver->solve(piece_lp(model, lo, hi, state_bits(states, k)));
      ++best.pieces;
      if (s.status == LpStatus::kInfeasible) continue;
      if (s.status != LpStatus::kOptimal) throw std::runtime_error("brute_force_model: an LP failed");
      if (best.feasible && s.objective <= sign * best.objective) continue;
      best.feasible = true;
      best.objective = sign * s.objective;
      best.v = Eigen::Map<const Eigen::VectorXd>(s.values.data(), lower.size());
    }
    for (int i : integer) {
      if (++at[i] <= upper[i]) break;
      at[i] = lower[i];
    }
  }
  return best;
}

}  // namespace reluopt::testing
