#pragma once

// A Model (reluopt/model.h) as the problem the methods run (docs/PROBLEM.md, "The reduction"): one composite
// network over u, the concatenated variables v less those that equalities eliminate, a domain over u, a linear
// objective and linear rows on the composite's outputs.
#include <memory>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "reluopt/domain.h"
#include "reluopt/model.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"

namespace reluopt {

using SparseMap = Eigen::SparseMatrix<double, Eigen::RowMajor>;

struct ReducedModel {
  // y = F(u) = [f_1(v_I1); ...; f_K(v_IK); v_T], T = output_variables, or the model's one network itself in the
  // plain case.
  std::shared_ptr<const Network> composite;
  // v = input_map u + input_offset. Each equality on variables alone that has a continuous variable is solved
  // for one, and one over integers alone for an integer variable whose coefficient divides the others and the
  // right side (then substituted into the rest); u is the variables left, in order, so input_map's rows of those
  // are unit rows and give v_i = u_j exactly. Identity when no equality eliminates a variable.
  SparseMap input_map;
  Eigen::VectorXd input_offset;
  // Over u: the box (integer coordinates rounded inwards), the other constraints on variables alone (a == row
  // as two rows) and the bounds of the eliminated variables as rows.
  Domain domain;
  Objective objective;            // linear in y
  Eigen::MatrixXd output_rows;    // C: the constraints that involve a network output, C y <= e
  Eigen::VectorXd output_rhs;     // e
  std::vector<bool> integer;      // per coordinate of u
  std::vector<int> output_offset; // network k's outputs are y[output_offset[k] .. + its output_dim)
  // T: the variables of the variable terms of the objective and the output rows (all of v when the model has no
  // network), in order; v[T[t]] is y[variables_offset + t]. Empty, with variables_offset -1, in the plain case.
  std::vector<int> output_variables;
  int variables_offset = -1;

  // True when the composite is the model's one network: its input is v in order (no variable eliminated), and
  // neither the objective nor an output row has a variable term.
  bool plain() const { return variables_offset < 0; }
  // The model's variables at the composite's input u.
  Eigen::VectorXd variables(const Eigen::VectorXd& u) const { return input_map * u + input_offset; }
  bool has_output_rows() const { return output_rows.rows() > 0; }
  bool has_integers() const;
  // Network k's outputs within y.
  Eigen::VectorXd network_outputs(const Eigen::VectorXd& y, int k) const;
  // The largest violation of C y <= e (0 when every row holds).
  double output_violation(const Eigen::VectorXd& y) const;
};

// Validates the model (Model::validate) and reduces it. The composite holds the networks side by side, each
// starting as many layers late as it is shallower than the deepest, and carries the variables that a late
// network or y needs through every hidden layer as relu(v - L) with L below v's lower bound: those neurons are
// active at every point of the domain, so the composite is exact and costs no binary and no split.
ReducedModel reduce(const Model& model);

// L = min(lower, 0) - 1 for a variable with lower bound `lower`: the pre-activation v - L is at least about 1 on
// the domain (bounds are within kMaxMagnitude, where the spacing of doubles is 1/8), so no rounding makes the
// neuron inactive; and for lower >= 0, L = -1 keeps the shift small against v.
double carry_shift(double lower);

}  // namespace reluopt
