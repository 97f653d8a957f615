// Reads VNN-LIB properties (include/reluopt/vnnlib.h, docs/VERIFY.md): an s-expression tokenizer and parser,
// linear expressions over X_i and Y_j, and the assertions expanded into a disjunction of conjunctions of
// comparisons g <= 0, which is split into input boxes and output constraints.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <istream>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/vnnlib.h"

namespace reluopt {

namespace {

constexpr int kMaxDepth = 200;               // nesting deeper than this is refused (the parser recurses)
constexpr std::size_t kMaxCases = 100000;    // conjunctions the assertions may expand to
constexpr int kMaxIndex = 10000000;          // X_i and Y_j above this are refused

struct Node {
  std::string atom;            // empty for a list
  std::vector<Node> children;  // a list's items
  int line = 0;
  bool is_list() const { return atom.empty(); }
};

// A linear expression sum x_i X_i + sum y_j Y_j + constant.
struct Linear {
  std::map<int, double> x, y;
  double constant = 0.0;
};

// g <= 0 (g < 0 when strict).
struct Atom {
  Linear g;
  bool strict = false;
  int line = 0;
};

using Conjunction = std::vector<int>;  // indices into Reader::atoms_
using Dnf = std::vector<Conjunction>;

class Reader {
 public:
  explicit Reader(std::string name) : file_("VNN-LIB file '" + std::move(name) + "'") {}

  VnnlibProperty read(std::istream& in);

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw Error(file_ + " line " + std::to_string(line) + ": " + what);
  }
  std::vector<Node> parse(std::istream& in);
  void command(const Node& node);
  void declare(const Node& node);
  Linear expression(const Node& node, int depth);
  Linear variable(const Node& node);
  Linear combination(const Node& node, int depth);
  Dnf formula(const Node& node, int depth);
  Dnf comparison(const Node& node, int depth);
  Dnf conjoin(const Dnf& a, const Dnf& b, int line) const;
  VnnlibProperty split() const;
  Domain box_of(const Conjunction& conjunction) const;
  int count(const std::set<int>& declared, const char* name) const;

  std::string file_;
  std::set<int> declared_x_, declared_y_;
  std::vector<Atom> atoms_;
  Dnf property_{Conjunction{}};  // the conjunction of every assert so far
  int last_line_ = 1;
};

std::string shown(const std::string& token) { return "'" + token.substr(0, 40) + "'"; }

std::vector<Node> Reader::parse(std::istream& in) {
  std::vector<Node> top;
  std::vector<Node> open;  // the lists being read, innermost last
  int line = 1;
  std::string atom;
  const auto flush = [&] {
    if (atom.empty()) return;
    Node node{atom, {}, line};
    if (open.empty()) fail(line, "a symbol " + shown(atom) + " outside parentheses");
    open.back().children.push_back(std::move(node));
    atom.clear();
  };
  for (char c; in.get(c);) {
    if (c == ';') {
      flush();
      while (in.get(c) && c != '\n') {}
      ++line;
    } else if (c == '(' || c == ')' || std::isspace(static_cast<unsigned char>(c))) {
      flush();
      if (c == '\n') ++line;
      if (c == '(') {
        if (open.size() >= kMaxDepth) fail(line, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
        open.push_back(Node{"", {}, line});
      } else if (c == ')') {
        if (open.empty()) fail(line, "a ')' without its '('");
        Node done = std::move(open.back());
        open.pop_back();
        (open.empty() ? top : open.back().children).push_back(std::move(done));
      }
    } else {
      atom += c;
    }
  }
  flush();
  if (!open.empty()) fail(open.back().line, "the '(' opened here is never closed");
  last_line_ = line;
  return top;
}

bool parse_number(const std::string& text, double& value) {
  const char* end = text.data() + text.size();
  const char* begin = text.size() > 1 && text[0] == '+' && text[1] != '-' ? text.data() + 1 : text.data();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  return ec == std::errc() && ptr == end && std::isfinite(value);
}

// X_i or Y_j: 'X' or 'Y' and the index, or -1.
int variable_index(const std::string& text, char kind) {
  if (text.size() < 3 || text[0] != kind || text[1] != '_') return -1;
  int index = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data() + 2, end, index);
  if (ec != std::errc() || ptr != end || index < 0 || index > kMaxIndex) return -1;
  if (text.size() > 3 && text[2] == '0') return -1;
  return index;
}

const std::string& head(const Node& node) {
  static const std::string none;
  return !node.children.empty() && !node.children[0].is_list() ? node.children[0].atom : none;
}

void Reader::declare(const Node& node) {
  if (node.children.size() != 3 || node.children[1].is_list() || node.children[2].atom != "Real")
    fail(node.line, "expected (declare-const NAME Real)");
  const std::string& name = node.children[1].atom;
  const int x = variable_index(name, 'X');
  const int y = variable_index(name, 'Y');
  if (x < 0 && y < 0) fail(node.line, "declares " + shown(name) + ": only inputs X_i and outputs Y_j are supported");
  std::set<int>& declared = x >= 0 ? declared_x_ : declared_y_;
  if (!declared.insert(x >= 0 ? x : y).second) fail(node.line, shown(name) + " is declared twice");
}

void Reader::command(const Node& node) {
  if (!node.is_list()) fail(node.line, "a symbol " + shown(node.atom) + " outside parentheses");
  const std::string& name = head(node);
  if (name == "declare-const") return declare(node);
  // SMT-LIB commands that some property files end with; they state nothing about the property.
  if (name == "check-sat" || name == "get-model" || name == "exit") return;
  if (name != "assert") fail(node.line, "unsupported command " + shown(name) + " (expected declare-const or assert)");
  if (node.children.size() != 2) fail(node.line, "expected (assert FORMULA)");
  property_ = conjoin(property_, formula(node.children[1], 1), node.line);
}

Linear Reader::variable(const Node& node) {
  Linear out;
  if (parse_number(node.atom, out.constant)) return out;
  const int x = variable_index(node.atom, 'X');
  const int y = variable_index(node.atom, 'Y');
  if (x >= 0 && declared_x_.count(x)) out.x[x] = 1.0;
  else if (y >= 0 && declared_y_.count(y)) out.y[y] = 1.0;
  else if (x >= 0 || y >= 0) fail(node.line, shown(node.atom) + " is used before its declare-const");
  else fail(node.line, "unknown symbol " + shown(node.atom) + " (expected a number, X_i or Y_j)");
  return out;
}

void add_scaled(Linear& to, const Linear& from, double factor) {
  for (const auto& [i, v] : from.x) to.x[i] += factor * v;
  for (const auto& [j, v] : from.y) to.y[j] += factor * v;
  to.constant += factor * from.constant;
}

// Drops the variables whose coefficients cancelled, so that X_0 - X_0 is a constant.
void prune(Linear& e) {
  std::erase_if(e.x, [](const auto& entry) { return entry.second == 0.0; });
  std::erase_if(e.y, [](const auto& entry) { return entry.second == 0.0; });
}

bool is_constant(const Linear& e) { return e.x.empty() && e.y.empty(); }

Linear Reader::combination(const Node& node, int depth) {
  const std::string& op = head(node);
  const std::size_t args = node.children.size() - 1;
  if ((op != "+" && op != "-" && op != "*") || args == 0)
    fail(node.line, "unsupported expression " + shown(op.empty() ? "(...)" : op) +
                        " (expected a number, X_i, Y_j or +, -, * with arguments)");
  Linear out = expression(node.children[1], depth + 1);
  if (op == "-" && args == 1) {
    Linear negated;
    add_scaled(negated, out, -1.0);
    return negated;
  }
  for (std::size_t k = 2; k <= args; ++k) {
    Linear next = expression(node.children[k], depth + 1);
    if (op != "*") {
      add_scaled(out, next, op == "+" ? 1.0 : -1.0);
      continue;
    }
    if (!is_constant(out) && !is_constant(next)) fail(node.line, "a product of two variables is not linear");
    if (is_constant(out)) std::swap(out, next);
    Linear product;
    add_scaled(product, out, next.constant);
    out = std::move(product);
  }
  if (!std::isfinite(out.constant)) fail(node.line, "a constant overflows a double");
  return out;
}

Linear Reader::expression(const Node& node, int depth) {
  if (depth > kMaxDepth) fail(node.line, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  return node.is_list() ? combination(node, depth) : variable(node);
}

Dnf Reader::conjoin(const Dnf& a, const Dnf& b, int line) const {
  if (a.size() * b.size() > kMaxCases)
    fail(line, "the assertions expand to more than " + std::to_string(kMaxCases) + " cases");
  Dnf out;
  for (const Conjunction& p : a)
    for (const Conjunction& q : b) {
      out.push_back(p);
      out.back().insert(out.back().end(), q.begin(), q.end());
    }
  return out;
}

// (<= a b c ...) holds when a <= b <= c ...; >=, < and > likewise.
Dnf Reader::comparison(const Node& node, int depth) {
  const std::string& op = head(node);
  if (node.children.size() < 3) fail(node.line, shown(op) + " needs two arguments");
  const bool strict = op == "<" || op == ">";
  const double direction = op == "<=" || op == "<" ? 1.0 : -1.0;
  Dnf out{Conjunction{}};
  for (std::size_t k = 1; k + 1 < node.children.size(); ++k) {
    Atom atom{expression(node.children[k], depth + 1), strict, node.line};
    Linear atom_g;
    add_scaled(atom_g, atom.g, direction);
    add_scaled(atom_g, expression(node.children[k + 1], depth + 1), -direction);
    prune(atom_g);
    atom.g = std::move(atom_g);
    if (is_constant(atom.g)) {
      const bool holds = strict ? atom.g.constant < 0.0 : atom.g.constant <= 0.0;
      if (!holds) return Dnf{};
      continue;
    }
    atoms_.push_back(std::move(atom));
    for (Conjunction& c : out) c.push_back(static_cast<int>(atoms_.size()) - 1);
  }
  return out;
}

Dnf Reader::formula(const Node& node, int depth) {
  if (depth > kMaxDepth) fail(node.line, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  if (!node.is_list()) fail(node.line, "expected a formula, not " + shown(node.atom));
  const std::string& op = head(node);
  if (op == "<=" || op == ">=" || op == "<" || op == ">") return comparison(node, depth);
  if (op != "and" && op != "or")
    fail(node.line, "unsupported formula " + shown(op.empty() ? "(...)" : op) + " (expected and, or, <=, >=, <, >)");
  Dnf out = op == "and" ? Dnf{Conjunction{}} : Dnf{};
  for (std::size_t k = 1; k < node.children.size(); ++k) {
    Dnf part = formula(node.children[k], depth + 1);
    if (op == "and") {
      out = conjoin(out, part, node.line);
    } else {
      if (out.size() + part.size() > kMaxCases)
        fail(node.line, "the assertions expand to more than " + std::to_string(kMaxCases) + " cases");
      out.insert(out.end(), part.begin(), part.end());
    }
  }
  return out;
}

int Reader::count(const std::set<int>& declared, const char* name) const {
  if (declared.empty()) fail(last_line_, std::string("declares no ") + name + "_0");
  const int n = *declared.rbegin() + 1;
  if (static_cast<int>(declared.size()) != n)
    fail(last_line_, std::string("declares ") + name + "_" + std::to_string(n - 1) + " but not every " + name +
                         "_i below it");
  return n;
}

Domain Reader::box_of(const Conjunction& conjunction) const {
  const int n = *declared_x_.rbegin() + 1;
  const double inf = std::numeric_limits<double>::infinity();
  Eigen::VectorXd lower = Eigen::VectorXd::Constant(n, -inf), upper = Eigen::VectorXd::Constant(n, inf);
  for (const int a : conjunction) {
    const Atom& atom = atoms_[static_cast<std::size_t>(a)];
    if (!atom.g.y.empty()) continue;
    if (atom.g.x.size() != 1)
      fail(atom.line, "a constraint couples several inputs: only bounds on single inputs X_i are supported");
    if (atom.strict) fail(atom.line, "a strict bound on an input: use <= or >=");
    const auto [i, a_i] = *atom.g.x.begin();
    const double bound = -atom.g.constant / a_i;
    if (a_i > 0.0) upper[i] = std::min(upper[i], bound);
    else if (a_i < 0.0) lower[i] = std::max(lower[i], bound);
  }
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(lower[i]) || !std::isfinite(upper[i]))
      fail(last_line_, "X_" + std::to_string(i) + " has no " + (std::isfinite(lower[i]) ? "upper" : "lower") +
                           " bound (every input needs both)");
  return Domain::box(lower, upper);
}

VnnlibProperty Reader::split() const {
  VnnlibProperty property;
  property.num_inputs = count(declared_x_, "X");
  property.num_outputs = count(declared_y_, "Y");
  std::map<std::pair<std::vector<double>, std::vector<double>>, std::size_t> case_of_box;
  for (const Conjunction& conjunction : property_) {
    std::vector<OutputConstraint> outputs;
    for (const int a : conjunction) {
      const Atom& atom = atoms_[static_cast<std::size_t>(a)];
      if (atom.g.y.empty()) continue;
      if (!atom.g.x.empty()) fail(atom.line, "a constraint mixes inputs and outputs");
      OutputConstraint c{Eigen::VectorXd::Zero(property.num_outputs), atom.g.constant, atom.strict, atom.line};
      for (const auto& [j, v] : atom.g.y) c.weights[j] = v;
      outputs.push_back(std::move(c));
    }
    Domain box = box_of(conjunction);
    if ((box.lower.array() > box.upper.array()).any()) continue;
    const auto key = std::make_pair(std::vector<double>(box.lower.begin(), box.lower.end()),
                                    std::vector<double>(box.upper.begin(), box.upper.end()));
    const auto [it, added] = case_of_box.emplace(key, property.cases.size());
    if (added) property.cases.push_back(VnnlibCase{std::move(box), {}});
    property.cases[it->second].unsafe.push_back(std::move(outputs));
  }
  return property;
}

VnnlibProperty Reader::read(std::istream& in) {
  for (const Node& node : parse(in)) command(node);
  return split();
}

}  // namespace

namespace detail {

VnnlibProperty read_vnnlib(std::istream& in, const std::string& name) {
  return with_printable_errors([&] { return Reader(name).read(in); });
}

}  // namespace detail

VnnlibProperty read_vnnlib(const std::string& path) {
  std::ifstream in = detail::open_input(path, "VNN-LIB");
  return detail::read_vnnlib(in, path);
}

}  // namespace reluopt
