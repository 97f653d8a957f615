// The branch-and-bound prover (src/algorithms/bab.cc) against exhaustive enumeration of activation patterns:
// it proves the exact optimum, and whenever it stops early (node limits, an expired deadline) its bound is still
// on the right side of the optimum and its point below it; max and min, box and polytope, 1-4 hidden layers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
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
    EXPECT_LE(r.run.nodes, limit);
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

// bab on the network over the box at each node limit (0: none), with `configure` applied to the options: the bound
// is never below the enumerated optimum, the point never above it, and the complete search proves it.
void expect_bounds_hold(const Network& net, const Domain& box, const Objective& objective,
                        const std::vector<long>& limits, const std::function<void(SolveOptions&)>& configure,
                        const std::string& what) {
  const double exact = testing::brute_force_max(net, box, objective);
  const double scale = std::max(1.0, std::abs(exact));
  for (long limit : limits) {
    SolveOptions o;
    o.method = Method::kBab;
    o.threads = 1;
    o.bab.node_limit = limit;
    configure(o);
    const SolveResult r = solve(net, box, objective, o);
    ASSERT_TRUE(r.bound.has_value());
    EXPECT_GE(objective.sign() * *r.bound, exact - 1e-12 * scale) << what << " limit " << limit;
    EXPECT_LE(objective.sign() * r.objective, exact + 1e-7 * scale) << what;
    if (limit == 0) {
      EXPECT_EQ(r.status, SolveStatus::kOptimal) << what;
      EXPECT_NEAR(objective.sign() * r.objective, exact, 1e-6 * scale) << what;
    }
  }
}

Objective output_one(int trial, int minimize_every) {
  Objective objective = Objective::output(1);
  if (trial % minimize_every == 1) objective.sense = Sense::kMinimize;
  return objective;
}

// Many random one-hidden-layer networks (the ReLU-split search with first-layer LP bounds and Anderson cuts)
// over random boxes, maximized and minimized.
TEST(BabRandomized, OneHiddenLayerBoundsHoldAtEveryNodeLimit) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 12; ++trial) {
    const int d = 2 + static_cast<int>(rng() % 4), width = 4 + static_cast<int>(rng() % 6);
    const Network net = testing::random_network(d, {width}, 1, 500 + trial);
    const Domain box = random_box(rng, d);
    expect_bounds_hold(net, box, output_one(trial, 2), {3, 20, 0}, [](SolveOptions&) {},
                       "trial " + std::to_string(trial));
  }
}

// Random two-hidden-layer networks split on inputs while any neuron is unstable (relu_split_below 0), so that
// the search runs long on input splits, propagating each half as it is made, and rests strong branching where it
// gains little.
TEST(BabRandomized, InputSplitBoundsHoldAtEveryNodeLimit) {
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 8; ++trial) {
    const int d = 2 + static_cast<int>(rng() % 3);
    const Network net = testing::random_network(d, {6, 6}, 1, 700 + trial);
    const Domain box = random_box(rng, d);
    expect_bounds_hold(net, box, output_one(trial, 2), {2, 7, 30, 200, 0},
                       [](SolveOptions& o) { o.bab.relu_split_below = 0; }, "trial " + std::to_string(trial));
  }
}

// Nodes with more than 16 free neurons bounded by optimized slopes and split multipliers (ReLU splits only): at
// every node limit the bound holds against the optimum the LP-only search proves, and the complete search proves
// the same optimum.
TEST(BabRandomized, OptimizedNodeBoundsHoldAtEveryNodeLimit) {
  std::mt19937_64 rng(41);
  for (int trial = 0; trial < 4; ++trial) {
    const int d = 2 + static_cast<int>(rng() % 3);
    // Two layers of 20, or three of 12 (the optimized root bounds and the nodes bounded as they are made go
    // through more layers).
    const Network net = testing::random_network(d, trial % 2 ? std::vector<int>{12, 12, 12} : std::vector<int>{20, 20},
                                                1, 1100 + trial);
    const Domain box = Domain::unit_box(d);
    const Objective objective = output_one(trial, 2);
    SolveOptions o;
    o.method = Method::kBab;
    o.threads = 1;
    o.bab.input_split_dims = 0;
    o.bab.slope_steps = 0;
    const SolveResult reference = solve(net, box, objective, o);
    ASSERT_EQ(reference.status, SolveStatus::kOptimal) << "trial " << trial;
    const double exact = objective.sign() * reference.objective, scale = std::max(1.0, std::abs(exact));
    o.bab.slope_steps = 20;
    for (long limit : {3L, 20L, 0L}) {
      o.bab.node_limit = limit;
      const SolveResult r = solve(net, box, objective, o);
      ASSERT_TRUE(r.bound.has_value());
      EXPECT_GE(objective.sign() * *r.bound, exact - 1e-6 * scale) << "trial " << trial << " limit " << limit;
      EXPECT_LE(objective.sign() * r.objective, exact + 1e-6 * scale) << "trial " << trial;
      if (limit == 0) {
        EXPECT_EQ(r.status, SolveStatus::kOptimal) << "trial " << trial;
      }
    }
  }
}

// The memory cap: with room for a handful of open nodes, two of them carrying their parents' work, the frontier
// strips the others to their bound, box and splits (bounded again when popped) and every worker dives depth first
// almost from the start; the bound still holds at every node limit and the complete search proves the same
// optimum.
TEST(BabRandomized, DepthFirstDivesUnderAMemoryCapKeepTheBoundValid) {
  std::mt19937_64 rng(31);
  for (int trial = 0; trial < 6; ++trial) {
    const int d = 2 + static_cast<int>(rng() % 3);
    const Network net = testing::random_network(d, trial % 2 ? std::vector<int>{6, 6} : std::vector<int>{8}, 1,
                                                900 + trial);
    const Domain box = random_box(rng, d);
    expect_bounds_hold(net, box, output_one(trial, 3), {5, 40, 0},
                       [trial](SolveOptions& o) {
                         o.threads = 2;
                         o.bab.relu_split_below = trial % 2 ? 0 : 16;
                         o.bab.memory_mb = 0.003;  // a few open nodes
                       },
                       "trial " + std::to_string(trial));
  }
}

// The cases with several outputs minimize.
INSTANTIATE_TEST_SUITE_P(
    SmallNetworks, Bab,
    ::testing::ValuesIn(testing::sanitizer_share<SmallCase>(
        {SmallCase{2, {6}, 1, false, false, 1}, SmallCase{3, {10}, 1, false, false, 2},
         SmallCase{4, {12}, 1, true, false, 3}, SmallCase{2, {5, 5}, 1, false, false, 4},
         SmallCase{3, {6, 6}, 1, true, false, 5}, SmallCase{4, {6, 5}, 2, false, true, 6},
         SmallCase{3, {4, 4, 4}, 1, false, false, 7}, SmallCase{2, {4, 4, 3}, 1, true, false, 8},
         SmallCase{5, {4, 4, 4}, 3, true, true, 9}, SmallCase{3, {3, 3, 3, 3}, 2, false, true, 10},
         SmallCase{4, {3, 3, 3, 3}, 1, true, false, 11}})),
    testing::small_case_name);

}  // namespace
}  // namespace reluopt
