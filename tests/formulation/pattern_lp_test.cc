#include "reluopt/pattern_lp.h"

#include <gtest/gtest.h>

#include <random>

#include "reluopt/problem.h"
#include "solver/clp_lp.h"
#include "test_networks.h"

namespace reluopt {
namespace {

TEST(PatternLp, TinyNetworkRegionOptimum) {
  const Network net = testing::tiny_network();
  const Domain box = Domain::unit_box(2);
  const Objective objective = Objective::output(1);
  ClpLp lp;
  // The region a > 0, b <= 0 contains (0.6, 0.1); its LP maximum is 2a + 0.5 = 2.5 at (1, 0).
  const ActivationPattern pattern = net.activation_pattern(Eigen::Vector2d(0.6, 0.1));
  const LpSolution solution = lp.solve(pattern_lp(net, box, objective, pattern, nullptr));
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 2.5, 1e-9);
  EXPECT_NEAR(solution.values[0], 1.0, 1e-9);
  EXPECT_NEAR(solution.values[1], 0.0, 1e-9);
  // The region a <= 0, b > 0 (contains (0.6, 0.9)): y = -(x1 + x2 - 1) + 0.5, best 0.5 on its boundary.
  const ActivationPattern other = net.activation_pattern(Eigen::Vector2d(0.6, 0.9));
  const LpSolution second = lp.solve(pattern_lp(net, box, objective, other, nullptr));
  ASSERT_EQ(second.status, LpStatus::kOptimal);
  EXPECT_NEAR(second.objective, 0.5, 1e-9);
}

TEST(PatternLp, MinimizationNegatesTheObjective) {
  const Network net = testing::tiny_network();
  Objective minimize = Objective::output(1);
  minimize.sense = Sense::kMinimize;
  ClpLp lp;
  // Region a <= 0, b > 0: min y = -(x1 + x2 - 1) + 0.5 with x1 <= x2 is -0.5 at (1, 1).
  const ActivationPattern pattern = net.activation_pattern(Eigen::Vector2d(0.6, 0.9));
  const LpSolution solution = lp.solve(pattern_lp(net, Domain::unit_box(2), minimize, pattern, nullptr));
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 0.5, 1e-9);  // maximized sense: -(-0.5)
}

TEST(PatternLp, ComposedMapsEqualTheForwardPassInsideTheRegion) {
  const Network net = testing::random_network(4, {6, 5, 4}, 2, 17);
  Objective objective;
  objective.weights = Eigen::Vector2d(0.7, -1.3);
  objective.constant = 0.25;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::VectorXd x(4);
    for (int i = 0; i < 4; ++i) x[i] = unit(rng);
    const ActivationPattern pattern = net.activation_pattern(x);
    const RegionAffine region = compose_region(net, objective, pattern);
    const ForwardTrace trace = net.trace(x);
    for (int k = 0; k < net.num_hidden_layers(); ++k)
      EXPECT_LT((region.G[k] * x + region.g[k] - trace.pre_activation[k]).norm(), 1e-12);
    EXPECT_NEAR(region.objective_gradient.dot(x) + region.objective_constant, objective.value(trace.output),
                1e-12);
  }
}

TEST(PatternLp, OptimumIsAtLeastTheSampleAndMatchesItsForwardValue) {
  const Network net = testing::random_network(5, {8, 8}, 1, 23);
  const Domain domain = testing::random_polytope(5, 4, 2);
  const Problem problem = make_problem(net, domain, Objective::output(1));
  ClpLp lp;
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 30; ++trial) {
    const EvaluatedPoint sample = evaluate_point(problem, Eigen::VectorXd::NullaryExpr(5, [&] {
      return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    }));
    const ActivationPattern pattern = net.activation_pattern(sample.x);
    const LpSolution solution = lp.solve(pattern_lp(net, domain, problem.objective, pattern, &problem.interval));
    ASSERT_EQ(solution.status, LpStatus::kOptimal);
    EXPECT_GE(solution.objective, sample.value - 1e-9);
    const EvaluatedPoint optimum =
        evaluate_point(problem, Eigen::Map<const Eigen::VectorXd>(solution.values.data(), 5));
    EXPECT_NEAR(optimum.value, solution.objective, 1e-6 * std::max(1.0, std::abs(solution.objective)));
  }
}

}  // namespace
}  // namespace reluopt
