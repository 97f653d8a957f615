// The branch-and-bound prover (src/algorithms/bab.cc) against exhaustive enumeration of activation patterns:
// it proves the exact optimum, and whenever it stops early (node limits, an expired deadline) its bound is still
// on the right side of the optimum and its point below it; max and min, box and polytope, 1-4 hidden layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::SmallCase;

class Bab : public testing::SmallProblemTest {
 protected:
  SolveOptions options(int input_split_dims) const {
    SolveOptions o;
    o.method = Method::kBab;
    o.threads = 2;
    o.seed = GetParam().seed;
    o.bab.input_split_dims = input_split_dims;
    return o;
  }

  // The result's value and bound in the maximized sense, checked against the exact maximum.
  void expect_valid(const SolveResult& r, double exact) const {
    ASSERT_NE(r.status, SolveStatus::kNoSolution);
    const double sign = objective_.sign(), tolerance = 1e-7 * std::max(1.0, std::abs(exact));
    EXPECT_LE(sign * r.objective, exact + tolerance) << "a point above the true maximum";
    EXPECT_NEAR(sign * r.objective, forward_value(r.x), 1e-9 * std::max(1.0, std::abs(exact)));
    EXPECT_LE(domain_.max_violation(r.x), 1e-9);
    ASSERT_TRUE(r.bound.has_value());
    EXPECT_GE(sign * *r.bound, exact - 1e-12 * std::max(1.0, std::abs(exact))) << "a bound below the optimum";
  }
};

TEST_P(Bab, ProvesTheEnumeratedOptimum) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  for (int dims : {0, 10}) {  // ReLU splits only; input splits first
    const SolveResult r = solve(net_, domain_, objective_, options(dims));
    expect_valid(r, exact);
    EXPECT_EQ(r.status, SolveStatus::kOptimal) << "input_split_dims " << dims;
    EXPECT_EQ(r.stopped_by, StopReason::kCompleted);
    EXPECT_NEAR(objective_.sign() * r.objective, exact, 1e-6 * std::max(1.0, std::abs(exact)));
  }
}

TEST_P(Bab, EveryNodeLimitLeavesAValidBound) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  for (long limit : {1L, 2L, 3L, 5L, 10L, 40L}) {
    SolveOptions o = options(10);
    o.threads = 1;
    o.bab.node_limit = limit;
    const SolveResult r = solve(net_, domain_, objective_, o);
    expect_valid(r, exact);
    EXPECT_LE(r.nodes, limit);
  }
}

TEST_P(Bab, AnExpiredDeadlineLeavesAPointAndAValidBound) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  RunControl control;
  control.time_limit = 0.0;
  const SolveResult r = solve(net_, domain_, objective_, options(10), control);
  expect_valid(r, exact);
  EXPECT_EQ(r.stopped_by, StopReason::kTimeLimit);
}

// With a time limit the enhanced algorithm ends with the prover, which closes the gap on these networks long
// before the limit: the run ends on the proof, so the outcome does not depend on the machine's speed.
TEST_P(Bab, TimedEnhancedRunEndsProvenOptimal) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  SolveOptions o;
  o.threads = 2;
  o.seed = GetParam().seed;
  o.sampling.samples = 50;
  RunControl control;
  control.time_limit = 600.0;
  const SolveResult r = solve(net_, domain_, objective_, o, control);
  expect_valid(r, exact);
  EXPECT_EQ(r.status, SolveStatus::kOptimal);
  EXPECT_EQ(r.stopped_by, StopReason::kCompleted);
  EXPECT_FALSE(r.bound_trajectory.empty());
}

// A box of [-2, 2]^d with random corners, at least 1e-3 wide.
Domain random_box(std::mt19937_64& rng, int d) {
  std::uniform_real_distribution<double> uniform(-2.0, 2.0);
  Eigen::VectorXd lo(d), hi(d);
  for (int i = 0; i < d; ++i) {
    const double a = uniform(rng), b = uniform(rng);
    lo[i] = std::min(a, b);
    hi[i] = std::max(a, b) + 1e-3;
  }
  return Domain::box(lo, hi);
}

// Many random one-hidden-layer networks (the ReLU-split search with first-layer LP bounds and Anderson cuts)
// over random boxes, maximized and minimized: the bound is never below the enumerated optimum, whatever the
// node limit, and the complete search proves it.
TEST(BabRandomized, OneHiddenLayerBoundsHoldAtEveryNodeLimit) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 12; ++trial) {
    const int d = 2 + static_cast<int>(rng() % 4), width = 4 + static_cast<int>(rng() % 6);
    const Network net = testing::random_network(d, {width}, 1, 500 + trial);
    const Domain box = random_box(rng, d);
    Objective objective = Objective::output(1);
    if (trial % 2) objective.sense = Sense::kMinimize;
    const double exact = testing::brute_force_max(net, box, objective);
    for (long limit : {3L, 20L, 0L}) {
      SolveOptions o;
      o.method = Method::kBab;
      o.threads = 1;
      o.bab.node_limit = limit;
      const SolveResult r = solve(net, box, objective, o);
      ASSERT_TRUE(r.bound.has_value());
      const double scale = std::max(1.0, std::abs(exact));
      EXPECT_GE(objective.sign() * *r.bound, exact - 1e-12 * scale) << "trial " << trial << " limit " << limit;
      EXPECT_LE(objective.sign() * r.objective, exact + 1e-7 * scale) << "trial " << trial;
      if (limit == 0) {
        EXPECT_EQ(r.status, SolveStatus::kOptimal) << "trial " << trial;
      }
    }
  }
}

// Random two-hidden-layer networks split on inputs while any neuron is unstable (relu_split_below 0), so that
// the search runs long on input splits and rests strong branching where it gains little (the halves keep their
// parent's bound until popped): the bound holds at every node limit and the complete search proves the optimum.
TEST(BabRandomized, InputSplitBoundsHoldAtEveryNodeLimit) {
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 8; ++trial) {
    const int d = 2 + static_cast<int>(rng() % 3);
    const Network net = testing::random_network(d, {6, 6}, 1, 700 + trial);
    const Domain box = random_box(rng, d);
    Objective objective = Objective::output(1);
    if (trial % 2) objective.sense = Sense::kMinimize;
    const double exact = testing::brute_force_max(net, box, objective);
    for (long limit : {2L, 7L, 30L, 200L, 0L}) {
      SolveOptions o;
      o.method = Method::kBab;
      o.threads = 1;
      o.bab.node_limit = limit;
      o.bab.relu_split_below = 0;
      const SolveResult r = solve(net, box, objective, o);
      ASSERT_TRUE(r.bound.has_value());
      const double scale = std::max(1.0, std::abs(exact));
      EXPECT_GE(objective.sign() * *r.bound, exact - 1e-12 * scale) << "trial " << trial << " limit " << limit;
      EXPECT_LE(objective.sign() * r.objective, exact + 1e-7 * scale) << "trial " << trial;
      if (limit == 0) {
        EXPECT_EQ(r.status, SolveStatus::kOptimal) << "trial " << trial;
      }
    }
  }
}

// The cases with several outputs minimize.
INSTANTIATE_TEST_SUITE_P(
    SmallNetworks, Bab,
    ::testing::Values(SmallCase{2, {6}, 1, false, false, 1}, SmallCase{3, {10}, 1, false, false, 2},
                      SmallCase{4, {12}, 1, true, false, 3}, SmallCase{2, {5, 5}, 1, false, false, 4},
                      SmallCase{3, {6, 6}, 1, true, false, 5}, SmallCase{4, {6, 5}, 2, false, true, 6},
                      SmallCase{3, {4, 4, 4}, 1, false, false, 7}, SmallCase{2, {4, 4, 3}, 1, true, false, 8},
                      SmallCase{5, {4, 4, 4}, 3, true, true, 9}, SmallCase{3, {3, 3, 3, 3}, 2, false, true, 10},
                      SmallCase{4, {3, 3, 3, 3}, 1, true, false, 11}),
    testing::small_case_name);

}  // namespace
}  // namespace reluopt
