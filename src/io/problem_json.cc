// Reads and writes problem files (docs/PROBLEM.md): named variable blocks, networks read from model files and
// fed by variables, linear constraints and a linear objective over variables and network outputs.
#include "io/problem_json.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json_checks.h"
#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/model_io.h"

namespace reluopt {

namespace {

using nlohmann::json;

// Every message is "<file>: <entry>: <what>", the entry being "variables 'x'", "network 'demand'",
// "constraint 2", "objective" or the file's top level, and <what> naming the key.
class ProblemReader {
 public:
  ProblemReader(std::string file, std::string directory) : file_(std::move(file)), directory_(std::move(directory)) {}

  Model read(const json& doc);

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw Error(file_ + ": " + where + ": " + what);
  }
  void check_keys(const json& object, const std::vector<std::string>& allowed, const std::string& where) const;
  const json& required(const json& object, const std::string& key, const std::string& where) const;
  double number(const json& item, const std::string& where, const std::string& what) const;
  std::string name_of(const json& item, const std::string& where) const;
  void claim(const std::string& name, Reference::Kind kind, int index, const std::string& where);

  Eigen::VectorXd bound(const json& value, int size, const std::string& where, const std::string& key) const;
  int block_size(const json& item, const std::string& where) const;
  VariableBlock read_block(const json& item, std::size_t i) const;
  int block_index(const std::string& name, const std::string& where) const;
  std::vector<int> read_input(const json& input, const std::string& where) const;
  NetworkUse read_network(const json& item, std::size_t i);
  Reference read_reference(const std::string& text, const std::string& where) const;
  LinearExpr read_terms(const json& item, const std::string& where) const;
  LinearConstraint read_constraint(const json& item, std::size_t i) const;
  LinearExpr read_expr(const json& item, const std::string& where) const;
  void read_objective(const json& objective);
  Sense read_sense(const json& doc) const;

  std::string file_, directory_;
  Model model_;  // filled while reading: references resolve against the blocks and networks read so far
  std::map<std::string, std::pair<Reference::Kind, int>> names_;
  // One copy of a model file that several networks use (one predictor applied to several items).
  std::map<std::string, std::shared_ptr<const Network>> loaded_;
};

void ProblemReader::check_keys(const json& object, const std::vector<std::string>& allowed,
                               const std::string& where) const {
  if (!object.is_object()) fail(where, "must be an object, not " + object.dump().substr(0, 40));
  if (const std::string problem = detail::unknown_key(object, allowed); !problem.empty()) fail(where, problem);
}

const json& ProblemReader::required(const json& object, const std::string& key, const std::string& where) const {
  if (!object.contains(key)) fail(where, "key '" + key + "' is missing");
  return object.at(key);
}

double ProblemReader::number(const json& item, const std::string& where, const std::string& what) const {
  if (const std::string problem = detail::not_a_number(item); !problem.empty()) fail(where, what + " " + problem);
  return item.get<double>();
}

std::string ProblemReader::name_of(const json& item, const std::string& where) const {
  const json& name = required(item, "name", where);
  if (!name.is_string()) fail(where, "key 'name' must be a string, not " + name.dump().substr(0, 40));
  return name.get<std::string>();
}

void ProblemReader::claim(const std::string& name, Reference::Kind kind, int index, const std::string& where) {
  const auto [it, fresh] = names_.emplace(name, std::make_pair(kind, index));
  if (fresh) return;
  const bool variables = it->second.first == Reference::Kind::kVariable;
  fail(where, std::string("the name is already used by ") + (variables ? "variables '" : "network '") + name + "'");
}

// "1 entry", "3 entries".
std::string count(long n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "lower" or "upper": one number for the whole block or an array of `size` numbers.
Eigen::VectorXd ProblemReader::bound(const json& value, int size, const std::string& where,
                                     const std::string& key) const {
  if (!value.is_array()) return Eigen::VectorXd::Constant(size, number(value, where, "key '" + key + "'"));
  if (static_cast<int>(value.size()) != size)
    fail(where, "key '" + key + "' has " + count(static_cast<long>(value.size()), "entry", "entries") + ", the block " +
                    std::to_string(size));
  Eigen::VectorXd out(size);
  for (int i = 0; i < size; ++i)
    out[i] = number(value[static_cast<std::size_t>(i)], where, "entry " + std::to_string(i) + " of key '" + key + "'");
  return out;
}

// "size" when given, else the length of an array "lower" or "upper", else 1.
int ProblemReader::block_size(const json& item, const std::string& where) const {
  if (item.contains("size")) {
    const json& size = item.at("size");
    if (!size.is_number_integer() || size.get<long long>() < 1 || size.get<long long>() > 100000000)
      fail(where, "key 'size' must be an integer from 1 to 1e8, not " + size.dump().substr(0, 40));
    return static_cast<int>(size.get<long long>());
  }
  for (const char* key : {"lower", "upper"})
    if (item.contains(key) && item.at(key).is_array()) return static_cast<int>(item.at(key).size());
  return 1;
}

VariableBlock ProblemReader::read_block(const json& item, std::size_t i) const {
  std::string where = "variables[" + std::to_string(i) + "]";
  check_keys(item, {"name", "size", "lower", "upper", "integer"}, where);
  VariableBlock block;
  block.name = name_of(item, where);
  where = "variables '" + block.name + "'";
  const int size = block_size(item, where);
  block.lower = bound(required(item, "lower", where), size, where, "lower");
  block.upper = bound(required(item, "upper", where), size, where, "upper");
  if (!item.contains("integer")) return block;
  const json& integer = item.at("integer");
  if (integer.is_boolean()) {
    block.integer.assign(static_cast<std::size_t>(size), integer.get<bool>());
    return block;
  }
  if (!integer.is_array() || static_cast<int>(integer.size()) != size ||
      !std::all_of(integer.begin(), integer.end(), [](const json& b) { return b.is_boolean(); }))
    fail(where, "key 'integer' must be true, false or an array of " + std::to_string(size) + " booleans");
  for (const json& b : integer) block.integer.push_back(b.get<bool>());
  return block;
}

int ProblemReader::block_index(const std::string& name, const std::string& where) const {
  const auto it = names_.find(name);
  if (it == names_.end()) fail(where, "unknown variables '" + name + "'");
  if (it->second.first != Reference::Kind::kVariable) fail(where, "'" + name + "' is a network, not variables");
  return it->second.second;
}

// "x" (the whole block), {"name": "x", "indices": [...]} or ["x[0]", "z[1]", ...].
std::vector<int> ProblemReader::read_input(const json& input, const std::string& where) const {
  std::vector<int> out;
  const std::string key = where + ": key 'input'";
  if (input.is_array()) {
    for (const json& item : input) {
      if (!item.is_string()) fail(key, "entry " + item.dump().substr(0, 40) + " is not a reference such as \"x[0]\"");
      const Reference ref = read_reference(item.get<std::string>(), key);
      if (ref.kind != Reference::Kind::kVariable) fail(key, "'" + item.get<std::string>() + "' is not a variable");
      out.push_back(model_.offset(ref.index) + ref.coordinate);
    }
    return out;
  }
  if (!input.is_string() && !input.is_object())
    fail(key, "must be a block name, {\"name\", \"indices\"} or an array of references");
  if (input.is_object()) check_keys(input, {"name", "indices"}, key);
  const int b = block_index(input.is_string() ? input.get<std::string>() : name_of(input, key), key);
  const VariableBlock& block = model_.variables[static_cast<std::size_t>(b)];
  if (input.is_string() || !input.contains("indices")) {
    for (int i = 0; i < block.size(); ++i) out.push_back(model_.offset(b) + i);
    return out;
  }
  const json& indices = input.at("indices");
  if (!indices.is_array()) fail(key, "'indices' must be an array of integers");
  for (const json& index : indices) {
    if (!index.is_number_integer() || index.get<long long>() < 0 || index.get<long long>() >= block.size())
      fail(key, "index " + index.dump().substr(0, 40) + " is outside variables '" + block.name + "' (" +
                    count(block.size(), "coordinate", "coordinates") + ")");
    out.push_back(model_.offset(b) + static_cast<int>(index.get<long long>()));
  }
  return out;
}

NetworkUse ProblemReader::read_network(const json& item, std::size_t i) {
  std::string where = "networks[" + std::to_string(i) + "]";
  check_keys(item, {"name", "model", "input"}, where);
  NetworkUse use;
  use.name = name_of(item, where);
  where = "network '" + use.name + "'";
  const json& model = required(item, "model", where);
  if (!model.is_string()) fail(where, "key 'model' must be a path, not " + model.dump().substr(0, 40));
  std::filesystem::path path = model.get<std::string>();
  if (path.is_relative() && !directory_.empty()) path = std::filesystem::path(directory_) / path;
  use.source = path.string();
  std::shared_ptr<const Network>& loaded = loaded_[std::filesystem::absolute(path).lexically_normal().string()];
  try {
    if (!loaded) loaded = std::make_shared<const Network>(read_model(use.source).network);
  } catch (const Error& e) {
    fail(where, "key 'model': " + std::string(e.what()));
  }
  use.network = loaded;
  use.input = read_input(required(item, "input", where), where);
  if (static_cast<int>(use.input.size()) != use.network->input_dim())
    fail(where, "key 'input' gives " + count(static_cast<long>(use.input.size()), "variable", "variables") +
                    ", model '" + model.get<std::string>() + "' takes " +
                    count(use.network->input_dim(), "input", "inputs"));
  return use;
}

// "x[2]" or "demand[0]".
Reference ProblemReader::read_reference(const std::string& text, const std::string& where) const {
  const std::size_t open = text.find('[');
  const std::string digits = open == std::string::npos || text.back() != ']'
                                 ? ""
                                 : text.substr(open + 1, text.size() - open - 2);
  const auto digit = [](unsigned char c) { return std::isdigit(c) != 0; };
  if (digits.empty() || digits.size() > 9 || !std::all_of(digits.begin(), digits.end(), digit))
    fail(where, "'" + text + "' is not a reference such as \"x[0]\"");
  const std::string name = text.substr(0, open);
  const auto it = names_.find(name);
  if (it == names_.end()) fail(where, "unknown name '" + name + "' in '" + text + "'");
  const auto [kind, index] = it->second;
  const Reference ref{kind, index, std::stoi(digits)};
  const bool variable = kind == Reference::Kind::kVariable;
  const int size = variable ? model_.variables[static_cast<std::size_t>(index)].size()
                            : model_.networks[static_cast<std::size_t>(index)].network->output_dim();
  if (ref.coordinate >= size)
    fail(where, "'" + text + "' is outside " + (variable ? "variables" : "network") + " '" + name + "' (" +
                    (variable ? count(size, "coordinate", "coordinates") : count(size, "output", "outputs")) + ")");
  return ref;
}

// {"terms": {"x[0]": 1.5, ...}}: the terms of a constraint or the objective.
LinearExpr ProblemReader::read_terms(const json& item, const std::string& where) const {
  const json& terms = required(item, "terms", where);
  if (!terms.is_object()) fail(where, "key 'terms' must be an object such as {\"x[0]\": 1.5}");
  LinearExpr expr;
  for (const auto& term : terms.items()) {
    const std::string at = where + ": term '" + term.key() + "'";
    const Reference ref = read_reference(term.key(), where);
    expr.terms.push_back({ref, number(term.value(), at, "coefficient")});
  }
  return expr;
}

LinearConstraint ProblemReader::read_constraint(const json& item, std::size_t i) const {
  std::string where = "constraint " + std::to_string(i);
  check_keys(item, {"name", "terms", "<=", ">=", "=="}, where);
  LinearConstraint c;
  if (item.contains("name")) {
    c.name = name_of(item, where);
    where += " ('" + c.name + "')";
  }
  c.expr = read_terms(item, where);
  if (c.expr.terms.empty()) fail(where, "key 'terms' is empty");
  const std::vector<std::pair<std::string, ConstraintSense>> senses{
      {"<=", ConstraintSense::kLessEqual}, {">=", ConstraintSense::kGreaterEqual}, {"==", ConstraintSense::kEqual}};
  int given = 0;
  for (const auto& [key, sense] : senses)
    if (item.contains(key)) {
      ++given;
      c.sense = sense;
      c.rhs = number(item.at(key), where, "key '" + key + "'");
    }
  if (given != 1) fail(where, "needs exactly one of the keys '<=', '>=', '==' (it has " + std::to_string(given) + ")");
  return c;
}

// {"terms": {...}, "constant": c}, an expression of the objective (`where` names it).
LinearExpr ProblemReader::read_expr(const json& item, const std::string& where) const {
  check_keys(item, {"terms", "constant"}, where);
  LinearExpr expr = read_terms(item, where);
  if (item.contains("constant")) expr.constant = number(item.at("constant"), where, "key 'constant'");
  return expr;
}

// A linear objective {"terms", "constant"}, or a max-min one {"disjuncts": [[expr, ...], ...]}.
void ProblemReader::read_objective(const json& objective) {
  if (!objective.is_object() || !objective.contains("disjuncts")) {
    model_.objective = read_expr(objective, "objective");
    return;
  }
  check_keys(objective, {"disjuncts"}, "objective");
  const json& disjuncts = objective.at("disjuncts");
  if (!disjuncts.is_array() || disjuncts.empty())
    fail("objective", "key 'disjuncts' must be a non-empty array of arrays of terms");
  for (std::size_t k = 0; k < disjuncts.size(); ++k) {
    const std::string where = "objective: disjunct " + std::to_string(k);
    if (!disjuncts[k].is_array() || disjuncts[k].empty())
      fail(where, "must be a non-empty array of {\"terms\": ..., \"constant\": ...}");
    model_.objective_disjuncts.emplace_back();
    for (std::size_t l = 0; l < disjuncts[k].size(); ++l)
      model_.objective_disjuncts.back().push_back(read_expr(disjuncts[k][l], where + ", term " + std::to_string(l)));
  }
}

Sense ProblemReader::read_sense(const json& doc) const {
  const json& sense = required(doc, "sense", "the top level");
  if (sense == "max" || sense == "maximize") return Sense::kMaximize;
  if (sense == "min" || sense == "minimize") return Sense::kMinimize;
  fail("the top level", "key 'sense' must be \"max\" or \"min\", not " + sense.dump().substr(0, 40));
}

Model ProblemReader::read(const json& doc) {
  check_keys(doc, {"sense", "variables", "networks", "constraints", "objective"}, "the top level");
  model_.sense = read_sense(doc);
  const json& variables = required(doc, "variables", "the top level");
  if (!variables.is_array() || variables.empty()) fail("the top level", "key 'variables' must be a non-empty array");
  for (std::size_t i = 0; i < variables.size(); ++i) {
    model_.variables.push_back(read_block(variables[i], i));
    claim(model_.variables.back().name, Reference::Kind::kVariable, static_cast<int>(i),
          "variables '" + model_.variables.back().name + "'");
  }
  for (const char* key : {"networks", "constraints"})
    if (doc.contains(key) && !doc.at(key).is_array())
      fail("the top level", "key '" + std::string(key) + "' must be an array");
  const json none = json::array();
  const json& networks = doc.contains("networks") ? doc.at("networks") : none;
  for (std::size_t k = 0; k < networks.size(); ++k) {
    model_.networks.push_back(read_network(networks[k], k));
    claim(model_.networks.back().name, Reference::Kind::kOutput, static_cast<int>(k),
          "network '" + model_.networks.back().name + "'");
  }
  const json& constraints = doc.contains("constraints") ? doc.at("constraints") : none;
  for (std::size_t c = 0; c < constraints.size(); ++c) model_.constraints.push_back(read_constraint(constraints[c], c));
  read_objective(required(doc, "objective", "the top level"));
  try {
    model_.validate();
  } catch (const Error& e) {
    throw Error(file_ + ": " + e.what());
  }
  return std::move(model_);
}

// The terms of `expr` by reference name, a reference named twice summed.
nlohmann::ordered_json terms_json(const Model& model, const LinearExpr& expr) {
  nlohmann::ordered_json terms = nlohmann::ordered_json::object();
  for (const LinearExpr::Term& term : expr.terms) {
    const std::string name = model.reference_name(term.ref);
    terms[name] = terms.value(name, 0.0) + term.coefficient;
  }
  return terms;
}

// A whole block by its name, part of one as {"name", "indices"}, anything else as an array of references.
nlohmann::ordered_json input_json(const Model& model, const NetworkUse& use) {
  for (std::size_t b = 0; b < model.variables.size(); ++b) {
    const int first = model.offset(static_cast<int>(b)), size = model.variables[b].size();
    if (!std::all_of(use.input.begin(), use.input.end(), [&](int i) { return i >= first && i < first + size; }))
      continue;
    std::vector<int> indices;
    for (int i : use.input) indices.push_back(i - first);
    bool whole = static_cast<int>(indices.size()) == size;
    for (int i = 0; whole && i < size; ++i) whole = indices[static_cast<std::size_t>(i)] == i;
    if (whole) return model.variables[b].name;
    return {{"name", model.variables[b].name}, {"indices", indices}};
  }
  nlohmann::ordered_json refs = nlohmann::ordered_json::array();
  for (int i : use.input) {
    int b = 0;
    while (i >= model.offset(b + 1)) ++b;
    refs.push_back(model.reference_name(Reference::variable(b, i - model.offset(b))));
  }
  return refs;
}

nlohmann::ordered_json block_json(const VariableBlock& block) {
  nlohmann::ordered_json out{{"name", block.name},
                             {"lower", std::vector<double>(block.lower.begin(), block.lower.end())},
                             {"upper", std::vector<double>(block.upper.begin(), block.upper.end())}};
  const long integers = std::count(block.integer.begin(), block.integer.end(), true);
  if (integers == block.size()) out["integer"] = true;
  else if (integers > 0) out["integer"] = block.integer;
  return out;
}

// Relative to `directory` when the model lies inside it (files written next to their models move with them),
// absolute otherwise.
std::string model_path(const NetworkUse& use, const std::string& directory) {
  if (use.source.empty()) throw Error("network '" + use.name + "' has no model file to write the problem with");
  if (directory.empty()) return use.source;
  const std::filesystem::path absolute = std::filesystem::absolute(use.source).lexically_normal();
  const std::filesystem::path base = std::filesystem::absolute(directory).lexically_normal();
  const std::filesystem::path relative = absolute.lexically_relative(base);
  const bool inside = !relative.empty() && *relative.begin() != "..";
  return (inside ? relative : absolute).generic_string();
}

// ` "key": [` then one item per line: the layout of the examples in docs/PROBLEM.md.
std::string item_lines(const std::string& key, const nlohmann::ordered_json& items) {
  std::string out = " \"" + key + "\": [";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ",\n   " : "") + items[i].dump();
  return out + "]";
}

}  // namespace

namespace detail {

Model read_problem_json(std::istream& in, const std::string& name, const std::string& directory) {
  return with_printable_errors([&] {
    const std::string file = "problem file '" + name + "'";
    return ProblemReader(file, directory).read(parse_json(in, file));
  });
}

}  // namespace detail

Model read_problem_json(const std::string& path) {
  std::ifstream in = detail::open_input(path, "problem");
  return detail::read_problem_json(in, path, std::filesystem::path(path).parent_path().string());
}

std::string model_to_json(const Model& model, const std::string& directory) {
  model.validate();
  using ordered = nlohmann::ordered_json;
  ordered blocks = ordered::array(), networks = ordered::array(), constraints = ordered::array();
  for (const VariableBlock& block : model.variables) blocks.push_back(block_json(block));
  for (const NetworkUse& use : model.networks)
    networks.push_back({{"name", use.name}, {"model", model_path(use, directory)}, {"input", input_json(model, use)}});
  const char* keys[] = {"<=", ">=", "=="};
  for (const LinearConstraint& c : model.constraints) {
    ordered item;
    if (!c.name.empty()) item["name"] = c.name;
    item["terms"] = terms_json(model, c.expr);
    item[keys[static_cast<int>(c.sense)]] = c.rhs - c.expr.constant;
    constraints.push_back(item);
  }
  const auto expr_json = [&](const LinearExpr& expr) {
    return ordered{{"terms", terms_json(model, expr)}, {"constant", expr.constant}};
  };
  ordered objective = expr_json(model.objective);
  if (model.has_max_min_objective()) {
    ordered disjuncts = ordered::array();
    for (const std::vector<LinearExpr>& disjunct : model.objective_disjuncts) {
      disjuncts.push_back(ordered::array());
      for (const LinearExpr& term : disjunct) disjuncts.back().push_back(expr_json(term));
    }
    objective = ordered{{"disjuncts", disjuncts}};
  }
  return std::string("{\"sense\": \"") + (model.sense == Sense::kMaximize ? "max" : "min") + "\",\n" +
         item_lines("variables", blocks) + ",\n" + item_lines("networks", networks) + ",\n" +
         item_lines("constraints", constraints) + ",\n \"objective\": " + objective.dump() + "}\n";
}

}  // namespace reluopt
