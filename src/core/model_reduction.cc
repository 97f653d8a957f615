#include "core/model_reduction.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "reluopt/magnitude.h"

namespace reluopt {

namespace {

// Which variables the composite carries and emits. T (`emitted`): the variables of the variable terms of the
// objective and of the output rows, which y must hold (all of v for a model without networks, whose y would
// otherwise be empty). S (`carried`): T and the inputs of the networks that start after the first layer.
struct Carry {
  std::vector<int> carried, emitted;
  std::vector<int> position;  // position[i] in `carried`, -1 when v_i is not carried
};

// Where each piece of the composite's hidden layer j sits: network k's neurons from start[j][k] (-1 while the
// network has not started), the carried variables from carry[j].
struct Layout {
  std::vector<int> first;  // the composite layer at which network k's first layer is applied
  std::vector<std::vector<int>> start;
  std::vector<int> carry;
  std::vector<int> width;
};

Layout layout(const Model& model, int depth, int carried) {
  Layout out;
  for (const NetworkUse& use : model.networks) out.first.push_back(depth - use.network->num_hidden_layers());
  for (int j = 0; j < depth; ++j) {
    int rows = 0;
    out.start.emplace_back();
    for (std::size_t k = 0; k < model.networks.size(); ++k) {
      const int t = j - out.first[k];
      out.start[j].push_back(t >= 0 ? rows : -1);
      if (t >= 0) rows += model.networks[k].network->hidden_width(t);
    }
    out.carry.push_back(rows);
    out.width.push_back(rows + carried);
  }
  return out;
}

Carry carry_sets(const Model& model, const Layout& places) {
  const int n = model.num_variables();
  std::vector<bool> emit(static_cast<std::size_t>(n), model.networks.empty()), carry(emit);
  auto mark = [&](const LinearExpr& expr) {
    for (const LinearExpr::Term& term : expr.terms)
      if (term.ref.kind == Reference::Kind::kVariable)
        emit[static_cast<std::size_t>(model.offset(term.ref.index) + term.ref.coordinate)] = true;
  };
  mark(model.objective);
  for (const LinearConstraint& c : model.constraints)
    if (c.expr.has_outputs()) mark(c.expr);
  carry = emit;
  for (std::size_t k = 0; k < model.networks.size(); ++k)
    if (places.first[k] > 0)
      for (int i : model.networks[k].input) carry[static_cast<std::size_t>(i)] = true;
  Carry out;
  out.position.assign(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i) {
    if (emit[static_cast<std::size_t>(i)]) out.emitted.push_back(i);
    if (!carry[static_cast<std::size_t>(i)]) continue;
    out.position[static_cast<std::size_t>(i)] = static_cast<int>(out.carried.size());
    out.carried.push_back(i);
  }
  return out;
}

// Network k's layer t as rows [row, row + its width) of composite layer j (input columns as `layout` places the
// previous layer; v itself at j = 0). Its first layer reads v from the carried relu(v - L), adding W L back.
void place_network_layer(const NetworkUse& use, int t, int j, int k, int row, const Layout& layout,
                         const Carry& carry, const Eigen::VectorXd& shift, DenseLayer& layer) {
  const DenseLayer& own = use.network->layers()[static_cast<std::size_t>(t)];
  const Eigen::Index rows = own.weights.rows();
  layer.bias.segment(row, rows) = own.bias;
  if (t > 0) {
    layer.weights.block(row, layout.start[j - 1][k], rows, own.weights.cols()) = own.weights;
    return;
  }
  for (std::size_t i = 0; i < use.input.size(); ++i) {
    const Eigen::Index col = static_cast<Eigen::Index>(i);
    const int v = use.input[i];
    const int column = j == 0 ? v : layout.carry[j - 1] + carry.position[static_cast<std::size_t>(v)];
    layer.weights.col(column).segment(row, rows) += own.weights.col(col);
    if (j > 0) layer.bias.segment(row, rows) += own.weights.col(col) * shift[v];
  }
}

// The carried variables: relu(v - L) in the first hidden layer, then relu of themselves, and + L back into the
// emitted ones in the output layer (v itself when there is no hidden layer).
void place_carry(int j, int depth, const Layout& layout, const Carry& carry, int output_row,
                 const Eigen::VectorXd& shift, DenseLayer& layer) {
  if (j == depth) {
    for (std::size_t t = 0; t < carry.emitted.size(); ++t) {
      const int v = carry.emitted[t], row = output_row + static_cast<int>(t);
      if (depth == 0) {
        layer.weights(row, v) = 1.0;
        continue;
      }
      layer.weights(row, layout.carry[j - 1] + carry.position[static_cast<std::size_t>(v)]) = 1.0;
      layer.bias[row] = shift[v];
    }
    return;
  }
  for (std::size_t p = 0; p < carry.carried.size(); ++p) {
    const int v = carry.carried[p], row = layout.carry[j] + static_cast<int>(p);
    layer.weights(row, j == 0 ? v : layout.carry[j - 1] + static_cast<int>(p)) = 1.0;
    if (j == 0) layer.bias[row] = -shift[v];
  }
}

// The composite's layer j (hidden for j < depth, the output layer at j = depth).
DenseLayer composite_layer(const Model& model, const Layout& layout, const Carry& carry, int j, int depth,
                           const Eigen::VectorXd& shift, const std::vector<int>& output_offset) {
  const bool output = j == depth;
  const int rows = output ? output_offset.back() + static_cast<int>(carry.emitted.size()) : layout.width[j];
  const int cols = j == 0 ? model.num_variables() : layout.width[j - 1];
  DenseLayer layer{Eigen::MatrixXd::Zero(rows, cols), Eigen::VectorXd::Zero(rows)};
  for (std::size_t k = 0; k < model.networks.size(); ++k) {
    const int t = j - layout.first[k];
    if (t < 0) continue;
    const int row = output ? output_offset[k] : layout.start[j][k];
    place_network_layer(model.networks[k], t, j, static_cast<int>(k), row, layout, carry, shift, layer);
  }
  place_carry(j, depth, layout, carry, output_offset.back(), shift, layer);
  return layer;
}

Network composite_network(const Model& model, const Eigen::VectorXd& shift, std::vector<int>& output_offset,
                          std::vector<int>& emitted) {
  int depth = 0;
  for (const NetworkUse& use : model.networks) depth = std::max(depth, use.network->num_hidden_layers());
  output_offset.assign(1, 0);
  for (const NetworkUse& use : model.networks)
    output_offset.push_back(output_offset.back() + use.network->output_dim());
  const Carry carry = carry_sets(model, layout(model, depth, 0));
  const Layout places = layout(model, depth, static_cast<int>(carry.carried.size()));
  std::vector<DenseLayer> layers;
  for (int j = 0; j <= depth; ++j)
    layers.push_back(composite_layer(model, places, carry, j, depth, shift, output_offset));
  emitted = carry.emitted;
  return Network(std::move(layers));
}

bool is_plain(const Model& model) {
  if (model.networks.size() != 1 || model.objective.has_variables()) return false;
  std::vector<int> all(static_cast<std::size_t>(model.num_variables()));
  std::iota(all.begin(), all.end(), 0);
  if (model.networks[0].input != all) return false;
  return std::none_of(model.constraints.begin(), model.constraints.end(), [](const LinearConstraint& c) {
    return c.expr.has_outputs() && c.expr.has_variables();
  });
}

// The row a^T u over u = v (variables only) or u = y (the composite's outputs), with expr's constant moved to
// the right-hand side: a^T u <= rhs - constant.
Eigen::VectorXd expr_row(const Model& model, const ReducedModel& reduced, const LinearExpr& expr, bool over_outputs,
                         int dim) {
  Eigen::VectorXd row = Eigen::VectorXd::Zero(dim);
  for (const LinearExpr::Term& term : expr.terms) {
    const Reference& r = term.ref;
    int at = r.kind == Reference::Kind::kOutput ? reduced.output_offset[r.index] + r.coordinate
                                                 : model.offset(r.index) + r.coordinate;
    if (over_outputs && r.kind == Reference::Kind::kVariable) {
      const auto& emitted = reduced.output_variables;
      at = reduced.variables_offset + static_cast<int>(std::find(emitted.begin(), emitted.end(), at) - emitted.begin());
    }
    row[at] += term.coefficient;
  }
  return row;
}

void append_row(Eigen::MatrixXd& A, Eigen::VectorXd& b, const Eigen::VectorXd& row, double rhs) {
  A.conservativeResize(A.rows() + 1, row.size());
  b.conservativeResize(b.size() + 1);
  A.row(A.rows() - 1) = row.transpose();
  b[b.size() - 1] = rhs;
}

// Each constraint as one or two rows "<=": over v into the domain, or over y into the output rows.
void add_constraint_rows(const Model& model, ReducedModel& reduced) {
  const int n = model.num_variables();
  const int m = reduced.composite->output_dim();
  reduced.domain.A.resize(0, n);
  reduced.domain.b.resize(0);
  reduced.output_rows.resize(0, m);
  reduced.output_rhs.resize(0);
  for (const LinearConstraint& c : model.constraints) {
    const bool outputs = c.expr.has_outputs();
    const Eigen::VectorXd row = expr_row(model, reduced, c.expr, outputs, outputs ? m : n);
    const double rhs = c.rhs - c.expr.constant;
    Eigen::MatrixXd& A = outputs ? reduced.output_rows : reduced.domain.A;
    Eigen::VectorXd& b = outputs ? reduced.output_rhs : reduced.domain.b;
    if (c.sense != ConstraintSense::kGreaterEqual) append_row(A, b, row, rhs);
    if (c.sense != ConstraintSense::kLessEqual) append_row(A, b, -row, -rhs);
  }
}

void set_box(const Model& model, ReducedModel& reduced) {
  const int n = model.num_variables();
  Domain& domain = reduced.domain;
  domain.lower.resize(n);
  domain.upper.resize(n);
  reduced.integer.assign(static_cast<std::size_t>(n), false);
  std::string description = "variables";
  for (std::size_t b = 0; b < model.variables.size(); ++b) {
    const VariableBlock& block = model.variables[b];
    const int at = model.offset(static_cast<int>(b));
    description += (b ? ", " : " ") + block.name + " (" + std::to_string(block.size()) + ")";
    for (int i = 0; i < block.size(); ++i) {
      const bool integer = block.is_integer(i);
      reduced.integer[static_cast<std::size_t>(at + i)] = integer;
      domain.lower[at + i] = integer ? std::ceil(block.lower[i]) : block.lower[i];
      domain.upper[at + i] = integer ? std::floor(block.upper[i]) : block.upper[i];
    }
  }
  domain.description = description;
}

}  // namespace

double carry_shift(double lower) { return std::max(std::min(lower, 0.0) - 1.0, -kMaxMagnitude); }

bool ReducedModel::has_integers() const { return std::find(integer.begin(), integer.end(), true) != integer.end(); }

Eigen::VectorXd ReducedModel::network_outputs(const Eigen::VectorXd& y, int k) const {
  return y.segment(output_offset[k], output_offset[k + 1] - output_offset[k]);
}

double ReducedModel::output_violation(const Eigen::VectorXd& y) const {
  if (!has_output_rows()) return 0.0;
  return std::max(0.0, (output_rows * y - output_rhs).maxCoeff());
}

ReducedModel reduce(const Model& model) {
  model.validate();
  ReducedModel reduced;
  set_box(model, reduced);
  if (is_plain(model)) {
    reduced.composite = model.networks[0].network;
    reduced.output_offset = {0, reduced.composite->output_dim()};
  } else {
    const Eigen::VectorXd shift = reduced.domain.lower.unaryExpr([](double lower) { return carry_shift(lower); });
    reduced.composite = std::make_shared<const Network>(
        composite_network(model, shift, reduced.output_offset, reduced.output_variables));
    reduced.variables_offset = reduced.output_offset.back();
  }
  add_constraint_rows(model, reduced);
  Objective& objective = reduced.objective;
  objective.sense = model.sense;
  const LinearExpr& g = model.objective;
  objective.weights = expr_row(model, reduced, g, true, reduced.composite->output_dim());
  objective.constant = g.constant;
  objective.description = std::string(model.sense == Sense::kMaximize ? "maximize" : "minimize") +
                          " the problem's objective";
  reduced.domain.validate(model.num_variables());
  return reduced;
}

}  // namespace reluopt
