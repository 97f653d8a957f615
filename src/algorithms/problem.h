#pragma once

#include <vector>

#include <Eigen/Dense>

#include "bounds/bounds.h"
#include "core/max_min_network.h"
#include "formulation/pattern_lp.h"
#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"

namespace reluopt {

// What a model around networks (core/model_reduction.h) adds to max g(x) over P: rows C f(x) <= e on the network's
// outputs and the coordinates of x that must be integral. Empty for the plain problem.
struct ModelRows {
  Eigen::MatrixXd output_rows;  // C
  Eigen::VectorXd output_rhs;   // e
  std::vector<bool> integer;    // per coordinate of x; empty when none is integral

  bool has_output_rows() const { return output_rows.rows() > 0; }
  bool has_integers() const;
  bool empty() const { return !has_output_rows() && !has_integers(); }
};

// A validated optimization problem: max (or min) g(x) = w^T f(x) + c over x in P (and the model's rows).
// make_problem() checks every piece against the network and that P is not empty (one LP when P has rows),
// and computes what every method needs: a point strictly inside P, interval bounds and the concave neurons.
struct Problem {
  const Network& network;
  Domain domain;
  Objective objective;
  Eigen::VectorXd interior_point;  // the Chebyshev centre of P (the box centre for a box)
  NeuronBounds interval;           // interval bounds on every pre-activation
  FreeMask concave;                // the concave neurons under `interval` (formulation/pattern_lp.h)
  ModelRows rows;                  // empty unless the problem is a reduced model
};

Problem make_problem(const Network& network, Domain domain, Objective objective, ModelRows rows = {});

// A max-min objective compiled into ReLU layers (core/max_min_network.h) with its terms' lower bounds over the
// domain's box, from bounds on the outputs that may take a tenth of `clock`'s time left.
detail::MaxMinNetwork compile_objective(const Network& network, const Domain& domain, const Objective& objective,
                                        const Deadline& clock);

// A point of P with its forward value: the only way a method reports a solution.
struct EvaluatedPoint {
  Eigen::VectorXd x;
  Eigen::VectorXd outputs;
  double value = 0.0;  // sign * g(x): the maximized value
  // Whether x meets the model's rows (within row_tolerance) and is integral where it must be; always true for
  // the plain problem. Only feasible points are ever offered as solutions (Incumbent::offer).
  bool feasible = true;
};

// How far a point may exceed a row a^T z <= rhs (of the model's output rows, or of P when x has integer
// coordinates and cannot be moved inside) and still count as meeting it: the LP solvers' feasibility tolerance
// and the forward pass's rounding, far below the model's own tolerance (model_tolerance, reluopt/solve.h), which
// every reported point of a model meets again.
double row_tolerance(double rhs);

// The largest excess of C y - e over its rows' tolerances (<= 0 when y meets every row); -inf without rows.
double output_row_excess(const ModelRows& rows, const Eigen::VectorXd& outputs);

// Moves a solver's x into P (clipping to the box, rounding the integer coordinates, then, when no coordinate is
// integer, towards the interior point if a row is violated) and evaluates it by a double-precision forward pass.
// With a model's rows the point is marked infeasible when it misses a row of C y <= e, or (with integer
// coordinates) a row of P, by more than row_tolerance.
EvaluatedPoint evaluate_point(const Problem& problem, Eigen::VectorXd x);

}  // namespace reluopt
