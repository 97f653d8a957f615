// The stopping rule inside sampling (SamplingOptions::stop_rule): it stops before the sample cap with its
// verdict, the decision at checkpoint n is the rule on X_i of samples 0..n-1, and the same seed and thread count
// give the same run.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "reluopt/error.h"
#include "reluopt/evt.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

SolveOptions with_stop_rule(Method method, double eps, long cap, int threads, std::uint64_t seed = 1) {
  SolveOptions options;
  options.method = method;
  options.sampling.samples = cap;
  options.sampling.stop_rule = StopRuleOptions{eps, 0.05};
  options.sampling.record_values = true;
  options.threads = threads;
  options.seed = seed;
  return options;
}

// A 3 -> 16 -> 16 -> 1 network: a few dozen regions, so the values pile up at the top and the rule stops after a
// few hundred samples (several checks) at eps = 0.001.
const Network& small_network() {
  static const Network net = testing::random_network(3, {16, 16}, 1, 4);
  return net;
}

std::vector<double> values_of(const SolveResult& r, double sign) {
  std::vector<double> values;
  for (const auto& [index, value] : r.sampling.values) values.push_back(sign * value);
  return values;
}

class StopRuleMethods : public ::testing::TestWithParam<Method> {};

TEST_P(StopRuleMethods, StopsBeforeTheCapOnTheRuleOfSamplesBelowTheCheckpoint) {
  const long cap = 20000;
  const SolveResult r = solve(small_network(), Domain::unit_box(3), Objective::output(1),
                              with_stop_rule(GetParam(), 0.001, cap, 2));
  ASSERT_TRUE(r.stop_rule);
  const StopRuleReport& rule = *r.stop_rule;
  EXPECT_EQ(rule.verdict, StopRuleVerdict::kStopped);
  EXPECT_EQ(r.stopped_by, StopReason::kStopRule);
  EXPECT_LT(r.sampling.samples, cap);
  EXPECT_EQ(r.sampling.samples, rule.samples_at_decision);
  EXPECT_GT(rule.checks, 1);
  EXPECT_EQ(rule.eps, 0.001);
  EXPECT_EQ(rule.delta, 0.05);
  ASSERT_TRUE(rule.fitted);
  EXPECT_LE(rule.probability_upper, rule.delta / 2.0);
  EXPECT_DOUBLE_EQ(rule.lower, r.objective);  // the interval starts at the best value
  EXPECT_GE(rule.estimate, rule.lower);
  EXPECT_GE(rule.upper, rule.estimate);
  // X_i of exactly samples 0..n-1, and the rule on them is the decision the run took.
  ASSERT_EQ(r.sampling.values.size(), static_cast<std::size_t>(r.sampling.samples));
  for (std::size_t i = 0; i < r.sampling.values.size(); ++i)
    ASSERT_EQ(r.sampling.values[i].first, static_cast<long>(i));
  const StoppingDecision again = stopping_rule(values_of(r, 1.0), rule.eps, rule.delta);
  EXPECT_TRUE(again.stop);
  EXPECT_EQ(family_name(again.family), rule.family);
  EXPECT_EQ(again.estimate, rule.estimate);
  EXPECT_EQ(again.upper, rule.upper);
  EXPECT_EQ(again.probability_upper, rule.probability_upper);
}

TEST_P(StopRuleMethods, SameSeedAndThreadsGiveTheSameRun) {
  const SolveOptions options = with_stop_rule(GetParam(), 0.001, 20000, 2, 7);
  const SolveResult a = solve(small_network(), Domain::unit_box(3), Objective::output(1), options);
  const SolveResult b = solve(small_network(), Domain::unit_box(3), Objective::output(1), options);
  EXPECT_EQ(a.sampling.samples, b.sampling.samples);
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.objective, b.objective);
  EXPECT_EQ(a.sampling.values, b.sampling.values);
  EXPECT_EQ(a.stopped_by, StopReason::kStopRule);
  ASSERT_TRUE(a.stop_rule && b.stop_rule);
  EXPECT_EQ(a.stop_rule->checks, b.stop_rule->checks);
  EXPECT_EQ(a.stop_rule->estimate, b.stop_rule->estimate);
  EXPECT_EQ(a.stop_rule->upper, b.stop_rule->upper);
  EXPECT_EQ(a.stop_rule->probability_upper, b.stop_rule->probability_upper);
}

INSTANTIATE_TEST_SUITE_P(Methods, StopRuleMethods, ::testing::Values(Method::kSampling, Method::kEnhanced),
                         [](const ::testing::TestParamInfo<Method>& info) { return method_name(info.param); });

TEST(StopRule, MinimizationReportsTheOptimumInTheUsersSense) {
  Objective minimize = Objective::output(1);
  minimize.sense = Sense::kMinimize;
  const SolveResult r =
      solve(small_network(), Domain::unit_box(3), minimize, with_stop_rule(Method::kSampling, 0.001, 20000, 1));
  ASSERT_TRUE(r.stop_rule && r.stop_rule->fitted);
  const StopRuleReport& rule = *r.stop_rule;
  EXPECT_EQ(rule.verdict, StopRuleVerdict::kStopped);
  // The rule ran on -g: its interval [best, M_up] of -g is [-M_up, best] of g.
  EXPECT_DOUBLE_EQ(rule.upper, r.objective);
  EXPECT_LE(rule.estimate, rule.upper);
  EXPECT_LE(rule.lower, rule.estimate);
  const StoppingDecision again = stopping_rule(values_of(r, -1.0), rule.eps, rule.delta);
  EXPECT_EQ(-again.estimate, rule.estimate);
  EXPECT_EQ(-again.upper, rule.lower);
}

// Checkpoints 100, 120, 144, 173, 208, 250 lie below a cap of 300 (300 itself is not reached).
TEST(StopRule, TheCapComesFirst) {
  const Network net = testing::random_network(8, {20, 20}, 1, 3);
  const SolveResult r = solve(net, Domain::unit_box(8), Objective::output(1),
                              with_stop_rule(Method::kSampling, 1e-9, 300, 2));
  ASSERT_TRUE(r.stop_rule);
  EXPECT_EQ(r.stop_rule->verdict, StopRuleVerdict::kNotReached);
  EXPECT_EQ(r.stopped_by, StopReason::kCompleted);
  EXPECT_EQ(r.sampling.samples, 300);
  EXPECT_EQ(r.stop_rule->checks, 6);
  EXPECT_EQ(r.stop_rule->samples_at_decision, 250);
  EXPECT_EQ(r.sampling.values.size(), 300u);
}

TEST(StopRule, NoFitOnEqualValues) {
  // One hidden neuron active on all of [0,1]^2: the network is affine there and every X_i is the same.
  const Network net({DenseLayer{Eigen::MatrixXd{{1.0, 1.0}}, Eigen::VectorXd{{1.0}}},
                     DenseLayer{Eigen::MatrixXd{{-1.0}}, Eigen::VectorXd{{0.0}}}});
  const SolveResult r =
      solve(net, Domain::unit_box(2), Objective::output(1), with_stop_rule(Method::kSampling, 0.1, 300, 1));
  ASSERT_TRUE(r.stop_rule);
  EXPECT_EQ(r.stop_rule->verdict, StopRuleVerdict::kNoFit);
  EXPECT_FALSE(r.stop_rule->fitted);
  EXPECT_EQ(r.stop_rule->checks, 6);
  EXPECT_EQ(r.sampling.samples, 300);
}

TEST(StopRule, RejectsBadOptions) {
  const Network net = testing::tiny_network();
  auto run = [&](SolveOptions options) { return solve(net, Domain::unit_box(2), Objective::output(1), options); };
  SolveOptions options = with_stop_rule(Method::kSampling, 0.0, 100, 1);
  EXPECT_THROW(run(options), Error);
  options.sampling.stop_rule = StopRuleOptions{std::numeric_limits<double>::infinity(), 0.05};
  EXPECT_THROW(run(options), Error);
  for (double delta : {0.0, 1.0, -0.5})  {
    options.sampling.stop_rule = StopRuleOptions{0.1, delta};
    EXPECT_THROW(run(options), Error) << delta;
  }
  options.sampling.stop_rule = StopRuleOptions{0.1, 0.05, 100, 1.0};
  EXPECT_THROW(run(options), Error);
  options.sampling.stop_rule = StopRuleOptions{0.1, 0.05};
  options.method = Method::kMip;
  EXPECT_THROW(run(options), Error);
}

}  // namespace
}  // namespace reluopt
