#pragma once

#include <cstdint>
#include <random>

#include <Eigen/Dense>

#include "reluopt/domain.h"

namespace reluopt {

// Uniform samples from a domain (MATH.md §9). A box is sampled coordinate by coordinate. With rows
// A x <= b, hit-and-run: from the current point pick a direction uniformly on the sphere, intersect the line
// with P, move to a uniform point of the chord, and return every `thinning`-th point. Coordinates with
// lower == upper are held fixed, so fixed inputs do not stop the walk. Nothing is rejected.
class DomainSampler {
 public:
  // `interior_point` must lie in P (for hit-and-run, strictly inside it: the Chebyshev centre); it is
  // unused for a box. thinning <= 0 picks the default, max(10, dim) steps between returned points.
  DomainSampler(const Domain& domain, const Eigen::VectorXd& interior_point, std::uint64_t seed,
                int thinning = 0);

  Eigen::VectorXd next();

 private:
  void hit_and_run_step();

  const Domain& domain_;
  std::mt19937_64 rng_;
  Eigen::VectorXd point_;
  Eigen::VectorXd slack_;  // b - A x at point_, updated incrementally
  Eigen::VectorXd free_;   // 1 for coordinates that may move, 0 for fixed ones
  int thinning_ = 1;
  int steps_since_refresh_ = 0;
};

// Mixes a run seed and a stream index (thread, chain) into an independent generator seed.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream);

}  // namespace reluopt
