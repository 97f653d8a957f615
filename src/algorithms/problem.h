#pragma once

#include <Eigen/Dense>

#include "bounds/bounds.h"
#include "formulation/pattern_lp.h"
#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"

namespace reluopt {

// A validated optimization problem: max (or min) g(x) = w^T f(x) + c over x in P.
// make_problem() checks every piece against the network and that P is not empty (one LP when P has rows),
// and computes what every method needs: a point strictly inside P, interval bounds and the concave neurons.
struct Problem {
  const Network& network;
  Domain domain;
  Objective objective;
  Eigen::VectorXd interior_point;  // the Chebyshev centre of P (the box centre for a box)
  NeuronBounds interval;           // interval bounds on every pre-activation
  FreeMask concave;                // the concave neurons under `interval` (formulation/pattern_lp.h)
};

Problem make_problem(const Network& network, Domain domain, Objective objective);

// A point of P with its forward value: the only way a method reports a solution.
struct EvaluatedPoint {
  Eigen::VectorXd x;
  Eigen::VectorXd outputs;
  double value = 0.0;  // sign * g(x): the maximized value
};

// Moves a solver's x into P (clipping to the box, then towards the interior point if a row is violated)
// and evaluates it by a double-precision forward pass.
EvaluatedPoint evaluate_point(const Problem& problem, Eigen::VectorXd x);

}  // namespace reluopt
