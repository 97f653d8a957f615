#include "core/domain_sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace reluopt {

std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream) {
  // splitmix64 of seed and stream, so nearby seeds give unrelated streams.
  std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

DomainSampler::DomainSampler(const Domain& domain, const Eigen::VectorXd& interior_point,
                             std::uint64_t seed, int thinning)
    : domain_(domain), rng_(seed) {
  if (!domain_.has_rows()) return;
  const int dim = domain_.dim();
  thinning_ = thinning > 0 ? thinning : std::max(10, dim);
  point_ = interior_point;
  slack_ = domain_.b - domain_.A * point_;
  free_ = (domain_.upper - domain_.lower).unaryExpr([](double w) { return w > 0.0 ? 1.0 : 0.0; });
  // Burn-in: walk away from the centre before the first returned point.
  for (int i = 0; i < 10 * thinning_; ++i) hit_and_run_step();
}

Eigen::VectorXd DomainSampler::next() {
  if (!domain_.has_rows()) {
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Eigen::VectorXd x(domain_.dim());
    for (int i = 0; i < x.size(); ++i)
      x[i] = domain_.lower[i] + (domain_.upper[i] - domain_.lower[i]) * unit(rng_);
    return x;
  }
  for (int i = 0; i < thinning_; ++i) hit_and_run_step();
  return point_;
}

void DomainSampler::hit_and_run_step() {
  std::normal_distribution<double> gauss(0.0, 1.0);
  const int dim = domain_.dim();
  Eigen::VectorXd direction(dim);
  for (int i = 0; i < dim; ++i) direction[i] = free_[i] * gauss(rng_);
  const double norm = direction.norm();
  if (norm == 0.0) return;  // every coordinate fixed
  direction /= norm;

  double t_min = -std::numeric_limits<double>::infinity();
  double t_max = std::numeric_limits<double>::infinity();
  auto clip = [&](double slack_along, double rate) {
    // Feasible steps satisfy rate * t <= slack_along.
    if (rate > 1e-14) t_max = std::min(t_max, slack_along / rate);
    else if (rate < -1e-14) t_min = std::max(t_min, slack_along / rate);
  };
  for (int i = 0; i < dim; ++i) {
    if (direction[i] == 0.0) continue;
    clip(domain_.upper[i] - point_[i], direction[i]);
    clip(point_[i] - domain_.lower[i], -direction[i]);
  }
  const Eigen::VectorXd rate = domain_.A * direction;
  for (int r = 0; r < rate.size(); ++r) clip(std::max(slack_[r], 0.0), rate[r]);
  t_min = std::min(t_min, 0.0);
  t_max = std::max(t_max, 0.0);
  const double t = std::uniform_real_distribution<double>(t_min, t_max)(rng_);

  point_ = (point_ + t * direction).cwiseMax(domain_.lower).cwiseMin(domain_.upper);
  // Incremental slack drifts by rounding; recompute it now and then.
  if (++steps_since_refresh_ >= 64) {
    slack_ = domain_.b - domain_.A * point_;
    steps_since_refresh_ = 0;
  } else {
    slack_ -= t * rate;
  }
}

}  // namespace reluopt
