#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <random>
#include <thread>

#include "algorithms/gradient.h"
#include "core/domain_sampler.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

SolveOptions gradient(long samples, int threads, std::uint64_t seed = 0) {
  SolveOptions options;
  options.method = Method::kGradient;
  options.sampling.samples = samples;
  options.threads = threads;
  options.seed = seed;
  return options;
}

TEST(Projector, ClampsToABox) {
  const Domain box = Domain::box(Eigen::Vector2d(0.0, -1.0), Eigen::Vector2d(1.0, 1.0));
  const Eigen::VectorXd p = Projector(box).project(Eigen::Vector2d(2.0, -3.0));
  EXPECT_EQ(p, Eigen::Vector2d(1.0, -1.0));
}

// [0,1]^2 cut by x1 + x2 <= 1: (1, 1) projects to (0.5, 0.5); (2, -1) to the corner (1, 0); (0.9, 0.9) to
// (0.5, 0.5); (-1, 0.5) to (0, 0.5).
TEST(Projector, ProjectsOntoABoxCutByAHalfSpace) {
  Domain domain = Domain::unit_box(2);
  domain.A = Eigen::MatrixXd{{1.0, 1.0}};
  domain.b = Eigen::VectorXd{{1.0}};
  const Projector projector(domain);
  const std::vector<std::pair<Eigen::Vector2d, Eigen::Vector2d>> cases = {
      {{1.0, 1.0}, {0.5, 0.5}}, {{2.0, -1.0}, {1.0, 0.0}}, {{0.9, 0.9}, {0.5, 0.5}}, {{-1.0, 0.5}, {0.0, 0.5}}};
  for (const auto& [y, expected] : cases) EXPECT_LT((projector.project(y) - expected).norm(), 1e-8) << y.transpose();
}

// The projection p of y onto a convex P satisfies (y - p)^T (z - p) <= 0 for every z in P; checked against
// points sampled from a random polytope.
TEST(Projector, SatisfiesTheVariationalInequalityOnARandomPolytope) {
  const Domain domain = testing::random_polytope(4, 6, 11);
  const Projector projector(domain, 1000, 1e-14);
  const Eigen::VectorXd centre = Eigen::VectorXd::Constant(4, 0.5);
  DomainSampler sampler(domain, centre, 3);
  std::vector<Eigen::VectorXd> inside;
  for (int i = 0; i < 200; ++i) inside.push_back(sampler.next());
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> wide(-1.0, 2.0);
  for (int trial = 0; trial < 30; ++trial) {
    const Eigen::VectorXd y = Eigen::VectorXd::NullaryExpr(4, [&] { return wide(rng); });
    const Eigen::VectorXd p = projector.project(y);
    EXPECT_LE(domain.max_violation(p), 1e-8);
    for (const Eigen::VectorXd& z : inside) EXPECT_LE((y - p).dot(z - p), 1e-7);
  }
}

TEST(RegionGradient, MatchesFiniteDifferencesInsideARegion) {
  const Network net = testing::random_network(5, {12, 9}, 2, 7);
  Objective objective;
  objective.weights = Eigen::Vector2d(1.0, -0.5);
  objective.sense = Sense::kMinimize;
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::VectorXd x = Eigen::VectorXd::NullaryExpr(5, [&] { return unit(rng); });
    const RegionGradient rg = region_gradient(net, objective, x);
    EXPECT_NEAR(rg.value, -objective.value(net.forward(x)), 1e-12);
    for (int i = 0; i < 5; ++i) {
      const double h = 1e-7;
      Eigen::VectorXd step = x;
      step[i] += h;
      if (!(net.activation_pattern(step) == net.activation_pattern(x))) continue;
      EXPECT_NEAR((-objective.value(net.forward(step)) - rg.value) / h, rg.gradient[i], 1e-5);
    }
  }
}

TEST(RegionGradient, StopsBeforeALayerOnceTheDeadlinePassesOrAStopIsRequested) {
  const Network net = testing::random_network(4, {6, 5}, 1, 3);
  Objective objective;
  objective.weights = Eigen::VectorXd::Ones(1);
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(4, 0.5);
  const Deadline past(0.0, nullptr);
  EXPECT_FALSE(region_gradient(net, objective, x, &past).complete);
  std::atomic<bool> stop{true};
  const Deadline stopped(std::numeric_limits<double>::infinity(), &stop);
  EXPECT_FALSE(region_gradient(net, objective, x, &stopped).complete);
  const Deadline open;
  const RegionGradient within = region_gradient(net, objective, x, &open);
  const RegionGradient unlimited = region_gradient(net, objective, x);
  ASSERT_TRUE(within.complete);
  EXPECT_EQ(within.value, unlimited.value);
  EXPECT_EQ(within.gradient, unlimited.gradient);
}

TEST(Gradient, FindsTheTinyNetworkMaximumAndMinimum) {
  testing::expect_tiny_network_optima(gradient(10, 1));
  testing::expect_tiny_network_optima(gradient(10, 2));
  const SolveResult r = solve(testing::tiny_network(), Domain::unit_box(2), Objective::output(1), gradient(10, 1));
  EXPECT_GT(r.gradient.steps, 0);
}

TEST(Gradient, SameSeedAndThreadsGiveTheSameAnswer) {
  const Network net = testing::random_network(8, {20, 20}, 1, 3);
  for (int threads : {1, 2}) {
    const SolveResult a = solve(net, Domain::unit_box(8), Objective::output(1), gradient(40, threads, 9));
    const SolveResult b = solve(net, Domain::unit_box(8), Objective::output(1), gradient(40, threads, 9));
    EXPECT_EQ(a.objective, b.objective);
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.gradient.steps, b.gradient.steps);
    EXPECT_EQ(a.gradient.perturbations, b.gradient.perturbations);
  }
}

TEST(Gradient, ReachesAtLeastTheSamplingValueFromTheSameSamples) {
  const Network net = testing::random_network(6, {30, 30}, 1, 12);
  SolveOptions plain = gradient(30, 1, 4);
  plain.method = Method::kSampling;
  const SolveResult s = solve(net, Domain::unit_box(6), Objective::output(1), plain);
  const SolveResult g = solve(net, Domain::unit_box(6), Objective::output(1), gradient(30, 1, 4));
  testing::expect_honest(net, Domain::unit_box(6), Objective::output(1), g);
  EXPECT_GE(g.objective, s.objective - 1e-6 * std::abs(s.objective));
}

class GradientSmall : public testing::SmallProblemTest {};

TEST_P(GradientSmall, FindsTheBruteForceOptimumHonestly) {
  SolveOptions options = gradient(300, 2, 1);
  const SolveResult r = solve(net_, domain_, objective_, options);
  testing::expect_honest(net_, domain_, objective_, r);
  const double best = testing::brute_force_max(net_, domain_, objective_);
  EXPECT_NEAR(objective_.sign() * r.objective, best, 1e-6 * std::max(1.0, std::abs(best)));
}

INSTANTIATE_TEST_SUITE_P(Small, GradientSmall,
                         ::testing::Values(testing::SmallCase{2, {6}, 1, false, false, 1},
                                           testing::SmallCase{3, {5, 4}, 2, true, false, 2},
                                           testing::SmallCase{3, {4, 4}, 1, true, true, 3},
                                           testing::SmallCase{4, {8}, 2, false, true, 4}),
                         testing::small_case_name);

TEST(Gradient, StaysInsideAPolytopeWithRows) {
  const Network net = testing::random_network(5, {16, 12}, 1, 21);
  const Domain domain = testing::random_polytope(5, 8, 6);
  const SolveResult r = solve(net, domain, Objective::output(1), gradient(50, 2, 3));
  testing::expect_honest(net, domain, Objective::output(1), r);
  EXPECT_GT(r.gradient.steps, 0);
}

TEST(Gradient, EndsAtItsTimeLimitAndAtAStopRequest) {
  const Network net = testing::random_network(30, {200, 200}, 1, 5);
  RunControl control;
  control.time_limit = 0.3;
  SolveOptions options = gradient(1000000, 2);
  const SolveResult r = solve(net, Domain::unit_box(30), Objective::output(1), options, control);
  EXPECT_EQ(r.stopped_by, StopReason::kTimeLimit);
  EXPECT_NE(r.status, SolveStatus::kNoSolution);
  std::atomic<bool> stop{true};
  RunControl stopped;
  stopped.stop = &stop;
  const SolveResult s = solve(net, Domain::unit_box(30), Objective::output(1), options, stopped);
  EXPECT_EQ(s.stopped_by, StopReason::kInterrupted);
}

}  // namespace
}  // namespace reluopt
