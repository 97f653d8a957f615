// The MIP methods end to end through solve(): proven optima agree with brute-force enumeration, bounds are
// valid, warm starts are used, and outcomes are reported as data.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <ostream>
#include <string>

#include "algorithms/problem.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

SolveOptions mip_options(Method method, BoundMethod bounds, int partitions = 2) {
  SolveOptions options;
  options.method = method;
  options.threads = 1;
  options.mip.bounds.method = bounds;
  options.mip.partitions = partitions;
  return options;
}

struct MipCase {
  Method method;
  BoundMethod bounds;
  int partitions;
  bool polytope;
  std::uint64_t seed;
};

void PrintTo(const MipCase& c, std::ostream* os) {
  *os << method_name(c.method) << ", " << bound_method_name(c.bounds) << " bounds, N = " << c.partitions << ", "
      << (c.polytope ? "polytope" : "box") << ", seed " << c.seed;
}

// "mip_cuts_interval_N1_box_seed5"
std::string mip_case_name(const ::testing::TestParamInfo<MipCase>& info) {
  const MipCase& c = info.param;
  std::string method = method_name(c.method);
  std::replace(method.begin(), method.end(), '-', '_');
  return method + "_" + bound_method_name(c.bounds) + "_N" + std::to_string(c.partitions) +
         (c.polytope ? "_polytope" : "_box") + "_seed" + std::to_string(c.seed);
}

class MipAgainstBruteForce : public ::testing::TestWithParam<MipCase> {};

TEST_P(MipAgainstBruteForce, ProvesTheEnumeratedOptimum) {
  const MipCase& c = GetParam();
  const Network net = testing::random_network(3, {5, 5}, 2, c.seed);
  const Domain domain = c.polytope ? testing::random_polytope(3, 3, c.seed + 7) : Domain::unit_box(3);
  Objective objective;
  objective.weights = Eigen::Vector2d(1.0, -0.5);
  objective.sense = c.seed % 2 ? Sense::kMaximize : Sense::kMinimize;
  const double exact = objective.sign() * testing::brute_force_max(net, domain, objective);

  RunControl control;
  control.time_limit = 60.0;
  const SolveResult r = solve(net, domain, objective, mip_options(c.method, c.bounds, c.partitions), control);
  ASSERT_EQ(r.status, SolveStatus::kOptimal);
  const double tolerance = 1e-6 * std::max(1.0, std::abs(exact));
  EXPECT_NEAR(r.objective, exact, tolerance);
  ASSERT_TRUE(r.bound.has_value());
  EXPECT_NEAR(*r.bound, exact, tolerance);
  // The bound is valid in the user's sense: above every feasible value for max, below for min.
  EXPECT_GE(objective.sign() * *r.bound, objective.sign() * exact - 1e-9);
  EXPECT_DOUBLE_EQ(r.objective, objective.value(net.forward(r.x)));
  EXPECT_LE(domain.max_violation(r.x), 1e-12);
  ASSERT_TRUE(r.gap.has_value());
  EXPECT_LE(*r.gap, kOptimalRelativeGap);
}

INSTANTIATE_TEST_SUITE_P(
    Methods, MipAgainstBruteForce,
    ::testing::Values(MipCase{Method::kMip, BoundMethod::kInterval, 1, false, 1},
                      MipCase{Method::kMip, BoundMethod::kLp, 1, true, 2},
                      MipCase{Method::kMip, BoundMethod::kProgressive, 1, false, 3},
                      MipCase{Method::kMipCuts, BoundMethod::kProgressive, 1, true, 4},
                      MipCase{Method::kMipCuts, BoundMethod::kInterval, 1, false, 5},
                      MipCase{Method::kPartition, BoundMethod::kProgressive, 2, false, 6},
                      MipCase{Method::kPartition, BoundMethod::kInterval, 4, true, 7},
                      MipCase{Method::kPartition, BoundMethod::kLp, 1, false, 8}),
    mip_case_name);

// CBC 2.10.8 aborts (CbcRowCuts::eraseRowCut: assertion `found >= 0') when a cut generator runs inside a
// multi-threaded tree. Anderson cuts every K nodes with 2 threads must still end with the proven optimum.
TEST(Mip, CutsInsideTheTreeWithTwoThreadsDoNotCrash) {
  const Network net = testing::random_network(5, {50, 50}, 1, 1);
  const Domain domain = Domain::unit_box(5);
  const Objective objective = Objective::output(1);
  SolveOptions options = mip_options(Method::kMipCuts, BoundMethod::kProgressive);
  options.threads = 2;
  for (int frequency : {1, 10}) {
    options.mip.cut_frequency = frequency;
    RunControl control;
    control.time_limit = 60.0;
    const SolveResult r = solve(net, domain, objective, options, control);
    ASSERT_EQ(r.status, SolveStatus::kOptimal) << "every " << frequency << " nodes";
    EXPECT_DOUBLE_EQ(r.objective, objective.value(net.forward(r.x)));
  }
}

TEST(Mip, WarmStartIsUsedAndNeverWorsensTheAnswer) {
  const Network net = testing::random_network(6, {12, 12}, 1, 21);
  SolveOptions options = mip_options(Method::kMip, BoundMethod::kProgressive);
  options.mip.warm_start = true;
  options.mip.warm_start_samples = 200;
  options.seed = 4;
  RunControl control;
  control.time_limit = 60.0;
  const SolveResult warm = solve(net, Domain::unit_box(6), Objective::output(1), options, control);
  SolveOptions sampling_only;
  sampling_only.sampling.samples = 200;
  sampling_only.threads = options.threads;
  sampling_only.seed = 4;
  const SolveResult sampled = solve(net, Domain::unit_box(6), Objective::output(1), sampling_only);
  EXPECT_TRUE(warm.mip.warm_started);
  EXPECT_EQ(warm.sampling.samples, 200);
  EXPECT_GE(warm.objective, sampled.objective - 1e-12);
  ASSERT_TRUE(warm.bound.has_value());
  EXPECT_GE(*warm.bound, warm.objective);
}

// Regression: CBC in the maximization sense ended at the root with a bound below a feasible point whenever
// the MIP start had a negative value.
TEST(Mip, NegativeWarmStartStillProvesTheOptimum) {
  const Network net = testing::random_network(3, {8, 6}, 1, 17);
  Objective objective = Objective::output(1);
  objective.constant = -10.0;  // every value is negative
  const double exact = testing::brute_force_max(net, Domain::unit_box(3), objective);
  ASSERT_LT(exact, 0.0);
  for (Method method : {Method::kMip, Method::kMipCuts, Method::kPartition}) {
    SolveOptions options = mip_options(method, BoundMethod::kInterval);
    options.mip.warm_start = true;
    options.mip.warm_start_samples = 3;
    RunControl control;
    control.time_limit = 60.0;
    const SolveResult r = solve(net, Domain::unit_box(3), objective, options, control);
    ASSERT_EQ(r.status, SolveStatus::kOptimal) << method_name(method);
    EXPECT_NEAR(r.objective, exact, 1e-6 * std::abs(exact)) << method_name(method);
    EXPECT_GE(*r.bound, exact - 1e-9) << method_name(method);
  }
}

// A stop before the start skips CBC, but the forward passes at a few points of P still give a point.
// Stopped before CBC starts, a MIP method still has a forward-pass point, and its bound is the one the neuron
// bounds give (interval arithmetic on the last hidden layer), which holds for every point of P.
TEST(Mip, StopBeforeStartGivesAForwardPassPointAndTheNeuronBoundsBound) {
  const Network net = testing::random_network(4, {8}, 1, 3);
  std::atomic<bool> stop{true};
  RunControl control;
  control.stop = &stop;
  const Objective objective = Objective::output(1);
  const SolveResult r = solve(net, Domain::unit_box(4), objective,
                              mip_options(Method::kMip, BoundMethod::kInterval), control);
  const double exact = testing::brute_force_max(net, Domain::unit_box(4), objective);
  EXPECT_DOUBLE_EQ(r.objective, net.forward(r.x)[0]);
  ASSERT_TRUE(r.bound.has_value());
  EXPECT_GE(*r.bound, exact);
  // The interval bound can be exact (here it is met at a vertex of the box): then the point is a proven optimum.
  if (r.status == SolveStatus::kOptimal) {
    EXPECT_NEAR(r.objective, exact, 1e-9 * std::max(1.0, std::abs(exact)));
  } else {
    EXPECT_EQ(r.status, SolveStatus::kFeasible);
  }
  EXPECT_EQ(r.stopped_by, StopReason::kInterrupted);
}

// Issue 11, item 5: without a start or a warm start, CBC gets the best forward pass at the interior point and
// at sampled points of P as its MIP start, so a MIP method never ends without a point on a non-empty P. A
// deadline that has already passed keeps CBC from running at all (it would find no point by itself), which
// makes the test independent of the machine's speed.
struct ForwardPassCase {
  Method method;
  bool polytope;
};

void PrintTo(const ForwardPassCase& c, std::ostream* os) {
  *os << method_name(c.method) << ", " << (c.polytope ? "polytope" : "box");
}

std::string forward_pass_case_name(const ::testing::TestParamInfo<ForwardPassCase>& info) {
  std::string method = method_name(info.param.method);
  std::replace(method.begin(), method.end(), '-', '_');
  return method + (info.param.polytope ? "_polytope" : "_box");
}

class MipWithoutStart : public ::testing::TestWithParam<ForwardPassCase> {
 protected:
  // A 4 -> 5x30 -> 1 network, run with no time at all.
  SolveResult run(std::uint64_t seed) const {
    SolveOptions options = mip_options(GetParam().method, BoundMethod::kInterval);
    options.seed = seed;
    RunControl control;
    control.time_limit = 0.0;
    return solve(net_, domain_, objective_, options, control);
  }

  const Network net_ = testing::random_network(4, {30, 30, 30, 30, 30}, 1, 11);
  const Domain domain_ = GetParam().polytope ? testing::random_polytope(4, 3, 12) : Domain::unit_box(4);
  const Objective objective_ = Objective::output(1);
};

TEST_P(MipWithoutStart, EndsWithAForwardPassPoint) {
  const SolveResult r = run(5);
  ASSERT_NE(r.status, SolveStatus::kNoSolution);
  EXPECT_EQ(r.stopped_by, StopReason::kTimeLimit);
  EXPECT_FALSE(r.mip.warm_started);  // warm_started means a given start or the paper's warm start only
  EXPECT_DOUBLE_EQ(r.objective, objective_.value(net_.forward(r.x)));
  EXPECT_LE(domain_.max_violation(r.x), 1e-12);
  // At least as good as the interior point, and recorded in the anytime profile.
  const Eigen::VectorXd centre = make_problem(net_, domain_, objective_).interior_point;
  EXPECT_GE(r.objective, objective_.value(net_.forward(centre)));
  ASSERT_FALSE(r.trajectory.empty());
  EXPECT_DOUBLE_EQ(r.trajectory.back().second, r.objective);
  EXPECT_GE(r.trajectory.back().first, 0.0);
}

// With no time left the formulation is not built, so CBC does not run: the run ends with its point and the
// neuron bounds' bound, at its time limit (a large network, whose formulation takes seconds, ends the same way).
TEST_P(MipWithoutStart, BuildsNoFormulationItHasNoTimeFor) {
  const SolveResult r = run(5);
  ASSERT_NE(r.status, SolveStatus::kNoSolution);
  EXPECT_EQ(r.stopped_by, StopReason::kTimeLimit);
  EXPECT_EQ(r.mip.binaries, 0);
  EXPECT_EQ(r.mip.partitions, 0);
  EXPECT_EQ(r.run.nodes, 0);
  ASSERT_TRUE(r.bound.has_value());
  EXPECT_GE(*r.bound, r.objective);
}

TEST_P(MipWithoutStart, SameSeedGivesTheSamePoint) {
  const SolveResult first = run(9);
  const SolveResult second = run(9);
  ASSERT_NE(first.status, SolveStatus::kNoSolution);
  ASSERT_NE(second.status, SolveStatus::kNoSolution);
  EXPECT_EQ(first.x, second.x);
  EXPECT_EQ(first.objective, second.objective);
}

INSTANTIATE_TEST_SUITE_P(Methods, MipWithoutStart,
                         ::testing::Values(ForwardPassCase{Method::kMip, false}, ForwardPassCase{Method::kMip, true},
                                           ForwardPassCase{Method::kMipCuts, false},
                                           ForwardPassCase{Method::kMipCuts, true},
                                           ForwardPassCase{Method::kPartition, false},
                                           ForwardPassCase{Method::kPartition, true}),
                         forward_pass_case_name);

TEST(Mip, ShortTimeLimitStillGivesAValidBoundAndAWarmStartedPoint) {
  const Network net = testing::random_network(30, {60, 60}, 1, 8);
  SolveOptions options = mip_options(Method::kMip, BoundMethod::kInterval);
  options.mip.warm_start = true;
  options.mip.warm_start_samples = 50;
  RunControl control;
  control.time_limit = 2.0;
  const SolveResult r = solve(net, Domain::unit_box(30), Objective::output(1), options, control);
  ASSERT_NE(r.status, SolveStatus::kNoSolution);
  if (r.bound) {
    EXPECT_GE(*r.bound, r.objective);
  }
  EXPECT_DOUBLE_EQ(r.objective, net.forward(r.x)[0]);
}

}  // namespace
}  // namespace reluopt
