// Partition formulation (Tsay et al. 2021; MATH.md §6): the split, N = 1 against big-M, N = 2 and 4 against
// brute-force enumeration, LP relaxations never weaker than big-M's, warm-start vectors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "bounds/bounds.h"
#include "core/domain_sampler.h"
#include "formulation/mip_formulation.h"
#include "reluopt/error.h"
#include "solver/lp_solver.h"
#include "solver/mip_solver.h"
#include "test_networks.h"

namespace reluopt {
namespace {

double relative_tolerance(double value) { return 1e-6 * std::max(1.0, std::abs(value)); }

double lp_relaxation(const LinearModel& model) {
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  const LpSolution solution = lp->solve(model);
  EXPECT_EQ(solution.status, LpStatus::kOptimal);
  return solution.objective;
}

MipResult solve(const LinearModel& model) {
  return make_mip_solver()->solve(model, Deadline(30.0, nullptr), MipParameters{});
}

// On [0,1]^2, sorted by weight, the tiny network's a has sets S_1 = {x2} (w = -1, v_1 in [-1, 0]) and
// S_2 = {x1} (w = 1, v_2 in [0, 1]); b's weights tie, so index order: {x1}, {x2}, both in [0, 1].
TEST(Partition, TinyNetworkSetsBoundsAndMaximum) {
  const Network net = testing::tiny_network();
  const Domain box = Domain::unit_box(2);
  for (int partitions : {2, 4}) {  // 4 > 2 inputs: one input per set, the empty sets dropped
    const MipFormulation f =
        partition_formulation(net, box, Objective::output(1), interval_bounds(net, box), partitions);
    EXPECT_EQ(f.partitions, partitions);
    EXPECT_EQ(f.model.num_integer(), 2);
    ASSERT_EQ(f.partition_neurons.size(), 2u);
    const MipFormulation::PartitionNeuron& a = f.partition_neurons[0];
    const MipFormulation::PartitionNeuron& b = f.partition_neurons[1];
    EXPECT_EQ(a.layer, 0);
    EXPECT_EQ(a.neuron, 0);
    EXPECT_EQ(b.neuron, 1);
    EXPECT_EQ(a.input_sets, (std::vector<std::vector<int>>{{1}, {0}}));
    EXPECT_EQ(b.input_sets, (std::vector<std::vector<int>>{{0}, {1}}));
    ASSERT_EQ(a.copy_cols.size(), 2u);
    // z_n lies in [min(LB_n, 0), max(UB_n, 0)].
    EXPECT_DOUBLE_EQ(f.model.col_lower()[a.copy_cols[0]], -1.0);
    EXPECT_DOUBLE_EQ(f.model.col_upper()[a.copy_cols[0]], 0.0);
    EXPECT_DOUBLE_EQ(f.model.col_lower()[a.copy_cols[1]], 0.0);
    EXPECT_DOUBLE_EQ(f.model.col_upper()[a.copy_cols[1]], 1.0);
    const MipResult solution = solve(f.model);
    ASSERT_EQ(solution.status, MipStatus::kOptimal);
    EXPECT_NEAR(*solution.objective, 2.5, 1e-9);
  }
}

TEST(Partition, SplitSortsByWeightIntoNearlyEqualContiguousSets) {
  const Network net = testing::random_network(7, {4, 3}, 1, 31);
  const Domain box = Domain::unit_box(7);
  const NeuronBounds bounds = interval_bounds(net, box);
  const std::vector<std::pair<int, std::vector<std::size_t>>> expected_sizes{
      {1, {7}}, {3, {3, 2, 2}}, {4, {2, 2, 2, 1}}, {7, {1, 1, 1, 1, 1, 1, 1}}, {20, {1, 1, 1, 1, 1, 1, 1}}};
  for (const auto& [partitions, sizes] : expected_sizes) {
    const MipFormulation f = partition_formulation(net, box, Objective::output(1), bounds, partitions);
    EXPECT_EQ(static_cast<int>(f.partition_neurons.size()), bounds.num_unstable());
    for (const MipFormulation::PartitionNeuron& p : f.partition_neurons) {
      EXPECT_GE(f.binary[p.layer][p.neuron], 0);
      if (p.layer != 0) continue;  // the layer-0 neurons have 7 inputs
      ASSERT_EQ(p.input_sets.size(), sizes.size()) << "N = " << partitions;
      EXPECT_EQ(p.copy_cols.size(), sizes.size());
      std::vector<int> order;
      for (std::size_t n = 0; n < sizes.size(); ++n) {
        EXPECT_EQ(p.input_sets[n].size(), sizes[n]);
        order.insert(order.end(), p.input_sets[n].begin(), p.input_sets[n].end());
      }
      const Eigen::VectorXd w = net.hidden_layer(0).weights.row(p.neuron);
      EXPECT_TRUE(std::is_sorted(order.begin(), order.end(), [&w](int i, int j) { return w[i] < w[j]; }));
      std::sort(order.begin(), order.end());
      EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6}));
    }
  }
}

TEST(Partition, RejectsFewerThanOneSet) {
  const Network net = testing::tiny_network();
  const Domain box = Domain::unit_box(2);
  EXPECT_THROW(partition_formulation(net, box, Objective::output(1), interval_bounds(net, box), 0), Error);
}

using testing::SmallCase;

class PartitionBruteForce : public testing::SmallProblemTest {
 protected:
  // CBC proves `exact` on the formulation, and the forward pass at its x agrees.
  void expect_solved_to(const MipFormulation& f, double exact) const {
    const MipResult solution = solve(f.model);
    ASSERT_EQ(solution.status, MipStatus::kOptimal) << "N = " << f.partitions;
    EXPECT_NEAR(*solution.objective, exact, relative_tolerance(exact)) << "N = " << f.partitions;
    Eigen::VectorXd x(net_.input_dim());
    for (int i = 0; i < x.size(); ++i) x[i] = solution.values[f.input[i]];
    EXPECT_NEAR(forward_value(x), exact, relative_tolerance(exact)) << "N = " << f.partitions;
  }
};

TEST_P(PartitionBruteForce, OneSetHasTheBigMRelaxation) {
  for (const NeuronBounds& bounds : bounds_) {
    const double big_m = lp_relaxation(big_m_formulation(net_, domain_, objective_, bounds).model);
    const double one_set = lp_relaxation(partition_formulation(net_, domain_, objective_, bounds, 1).model);
    // With bounds from a wider box the big-M constants are looser than the partition's interval bounds of the
    // inputs at layer 1, so equality only holds for the exact interval bounds.
    if (&bounds == &bounds_.front()) {
      EXPECT_NEAR(one_set, big_m, 1e-7 * std::max(1.0, std::abs(big_m)));
    }
    EXPECT_LE(one_set, big_m + 1e-7 * std::max(1.0, std::abs(big_m)));
  }
}

// With LP bounds, tighter than the interval bounds of the sets' sums, big-M's rows keep partitions no weaker.
TEST_P(PartitionBruteForce, NoWeakerThanBigMWithLpBounds) {
  BoundOptions options;
  options.method = BoundMethod::kLp;
  options.threads = 1;
  const NeuronBounds bounds = compute_bounds(net_, domain_, options, Deadline());
  const double big_m = lp_relaxation(big_m_formulation(net_, domain_, objective_, bounds).model);
  for (int partitions : {1, 2, 4}) {
    const double relaxation = lp_relaxation(partition_formulation(net_, domain_, objective_, bounds, partitions).model);
    EXPECT_LE(relaxation, big_m + 1e-7 * std::max(1.0, std::abs(big_m))) << "N = " << partitions;
  }
}

// Concave neurons without binaries (and without partition copies): the same maximum and the same relaxation
// (maximization pushes their y down onto max(h, 0), where the big-M or partition rows never bind).
TEST_P(PartitionBruteForce, FreeConcaveNeuronsKeepTheMaximum) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  const NeuronBounds& bounds = bounds_.front();
  for (int partitions : {2, 4}) {
    const MipFormulation f = partition_formulation(net_, domain_, objective_, bounds, partitions, true);
    EXPECT_EQ(f.model.num_integer(), bounds.num_unstable() - f.concave);
    EXPECT_EQ(static_cast<int>(f.partition_neurons.size()), bounds.num_unstable() - f.concave);
    const double paper = lp_relaxation(partition_formulation(net_, domain_, objective_, bounds, partitions).model);
    EXPECT_NEAR(lp_relaxation(f.model), paper, 1e-7 * std::max(1.0, std::abs(paper))) << "N = " << partitions;
    expect_solved_to(f, exact);
  }
}

TEST_P(PartitionBruteForce, CbcReachesTheEnumeratedMaximumAndRelaxationsAreNoWeaker) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  for (const NeuronBounds& bounds : bounds_) {
    const double big_m = lp_relaxation(big_m_formulation(net_, domain_, objective_, bounds).model);
    for (int partitions : {2, 4}) {
      const MipFormulation f = partition_formulation(net_, domain_, objective_, bounds, partitions);
      EXPECT_EQ(f.model.num_integer(), bounds.num_unstable());
      const double relaxation = lp_relaxation(f.model);
      EXPECT_LE(relaxation, big_m + 1e-7 * std::max(1.0, std::abs(big_m))) << "N = " << partitions;
      EXPECT_GE(relaxation, exact - relative_tolerance(exact)) << "N = " << partitions;
      expect_solved_to(f, exact);
    }
  }
}

TEST_P(PartitionBruteForce, WarmStartIsFeasibleWithTheForwardValue) {
  DomainSampler sampler(domain_, Eigen::VectorXd::Constant(domain_.dim(), 0.5), GetParam().seed);
  for (const NeuronBounds& bounds : bounds_) {
    for (int partitions : {1, 2, 4, 100}) {
      const MipFormulation f = partition_formulation(net_, domain_, objective_, bounds, partitions);
      for (int trial = 0; trial < 30; ++trial) {
        const Eigen::VectorXd x = sampler.next();
        const std::vector<double> start = warm_start(f, net_, x);
        const double value = forward_value(x);
        EXPECT_LE(f.model.max_violation(start), 1e-9) << "N = " << partitions;
        EXPECT_NEAR(f.model.evaluate(start), value, 1e-9 * std::max(1.0, std::abs(value)));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Partition, PartitionBruteForce,
    ::testing::ValuesIn(testing::sanitizer_share<SmallCase>(
        {SmallCase{2, {6}, 1, false, false, 1}, SmallCase{5, {10}, 1, true, false, 2},
         SmallCase{6, {12}, 1, false, true, 3}, SmallCase{3, {5, 5}, 1, false, false, 4},
         SmallCase{4, {6, 6}, 1, true, true, 5}, SmallCase{4, {6, 5}, 2, false, true, 6},
         SmallCase{3, {4, 4, 4}, 1, false, false, 7}, SmallCase{5, {4, 4, 3}, 1, true, false, 8},
         SmallCase{5, {4, 4, 4}, 3, true, true, 9}})),
    testing::small_case_name);

}  // namespace
}  // namespace reluopt
