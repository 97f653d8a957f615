// The default method (docs/MATH.md §16): Algorithm 2 whose samples first climb by the gradient ascent, with the
// prover at the end of a timed run.
#include <gtest/gtest.h>

#include <cmath>

#include "algorithms/incumbent.h"
#include "algorithms/portfolio.h"

#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

SolveOptions portfolio(long samples, int threads, std::uint64_t seed = 0) {
  SolveOptions options;
  options.sampling.samples = samples;
  options.threads = threads;
  options.seed = seed;
  return options;
}

TEST(Portfolio, IsTheDefaultAndAscendsEverySample) {
  const SolveOptions defaults;
  EXPECT_EQ(defaults.method, Method::kEnhanced);
  EXPECT_GT(defaults.gradient.ascent_steps, 0);
  const Network net = testing::random_network(6, {20, 20}, 1, 8);
  const SolveResult r = solve(net, Domain::unit_box(6), Objective::output(1), portfolio(30, 1, 2));
  EXPECT_EQ(r.method, "enhanced");
  EXPECT_GT(r.gradient.steps, 0);
  EXPECT_GT(r.enhanced.local_searches, 0);
  testing::expect_honest(net, Domain::unit_box(6), Objective::output(1), r);
}

TEST(Portfolio, WithoutStepsIsThePapersAlgorithm2) {
  SolveOptions options = portfolio(30, 1, 2);
  options.gradient.ascent_steps = 0;
  const Network net = testing::random_network(6, {20, 20}, 1, 8);
  const SolveResult r = solve(net, Domain::unit_box(6), Objective::output(1), options);
  EXPECT_EQ(r.gradient.steps, 0);
  EXPECT_GT(r.enhanced.local_searches, 0);
}

// The stopping rule fits the tail of the uniform samples' region values, so under it the samples do not climb.
TEST(Portfolio, StopRuleRunsWithoutTheAscent) {
  SolveOptions options = portfolio(400, 1, 2);
  options.sampling.stop_rule = StopRuleOptions{0.01, 0.05};
  const Network net = testing::random_network(3, {10, 10}, 1, 8);
  const SolveResult r = solve(net, Domain::unit_box(3), Objective::output(1), options);
  EXPECT_EQ(r.gradient.steps, 0);
  EXPECT_TRUE(r.stop_rule.has_value());
}

TEST(Portfolio, FindsTheTinyNetworkMaximumAndMinimum) {
  testing::expect_tiny_network_optima(portfolio(10, 1));
  testing::expect_tiny_network_optima(portfolio(10, 2));
}

// One incumbent: on one thread the default solves every region the gradient method solves from the same
// samples, and keeps the best point of both the ascents and the local searches.
TEST(Portfolio, SharesOneIncumbentWithTheGradientAscent) {
  for (std::uint64_t seed : {1, 2, 3}) {
    const Network net = testing::random_network(8, {30, 30}, 1, 40 + seed);
    const Domain domain = seed == 2 ? testing::random_polytope(8, 6, seed) : Domain::unit_box(8);
    SolveOptions alone = portfolio(25, 1, seed);
    alone.method = Method::kGradient;
    const SolveResult g = solve(net, domain, Objective::output(1), alone);
    const SolveResult p = solve(net, domain, Objective::output(1), portfolio(25, 1, seed));
    testing::expect_honest(net, domain, Objective::output(1), p);
    EXPECT_GE(p.objective, g.objective - 1e-9 * std::max(1.0, std::abs(g.objective))) << seed;
    EXPECT_EQ(p.gradient.steps, g.gradient.steps) << seed;
  }
}

TEST(Portfolio, SameSeedAndThreadsGiveTheSameAnswer) {
  const Network net = testing::random_network(8, {20, 20}, 1, 3);
  Objective minimize = Objective::output(1);
  minimize.sense = Sense::kMinimize;
  for (int threads : {1, 2}) {
    const SolveResult a = solve(net, Domain::unit_box(8), minimize, portfolio(40, threads, 9));
    const SolveResult b = solve(net, Domain::unit_box(8), minimize, portfolio(40, threads, 9));
    EXPECT_EQ(a.objective, b.objective);
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.gradient.steps, b.gradient.steps);
    EXPECT_EQ(a.enhanced.local_searches, b.enhanced.local_searches);
  }
}

class PortfolioSmall : public testing::SmallProblemTest {};

TEST_P(PortfolioSmall, FindsTheBruteForceOptimumHonestly) {
  const SolveResult r = solve(net_, domain_, objective_, portfolio(200, 2, 1));
  testing::expect_honest(net_, domain_, objective_, r);
  const double best = testing::brute_force_max(net_, domain_, objective_);
  EXPECT_NEAR(objective_.sign() * r.objective, best, 1e-6 * std::max(1.0, std::abs(best)));
}

INSTANTIATE_TEST_SUITE_P(Small, PortfolioSmall,
                         ::testing::Values(testing::SmallCase{2, {6}, 1, false, false, 1},
                                           testing::SmallCase{3, {5, 4}, 2, true, false, 2},
                                           testing::SmallCase{3, {4, 4}, 1, true, true, 3},
                                           testing::SmallCase{4, {8}, 2, false, true, 4}),
                         testing::small_case_name);

// A timed default run (without its first proof) still hands the last quarter to the prover, which closes the gap on a small network.
TEST(Portfolio, TimedRunEndsWithTheProvenOptimum) {
  const Network net = testing::random_network(3, {6, 5}, 1, 17);
  const Domain domain = Domain::unit_box(3);
  const double exact = testing::brute_force_max(net, domain, Objective::output(1));
  RunControl control;
  control.time_limit = 600.0;
  SolveOptions options = portfolio(2000, 2, 5);
  options.enhanced.first_proof = 0.0;  // the search first (tests/algorithms/first_proof_test.cc: the first proof)
  const SolveResult r = solve(net, domain, Objective::output(1), options, control);
  testing::expect_honest(net, domain, Objective::output(1), r);
  ASSERT_TRUE(r.bound.has_value());
  EXPECT_EQ(r.status, SolveStatus::kOptimal);
  EXPECT_NEAR(*r.bound, exact, 1e-6 * std::max(1.0, std::abs(exact)));
  EXPECT_NEAR(r.objective, exact, 1e-6 * std::max(1.0, std::abs(exact)));
  EXPECT_GT(r.gradient.steps, 0);
}

// The split rule (docs/MATH.md §17): one walking thread only in a timed run on wide inputs with two threads or more.
TEST(Portfolio, WalksBesideTheAscentOnlyInTimedRunsOnWideInputs) {
  const Network wide = testing::random_network(kPortfolioWalkInputs, {4}, 1, 5);
  const Network narrow = testing::random_network(kPortfolioWalkInputs - 1, {4}, 1, 5);
  const Problem wide_problem = make_problem(wide, Domain::unit_box(kPortfolioWalkInputs), Objective::output(1));
  const Problem narrow_problem =
      make_problem(narrow, Domain::unit_box(kPortfolioWalkInputs - 1), Objective::output(1));
  const Deadline timed(60.0, nullptr), untimed;
  for (int threads : {1, 2, 3}) {
    const SolveOptions options = portfolio(10, threads);
    const PortfolioSplit split = portfolio_split(wide_problem, options, timed, RunControl{});
    EXPECT_EQ(split.walk_threads, threads >= 2 ? 1 : 0) << threads;
    EXPECT_EQ(split.walk_threads + split.search_threads, threads) << threads;
    EXPECT_EQ(portfolio_split(wide_problem, options, untimed, RunControl{}).walk_threads, 0) << threads;
    EXPECT_EQ(portfolio_split(narrow_problem, options, timed, RunControl{}).walk_threads, 0) << threads;
  }
}

// A timed run on wide inputs: the walk's points join the ascended samples' in one result, which stays honest,
// and the prover still closes the gap on a network this small. The search phase, which only its clock ends
// here, is the first 1% of a generous limit (3 s); the prover has the rest, and the run ends at its proof, so
// the outcome does not depend on how fast the machine is (ThreadSanitizer runs this test too).
TEST(Portfolio, WideTimedRunKeepsTheWalksPointsAndProves) {
  const int d = kPortfolioWalkInputs;
  const Network net = testing::random_network(d, {5}, 1, 11);
  const Domain domain = Domain::unit_box(d);
  RunControl control;
  control.time_limit = 300.0;
  SolveOptions options = portfolio(1000000000, 2, 4);
  options.enhanced.mip_share = 0.99;
  options.enhanced.first_proof = 0.0;
  const SolveResult r = solve(net, domain, Objective::output(1), options, control);
  testing::expect_honest(net, domain, Objective::output(1), r);
  EXPECT_EQ(r.run.threads, 2);
  EXPECT_GT(r.walk.walks, 0);
  EXPECT_GT(r.gradient.steps, 0);
  ASSERT_TRUE(r.bound.has_value());
  EXPECT_EQ(r.status, SolveStatus::kOptimal);
  EXPECT_NEAR(r.objective, *r.bound, 1e-6 * std::max(1.0, std::abs(*r.bound)));
}

// Counts its calls and never improves.
class CountingImprover final : public RegionImprover {
 public:
  explicit CountingImprover(int& calls) : calls_(calls) {}
  std::optional<EvaluatedPoint> improve(const EvaluatedPoint&, double, const Deadline&) override {
    ++calls_;
    return std::nullopt;
  }

 private:
  int& calls_;
};

// A budget of nothing skips every local search below the thread's best; a budget of the whole run lets the
// first one through.
TEST(Portfolio, BudgetedLocalSearchSkipsSearchesOverItsShare) {
  int calls = 0;
  const ImproverFactory inner = [&calls]() { return std::make_unique<CountingImprover>(calls); };
  const Deadline timed(60.0, nullptr);
  EvaluatedPoint start;
  start.x = Eigen::VectorXd::Zero(2);
  std::unique_ptr<RegionImprover> none = budgeted_improvers(inner, 0.0, timed)();
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(none->improve(start, 1.0, timed).has_value());
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(none->improve(start, 0.0, timed).has_value());  // the thread's best: searched all the same
  EXPECT_EQ(calls, 1);
  std::unique_ptr<RegionImprover> all = budgeted_improvers(inner, 1.0, timed)();
  EXPECT_FALSE(all->improve(start, 1.0, timed).has_value());
  EXPECT_EQ(calls, 2);
}

// Moves nothing: the sample's value is its first coordinate.
class StillMover final : public SampleMover {
 public:
  EvaluatedPoint move(const Eigen::VectorXd& sample, const Deadline&) override {
    EvaluatedPoint point;
    point.x = sample;
    point.value = sample[0];
    return point;
  }
};

EvaluatedPoint valued(double value) {
  EvaluatedPoint point;
  point.x = Eigen::VectorXd::Constant(1, value);
  point.value = value;
  return point;
}

// Ten LPs first; then a region gets its LP when its moved point is within twice the largest gain seen of the
// best region optimum, whatever the thread's best point.
TEST(Portfolio, HopelessRegionsSkipTheirLp) {
  const MoverFactory still = [](int) { return std::make_unique<StillMover>(); };
  std::unique_ptr<SampleMover> mover = hopeful_regions(still)(0);
  for (int i = 0; i < 9; ++i) {
    EXPECT_TRUE(mover->wants_region_lp(valued(-100.0), 0.0)) << i;
    mover->region_solved(valued(0.5), valued(0.6));
  }
  EXPECT_TRUE(mover->wants_region_lp(valued(-100.0), 0.0));
  mover->region_solved(valued(0.9), valued(1.0));  // gain 0.1, best optimum 1.0
  EXPECT_FALSE(mover->wants_region_lp(valued(0.79), 5.0));
  EXPECT_TRUE(mover->wants_region_lp(valued(0.81), 5.0));
  EXPECT_EQ(mover->move(Eigen::VectorXd::Constant(1, 0.3), Deadline()).value, 0.3);
}

TEST(PointExchange, PassesEachBetterPointOnceToTheOtherSideAndNeverEchoes) {
  PointExchange exchange;
  const Eigen::VectorXd a = Eigen::VectorXd::Constant(2, 0.25), b = Eigen::VectorXd::Constant(2, 0.75);
  EXPECT_FALSE(exchange.trade(0, a, 1.0));
  const std::optional<Eigen::VectorXd> got = exchange.trade(1, Eigen::VectorXd(), -kInfinity);
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, a);
  EXPECT_FALSE(exchange.trade(1, a, 1.0));  // the received point itself does not go back
  EXPECT_FALSE(exchange.trade(0, a, 1.0));
  EXPECT_FALSE(exchange.trade(1, b, 0.5));  // worse than side 0's post: kept to itself
  EXPECT_FALSE(exchange.trade(0, a, 1.0));
  EXPECT_FALSE(exchange.trade(1, b, 2.0));
  const std::optional<Eigen::VectorXd> back = exchange.trade(0, a, 1.0);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, b);
  EXPECT_FALSE(exchange.trade(0, a, 1.0));
}

}  // namespace
}  // namespace reluopt
