// The one interval step (bounds/bounds.h) against the vertices of the box, and the bounds built on it.
#include <gtest/gtest.h>

#include <random>

#include "bounds/bounds.h"
#include "bounds/symbolic_bounds.h"

namespace reluopt {
namespace {

struct Case {
  Eigen::MatrixXd weights;
  Eigen::VectorXd bias, lo, hi;
};

Case random_case(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  Case c{Eigen::MatrixXd(5, 4), Eigen::VectorXd(5), Eigen::VectorXd(4), Eigen::VectorXd(4)};
  for (Eigen::Index i = 0; i < c.weights.size(); ++i) c.weights.data()[i] = u(rng);
  for (Eigen::Index j = 0; j < 5; ++j) c.bias[j] = u(rng);
  for (Eigen::Index i = 0; i < 4; ++i) {
    const double a = u(rng), b = u(rng);
    c.lo[i] = std::min(a, b);
    c.hi[i] = std::max(a, b);
  }
  return c;
}

// W x + b is affine, so its range over the box is attained at the vertices: interval arithmetic is exact for one
// layer.
TEST(IntervalStep, IsTheRangeOverTheBoxVertices) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Case c = random_case(seed);
    Eigen::VectorXd l, u, reach;
    interval_step(c.weights, c.bias, c.lo, c.hi, &l, &u, &reach);
    Eigen::VectorXd low = Eigen::VectorXd::Constant(5, kInfinity), high = -low;
    for (int vertex = 0; vertex < 16; ++vertex) {
      Eigen::VectorXd x(4);
      for (int i = 0; i < 4; ++i) x[i] = (vertex >> i) & 1 ? c.hi[i] : c.lo[i];
      const Eigen::VectorXd h = c.weights * x + c.bias;
      low = low.cwiseMin(h);
      high = high.cwiseMax(h);
    }
    for (Eigen::Index j = 0; j < 5; ++j) {
      EXPECT_NEAR(l[j], low[j], 1e-12);
      EXPECT_NEAR(u[j], high[j], 1e-12);
    }
    const Eigen::VectorXd m = c.lo.cwiseAbs().cwiseMax(c.hi.cwiseAbs());
    const Eigen::VectorXd expected_reach = c.weights.cwiseAbs() * m + c.bias.cwiseAbs();
    for (Eigen::Index j = 0; j < 5; ++j) EXPECT_NEAR(reach[j], expected_reach[j], 1e-12);
  }
}

// Each output is computed on its own: asking for the upper bound alone gives the same upper bound.
TEST(IntervalStep, OutputsAreIndependent) {
  const Case c = random_case(7);
  Eigen::VectorXd l, u, upper_only;
  interval_step(c.weights, c.bias, c.lo, c.hi, &l, &u);
  interval_step(c.weights, c.bias, c.lo, c.hi, nullptr, &upper_only);
  EXPECT_EQ(upper_only, u);
}

// interval_layer is the same step with its round-off margin: never tighter.
TEST(IntervalStep, SoundLayerContainsIt) {
  const Case c = random_case(11);
  const DenseLayer layer{c.weights, c.bias};
  Eigen::VectorXd l, u, sound_l, sound_u, reach;
  interval_step(c.weights, c.bias, c.lo, c.hi, &l, &u);
  interval_layer(layer, c.lo, c.hi, sound_l, sound_u, reach);
  for (Eigen::Index j = 0; j < 5; ++j) {
    EXPECT_LE(sound_l[j], l[j]);
    EXPECT_GE(sound_u[j], u[j]);
  }
}

}  // namespace
}  // namespace reluopt
