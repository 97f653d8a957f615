#pragma once

#include <Eigen/Dense>

#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/result.h"

namespace reluopt {

// The same problem with its typical numbers near 1, for the LP and MIP solvers (docs/NUMERICS.md).
//
// Every factor is a power of two and the map is linear (no shift), so the scaled problem is the original one
// exactly, in floating point too (barring underflow of a weight below 1e-292):
//   inputs      x = t ⊙ z            t_i: the magnitude of input i's bounds
//   layer k     h'_k = h_k / l_k     l_k: the median over the layer's neurons of sum_i |W_ji| l_{k-1,i} + |b_j|
//                                    (ReLU commutes with it); one factor per layer, so an outlier stays one
//   outputs     y' = y / u           u: the same for the output layer
//   objective   g(x) = sigma g'(z)   sigma: the magnitude of the largest |c_o| u
// Rows of A x <= b are divided by the magnitude of their largest coefficient. A point z of the scaled domain
// maps to x = t ⊙ z in the original one, with the same forward pass bit for bit, and a bound on g' times sigma is
// a bound on g: a MIP over the scaled problem sees coefficients and big-M constants near 1 where the original
// has 1e10 (a box of +-1e10) or 1e-10.
struct ScaledProblem {
  Network network;
  Domain domain;
  Objective objective;
  Eigen::VectorXd input_scale;   // t
  Eigen::VectorXd output_scale;  // u (one value repeated)
  double value_scale = 1.0;      // sigma

  Eigen::VectorXd original_x(const Eigen::VectorXd& z) const { return input_scale.cwiseProduct(z); }
};

ScaledProblem scale_problem(const Network& network, const Domain& domain, const Objective& objective);

// True when some factor of scale_problem (t_i, l_k, u, sigma) lies outside [2^-20, 2^20] (about 1e-6 to 1e6):
// then the scaled problem is worth its copy of the network.
bool needs_scaling(const Network& network, const Domain& domain, const Objective& objective);

// A result of the scaled problem turned into one of the original: x = t ⊙ z, the outputs and objective from a
// forward pass of the original network at x, and every value (bound, trajectories, sample values, the stop
// rule's numbers) times sigma.
SolveResult unscale_result(SolveResult result, const ScaledProblem& scaled, const Network& network,
                           const Domain& domain, const Objective& objective);

}  // namespace reluopt
