#include "core/model_reduction.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/magnitude.h"
#include "core/network_specialize.h"
#include "reluopt/error.h"

namespace reluopt {

namespace {

// The box of v, integer coordinates rounded inwards.
struct Box {
  Eigen::VectorXd lower, upper;
  std::vector<bool> integer;
};

Box variable_box(const Model& model) {
  const int n = model.num_variables();
  Box box{Eigen::VectorXd(n), Eigen::VectorXd(n), std::vector<bool>(static_cast<std::size_t>(n))};
  for (std::size_t b = 0; b < model.variables.size(); ++b) {
    const VariableBlock& block = model.variables[b];
    const int at = model.offset(static_cast<int>(b));
    for (int i = 0; i < block.size(); ++i) {
      const bool integer = block.is_integer(i);
      box.integer[static_cast<std::size_t>(at + i)] = integer;
      box.lower[at + i] = integer ? std::ceil(block.lower[i]) : block.lower[i];
      box.upper[at + i] = integer ? std::floor(block.upper[i]) : block.upper[i];
    }
  }
  return box;
}

// The dense row of expr's variable terms over v.
Eigen::VectorXd variable_row(const Model& model, const LinearExpr& expr) {
  Eigen::VectorXd row = Eigen::VectorXd::Zero(model.num_variables());
  for (const LinearExpr::Term& term : expr.terms)
    if (term.ref.kind == Reference::Kind::kVariable)
      row[model.offset(term.ref.index) + term.ref.coordinate] += term.coefficient;
  return row;
}

// v = R u + r: the equalities on variables alone, each solved for a continuous variable once the earlier ones
// are substituted, leave u, the variables not eliminated. An equality over integer variables alone is solved for
// one whose coefficient divides the others and the right side (sum n_i == 1, n0 - n1 == 0): the solved variable
// is then an integer combination of integers, integral wherever u is. Any other equality keeps its two rows.
struct Substitution {
  SparseMap R;                  // n x dim(u): a unit row for each variable left
  Eigen::VectorXd r;
  std::vector<int> free;        // u_j = v[free[j]]
  std::vector<bool> eliminates; // per constraint: it was solved for a variable (and needs no row)
  bool contradiction = false;   // an equality that fixes the last variable outside its box (or off the integers)
};

// The variable to solve a^T v = beta for: continuous, not yet eliminated, with |a_j| at least 1e-3 of the largest
// (a small pivot would magnify the other coefficients); a variable no network reads first, since an eliminated
// network input leaves the interval and symbolic bounds of the box of u, which see no rows, looser; then the
// largest |a_j|, the first on ties. -1 when there is none.
int pivot_of(const Eigen::VectorXd& a, const std::vector<bool>& integer, const std::vector<bool>& gone,
             const std::vector<bool>& read) {
  const double floor = 1e-3 * a.cwiseAbs().maxCoeff();
  int pivot = -1;
  const auto reads = [&](int j) { return read[static_cast<std::size_t>(j)]; };
  const auto better = [&](int j) {
    if (pivot < 0) return true;
    if (reads(j) != reads(pivot)) return !reads(j);
    return std::abs(a[j]) > std::abs(a[pivot]);
  };
  for (int j = 0; j < a.size(); ++j)
    if (!integer[static_cast<std::size_t>(j)] && !gone[static_cast<std::size_t>(j)] && a[j] != 0.0 &&
        std::abs(a[j]) >= floor && better(j))
      pivot = j;
  return pivot;
}

// Whether a is nonzero and only on integer variables.
bool on_integers_alone(const Eigen::VectorXd& a, const std::vector<bool>& integer) {
  bool any = false;
  for (int i = 0; i < a.size(); ++i) {
    if (a[i] != 0.0 && !integer[static_cast<std::size_t>(i)]) return false;
    any = any || a[i] != 0.0;
  }
  return any;
}

bool is_whole(double q) { return std::abs(q - std::round(q)) <= 1e-12 * std::max(1.0, std::abs(q)); }

// The integer variable to solve a^T v = beta for when every variable in it is integer: one whose coefficient a_j
// divides every a_i and beta (a variable no network reads first, then the smallest |a_j|, the first on ties); -1
// when a continuous variable remains in the row or no coefficient divides the rest.
int integral_pivot_of(const Eigen::VectorXd& a, double beta, const std::vector<bool>& integer,
                      const std::vector<bool>& read) {
  const auto at = [](const std::vector<bool>& flags, int j) { return flags[static_cast<std::size_t>(j)]; };
  if (!on_integers_alone(a, integer)) return -1;
  const auto divides = [&](int j) {
    for (int i = 0; i < a.size(); ++i)
      if (a[i] != 0.0 && !is_whole(a[i] / a[j])) return false;
    return is_whole(beta / a[j]);
  };
  int pivot = -1;
  for (int j = 0; j < a.size(); ++j) {
    if (a[j] == 0.0 || !divides(j)) continue;
    if (pivot < 0 || (at(read, j) != at(read, pivot) ? !at(read, j) : std::abs(a[j]) < std::abs(a[pivot])))
      pivot = j;
  }
  return pivot;
}

// Solves a^T v = beta (a and beta already over the current v = R v + r) for pivot_of's variable, or else for
// integral_pivot_of's with its whole quotients rounded to integers; false when there is neither.
bool eliminate(const Eigen::VectorXd& a, double beta, const std::vector<bool>& integer, const std::vector<bool>& read,
               std::vector<bool>& gone, Eigen::MatrixXd& R, Eigen::VectorXd& r) {
  int pivot = pivot_of(a, integer, gone, read);
  const bool integral = pivot < 0;
  if (integral) pivot = integral_pivot_of(a, beta, integer, read);
  if (pivot < 0) return false;
  // v_p = e^T v + e0 with e_p = 0, then into every expression R_i v + r_i that holds v_p.
  Eigen::RowVectorXd e = -a.transpose() / a[pivot];
  e[pivot] = 0.0;
  double e0 = beta / a[pivot];
  if (integral) {
    e = e.array().round().matrix();
    e0 = std::round(e0);
  }
  const Eigen::VectorXd column = R.col(pivot);
  R += column * e;
  r += column * e0;
  R.col(pivot).setZero();
  gone[static_cast<std::size_t>(pivot)] = true;
  return true;
}

// The equality a_p u_p == beta on the last variable left, p: it fixes u_p's box to beta / a_p instead of
// eliminating it, since every method needs an input (a box of width zero is one). A value outside the box, or
// off the integers for an integer variable, is a contradiction: the model has no point. False when a_p is 0.
bool fix_last(const Eigen::VectorXd& a, double beta, const std::vector<bool>& gone, Box& box, bool& contradiction) {
  const int p = static_cast<int>(std::find(gone.begin(), gone.end(), false) - gone.begin());
  if (a[p] == 0.0) return false;
  double value = beta / a[p];
  if (box.integer[static_cast<std::size_t>(p)]) {
    contradiction = contradiction || !is_whole(value);
    value = std::round(value);
  }
  const double slack = 1e-9 * std::max(1.0, std::abs(value));
  contradiction = contradiction || value < box.lower[p] - slack || value > box.upper[p] + slack;
  box.lower[p] = box.upper[p] = std::clamp(value, box.lower[p], box.upper[p]);
  return true;
}

// A model without an equality on variables alone keeps v: R = I, stored sparse, since a network's input can be
// thousands of variables wide. The elimination itself works on a dense n x n matrix.
Substitution substitute_equalities(const Model& model, Box& box) {
  const std::vector<bool>& integer = box.integer;
  const int n = model.num_variables();
  Substitution s{SparseMap(n, n), Eigen::VectorXd::Zero(n), {}, {}};
  const bool any = std::any_of(model.constraints.begin(), model.constraints.end(), [](const LinearConstraint& c) {
    return c.sense == ConstraintSense::kEqual && !c.expr.has_outputs();
  });
  Eigen::MatrixXd R = any ? Eigen::MatrixXd::Identity(n, n) : Eigen::MatrixXd();
  std::vector<bool> gone(static_cast<std::size_t>(n), false), read(gone);
  for (const NetworkUse& use : model.networks)
    for (int i : use.input) read[static_cast<std::size_t>(i)] = true;
  for (std::size_t k = 0; k < model.constraints.size(); ++k) {
    const LinearConstraint& c = model.constraints[k];
    const bool equality = c.sense == ConstraintSense::kEqual && !c.expr.has_outputs();
    const Eigen::VectorXd a = equality ? variable_row(model, c.expr) : Eigen::VectorXd();
    const Eigen::VectorXd over_u = equality ? Eigen::VectorXd(R.transpose() * a) : Eigen::VectorXd();
    const double beta = c.rhs - c.expr.constant - (equality ? a.dot(s.r) : 0.0);
    const bool last = std::count(gone.begin(), gone.end(), false) == 1;
    s.eliminates.push_back(equality && (last ? fix_last(over_u, beta, gone, box, s.contradiction)
                                             : eliminate(over_u, beta, integer, read, gone, R, s.r)));
    if (equality && !s.eliminates.back() && on_integers_alone(over_u, integer))
      throw Error("constraint " + std::to_string(k) + (c.name.empty() ? "" : " ('" + c.name + "')") +
                  ": an equality over integer variables alone needs one whose coefficient divides the others and "
                  "the right side (as in n0 + n1 == 1); without one it leaves no interior");
  }
  for (int i = 0; i < n; ++i)
    if (!gone[static_cast<std::size_t>(i)]) s.free.push_back(i);
  std::vector<Eigen::Triplet<double>> entries;
  for (int i = 0; i < n && !any; ++i) entries.emplace_back(i, i, 1.0);
  for (int i = 0; i < n && any; ++i)
    for (std::size_t j = 0; j < s.free.size(); ++j)
      if (R(i, s.free[j]) != 0.0) entries.emplace_back(i, static_cast<int>(j), R(i, s.free[j]));
  s.R.resize(n, static_cast<Eigen::Index>(s.free.size()));
  s.R.setFromTriplets(entries.begin(), entries.end());
  return s;
}

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
  for (const LinearExpr* expr : model.objective_exprs()) mark(*expr);
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

// A composite layer as its parts are placed: the weights as entries (summed where they meet), stored sparse when
// at most a quarter of them are nonzero. The networks sit side by side in block-diagonal layers and carried
// variables take one weight a row, so a composite of large or sparse networks is mostly zeros.
struct LayerEntries {
  Eigen::Index rows = 0, cols = 0;
  std::vector<Eigen::Triplet<double>> entries;
  Eigen::VectorXd bias;
  std::vector<std::uint8_t> linear;

  void add(Eigen::Index j, Eigen::Index i, double w) {
    if (w != 0.0) entries.emplace_back(static_cast<int>(j), static_cast<int>(i), w);
  }
  DenseLayer layer() const {
    Weights::Sparse w(rows, cols);
    w.setFromTriplets(entries.begin(), entries.end());
    w.prune(0.0);
    if (w.nonZeros() > rows * cols / 4) return DenseLayer{Eigen::MatrixXd(w), bias, linear};
    return DenseLayer{std::move(w), bias, linear};
  }
};

// What building the composite's layers needs.
struct Composite {
  const Model& model;
  const Substitution& input;  // v = R u + r, u the composite's input
  Eigen::VectorXd shift;      // L, one per variable
  int depth = 0;
  Carry carry;
  Layout places;
  std::vector<int> output_offset;

  // Adds `weights` * v_i (a column over the rows from `row`) to the first layer, whose input is u.
  void add_variable(LayerEntries& layer, int row, int i, const Eigen::VectorXd& weights) const {
    for (SparseMap::InnerIterator it(input.R, i); it; ++it)
      for (Eigen::Index s = 0; s < weights.size(); ++s) layer.add(row + s, it.col(), it.value() * weights[s]);
    layer.bias.segment(row, weights.size()) += input.r[i] * weights;
  }
};

// Network k's layer t as rows [row, row + its width) of composite layer j (input columns as `places` puts the
// previous layer; u itself at j = 0). Its first layer reads v from the carried relu(v - L), adding W L back.
void place_network_layer(const Composite& c, int k, int t, int j, int row, LayerEntries& layer) {
  const NetworkUse& use = c.model.networks[static_cast<std::size_t>(k)];
  const DenseLayer& own = use.network->layers()[static_cast<std::size_t>(t)];
  const Eigen::Index rows = own.weights.rows();
  layer.bias.segment(row, rows) += own.bias;
  if (!own.linear.empty()) {
    layer.linear.resize(static_cast<std::size_t>(layer.bias.size()), 0);
    std::copy(own.linear.begin(), own.linear.end(), layer.linear.begin() + row);
  }
  if (t > 0) {
    for (Eigen::Index r = 0; r < rows; ++r)
      own.weights.for_each_in_row(r, [&](Eigen::Index i, double w) {
        layer.add(row + r, c.places.start[j - 1][k] + i, w);
      });
    return;
  }
  for (std::size_t i = 0; i < use.input.size(); ++i) {
    const Eigen::VectorXd w = own.weights.col(static_cast<Eigen::Index>(i));
    const int v = use.input[i];
    if (j == 0) {
      c.add_variable(layer, row, v, w);
      continue;
    }
    const int carried = c.places.carry[j - 1] + c.carry.position[static_cast<std::size_t>(v)];
    for (Eigen::Index r = 0; r < rows; ++r) layer.add(row + r, carried, w[r]);
    layer.bias.segment(row, rows) += w * c.shift[v];
  }
}

// The carried variables: relu(v - L) in the first hidden layer, then relu of themselves, and + L back into the
// emitted ones in the output layer (v itself when there is no hidden layer).
void place_carry(const Composite& c, int j, LayerEntries& layer) {
  const Eigen::VectorXd one = Eigen::VectorXd::Ones(1);
  if (j == c.depth) {
    for (std::size_t t = 0; t < c.carry.emitted.size(); ++t) {
      const int v = c.carry.emitted[t], row = c.output_offset.back() + static_cast<int>(t);
      if (c.depth == 0) {
        c.add_variable(layer, row, v, one);
        continue;
      }
      layer.add(row, c.places.carry[j - 1] + c.carry.position[static_cast<std::size_t>(v)], 1.0);
      layer.bias[row] = c.shift[v];
    }
    return;
  }
  for (std::size_t p = 0; p < c.carry.carried.size(); ++p) {
    const int v = c.carry.carried[p], row = c.places.carry[j] + static_cast<int>(p);
    if (j > 0) {
      layer.add(row, c.places.carry[j - 1] + static_cast<int>(p), 1.0);
      continue;
    }
    c.add_variable(layer, row, v, one);
    layer.bias[row] -= c.shift[v];
  }
}

// The composite's layer j (hidden for j < depth, the output layer at j = depth).
DenseLayer composite_layer(const Composite& c, int j) {
  const bool output = j == c.depth;
  const int rows = output ? c.output_offset.back() + static_cast<int>(c.carry.emitted.size()) : c.places.width[j];
  const int cols = j == 0 ? static_cast<int>(c.input.R.cols()) : c.places.width[j - 1];
  LayerEntries layer{rows, cols, {}, Eigen::VectorXd::Zero(rows), {}};
  for (std::size_t k = 0; k < c.model.networks.size(); ++k) {
    const int t = j - c.places.first[k];
    const int row = output ? c.output_offset[k] : t >= 0 ? c.places.start[j][k] : -1;
    if (t >= 0) place_network_layer(c, static_cast<int>(k), t, j, row, layer);
  }
  place_carry(c, j, layer);
  return layer.layer();
}

// L_i = carry_shift of v_i's lower bound over u's box (l_i itself for a variable not eliminated).
Eigen::VectorXd carry_shifts(const Substitution& input, const Domain& domain) {
  Eigen::VectorXd lower = input.r;
  for (Eigen::Index i = 0; i < input.R.rows(); ++i)
    for (SparseMap::InnerIterator it(input.R, i); it; ++it)
      lower[i] += it.value() * (it.value() > 0.0 ? domain.lower[it.col()] : domain.upper[it.col()]);
  return lower.unaryExpr([](double l) { return carry_shift(l); });
}

Network composite_network(const Model& model, const Substitution& input, const Domain& domain,
                          ReducedModel& reduced) {
  Composite c{model, input, carry_shifts(input, domain), 0, {}, {}, {0}};
  for (const NetworkUse& use : model.networks) {
    c.depth = std::max(c.depth, use.network->num_hidden_layers());
    c.output_offset.push_back(c.output_offset.back() + use.network->output_dim());
  }
  c.carry = carry_sets(model, layout(model, c.depth, 0));
  c.places = layout(model, c.depth, static_cast<int>(c.carry.carried.size()));
  std::vector<DenseLayer> layers;
  for (int j = 0; j <= c.depth; ++j) layers.push_back(composite_layer(c, j));
  reduced.output_offset = c.output_offset;
  reduced.output_variables = c.carry.emitted;
  return Network(std::move(layers));
}

bool is_plain(const Model& model, const Substitution& input) {
  if (model.networks.size() != 1) return false;
  for (const LinearExpr* expr : model.objective_exprs())
    if (expr->has_variables()) return false;
  std::vector<int> all(static_cast<std::size_t>(model.num_variables()));
  std::iota(all.begin(), all.end(), 0);
  if (model.networks[0].input != all || input.free != all) return false;
  return std::none_of(model.constraints.begin(), model.constraints.end(), [](const LinearConstraint& c) {
    return c.expr.has_outputs() && c.expr.has_variables();
  });
}

// The row of expr over y = F(u), its variable terms on the emitted part v[T] of y.
Eigen::VectorXd output_row(const Model& model, const ReducedModel& reduced, const LinearExpr& expr) {
  Eigen::VectorXd row = Eigen::VectorXd::Zero(reduced.composite->output_dim());
  const std::vector<int>& emitted = reduced.output_variables;
  for (const LinearExpr::Term& term : expr.terms) {
    const Reference& r = term.ref;
    if (r.kind == Reference::Kind::kOutput) {
      row[reduced.output_offset[r.index] + r.coordinate] += term.coefficient;
      continue;
    }
    const int v = model.offset(r.index) + r.coordinate;
    row[reduced.variables_offset + (std::find(emitted.begin(), emitted.end(), v) - emitted.begin())] +=
        term.coefficient;
  }
  return row;
}

void append_row(Eigen::MatrixXd& A, Eigen::VectorXd& b, const Eigen::VectorXd& row, double rhs) {
  A.conservativeResize(A.rows() + 1, row.size());
  b.conservativeResize(b.size() + 1);
  A.row(A.rows() - 1) = row.transpose();
  b[b.size() - 1] = rhs;
}

// row^T x (<= | >= | ==) rhs as one or two rows "<=". A row that substitution left without a coefficient is
// dropped when it holds (0 <= rhs) and kept when it does not, so that the domain stays empty.
void append_constraint(Eigen::MatrixXd& A, Eigen::VectorXd& b, const Eigen::VectorXd& row, ConstraintSense sense,
                       double rhs) {
  const bool empty = (row.array() == 0.0).all();
  if (sense != ConstraintSense::kGreaterEqual && !(empty && rhs >= 0.0)) append_row(A, b, row, rhs);
  if (sense != ConstraintSense::kLessEqual && !(empty && -rhs >= 0.0)) append_row(A, b, -row, -rhs);
}

// The constraints on variables alone (those not eliminated, over u) and the bounds of the eliminated
// variables into the domain; the constraints with an output into the output rows.
void add_constraint_rows(const Model& model, const Substitution& input, const Box& box, ReducedModel& reduced) {
  Domain& domain = reduced.domain;
  domain.A.resize(0, input.R.cols());
  domain.b.resize(0);
  reduced.output_rows.resize(0, reduced.composite->output_dim());
  reduced.output_rhs.resize(0);
  for (std::size_t k = 0; k < model.constraints.size(); ++k) {
    const LinearConstraint& c = model.constraints[k];
    const double rhs = c.rhs - c.expr.constant;
    if (c.expr.has_outputs()) {
      append_constraint(reduced.output_rows, reduced.output_rhs, output_row(model, reduced, c.expr), c.sense, rhs);
    } else if (!input.eliminates[k]) {
      const Eigen::VectorXd a = variable_row(model, c.expr);
      const Eigen::VectorXd over_u = input.R.transpose() * a;
      append_constraint(domain.A, domain.b, over_u, c.sense, rhs - a.dot(input.r));
    }
  }
  std::vector<bool> is_free(static_cast<std::size_t>(model.num_variables()), false);
  for (int i : input.free) is_free[static_cast<std::size_t>(i)] = true;
  for (int i = 0; i < model.num_variables(); ++i) {
    if (is_free[static_cast<std::size_t>(i)]) continue;
    const Eigen::VectorXd row = Eigen::RowVectorXd(input.R.row(i)).transpose();
    append_constraint(domain.A, domain.b, row, ConstraintSense::kLessEqual, box.upper[i] - input.r[i]);
    append_constraint(domain.A, domain.b, row, ConstraintSense::kGreaterEqual, box.lower[i] - input.r[i]);
  }
  if (input.contradiction)  // 0 <= -1: the domain stays empty
    append_constraint(domain.A, domain.b, Eigen::VectorXd::Zero(input.R.cols()), ConstraintSense::kLessEqual, -1.0);
}

// The box of u and its integer flags, and the map back to v.
void set_input(const Model& model, const Box& box, const Substitution& input, ReducedModel& reduced) {
  const int d = static_cast<int>(input.free.size());
  reduced.domain.lower.resize(d);
  reduced.domain.upper.resize(d);
  for (int j = 0; j < d; ++j) {
    const int i = input.free[static_cast<std::size_t>(j)];
    reduced.domain.lower[j] = box.lower[i];
    reduced.domain.upper[j] = box.upper[i];
    reduced.integer.push_back(box.integer[static_cast<std::size_t>(i)]);
  }
  reduced.input_map = input.R;
  reduced.input_offset = input.r;
  std::string description = "variables";
  for (std::size_t b = 0; b < model.variables.size(); ++b)
    description += (b ? ", " : " ") + model.variables[b].name + " (" + std::to_string(model.variables[b].size()) + ")";
  if (d < model.num_variables())
    description += ", " + std::to_string(model.num_variables() - d) + " eliminated by equalities";
  reduced.domain.description = description;
}

// Integer coordinates fixed or narrowed by the rows A u <= b over the box: row i's least activity over the other
// coordinates bounds a_ij u_j, so u_j <= (b_i - min_{k != j} a_ik u_k) / a_ij when a_ij > 0 (>= when a_ij < 0),
// rounded inwards to an integer with a tolerance of 1e-9 of the magnitudes involved, far above the round-off of
// the sums. Bounds implied this way (an eliminated variable's box over integers, a budget row at its floor) leave
// the domain flat, which the sampling methods refuse; fixed, the coordinates drop out of that check. Continuous
// coordinates keep their boxes: a bound computed in floating point may cut a feasible point. A coordinate left
// with no integer ends the narrowing with its box as it is: the model has no point, which every method proves.
void narrow_integers(Domain& domain, const std::vector<bool>& integer) {
  if (!domain.lower.allFinite() || !domain.upper.allFinite()) return;
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    for (Eigen::Index i = 0; i < domain.A.rows(); ++i) {
      const Eigen::VectorXd a = domain.A.row(i).transpose();
      const Eigen::VectorXd least = a.cwiseProduct(domain.lower).cwiseMin(a.cwiseProduct(domain.upper));
      const double total = least.sum(), size = least.cwiseAbs().sum() + std::abs(domain.b[i]);
      for (Eigen::Index j = 0; j < domain.dim(); ++j) {
        if (!integer[static_cast<std::size_t>(j)] || a[j] == 0.0) continue;
        const double q = (domain.b[i] - (total - least[j])) / a[j];
        const double slack = 1e-9 * std::max({1.0, std::abs(q), size / std::abs(a[j])});
        const double bound = a[j] > 0.0 ? std::floor(q + slack) : std::ceil(q - slack);
        if (a[j] > 0.0 ? bound >= domain.upper[j] : bound <= domain.lower[j]) continue;
        if (a[j] > 0.0 ? bound < domain.lower[j] : bound > domain.upper[j]) return;
        (a[j] > 0.0 ? domain.upper[j] : domain.lower[j]) = bound;
        changed = true;
      }
    }
    if (!changed) return;
  }
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

// The objective over y: linear, or the max-min objective of the terms' rows.
Objective reduced_objective(const Model& model, const ReducedModel& reduced) {
  if (!model.has_max_min_objective()) {
    Objective objective;
    objective.sense = model.sense;
    objective.weights = output_row(model, reduced, model.objective);
    objective.constant = model.objective.constant;
    return objective;
  }
  std::vector<std::vector<ObjectiveTerm>> disjuncts;
  for (const std::vector<LinearExpr>& disjunct : model.objective_disjuncts) {
    disjuncts.emplace_back();
    for (const LinearExpr& term : disjunct) disjuncts.back().push_back({output_row(model, reduced, term), term.constant});
  }
  return Objective::max_min(std::move(disjuncts), model.sense);
}

ReducedModel reduce(const Model& model) {
  model.validate();
  ReducedModel reduced;
  Box box = variable_box(model);
  const Substitution input = substitute_equalities(model, box);
  set_input(model, box, input, reduced);
  if (is_plain(model, input)) {
    reduced.composite = model.networks[0].network;
    reduced.output_offset = {0, reduced.composite->output_dim()};
  } else {
    reduced.composite = std::make_shared<const Network>(composite_network(model, input, reduced.domain, reduced));
    reduced.variables_offset = reduced.output_offset.back();
  }
  // The methods take ReLU networks: linear neurons become stably active ReLUs over the domain.
  if (reduced.composite->has_linear_neurons())
    reduced.composite = std::make_shared<const Network>(
        detail::specialize_linear_neurons(*reduced.composite, reduced.domain.lower, reduced.domain.upper));
  add_constraint_rows(model, input, box, reduced);
  if (reduced.has_integers()) narrow_integers(reduced.domain, reduced.integer);
  reduced.objective = reduced_objective(model, reduced);
  reduced.objective.description = std::string(model.sense == Sense::kMaximize ? "maximize" : "minimize") +
                          " the problem's objective";
  reduced.domain.validate(reduced.domain.dim());
  return reduced;
}

}  // namespace reluopt
