#pragma once

// The exact optimum of a small Model (reluopt/model.h), for tests: every assignment of the integer variables
// (their whole grid) times every activation pattern of every network that interval arithmetic over that grid
// point's box leaves possible, each piece an LP in the layered space of
// the model's own networks (variables v, every hidden layer's post-activations, the outputs; all constraints as
// rows). Independent of the reduction (core/model_reduction.h) and of the methods under test.
#include <vector>

#include <Eigen/Dense>

#include "reluopt/model.h"
#include "reluopt/solve.h"

namespace reluopt::testing {

struct ModelOptimum {
  bool feasible = false;
  double objective = 0.0;  // in the model's sense (when feasible)
  Eigen::VectorXd v;       // an optimal assignment of the variables (when feasible)
  long pieces = 0;         // LPs solved
};

// Throws std::invalid_argument when the model has more than 16 hidden neurons or more than 100000 pieces.
ModelOptimum brute_force_model(const Model& model);

// A prover's answer against the oracle's (gtest expectations): `infeasible` with no point where the oracle finds
// none; otherwise `optimal` at the oracle's optimum, with a point that evaluate() accepts at the reported
// objective and a bound that does not cut the optimum off.
void expect_oracles_answer(const Model& model, const ModelOptimum& exact, const ModelResult& got);

// sum of terms (sense) rhs, for building small models in tests.
LinearConstraint make_constraint(std::vector<LinearExpr::Term> terms, ConstraintSense sense, double rhs);

}  // namespace reluopt::testing
