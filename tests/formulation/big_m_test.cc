// Big-M (MATH.md §3): hand-built networks, CBC against brute-force enumeration of activation patterns,
// warm-start vectors (MATH.md §7) and MIP starts.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "bounds/bounds.h"
#include "core/domain_sampler.h"
#include "formulation/mip_formulation.h"
#include "formulation/pattern_lp.h"
#include "solver/mip_solver.h"
#include "test_networks.h"

namespace reluopt {
namespace {

double relative_tolerance(double value) { return 1e-6 * std::max(1.0, std::abs(value)); }

MipResult solve(const LinearModel& model, const std::vector<double>* start = nullptr) {
  MipParameters options;
  options.start = start;
  return make_mip_solver()->solve(model, Deadline(30.0, nullptr), options);
}

// Both pre-activations of the tiny network lie in [-1, 1]: two binaries, three rows each.
TEST(BigM, TinyNetworkMaximumAndMinimum) {
  const Network net = testing::tiny_network();
  const Domain box = Domain::unit_box(2);
  const NeuronBounds bounds = interval_bounds(net, box);
  const MipFormulation f = big_m_formulation(net, box, Objective::output(1), bounds);
  EXPECT_EQ(f.model.num_cols(), 2 + 2 * 2);
  EXPECT_EQ(f.model.num_rows(), 2 * 3);
  EXPECT_EQ(f.model.num_integer(), 2);
  EXPECT_EQ(f.partitions, 1);
  EXPECT_TRUE(f.partition_neurons.empty());
  const MipResult max = solve(f.model);
  ASSERT_EQ(max.status, MipStatus::kOptimal);
  EXPECT_NEAR(*max.objective, 2.5, 1e-9);
  EXPECT_NEAR(max.values[f.input[0]], 1.0, 1e-9);
  EXPECT_NEAR(max.values[f.input[1]], 0.0, 1e-9);

  Objective minimize = Objective::output(1);
  minimize.sense = Sense::kMinimize;
  const MipResult min = solve(big_m_formulation(net, box, minimize, bounds).model);
  ASSERT_EQ(min.status, MipStatus::kOptimal);
  EXPECT_NEAR(*min.objective, 0.5, 1e-9);  // maximized sense: -(-0.5)
}

// x1 ──( 1)──> a = relu(x1 + 2)    h in [2, 3]: always active, a = h
//    ──( 1)──> b = relu(x1 - 3)    h in [-3, -2]: always inactive, b = 0
//    ──( 1)──> c = relu(x1 - 0.5)  h in [-0.5, 0.5]: the only binary
// y = a + b - 2 c = x1 + 2 - 2 relu(x1 - 0.5), largest at x1 = 0.5: y = 2.5.
TEST(BigM, StableNeuronsNeedNoBinary) {
  DenseLayer hidden{Eigen::MatrixXd{{1.0}, {1.0}, {1.0}}, Eigen::VectorXd{{2.0, -3.0, -0.5}}};
  DenseLayer output{Eigen::MatrixXd{{1.0, 1.0, -2.0}}, Eigen::VectorXd{{0.0}}};
  const Network net({hidden, output});
  const Domain box = Domain::unit_box(1);
  const MipFormulation f = big_m_formulation(net, box, Objective::output(1), interval_bounds(net, box));
  EXPECT_EQ(f.binary[0][0], -1);
  EXPECT_EQ(f.binary[0][1], -1);
  EXPECT_GE(f.binary[0][2], 0);
  EXPECT_EQ(f.model.num_integer(), 1);
  EXPECT_DOUBLE_EQ(f.model.col_lower()[f.post_activation[0][0]], 2.0);
  EXPECT_DOUBLE_EQ(f.model.col_upper()[f.post_activation[0][0]], 3.0);
  EXPECT_DOUBLE_EQ(f.model.col_upper()[f.post_activation[0][1]], 0.0);
  const MipResult solution = solve(f.model);
  ASSERT_EQ(solution.status, MipStatus::kOptimal);
  EXPECT_NEAR(*solution.objective, 2.5, 1e-9);
  EXPECT_NEAR(solution.values[f.input[0]], 0.5, 1e-9);
}

using testing::SmallCase;

class BigMBruteForce : public testing::SmallProblemTest {
 protected:
  // The best (or worst) of 21 samples of the domain by the maximized value, from the case's seed.
  Eigen::VectorXd extreme_of_21_samples(bool best) const {
    DomainSampler sampler(domain_, Eigen::VectorXd::Constant(domain_.dim(), 0.5), GetParam().seed + 1);
    Eigen::VectorXd extreme = sampler.next();
    for (int trial = 0; trial < 20; ++trial) {
      const Eigen::VectorXd x = sampler.next();
      if (best ? forward_value(x) > forward_value(extreme) : forward_value(x) < forward_value(extreme)) extreme = x;
    }
    return extreme;
  }
};

TEST_P(BigMBruteForce, CbcReachesTheEnumeratedMaximum) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  for (const NeuronBounds& bounds : bounds_) {
    const MipFormulation f = big_m_formulation(net_, domain_, objective_, bounds);
    EXPECT_EQ(f.model.num_integer(), bounds.num_unstable());
    const MipResult solution = solve(f.model);
    ASSERT_EQ(solution.status, MipStatus::kOptimal);
    EXPECT_NEAR(*solution.objective, exact, relative_tolerance(exact));
    EXPECT_GE(solution.bound, exact - relative_tolerance(exact));
    Eigen::VectorXd x(net_.input_dim());
    for (int i = 0; i < x.size(); ++i) x[i] = solution.values[f.input[i]];
    EXPECT_NEAR(forward_value(x), exact, relative_tolerance(exact));
  }
}

// Concave neurons without binaries: the same maximum, and the forward pass agrees.
TEST_P(BigMBruteForce, FreeConcaveNeuronsKeepTheMaximum) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  for (const NeuronBounds& bounds : bounds_) {
    const MipFormulation f = big_m_formulation(net_, domain_, objective_, bounds, true);
    EXPECT_EQ(f.concave, count_neurons(concave_neurons(net_, objective_, bounds)));
    EXPECT_EQ(f.model.num_integer(), bounds.num_unstable() - f.concave);
    const MipResult solution = solve(f.model);
    ASSERT_EQ(solution.status, MipStatus::kOptimal);
    EXPECT_NEAR(*solution.objective, exact, relative_tolerance(exact));
    Eigen::VectorXd x(net_.input_dim());
    for (int i = 0; i < x.size(); ++i) x[i] = solution.values[f.input[i]];
    EXPECT_NEAR(forward_value(x), exact, relative_tolerance(exact));
    // A warm start stays feasible, with the forward value.
    const std::vector<double> start = warm_start(f, net_, x);
    EXPECT_LE(f.model.max_violation(start), 1e-9);
    EXPECT_NEAR(f.model.evaluate(start), forward_value(x), 1e-9 * std::max(1.0, std::abs(forward_value(x))));
  }
}

TEST_P(BigMBruteForce, WarmStartIsFeasibleWithTheForwardValue) {
  DomainSampler sampler(domain_, Eigen::VectorXd::Constant(domain_.dim(), 0.5), GetParam().seed);
  for (const NeuronBounds& bounds : bounds_) {
    const MipFormulation f = big_m_formulation(net_, domain_, objective_, bounds);
    for (int trial = 0; trial < 50; ++trial) {
      const Eigen::VectorXd x = sampler.next();
      const std::vector<double> start = warm_start(f, net_, x);
      ASSERT_EQ(static_cast<int>(start.size()), f.model.num_cols());
      EXPECT_LE(f.model.max_violation(start), 1e-9);
      EXPECT_NEAR(f.model.evaluate(start), forward_value(x), 1e-9 * std::max(1.0, std::abs(forward_value(x))));
    }
  }
}

// The start from the best of 21 samples comes back at least as good, and it must not stop the search short
// of the optimum (CBC 2.10 with objSense -1 cut off its root LP after setBestSolution on the minimization
// case with seed 3, whose start value is negative).
TEST_P(BigMBruteForce, MipStartIsKept) {
  const MipFormulation f = big_m_formulation(net_, domain_, objective_, bounds_.front());
  const Eigen::VectorXd best = extreme_of_21_samples(true);
  const std::vector<double> start = warm_start(f, net_, best);
  const MipResult solution = solve(f.model, &start);
  ASSERT_EQ(solution.status, MipStatus::kOptimal);
  EXPECT_GE(*solution.objective, forward_value(best) - 1e-9);
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  EXPECT_NEAR(*solution.objective, exact, relative_tolerance(exact));
}

// CBC's getBestPossibleObjValue() is min(its bound, its incumbent): stopped before it solved anything, it
// returns the MIP start's value, which is no bound at all. A start of the worst sample and a deadline that has
// already passed must give no bound, or one that is valid.
TEST_P(BigMBruteForce, NoFalseBoundWhenStoppedBeforeTheRoot) {
  const MipFormulation f = big_m_formulation(net_, domain_, objective_, bounds_.front());
  const Eigen::VectorXd worst = extreme_of_21_samples(false);
  const std::vector<double> start = warm_start(f, net_, worst);
  MipParameters options;
  options.start = &start;
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  for (double seconds : {0.0, 1e-6}) {
    const MipResult solution = make_mip_solver()->solve(f.model, Deadline(seconds, nullptr), options);
    EXPECT_NE(solution.status, MipStatus::kOptimal);
    EXPECT_GE(solution.bound, exact - relative_tolerance(exact)) << "a bound below the true maximum";
  }
}

INSTANTIATE_TEST_SUITE_P(
    BigM, BigMBruteForce,
    ::testing::ValuesIn(testing::sanitizer_share<SmallCase>(
        {SmallCase{2, {6}, 1, false, false, 1}, SmallCase{3, {10}, 1, true, false, 2},
         SmallCase{4, {12}, 1, false, true, 3}, SmallCase{2, {5, 5}, 1, false, false, 4},
         SmallCase{3, {6, 6}, 1, true, true, 5}, SmallCase{4, {6, 5}, 2, false, true, 6},
         SmallCase{3, {4, 4, 4}, 1, false, false, 7}, SmallCase{2, {4, 4, 3}, 1, true, false, 8},
         SmallCase{5, {4, 4, 4}, 3, true, true, 9}})),
    testing::small_case_name);

// On a network too large for CBC to finish in the time limit, the MIP start must still come back: the
// result is never worse than the start (SOLVER-NOTES.md: big-M alone often finds no feasible point).
TEST(BigM, MipStartSurvivesATimeLimit) {
  const Network net = testing::random_network(10, {40, 40}, 1, 11);
  const Domain box = Domain::unit_box(10);
  const Objective objective = Objective::output(1);
  const MipFormulation f = big_m_formulation(net, box, objective, interval_bounds(net, box));
  const Eigen::VectorXd x = Eigen::VectorXd::Constant(10, 0.3);
  const std::vector<double> start = warm_start(f, net, x);
  MipParameters options;
  options.start = &start;
  const MipResult solution = make_mip_solver()->solve(f.model, Deadline(0.3, nullptr), options);
  ASSERT_TRUE(solution.status == MipStatus::kOptimal || solution.status == MipStatus::kFeasible);
  ASSERT_TRUE(solution.objective.has_value());
  EXPECT_GE(*solution.objective, objective.value(net.forward(x)) - 1e-9);
  EXPECT_LE(f.model.max_violation(solution.values), 1e-6);
  EXPECT_GE(solution.bound, *solution.objective - 1e-9);
}

// The builders look at their deadline before each layer: one that has passed (or a stop request) leaves the model
// incomplete, and says so, so that no caller solves a part of the network; an ample one changes nothing.
TEST(BigM, APassedDeadlineOrAStopLeavesTheFormulationIncomplete) {
  const Network net = testing::random_network(4, {8, 8}, 1, 3);
  const Domain box = Domain::unit_box(4);
  const NeuronBounds bounds = interval_bounds(net, box);
  const Objective objective = Objective::output(1);
  const Deadline passed(0.0, nullptr);
  std::atomic<bool> stop{true};
  const Deadline stopped(3600.0, &stop);
  for (const Deadline* deadline : {&passed, &stopped}) {
    EXPECT_FALSE(big_m_formulation(net, box, objective, bounds, false, deadline).complete);
    EXPECT_FALSE(partition_formulation(net, box, objective, bounds, 2, false, deadline).complete);
  }
  const Deadline ample(3600.0, nullptr);
  const MipFormulation timed = big_m_formulation(net, box, objective, bounds, false, &ample);
  const MipFormulation untimed = big_m_formulation(net, box, objective, bounds);
  EXPECT_TRUE(timed.complete);
  EXPECT_TRUE(untimed.complete);
  EXPECT_EQ(timed.model.num_cols(), untimed.model.num_cols());
  EXPECT_EQ(timed.model.num_rows(), untimed.model.num_rows());
  EXPECT_TRUE(partition_formulation(net, box, objective, bounds, 2, false, &ample).complete);
}

}  // namespace
}  // namespace reluopt
