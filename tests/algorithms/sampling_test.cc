#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <new>

#include "algorithms/problem.h"
#include "algorithms/sampling.h"
#include "lp/linear_model.h"
#include "reluopt/error.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

SolveOptions sampling(long samples, int threads, std::uint64_t seed = 0) {
  SolveOptions options;
  options.method = Method::kSampling;
  options.sampling.samples = samples;
  options.threads = threads;
  options.seed = seed;
  return options;
}

TEST(Sampling, FindsTheTinyNetworkMaximum) {
  const Network net = testing::tiny_network();
  const SolveResult r = solve(net, Domain::unit_box(2), Objective::output(1), sampling(50, 1));
  testing::expect_honest(net, Domain::unit_box(2), Objective::output(1), r);
  EXPECT_EQ(r.status, SolveStatus::kFeasible);
  EXPECT_FALSE(r.bound.has_value());
  EXPECT_NEAR(r.objective, 2.5, 1e-9);
  EXPECT_NEAR(r.x[0], 1.0, 1e-9);
  EXPECT_NEAR(r.x[1], 0.0, 1e-9);
  EXPECT_EQ(r.sampling.samples, 50);
  // The tiny network has at most 4 regions: almost every sample repeats a pattern.
  EXPECT_LE(r.run.lps, 4);
  EXPECT_EQ(r.run.lps + r.sampling.duplicate_patterns, r.sampling.samples);
  EXPECT_EQ(r.method, "sampling");
}

TEST(Sampling, MinimizesInTheUsersSense) {
  const Network net = testing::tiny_network();
  Objective minimize = Objective::output(1);
  minimize.sense = Sense::kMinimize;
  const SolveResult r = solve(net, Domain::unit_box(2), minimize, sampling(50, 2));
  testing::expect_honest(net, Domain::unit_box(2), minimize, r);
  EXPECT_NEAR(r.objective, -0.5, 1e-9);
}

TEST(Sampling, SameSeedAndThreadsGiveTheSameAnswer) {
  const Network net = testing::random_network(8, {20, 20}, 1, 3);
  for (int threads : {1, 2}) {
    const SolveResult a = solve(net, Domain::unit_box(8), Objective::output(1), sampling(200, threads, 9));
    const SolveResult b = solve(net, Domain::unit_box(8), Objective::output(1), sampling(200, threads, 9));
    EXPECT_EQ(a.objective, b.objective);
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.run.lps, b.run.lps);
    EXPECT_EQ(a.sampling.duplicate_patterns, b.sampling.duplicate_patterns);
    EXPECT_EQ(a.run.threads, threads);
  }
}

TEST(Sampling, MultiOutputObjectiveOnAPolytope) {
  const Network net = testing::random_network(5, {10, 8}, 3, 5);
  const Domain domain = testing::random_polytope(5, 6, 7);
  Objective objective;
  objective.weights = Eigen::Vector3d(1.0, -2.0, 0.5);
  objective.constant = -1.0;
  const SolveResult r = solve(net, domain, objective, sampling(300, 2, 1));
  testing::expect_honest(net, domain, objective, r);
  EXPECT_GT(r.run.lps, 0);
}

TEST(Sampling, AnAffineNetworkIsSolvedToOptimality) {
  // One hidden neuron that is always active on [0,1]^2: the network is affine on P, so one LP is exact.
  const Network net({DenseLayer{Eigen::MatrixXd{{1.0, 1.0}}, Eigen::VectorXd{{1.0}}},
                     DenseLayer{Eigen::MatrixXd{{-1.0}}, Eigen::VectorXd{{0.0}}}});
  const SolveResult r = solve(net, Domain::unit_box(2), Objective::output(1), sampling(5, 1));
  EXPECT_EQ(r.status, SolveStatus::kOptimal);
  EXPECT_NEAR(r.objective, -1.0, 1e-12);
  ASSERT_TRUE(r.bound.has_value());
  EXPECT_NEAR(*r.bound, -1.0, 1e-9);
}

TEST(Sampling, StopRequestBeforeStartReturnsNoSolution) {
  const Network net = testing::tiny_network();
  std::atomic<bool> stop{true};
  RunControl control;
  control.stop = &stop;
  const SolveResult r = solve(net, Domain::unit_box(2), Objective::output(1), sampling(100, 2), control);
  EXPECT_EQ(r.status, SolveStatus::kNoSolution);
  EXPECT_EQ(r.sampling.samples, 0);
  EXPECT_EQ(r.stopped_by, StopReason::kInterrupted);
}

TEST(Sampling, TimeLimitEndsALongRun) {
  const Network net = testing::random_network(20, {30, 30}, 1, 2);
  RunControl control;
  control.time_limit = 0.3;
  int progress_calls = 0;
  control.progress_interval = 0.05;
  control.on_progress = [&](const Progress& p) {
    ++progress_calls;
    EXPECT_GE(p.samples, 0);
  };
  const SolveResult r = solve(net, Domain::unit_box(20), Objective::output(1), sampling(100000000, 2), control);
  EXPECT_EQ(r.stopped_by, StopReason::kTimeLimit);
  EXPECT_EQ(r.status, SolveStatus::kFeasible);
  EXPECT_LT(r.sampling.samples, 100000000);
  EXPECT_GT(progress_calls, 0);
}

TEST(Sampling, RejectsBadInput) {
  const Network net = testing::tiny_network();
  EXPECT_THROW(solve(net, Domain::unit_box(3), Objective::output(1), sampling(5, 1)), Error);
  EXPECT_THROW(solve(net, Domain::unit_box(2), Objective::output(2), sampling(5, 1)), Error);
  EXPECT_THROW(parse_method("simulated-annealing"), Error);
}

// Evaluates each sample where it is; the mover of thread 1 throws std::bad_alloc at its third sample instead.
class FailingMover final : public SampleMover {
 public:
  FailingMover(const Problem& problem, int thread) : problem_(problem), thread_(thread) {}
  EvaluatedPoint move(const Eigen::VectorXd& sample, const Deadline&) override {
    if (thread_ == 1 && ++moves_ == 3) throw std::bad_alloc();
    return evaluate_point(problem_, sample);
  }

 private:
  const Problem& problem_;
  int thread_;
  int moves_ = 0;
};

// A worker's exception reaches run_sampling's caller, and the other worker, which has ten million samples to go
// (and with the stop rule, checkpoints that wait for the failed worker), ends at once: the test would hang
// otherwise.
TEST(Sampling, AWorkersExceptionReachesTheCallerAndEndsTheRun) {
  const Network net = testing::tiny_network();
  const Problem problem = make_problem(net, Domain::unit_box(2), Objective::output(1));
  const MoverFactory failing = [&](int thread) { return std::make_unique<FailingMover>(problem, thread); };
  for (const bool rule : {false, true}) {
    SolveOptions options = sampling(10000000, 2);
    if (rule) options.sampling.stop_rule = StopRuleOptions{1e-9, 0.05, 100, 1.2};
    EXPECT_THROW(run_sampling(problem, options, Deadline(), RunContext{}, {}, failing), std::bad_alloc) << rule;
  }
}

}  // namespace
}  // namespace reluopt

namespace reluopt {
namespace {

TEST(SamplingValues, OneValuePerSampleAndTheBestIsTheObjective) {
  const Network net = testing::random_network(6, {15, 15}, 1, 31);
  for (Method method : {Method::kSampling, Method::kEnhanced}) {
    SolveOptions options;
    options.method = method;
    options.sampling.samples = 300;
    options.sampling.record_values = true;
    options.threads = 2;
    const SolveResult r = solve(net, Domain::unit_box(6), Objective::output(1), options);
    ASSERT_EQ(r.sampling.values.size(), 300u);
    double best = -kInfinity;
    for (std::size_t i = 0; i < r.sampling.values.size(); ++i) {
      EXPECT_EQ(r.sampling.values[i].first, static_cast<long>(i));
      best = std::max(best, r.sampling.values[i].second);
    }
    EXPECT_NEAR(best, r.objective, 1e-9 * std::max(1.0, std::abs(r.objective)));
    ASSERT_FALSE(r.trajectory.empty());
    EXPECT_DOUBLE_EQ(r.trajectory.back().second, r.objective);
    for (std::size_t i = 1; i < r.trajectory.size(); ++i) {
      EXPECT_GE(r.trajectory[i].first, r.trajectory[i - 1].first);
      EXPECT_GT(r.trajectory[i].second, r.trajectory[i - 1].second);
    }
  }
}

TEST(SamplingValues, MinimizationValuesAreInTheUsersSense) {
  const Network net = testing::random_network(4, {10}, 1, 2);
  SolveOptions options;
  options.method = Method::kSampling;
  options.sampling.samples = 100;
  options.sampling.record_values = true;
  Objective minimize = Objective::output(1);
  minimize.sense = Sense::kMinimize;
  const SolveResult r = solve(net, Domain::unit_box(4), minimize, options);
  double lowest = kInfinity;
  for (const auto& [index, value] : r.sampling.values) lowest = std::min(lowest, value);
  EXPECT_NEAR(lowest, r.objective, 1e-9 * std::max(1.0, std::abs(r.objective)));
}

}  // namespace
}  // namespace reluopt
