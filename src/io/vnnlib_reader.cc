// Reads VNN-LIB properties (include/reluopt/vnnlib.h, docs/VERIFY.md): an s-expression tokenizer that hands
// each command over as soon as it closes, linear expressions over X_i and Y_j, and the assertions expanded into
// a disjunction of conjunctions of comparisons g <= 0, which is split into input domains (a box from the bounds on
// single inputs, cut by rows A x <= b from the comparisons that couple inputs) and output constraints.
// Time and memory stay linear in the file: each distinct comparison is one atom however often it is written, a
// conjunction holds each atom once (compacted as it grows) and a disjunction each conjunction once.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <istream>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/model_io.h"

namespace reluopt {

namespace {

constexpr int kMaxDepth = 200;                // nesting deeper than this is refused (the parser recurses)
constexpr std::size_t kMaxCases = 100000;     // conjunctions the assertions may expand to
constexpr std::size_t kSharedAtoms = 1024;     // a conjunction added to several is shared from this size on
constexpr int kMaxIndex = 10000000;           // X_i and Y_j above this are refused
constexpr std::size_t kChunkBytes = 1 << 14;  // read at once: a few thousand tokens between deadline checks
constexpr std::size_t kPollWork = 4096;       // conjunctions built between deadline checks

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

// g <= 0 (g < 0 when strict), first written on `line`.
struct Atom {
  Linear g;
  bool strict = false;
  int line = 0;
};

bool same_comparison(const Atom& a, const Atom& b) {
  return a.strict == b.strict && a.g.constant == b.g.constant && a.g.x == b.g.x && a.g.y == b.g.y;
}

std::size_t hash_mix(std::size_t seed, std::size_t value) {
  return seed ^ (value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

// Equal for comparisons that same_comparison calls the same: + 0.0 makes -0.0 hash as 0.0, which it equals.
std::size_t hash_of(const Atom& atom) {
  const auto number = [](double v) { return std::hash<double>{}(v + 0.0); };
  std::size_t h = hash_mix(atom.strict, number(atom.g.constant));
  for (const auto& [i, v] : atom.g.x) h = hash_mix(hash_mix(h, static_cast<std::size_t>(i)), number(v));
  h = hash_mix(h, ~std::size_t{0});  // where the inputs end
  for (const auto& [j, v] : atom.g.y) h = hash_mix(hash_mix(h, static_cast<std::size_t>(j)), number(v));
  return h;
}

// A conjunction of atoms (indices into Reader::atoms_): its own, and those of a shared base. An image property
// bounds every input (301056 atoms for a 224 x 224 RGB image) and then asserts a disjunction over the other classes
// (999 disjuncts): each disjunct shares the bounds as one base instead of a copy, which took 1.2 GB and 999 sorts.
// Conjoining appends, which may repeat atoms; the own list is compacted (sorted, each atom once) whenever it has
// doubled since it last was, so that it holds fewer than twice its distinct atoms (plus a few) at an amortized cost
// of O(log) per atom appended.
class Conjunction {
 public:
  using Atoms = std::vector<int>;

  void add(int atom) {
    atoms_.push_back(atom);
    compact_when_doubled();
  }
  void add(const Conjunction& other) {
    if (other.base_) share(other.base_);
    atoms_.insert(atoms_.end(), other.atoms_.begin(), other.atoms_.end());
    compact_when_doubled();
  }
  // This conjunction with its atoms as a base that copies share (share_with).
  std::shared_ptr<const Atoms> frozen() const {
    Conjunction c = *this;
    if (c.base_) c.atoms_.insert(c.atoms_.end(), c.base_->begin(), c.base_->end());
    c.compact();
    return std::make_shared<const Atoms>(std::move(c.atoms_));
  }
  // Adds the atoms of `base` (from frozen()) as a shared base, or a copy when there is one already.
  void share(const std::shared_ptr<const Atoms>& base) {
    if (!base_) {
      base_ = base;
    } else if (base != base_) {
      atoms_.insert(atoms_.end(), base->begin(), base->end());
      compact_when_doubled();
    }
  }
  void compact() {
    std::sort(atoms_.begin(), atoms_.end());
    atoms_.erase(std::unique(atoms_.begin(), atoms_.end()), atoms_.end());
    compacted_ = atoms_.size();
  }
  // Every atom, sorted, each once, after compact() (a copy when there is a base).
  Atoms atoms() const {
    if (!base_) return atoms_;
    Atoms all;
    std::set_union(base_->begin(), base_->end(), atoms_.begin(), atoms_.end(), std::back_inserter(all));
    return all;
  }
  // f(atom) for every atom: the base's, then its own (an atom of both twice).
  template <typename F>
  void for_each_atom(F&& f) const {
    if (base_)
      for (const int a : *base_) f(a);
    for (const int a : atoms_) f(a);
  }
  const Atoms& own() const { return atoms_; }
  const Atoms* base() const { return base_.get(); }

 private:
  void compact_when_doubled() {
    if (atoms_.size() >= 2 * compacted_ + 16) compact();
  }

  Atoms atoms_;
  std::size_t compacted_ = 0;
  std::shared_ptr<const Atoms> base_;
};

using Dnf = std::vector<Conjunction>;

struct AtomsHash {
  std::size_t operator()(const std::vector<int>& atoms) const {
    std::size_t h = atoms.size();
    for (const int a : atoms) h = hash_mix(h, static_cast<std::size_t>(a));
    return h;
  }
};

// Compacted conjunctions seen, to keep each once.
using ConjunctionSet = std::unordered_set<std::vector<int>, AtomsHash>;

// The shortest text that reads back as v.
std::string number_text(double v) {
  char text[32];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, v);
  return ec == std::errc() ? std::string(text, end) : std::to_string(v);
}

class Reader {
 public:
  Reader(const std::string& name, const Deadline& deadline)
      : file_("VNN-LIB file '" + detail::printable(name) + "'"), deadline_(deadline) {}

  VnnlibProperty read(std::istream& in);

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw Error(file_ + " line " + std::to_string(line) + ": " + what);
  }
  void poll(std::size_t work);
  void parse(std::istream& in);
  void command(const Node& node);
  void declare(const Node& node);
  bool number(const Node& node, double& value) const;
  Linear expression(const Node& node, int depth);
  Linear variable(const Node& node);
  Linear combination(const Node& node, int depth);
  void add_scaled(Linear& to, const Linear& from, double factor, int line) const;
  void accumulate(double& sum, double factor, double value, const std::string& term, int line) const;
  Dnf formula(const Node& node, int depth);
  Dnf comparison(const Node& node, int depth);
  Dnf disjunction(const Node& node, int depth);
  Dnf conjoin(Dnf a, Dnf b, int line);
  int intern(Atom atom);
  VnnlibProperty split();
  std::vector<OutputConstraint> output_constraints(const std::vector<int>& outputs, int num_outputs) const;
  std::optional<Domain> domain_of(const Conjunction& conjunction) const;
  Domain box_of(const Conjunction& conjunction, std::vector<int>& rows) const;
  bool add_row(Domain& domain, const Atom& atom) const;
  int count(const std::set<int>& declared, const char* name) const;

  std::string file_;
  Deadline deadline_;
  std::size_t work_ = 0;  // conjunctions built since the last deadline check
  int line_ = 1;          // the line being read
  std::set<int> declared_x_, declared_y_;
  std::vector<Atom> atoms_;                                  // each distinct comparison once
  std::unordered_multimap<std::size_t, int> atom_of_hash_;  // hash_of(atom) -> index into atoms_
  Dnf property_ = Dnf(1);                                    // the conjunction of every assert so far
};

// The token quoted, cut at 40 bytes. Built by appending: GCC 12 warns falsely (-Wrestrict) on "'" + ... .
std::string shown(const std::string& token) {
  std::string out = "'";
  out.append(token, 0, 40);
  out += '\'';
  return out;
}

// Checks the deadline once `work` units since the last check add up to kPollWork (0: at once).
void Reader::poll(std::size_t work) {
  work_ += work;
  if (work != 0 && work_ < kPollWork) return;
  work_ = 0;
  if (!deadline_.expired()) return;
  const char* why = deadline_.interrupted() ? "a stop was requested" : "the time limit ran out";
  throw ReadStopped(file_ + " line " + std::to_string(line_) + ": reading stopped: " + why);
}

// Reads the file in chunks and runs each top-level command as soon as it closes, so that only one command's
// tree is held at a time.
void Reader::parse(std::istream& in) {
  std::vector<Node> open;  // the lists being read, innermost last
  std::string atom;
  bool comment = false;
  const auto flush = [&] {
    if (atom.empty()) return;
    if (open.empty()) fail(line_, "a symbol " + shown(atom) + " outside parentheses");
    open.back().children.push_back(Node{std::move(atom), {}, line_});
    atom.clear();
  };
  std::string chunk(kChunkBytes, '\0');
  for (bool first = true;; first = false) {
    poll(0);
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    std::string_view text(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.empty()) break;
    if (first && text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // a UTF-8 byte order mark
    for (const char c : text) {
      if (comment) {
        comment = c != '\n';
      } else if (c == ';') {
        flush();
        comment = true;
      } else if (c == '(') {
        flush();
        if (open.size() >= kMaxDepth) fail(line_, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
        open.push_back(Node{"", {}, line_});
      } else if (c == ')') {
        flush();
        if (open.empty()) fail(line_, "a ')' without its '('");
        Node done = std::move(open.back());
        open.pop_back();
        if (open.empty()) command(done);
        else open.back().children.push_back(std::move(done));
      } else if (std::isspace(static_cast<unsigned char>(c))) {
        flush();
      } else {
        atom += c;
      }
      if (c == '\n') ++line_;
    }
  }
  flush();
  if (!open.empty()) fail(open.back().line, "the '(' opened here is never closed");
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
  const std::string& name = head(node);
  if (name == "declare-const") return declare(node);
  // SMT-LIB commands that some property files end with; they state nothing about the property.
  if (name == "check-sat" || name == "get-model" || name == "exit") return;
  if (name != "assert") fail(node.line, "unsupported command " + shown(name) + " (expected declare-const or assert)");
  if (node.children.size() != 2) fail(node.line, "expected (assert FORMULA)");
  property_ = conjoin(std::move(property_), formula(node.children[1], 1), node.line);
}

// Whether the atom is a number, read into `value`. A finite number beyond the range of a double is refused by
// name; inf and nan are not numbers.
bool Reader::number(const Node& node, double& value) const {
  const std::string& text = node.atom;
  const char* end = text.data() + text.size();
  const char* begin = text.size() > 1 && text[0] == '+' && text[1] != '-' ? text.data() + 1 : text.data();
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ptr != end) return false;
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports underflow alike; strtod, on the same digits, rounds that to 0 or a subnormal.
    value = std::strtod(std::string(begin, end).c_str(), nullptr);
    if (std::isinf(value)) fail(node.line, "the number " + shown(text) + " overflows a double");
    return true;
  }
  return ec == std::errc() && std::isfinite(value);
}

Linear Reader::variable(const Node& node) {
  Linear out;
  if (number(node, out.constant)) return out;
  const int x = variable_index(node.atom, 'X');
  const int y = variable_index(node.atom, 'Y');
  if (x >= 0 && declared_x_.count(x)) out.x[x] = 1.0;
  else if (y >= 0 && declared_y_.count(y)) out.y[y] = 1.0;
  else if (x >= 0 || y >= 0) fail(node.line, shown(node.atom) + " is used before its declare-const");
  else fail(node.line, "unknown symbol " + shown(node.atom) + " (expected a number, X_i or Y_j)");
  return out;
}

// sum += factor * value, refusing a result that overflows a double by naming the two numbers it came from.
void Reader::accumulate(double& sum, double factor, double value, const std::string& term, int line) const {
  const double product = factor * value;
  const double total = sum + product;
  if (std::isfinite(total)) {
    sum = total;
    return;
  }
  const std::string what = std::isfinite(product) ? number_text(sum) + " + " + number_text(product)
                                                  : number_text(factor) + " * " + number_text(value);
  fail(line, "the " + term + ", " + what + ", overflows a double");
}

// to += factor * from.
void Reader::add_scaled(Linear& to, const Linear& from, double factor, int line) const {
  for (const auto& [i, v] : from.x) accumulate(to.x[i], factor, v, "coefficient of X_" + std::to_string(i), line);
  for (const auto& [j, v] : from.y) accumulate(to.y[j], factor, v, "coefficient of Y_" + std::to_string(j), line);
  accumulate(to.constant, factor, from.constant, "constant term", line);
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
    add_scaled(negated, out, -1.0, node.line);
    return negated;
  }
  for (std::size_t k = 2; k <= args; ++k) {
    Linear next = expression(node.children[k], depth + 1);
    if (op != "*") {
      add_scaled(out, next, op == "+" ? 1.0 : -1.0, node.line);
      continue;
    }
    if (!is_constant(out) && !is_constant(next)) fail(node.line, "a product of two variables is not linear");
    if (is_constant(out)) std::swap(out, next);
    Linear product;
    add_scaled(product, out, next.constant, node.line);
    out = std::move(product);
  }
  return out;
}

Linear Reader::expression(const Node& node, int depth) {
  if (depth > kMaxDepth) fail(node.line, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  return node.is_list() ? combination(node, depth) : variable(node);
}

// The index of the atom equal to `atom`, which is added when there is none.
int Reader::intern(Atom atom) {
  const std::size_t h = hash_of(atom);
  for (auto [it, end] = atom_of_hash_.equal_range(h); it != end; ++it)
    if (same_comparison(atoms_[static_cast<std::size_t>(it->second)], atom)) return it->second;
  atoms_.push_back(std::move(atom));
  const int index = static_cast<int>(atoms_.size()) - 1;
  atom_of_hash_.emplace(h, index);
  return index;
}

// a and b: when either is one conjunction, it is added to each of the other's (the common case, an assert
// conjoined to the asserts before it, costs what the assert holds); otherwise every pair.
Dnf Reader::conjoin(Dnf a, Dnf b, int line) {
  if (a.size() == 1 && b.size() != 1) std::swap(a, b);
  if (b.size() == 1) {
    // A large conjunction (the input box) added to many is shared, not copied.
    if (a.size() > 1 && b[0].own().size() >= kSharedAtoms) {
      const std::shared_ptr<const Conjunction::Atoms> shared = b[0].frozen();
      for (Conjunction& c : a) {
        c.share(shared);
        poll(1);
      }
      return a;
    }
    for (Conjunction& c : a) {
      c.add(b[0]);
      poll(1);
    }
    return a;
  }
  if (a.size() * b.size() > kMaxCases)
    fail(line, "the assertions expand to more than " + std::to_string(kMaxCases) + " cases");
  Dnf out;
  out.reserve(a.size() * b.size());
  for (const Conjunction& p : a)
    for (const Conjunction& q : b) {
      out.push_back(p);
      out.back().add(q);
      poll(1);
    }
  return out;
}

// (<= a b c ...) holds when a <= b <= c ...; >=, < and > likewise.
Dnf Reader::comparison(const Node& node, int depth) {
  const std::string& op = head(node);
  if (node.children.size() < 3) fail(node.line, shown(op) + " needs two arguments");
  const bool strict = op == "<" || op == ">";
  const double direction = op == "<=" || op == "<" ? 1.0 : -1.0;
  Conjunction out;
  for (std::size_t k = 1; k + 1 < node.children.size(); ++k) {
    Atom atom{{}, strict, node.line};
    add_scaled(atom.g, expression(node.children[k], depth + 1), direction, node.line);
    add_scaled(atom.g, expression(node.children[k + 1], depth + 1), -direction, node.line);
    prune(atom.g);
    if (is_constant(atom.g)) {
      const bool holds = strict ? atom.g.constant < 0.0 : atom.g.constant <= 0.0;
      if (!holds) return Dnf{};
      continue;
    }
    out.add(intern(std::move(atom)));
  }
  return Dnf{std::move(out)};
}

// The conjunctions of the disjuncts, each once.
Dnf Reader::disjunction(const Node& node, int depth) {
  Dnf out;
  ConjunctionSet seen;
  for (std::size_t k = 1; k < node.children.size(); ++k)
    for (Conjunction& c : formula(node.children[k], depth + 1)) {
      poll(1);
      c.compact();
      if (!seen.insert(c.atoms()).second) continue;
      if (out.size() == kMaxCases)
        fail(node.line, "the assertions expand to more than " + std::to_string(kMaxCases) + " cases");
      out.push_back(std::move(c));
    }
  return out;
}

Dnf Reader::formula(const Node& node, int depth) {
  if (depth > kMaxDepth) fail(node.line, "nesting deeper than " + std::to_string(kMaxDepth) + " levels");
  if (!node.is_list()) fail(node.line, "expected a formula, not " + shown(node.atom));
  const std::string& op = head(node);
  if (op == "<=" || op == ">=" || op == "<" || op == ">") return comparison(node, depth);
  if (op == "or") return disjunction(node, depth);
  if (op != "and")
    fail(node.line, "unsupported formula " + shown(op.empty() ? "(...)" : op) + " (expected and, or, <=, >=, <, >)");
  Dnf out(1);
  for (std::size_t k = 1; k < node.children.size(); ++k)
    out = conjoin(std::move(out), formula(node.children[k], depth + 1), node.line);
  return out;
}

int Reader::count(const std::set<int>& declared, const char* name) const {
  if (declared.empty()) fail(line_, std::string("declares no ") + name + "_0");
  const int n = *declared.rbegin() + 1;
  if (static_cast<int>(declared.size()) != n)
    fail(line_, std::string("declares ") + name + "_" + std::to_string(n - 1) + " but not every " + name +
                    "_i below it");
  return n;
}

// The bounds of the conjunction's comparisons on single inputs; its comparisons coupling several inputs go to
// `rows` (atom indices, sorted). Every input needs a lower and an upper bound of its own: the box is what the
// bounds, the samplers and the LPs start from, and a box implied by rows alone would need an LP to find.
Domain Reader::box_of(const Conjunction& conjunction, std::vector<int>& rows) const {
  const int n = *declared_x_.rbegin() + 1;
  const double inf = std::numeric_limits<double>::infinity();
  Eigen::VectorXd lower = Eigen::VectorXd::Constant(n, -inf), upper = Eigen::VectorXd::Constant(n, inf);
  conjunction.for_each_atom([&](const int a) {
    const Atom& atom = atoms_[static_cast<std::size_t>(a)];
    if (!atom.g.y.empty()) return;
    if (atom.g.x.size() != 1) {
      if (atom.strict) fail(atom.line, "a strict constraint on inputs: use <= or >=");
      rows.push_back(a);
      return;
    }
    if (atom.strict) fail(atom.line, "a strict bound on an input: use <= or >=");
    const auto [i, a_i] = *atom.g.x.begin();
    const double bound = -atom.g.constant / a_i;
    if (!std::isfinite(bound))
      fail(atom.line, "the bound on X_" + std::to_string(i) + ", " + number_text(-atom.g.constant) + " / " +
                          number_text(a_i) + ", overflows a double");
    if (a_i > 0.0) upper[i] = std::min(upper[i], bound);
    else lower[i] = std::max(lower[i], bound);
  });
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  for (int i = 0; i < n; ++i)
    if (!std::isfinite(lower[i]) || !std::isfinite(upper[i]))
      fail(line_, "X_" + std::to_string(i) + " has no " + (std::isfinite(lower[i]) ? "upper" : "lower") +
                      " bound (every input needs both, each a comparison of X_" + std::to_string(i) +
                      " alone: a constraint coupling inputs does not bound the box)");
  return Domain::box(lower, upper);
}

// Adds g(x) <= 0 to the domain as the row a^T x <= -c unless it holds on the whole box; false when it fails on
// the whole box (the domain is empty). Both tests are interval sums over the box with their round-off bound
// (n + 1 units in the last place of the sum of magnitudes), so a row is dropped or a case emptied only when
// that is certain.
bool Reader::add_row(Domain& domain, const Atom& atom) const {
  const double rhs = -atom.g.constant;
  double least = 0.0, most = 0.0, magnitude = std::abs(rhs);
  for (const auto& [i, a_i] : atom.g.x) {
    const double at_lower = a_i * domain.lower[i], at_upper = a_i * domain.upper[i];
    least += std::min(at_lower, at_upper);
    most += std::max(at_lower, at_upper);
    magnitude += std::max(std::abs(at_lower), std::abs(at_upper));
  }
  const double slack = static_cast<double>(atom.g.x.size() + 2) * std::numeric_limits<double>::epsilon() * magnitude;
  if (!std::isfinite(least) || !std::isfinite(most) || !std::isfinite(slack))
    fail(atom.line, "a constraint on inputs overflows a double over the box");
  if (least - rhs > slack) return false;
  if (most - rhs <= -slack) return true;
  const Eigen::Index r = domain.A.rows();
  domain.A.conservativeResize(r + 1, Eigen::NoChange);
  domain.A.row(r).setZero();
  for (const auto& [i, a_i] : atom.g.x) domain.A(r, i) = a_i;
  domain.b.conservativeResize(r + 1);
  domain.b[r] = rhs;
  return true;
}

// The conjunction's input polyhedron: its box, cut by the rows that do not hold on the whole box; none when it
// is certainly empty (a lower bound above an upper bound, or a row that fails on the whole box). The
// description names the lines of the rows kept.
std::optional<Domain> Reader::domain_of(const Conjunction& conjunction) const {
  std::vector<int> rows;
  Domain domain = box_of(conjunction, rows);
  if ((domain.lower.array() > domain.upper.array()).any()) return std::nullopt;
  std::string lines;
  for (const int a : rows) {
    const Atom& atom = atoms_[static_cast<std::size_t>(a)];
    const Eigen::Index before = domain.A.rows();
    if (!add_row(domain, atom)) return std::nullopt;
    if (domain.A.rows() > before) lines += (lines.empty() ? "" : ", ") + std::to_string(atom.line);
  }
  if (domain.has_rows())
    domain.description = "a box cut by " + std::to_string(domain.num_rows()) +
                         (domain.num_rows() == 1 ? " row A x <= b (line " : " rows A x <= b (lines ") + lines + ")";
  return domain;
}

std::vector<OutputConstraint> Reader::output_constraints(const std::vector<int>& outputs, int num_outputs) const {
  std::vector<OutputConstraint> out;
  out.reserve(outputs.size());
  for (const int a : outputs) {
    const Atom& atom = atoms_[static_cast<std::size_t>(a)];
    out.push_back(OutputConstraint{Eigen::VectorXd::Zero(num_outputs), atom.g.constant, atom.strict, atom.line});
    for (const auto& [j, v] : atom.g.y) out.back().weights[j] = v;
  }
  return out;
}

// The numbers that make a domain, for finding the case of an equal one: bounds, then the rows.
std::vector<double> domain_key(const Domain& domain) {
  std::vector<double> key(domain.lower.begin(), domain.lower.end());
  key.insert(key.end(), domain.upper.begin(), domain.upper.end());
  for (Eigen::Index r = 0; r < domain.A.rows(); ++r) {
    for (Eigen::Index i = 0; i < domain.A.cols(); ++i) key.push_back(domain.A(r, i));
    key.push_back(domain.b[r]);
  }
  return key;
}

// Conjunctions with the same domain (box and rows) form one case; within a case, each conjunction of output
// constraints is kept once.
VnnlibProperty Reader::split() {
  VnnlibProperty property;
  property.num_inputs = count(declared_x_, "X");
  property.num_outputs = count(declared_y_, "Y");
  std::map<std::vector<double>, std::size_t> case_of_domain;
  // The case of a shared base whose conjunctions add outputs only: one domain for all of them (none: empty).
  std::map<const Conjunction::Atoms*, std::optional<std::size_t>> case_of_base;
  std::map<const Conjunction::Atoms*, std::vector<int>> outputs_of_base;
  std::vector<ConjunctionSet> outputs_of_case;
  // The output atoms among `atoms`, appended to `outputs`; whether some atom is on inputs.
  const auto collect = [&](const Conjunction::Atoms& atoms, std::vector<int>& outputs) {
    bool inputs = false;
    for (const int a : atoms) {
      const Atom& atom = atoms_[static_cast<std::size_t>(a)];
      inputs = inputs || atom.g.y.empty();
      if (atom.g.y.empty()) continue;
      if (!atom.g.x.empty()) fail(atom.line, "a constraint mixes inputs and outputs");
      outputs.push_back(a);
    }
    return inputs;
  };
  for (Conjunction& conjunction : property_) {
    poll(1);
    conjunction.compact();
    std::vector<int> outputs;
    if (const Conjunction::Atoms* base = conjunction.base()) {
      auto [it, added] = outputs_of_base.try_emplace(base);
      if (added) collect(*base, it->second);
      outputs = it->second;
    }
    const bool own_inputs = collect(conjunction.own(), outputs);
    std::sort(outputs.begin(), outputs.end());
    outputs.erase(std::unique(outputs.begin(), outputs.end()), outputs.end());
    const bool by_base = conjunction.base() != nullptr && !own_inputs;
    std::optional<std::size_t> k;
    if (const auto found = case_of_base.find(conjunction.base()); by_base && found != case_of_base.end()) {
      k = found->second;
    } else {
      if (std::optional<Domain> domain = domain_of(conjunction)) {
        const auto [it, added] = case_of_domain.emplace(domain_key(*domain), property.cases.size());
        if (added) {
          property.cases.push_back(VnnlibCase{std::move(*domain), {}});
          outputs_of_case.emplace_back();
        }
        k = it->second;
      }
      if (by_base) case_of_base.emplace(conjunction.base(), k);
    }
    if (!k || !outputs_of_case[*k].insert(outputs).second) continue;
    property.cases[*k].unsafe.push_back(output_constraints(outputs, property.num_outputs));
  }
  return property;
}

VnnlibProperty Reader::read(std::istream& in) {
  parse(in);
  return split();
}

}  // namespace

namespace detail {

VnnlibProperty read_vnnlib(std::istream& in, const std::string& name, const Deadline& deadline) {
  return with_printable_errors([&] { return Reader(name, deadline).read(in); });
}

}  // namespace detail

VnnlibProperty read_vnnlib(const std::string& path, const Deadline& deadline) {
  std::ifstream in = detail::open_input(path, "VNN-LIB");
  return detail::read_vnnlib(in, path, deadline);
}

VnnlibProperty read_vnnlib_text(const std::string& text, const std::string& name, const Deadline& deadline) {
  std::istringstream in(text);
  return detail::read_vnnlib(in, name, deadline);
}

}  // namespace reluopt
