#include "reluopt/model.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include "core/magnitude.h"
#include "reluopt/error.h"

namespace reluopt {

namespace {

// The shortest text that reads back as `value`: 0.2, not 0.20000000000000001.
std::string number(double value) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, value).ptr;
  return std::string(text, end);
}

// "1 entry", "3 entries".
std::string count(long n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Magnitudes beyond kMaxMagnitude are refused as everywhere in reluopt (docs/NUMERICS.md).
std::string beyond() { return ", beyond " + magnitude_text(kMaxMagnitude) + " in magnitude (docs/NUMERICS.md)"; }

// A name goes into references such as "x[0]": a letter or '_' first, then letters, digits, '_', '.' or '-'.
bool valid_name(const std::string& name) {
  if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

void validate_block(const VariableBlock& block) {
  const std::string where = "variables '" + block.name + "': ";
  if (block.size() == 0) throw Error(where + "the block has no coordinates");
  if (block.upper.size() != block.lower.size())
    throw Error(where + "lower has " + count(block.lower.size(), "entry", "entries") + ", upper " +
                std::to_string(block.upper.size()));
  if (!block.integer.empty() && static_cast<int>(block.integer.size()) != block.size())
    throw Error(where + "integer has " + count(static_cast<long>(block.integer.size()), "entry", "entries") +
                ", the bounds " + std::to_string(block.size()));
  for (int i = 0; i < block.size(); ++i) {
    const double lo = block.lower[i], hi = block.upper[i];
    const std::string at = " at coordinate " + std::to_string(i);
    if (!std::isfinite(lo) || !std::isfinite(hi)) throw Error(where + "bounds must be finite" + at);
    if (std::max(std::abs(lo), std::abs(hi)) > kMaxMagnitude)
      throw Error(where + "bound " + number(std::abs(lo) > kMaxMagnitude ? lo : hi) + at + beyond());
    if (lo > hi) throw Error(where + "lower " + number(lo) + " > upper " + number(hi) + at);
    if (block.is_integer(i) && std::ceil(lo) > std::floor(hi))
      throw Error(where + "integer coordinate " + std::to_string(i) + " has no integer in [" + number(lo) + ", " +
                  number(hi) + "]");
  }
}

void validate_network(const NetworkUse& use, int num_variables) {
  const std::string where = "network '" + use.name + "': ";
  if (!use.network) throw Error(where + "no network given");
  if (static_cast<int>(use.input.size()) != use.network->input_dim())
    throw Error(where + "input has " + count(static_cast<long>(use.input.size()), "entry", "entries") +
                ", its network " + count(use.network->input_dim(), "input", "inputs"));
  for (std::size_t j = 0; j < use.input.size(); ++j)
    if (use.input[j] < 0 || use.input[j] >= num_variables)
      throw Error(where + "input " + std::to_string(j) + " is variable " + std::to_string(use.input[j]) +
                  ", outside the " + count(num_variables, "variable", "variables"));
}

void validate_expr(const Model& model, const LinearExpr& expr, const std::string& where) {
  for (std::size_t t = 0; t < expr.terms.size(); ++t) {
    const Reference& ref = expr.terms[t].ref;
    const std::string term = where + ": term " + std::to_string(t);
    const bool variable = ref.kind == Reference::Kind::kVariable;
    const int entries = static_cast<int>(variable ? model.variables.size() : model.networks.size());
    if (ref.index < 0 || ref.index >= entries)
      throw Error(term + " refers to " + (variable ? "variable block " : "network ") + std::to_string(ref.index) +
                  " of " + std::to_string(entries));
    const int size = variable ? model.variables[ref.index].size() : model.networks[ref.index].network->output_dim();
    if (ref.coordinate < 0 || ref.coordinate >= size)
      throw Error(term + " refers to " + (variable ? "coordinate " : "output ") + std::to_string(ref.coordinate) +
                  " of " + (variable ? "variables '" + model.variables[ref.index].name + "'"
                                     : "network '" + model.networks[ref.index].name + "'") +
                  ", which has " +
                  (variable ? count(size, "coordinate", "coordinates") : count(size, "output", "outputs")));
    const double coefficient = expr.terms[t].coefficient;
    if (!std::isfinite(coefficient))
      throw Error(term + " (" + model.reference_name(ref) + ") has a coefficient that is not finite");
    if (std::abs(coefficient) > kMaxMagnitude)
      throw Error(term + " (" + model.reference_name(ref) + ") has coefficient " + number(coefficient) + beyond());
  }
  if (!std::isfinite(expr.constant)) throw Error(where + ": the constant is not finite");
  if (std::abs(expr.constant) > kMaxMagnitude)
    throw Error(where + ": the constant " + number(expr.constant) + beyond());
}

void validate_names(const Model& model) {
  std::map<std::string, std::string> owner;  // name -> the entry that took it
  auto claim = [&](const std::string& name, const std::string& entry) {
    if (!valid_name(name))
      throw Error(entry + ": the name must start with a letter or '_' and hold only letters, digits, '_', '.' "
                          "or '-'");
    const auto [it, fresh] = owner.emplace(name, entry);
    if (!fresh) throw Error(entry + ": the name is already used by " + it->second);
  };
  for (const VariableBlock& block : model.variables) claim(block.name, "variables '" + block.name + "'");
  for (const NetworkUse& use : model.networks) claim(use.name, "network '" + use.name + "'");
}

// |expr - rhs| beyond the constraint's side, 0 when it holds.
double violation(ConstraintSense sense, double value, double rhs) {
  switch (sense) {
    case ConstraintSense::kLessEqual: return std::max(0.0, value - rhs);
    case ConstraintSense::kGreaterEqual: return std::max(0.0, rhs - value);
    case ConstraintSense::kEqual: break;
  }
  return std::abs(value - rhs);
}

double evaluate_expr(const Model& model, const LinearExpr& expr, const Eigen::VectorXd& v,
                     const std::vector<Eigen::VectorXd>& outputs) {
  double value = expr.constant;
  for (const LinearExpr::Term& term : expr.terms) {
    const Reference& r = term.ref;
    value += term.coefficient * (r.kind == Reference::Kind::kVariable ? v[model.offset(r.index) + r.coordinate]
                                                                      : outputs[r.index][r.coordinate]);
  }
  return value;
}

// The objective at v: the linear expression, or max_k min_l of the max-min objective's terms.
double objective_value(const Model& model, const Eigen::VectorXd& v, const std::vector<Eigen::VectorXd>& outputs) {
  if (!model.has_max_min_objective()) return evaluate_expr(model, model.objective, v, outputs);
  double best = -std::numeric_limits<double>::infinity();
  for (const std::vector<LinearExpr>& disjunct : model.objective_disjuncts) {
    double worst = std::numeric_limits<double>::infinity();
    for (const LinearExpr& term : disjunct) {
      const double value = evaluate_expr(model, term, v, outputs);
      if (!std::isfinite(value)) return value;  // min() and max() would pass over a NaN
      worst = std::min(worst, value);
    }
    best = std::max(best, worst);
  }
  return best;
}

}  // namespace

bool LinearExpr::has_outputs() const {
  return std::any_of(terms.begin(), terms.end(), [](const Term& t) { return t.ref.kind == Reference::Kind::kOutput; });
}

bool LinearExpr::has_variables() const {
  return std::any_of(terms.begin(), terms.end(),
                     [](const Term& t) { return t.ref.kind == Reference::Kind::kVariable; });
}

int Model::num_variables() const { return offset(static_cast<int>(variables.size())); }

int Model::offset(int block) const {
  int n = 0;
  for (int b = 0; b < block; ++b) n += variables[b].size();
  return n;
}

std::string Model::reference_name(const Reference& ref) const {
  const std::string& name =
      ref.kind == Reference::Kind::kVariable ? variables.at(ref.index).name : networks.at(ref.index).name;
  return name + "[" + std::to_string(ref.coordinate) + "]";
}

void Model::validate() const {
  if (variables.empty()) throw Error("the model has no variables");
  validate_names(*this);
  for (const VariableBlock& block : variables) validate_block(block);
  for (const NetworkUse& use : networks) validate_network(use, num_variables());
  for (std::size_t c = 0; c < constraints.size(); ++c) {
    const std::string where = "constraint " + std::to_string(c) +
                              (constraints[c].name.empty() ? "" : " ('" + constraints[c].name + "')");
    if (constraints[c].expr.terms.empty()) throw Error(where + ": no terms");
    validate_expr(*this, constraints[c].expr, where);
    const double rhs = constraints[c].rhs;
    if (!std::isfinite(rhs)) throw Error(where + ": the right-hand side is not finite");
    if (std::abs(rhs) > kMaxMagnitude) throw Error(where + ": the right-hand side " + number(rhs) + beyond());
  }
  validate_expr(*this, objective, "objective");
  if (!has_max_min_objective()) return;
  if (!objective.terms.empty() || objective.constant != 0.0)
    throw Error("objective: give terms or disjuncts, not both");
  for (std::size_t k = 0; k < objective_disjuncts.size(); ++k) {
    const std::string where = "objective: disjunct " + std::to_string(k);
    if (objective_disjuncts[k].empty()) throw Error(where + " has no terms");
    for (std::size_t l = 0; l < objective_disjuncts[k].size(); ++l)
      validate_expr(*this, objective_disjuncts[k][l], where + ", term " + std::to_string(l));
  }
}

std::vector<const LinearExpr*> Model::objective_exprs() const {
  std::vector<const LinearExpr*> exprs;
  if (!has_max_min_objective()) exprs.push_back(&objective);
  for (const std::vector<LinearExpr>& disjunct : objective_disjuncts)
    for (const LinearExpr& term : disjunct) exprs.push_back(&term);
  return exprs;
}

ModelPoint evaluate(const Model& model, const Eigen::VectorXd& v) {
  if (v.size() != model.num_variables())
    throw Error("evaluate: " + std::to_string(v.size()) + " values for " + std::to_string(model.num_variables()) +
                " variables");
  ModelPoint point{v, {}, {}, 0.0, 0.0};
  for (std::size_t b = 0; b < model.variables.size(); ++b)
    point.variables.push_back(v.segment(model.offset(static_cast<int>(b)), model.variables[b].size()));
  for (const NetworkUse& use : model.networks) {
    Eigen::VectorXd input(static_cast<Eigen::Index>(use.input.size()));
    for (std::size_t j = 0; j < use.input.size(); ++j) input[static_cast<Eigen::Index>(j)] = v[use.input[j]];
    point.outputs.push_back(use.network->forward(input));
  }
  point.objective = objective_value(model, v, point.outputs);
  double& worst = point.max_violation;
  for (std::size_t b = 0, i = 0; b < model.variables.size(); ++b) {
    const VariableBlock& block = model.variables[b];
    for (int j = 0; j < block.size(); ++j, ++i) {
      const double x = v[static_cast<Eigen::Index>(i)];
      worst = std::max({worst, block.lower[j] - x, x - block.upper[j]});
      if (block.is_integer(j)) worst = std::max(worst, std::abs(x - std::round(x)));
    }
  }
  for (const LinearConstraint& c : model.constraints)
    worst = std::max(worst, violation(c.sense, evaluate_expr(model, c.expr, v, point.outputs), c.rhs));
  // A value that is not finite is never feasible (max() would pass over a NaN).
  if (!v.allFinite() || !std::isfinite(point.objective)) worst = std::numeric_limits<double>::infinity();
  return point;
}

}  // namespace reluopt
