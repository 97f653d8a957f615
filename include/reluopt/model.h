#pragma once

// A model around networks (docs/PROBLEM.md): named blocks of bounded variables, some coordinates integer; any
// number of networks, each fed by variables; linear constraints over variables and network outputs; an objective
// linear in both. The problem of one network over a polyhedron P is the special case of one block fed to one
// network, rows over that block, and an objective on the outputs.
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "reluopt/network.h"
#include "reluopt/objective.h"

namespace reluopt {

// lower <= v <= upper, each bound finite (an unbounded domain is an error in reluopt); the coordinates whose
// `integer` entry is true take integer values. An empty `integer` makes the whole block continuous.
struct VariableBlock {
  std::string name;
  Eigen::VectorXd lower;
  Eigen::VectorXd upper;
  std::vector<bool> integer;

  int size() const { return static_cast<int>(lower.size()); }
  bool is_integer(int i) const { return !integer.empty() && integer[static_cast<std::size_t>(i)]; }
};

// A network fed by variables: its input j is variable input[j] of the concatenated variable vector v (blocks in
// order), so an input may be a block, part of one, or pick from several.
struct NetworkUse {
  std::string name;
  std::shared_ptr<const Network> network;
  std::vector<int> input;
  std::string source;  // the model file it was read from ("" when built in memory), for writing the model
};

// One coordinate of a variable block or one output of a network.
struct Reference {
  enum class Kind { kVariable, kOutput };
  Kind kind = Kind::kVariable;
  int index = 0;       // the block (kVariable) or the network (kOutput)
  int coordinate = 0;

  static Reference variable(int block, int coordinate) { return {Kind::kVariable, block, coordinate}; }
  static Reference output(int network, int coordinate) { return {Kind::kOutput, network, coordinate}; }
  bool operator==(const Reference&) const = default;
};

// sum_t coefficient_t * value(reference_t) + constant; a reference may appear in several terms (they add).
struct LinearExpr {
  struct Term {
    Reference ref;
    double coefficient = 0.0;
  };
  std::vector<Term> terms;
  double constant = 0.0;

  bool has_outputs() const;    // some term refers to a network output
  bool has_variables() const;  // some term refers to a variable
};

enum class ConstraintSense { kLessEqual, kGreaterEqual, kEqual };

// expr <= rhs, expr >= rhs or expr == rhs.
struct LinearConstraint {
  LinearExpr expr;
  ConstraintSense sense = ConstraintSense::kLessEqual;
  double rhs = 0.0;
  std::string name;  // optional, for messages and written formulations
};

struct Model {
  std::vector<VariableBlock> variables;
  std::vector<NetworkUse> networks;
  std::vector<LinearConstraint> constraints;
  LinearExpr objective;
  // A max-min objective max_k min_l objective_disjuncts[k][l] in place of `objective` when not empty: a safety
  // margin, or the worst case over scenarios (docs/PROBLEM.md). `objective` is then left empty.
  std::vector<std::vector<LinearExpr>> objective_disjuncts;
  Sense sense = Sense::kMaximize;

  bool has_max_min_objective() const { return !objective_disjuncts.empty(); }
  // The linear expressions the objective is made of: `objective`, or every term of the max-min objective.
  std::vector<const LinearExpr*> objective_exprs() const;

  int num_variables() const;
  // Where block `block` starts in the concatenated variable vector v.
  int offset(int block) const;
  // "x[2]" or "demand[0]", for messages and files.
  std::string reference_name(const Reference& ref) const;

  // Throws reluopt::Error with a one-line message naming the entry, e.g. "variables 'x': lower 3 > upper 1 at
  // coordinate 0", "network 'risk': input has 2 entries, its network 3 inputs", "constraint 2: term 0 refers to
  // output 4 of network 'risk', which has 1 output". Names of blocks and networks share one namespace.
  void validate() const;
};

// A model at one assignment v of its variables, every value from a double-precision forward pass of the
// model's own networks: how a reported point is checked.
struct ModelPoint {
  Eigen::VectorXd v;
  std::vector<Eigen::VectorXd> variables;  // v per block
  std::vector<Eigen::VectorXd> outputs;    // per network
  double objective = 0.0;                // in the user's sense
  // The largest violation of a bound, of integrality or of a constraint (0 when v is feasible).
  double max_violation = 0.0;
};

ModelPoint evaluate(const Model& model, const Eigen::VectorXd& v);

}  // namespace reluopt
