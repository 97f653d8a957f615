#pragma once

#include <atomic>

#include <Eigen/Dense>

#include "algorithms/problem.h"
#include "algorithms/sampling.h"
#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"
#include "algorithms/incumbent.h"  // RunContext

namespace reluopt {

// Euclidean projection onto P = {lower <= x <= upper, A x <= b}. A box is a clamp. With rows, Dykstra's
// alternating projections onto the box and each half-space, with his corrections, which converge to the
// projection onto the intersection (Boyle & Dykstra 1986); it stops when a cycle moves x by at most `tolerance`
// (relative to the box's diameter) and leaves no row violated by more, or after `max_cycles` cycles, so the result may violate a row by a little:
// callers pass it through evaluate_point(), which moves it into P.
class Projector {
 public:
  explicit Projector(const Domain& domain, int max_cycles = 100, double tolerance = 1e-10);
  Eigen::VectorXd project(const Eigen::VectorXd& x) const;

 private:
  const Domain& domain_;
  Eigen::VectorXd row_norms_squared_;
  int max_cycles_;
  double tolerance_;
};

// A forward pass at x that records the activation pattern, and the backward pass through it: the gradient of
// the maximized objective sign * g, constant on x's linear region (on a region boundary, the gradient of the
// region whose inactive neurons include those at exactly 0).
// With a deadline, the passes look at it before each layer (a layer of a large model takes a pass over its
// weights) and stop there, the result marked incomplete (value and gradient unset).
struct RegionGradient {
  double value = 0.0;        // sign * g(x)
  Eigen::VectorXd gradient;  // d(sign * g)/dx
  bool complete = true;
};
RegionGradient region_gradient(const Network& network, const Objective& objective, const Eigen::VectorXd& x,
                               const Deadline* deadline = nullptr);

// The work of the gradient movers, summed over threads.
struct GradientCounters {
  std::atomic<long> steps{0};
  std::atomic<long> perturbations{0};
};

// One gradient mover per thread (options.gradient, seeded from options.seed and the thread's index over all
// processes): the ascent from each sample, for run_sampling's SampleMover hook. The factory keeps references to
// its arguments.
MoverFactory gradient_movers(const Problem& problem, const SolveOptions& options, GradientCounters& counters);

// Projected gradient ascent with perturbations (docs/MATH.md §14): options.gradient's ascents from samples of
// P, each followed by its region's LP, on the sampling driver (threads, incumbent, time limit, Ctrl-C).
SolveResult run_gradient(const Problem& problem, const SolveOptions& options, const Deadline& deadline,
                         const RunContext& control);

}  // namespace reluopt
