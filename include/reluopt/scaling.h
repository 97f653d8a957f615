#pragma once

#include <Eigen/Dense>

#include "reluopt/bounds.h"
#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/result.h"

namespace reluopt {

// The same problem with every number near 1, for the LP and MIP solvers (docs/NUMERICS.md).
//
// Every factor is a power of two and the map is linear (no shift), so the scaled problem is the original one
// exactly, in floating point too (barring underflow of a weight below 1e-292):
//   inputs      x = t ⊙ z                       (t_i: the magnitude of input i's bounds)
//   neuron j    h'_j = h_j / s_j                 (s_j: the magnitude of its interval bounds; ReLU commutes with it)
//   output o    y'_o = y_o / u_o
//   objective   g(x) = sigma g'(z)               (sigma: the magnitude of the objective's largest coefficient on the
//                                                 last hidden layer)
// Rows of A x <= b are divided by the magnitude of their largest coefficient. A point z of the scaled domain
// maps to x = t ⊙ z in the original one, with the same forward pass bit for bit, and a bound on g' times sigma is
// a bound on g: a MIP over the scaled problem sees coefficients and big-M constants near 1 where the original
// has 1e10 (a box of +-1e10) or 1e-10.
struct ScaledProblem {
  Network network;
  Domain domain;
  Objective objective;
  Eigen::VectorXd input_scale;   // t
  Eigen::VectorXd output_scale;  // u
  double value_scale = 1.0;      // sigma

  Eigen::VectorXd original_x(const Eigen::VectorXd& z) const { return input_scale.cwiseProduct(z); }
};

// The scaled problem. `interval` are interval bounds of `network` over `domain` (interval_bounds()).
ScaledProblem scale_problem(const Network& network, const Domain& domain, const Objective& objective,
                            const NeuronBounds& interval);

// True when some magnitude the solvers would see (an input bound, a neuron's interval bound, an objective
// coefficient on the last hidden layer) lies outside [1e-6, 1e6]: then scale_problem is worth its copy.
bool needs_scaling(const Network& network, const Domain& domain, const Objective& objective,
                   const NeuronBounds& interval);

// A result of the scaled problem turned into one of the original: x = t ⊙ z, the outputs and objective from a
// forward pass of the original network at x, and every value (bound, trajectories, sample values, the stop
// rule's numbers) times sigma.
SolveResult unscale_result(SolveResult result, const ScaledProblem& scaled, const Network& network,
                           const Domain& domain, const Objective& objective);

}  // namespace reluopt
