#include <gtest/gtest.h>

#include <atomic>

#include "algorithms/problem.h"
#include "algorithms/walk.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

SolveOptions walk(int iterations, int threads, std::uint64_t seed = 0) {
  SolveOptions options;
  options.method = Method::kWalk;
  options.walk.iterations = iterations;
  options.threads = threads;
  options.seed = seed;
  return options;
}

TEST(Walk, FindsTheTinyNetworkMaximumAndMinimum) {
  testing::expect_tiny_network_optima(walk(5, 1));
  testing::expect_tiny_network_optima(walk(5, 2));
  const SolveResult r = solve(testing::tiny_network(), Domain::unit_box(2), Objective::output(1), walk(5, 1));
  EXPECT_GE(r.walk.walks, 1);
}

TEST(Walk, SameSeedOnOneThreadGivesTheSameAnswer) {
  const Network net = testing::random_network(8, {20, 20}, 1, 3);
  const SolveResult a = solve(net, Domain::unit_box(8), Objective::output(1), walk(6, 1, 9));
  const SolveResult b = solve(net, Domain::unit_box(8), Objective::output(1), walk(6, 1, 9));
  EXPECT_EQ(a.objective, b.objective);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.walk.walks, b.walk.walks);
}

class WalkSmall : public testing::SmallProblemTest {};

// The walk is a heuristic: on these small problems its rounds reach the brute-force optimum.
TEST_P(WalkSmall, FindsTheBruteForceOptimumHonestly) {
  const SolveResult r = solve(net_, domain_, objective_, walk(30, 2, 1));
  testing::expect_honest(net_, domain_, objective_, r);
  const double best = testing::brute_force_max(net_, domain_, objective_);
  EXPECT_LE(objective_.sign() * r.objective, best + 1e-9 * std::max(1.0, std::abs(best)));
  EXPECT_NEAR(objective_.sign() * r.objective, best, 1e-6 * std::max(1.0, std::abs(best)));
}

INSTANTIATE_TEST_SUITE_P(Small, WalkSmall,
                         ::testing::Values(testing::SmallCase{2, {6}, 1, false, false, 1},
                                           testing::SmallCase{3, {5, 4}, 2, true, false, 2},
                                           testing::SmallCase{3, {4, 4}, 1, true, true, 3},
                                           testing::SmallCase{4, {8}, 2, false, true, 4}),
                         testing::small_case_name);

TEST(Walk, StaysInsideAPolytopeWithRows) {
  const Network net = testing::random_network(5, {16, 12}, 1, 21);
  const Domain domain = testing::random_polytope(5, 8, 6);
  const SolveResult r = solve(net, domain, Objective::output(1), walk(8, 2, 3));
  testing::expect_honest(net, domain, Objective::output(1), r);
}

TEST(Walk, EndsAtItsTimeLimitAndAtAStopRequest) {
  const Network net = testing::random_network(40, {300, 300}, 1, 5);
  RunControl control;
  control.time_limit = 0.5;
  const SolveResult r = solve(net, Domain::unit_box(40), Objective::output(1), walk(1000000, 2), control);
  EXPECT_EQ(r.stopped_by, StopReason::kTimeLimit);
  EXPECT_NE(r.status, SolveStatus::kNoSolution);
  std::atomic<bool> stop{true};
  RunControl stopped;
  stopped.stop = &stop;
  const SolveResult s = solve(net, Domain::unit_box(40), Objective::output(1), walk(1000000, 2), stopped);
  EXPECT_EQ(s.stopped_by, StopReason::kInterrupted);
  EXPECT_NE(s.status, SolveStatus::kNoSolution);
}

TEST(Walk, ADeadlinePastAtTheStartSolvesNoLpAndReturnsAnHonestPoint) {
  const Network net = testing::random_network(40, {300, 300}, 1, 5);
  const Problem problem = make_problem(net, Domain::unit_box(40), Objective::output(1));
  const Deadline past(0.0, nullptr);
  const SolveResult r = run_walk(problem, walk(1000000, 2), past, RunControl{});
  EXPECT_EQ(r.stopped_by, StopReason::kTimeLimit);
  EXPECT_EQ(r.run.lps, 0);
  testing::expect_honest(net, Domain::unit_box(40), Objective::output(1), r);
}

}  // namespace
}  // namespace reluopt
