// Optimized bounds under splits (src/bounds/optimized_bounds.cc) against brute force: after every number of
// projected gradient steps from 0 to 12, with and without splits, the certified bound is at least the exact
// maximum over the box under the splits, on random networks of 1-4 hidden layers; the same for the optimized
// pre-activation bounds of every layer (optimize_neuron_bounds).
#include <gtest/gtest.h>

#include <random>

#include "bounds/optimized_bounds.h"
#include "bounds/symbolic_bounds.h"
#include "core/domain_sampler.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::SmallCase;

class Optimized : public testing::SmallProblemTest {
 protected:
  // No splits, then the splits of sampled points' patterns on random subsets of the neurons (never empty).
  std::vector<SplitState> split_states(int count) const {
    std::mt19937_64 rng(GetParam().seed + 11);
    const Domain whole = box();  // the sampler keeps a reference
    DomainSampler sampler(whole, 0.5 * (domain_.lower + domain_.upper), GetParam().seed + 3);
    std::vector<SplitState> states{SplitState{}};
    for (int s = 0; s < count; ++s) {
      const ActivationPattern pattern = net_.activation_pattern(sampler.next());
      SplitState splits;
      for (int k = 0; k < net_.num_hidden_layers(); ++k) {
        splits.emplace_back(net_.hidden_width(k), Split::kFree);
        for (int j = 0; j < net_.hidden_width(k); ++j)
          if (rng() % 2) splits[k][j] = pattern.active[k][j] ? Split::kActive : Split::kInactive;
      }
      states.push_back(std::move(splits));
    }
    return states;
  }
  Domain box() const { return Domain::box(domain_.lower, domain_.upper); }
  Eigen::VectorXd c() const { return objective_.sign() * objective_.weights; }
  double c0() const { return objective_.sign() * objective_.constant; }
};

TEST_P(Optimized, EveryIterationCountGivesAValidBound) {
  for (const SplitState& splits : split_states(2)) {
    const double exact = testing::brute_force_max_where(net_, box(), objective_, splits);
    const Propagation p = propagate(net_, domain_.lower, domain_.upper, c(), c0(), splits, nullptr);
    ASSERT_FALSE(p.empty);
    const OptimizedNode node{&domain_.lower, &domain_.upper, &p.bounds, &splits, nullptr};
    double first = kInfinity;
    for (int iterations = 0; iterations <= 12; ++iterations) {
      const OptimizedBound b = optimized_bounds(net_, c(), c0(), {node}, {.iterations = iterations}).front();
      EXPECT_GE(b.upper, exact) << iterations << " iterations, " << splits.size() << " split layers";
      if (iterations == 0) first = b.upper;
      EXPECT_LE(b.upper, first + 1e-9 * (1.0 + std::abs(first))) << "the best parameters are kept";
      // The parameters stay in range, and starting from them is valid too.
      for (std::size_t j = 0; j < b.multipliers.alpha.size(); ++j) {
        EXPECT_GE(b.multipliers.alpha[j].minCoeff(), 0.0);
        EXPECT_LE(b.multipliers.alpha[j].maxCoeff(), 1.0);
        EXPECT_GE(b.multipliers.beta[j].minCoeff(), 0.0);
      }
      const OptimizedNode warm{&domain_.lower, &domain_.upper, &p.bounds, &splits, &b.multipliers};
      EXPECT_GE(optimized_bounds(net_, c(), c0(), {warm}, {.iterations = 3}).front().upper, exact);
    }
  }
}

// A batch of nodes gives each node the bound it gets alone; the batch (12 rows) takes the matrix products, a
// single node the products row by row.
TEST_P(Optimized, BatchMatchesSingleNodes) {
  const std::vector<SplitState> states = split_states(3);
  std::vector<Propagation> props;
  for (const SplitState& splits : states)
    props.push_back(propagate(net_, domain_.lower, domain_.upper, c(), c0(), splits, nullptr));
  std::vector<OptimizedNode> nodes;
  for (int copy = 0; copy < 3; ++copy)
    for (std::size_t s = 0; s < states.size(); ++s)
      nodes.push_back({&domain_.lower, &domain_.upper, &props[s].bounds, &states[s], nullptr});
  const std::vector<OptimizedBound> together = optimized_bounds(net_, c(), c0(), nodes, {.iterations = 8});
  ASSERT_EQ(together.size(), nodes.size());
  for (std::size_t s = 0; s < nodes.size(); ++s) {
    const double alone = optimized_bounds(net_, c(), c0(), {nodes[s]}, {.iterations = 8}).front().upper;
    EXPECT_NEAR(together[s].upper, alone, 1e-9 * (1.0 + std::abs(alone)));
  }
}

// The network up to hidden layer k, whose pre-activations become the outputs.
Network truncated(const Network& net, int k) {
  std::vector<DenseLayer> layers(net.layers().begin(), net.layers().begin() + k + 1);
  layers.back().linear.clear();
  return Network(std::move(layers));
}

// The optimized neuron bounds hold against brute force after every number of steps from 0 to 8, with and without
// splits: u_k[i] of a neuron not split is at least the exact maximum of h_k[i] over the box under the splits of
// layers < k (a superset of the node's points, so the check is stricter than validity), l_k[i] at most the minimum;
// and they are never looser than the bounds they start from.
TEST_P(Optimized, NeuronBoundsHoldAtEveryIterationCount) {
  if (net_.num_hidden_layers() < 2) GTEST_SKIP() << "one hidden layer: nothing to optimize";
  for (const SplitState& splits : split_states(2)) {
    const Propagation p = propagate(net_, domain_.lower, domain_.upper, c(), c0(), splits, nullptr);
    ASSERT_FALSE(p.empty);
    std::vector<Eigen::VectorXd> exact_max, exact_min;  // per layer, over the truncated network
    for (int k = 0; k < net_.num_hidden_layers(); ++k) {
      const Network head = truncated(net_, k);
      const SplitState below = splits.empty() ? SplitState{} : SplitState(splits.begin(), splits.begin() + k);
      exact_max.emplace_back(net_.hidden_width(k));
      exact_min.emplace_back(net_.hidden_width(k));
      for (int i = 0; i < net_.hidden_width(k); ++i) {
        Objective h = Objective::output(net_.hidden_width(k), i);
        exact_max.back()[i] = testing::brute_force_max_where(head, box(), h, below);
        h.weights = -h.weights;
        exact_min.back()[i] = -testing::brute_force_max_where(head, box(), h, below);
      }
    }
    for (int iterations = 0; iterations <= 8; ++iterations) {
      NeuronBounds b = p.bounds;
      const OptimizedNode node{&domain_.lower, &domain_.upper, nullptr, &splits, nullptr};
      ASSERT_FALSE(optimize_neuron_bounds(net_, node, b, {.iterations = iterations}));
      for (int k = 0; k < net_.num_hidden_layers(); ++k)
        for (int i = 0; i < net_.hidden_width(k); ++i) {
          if (!splits.empty() && splits[k][i] != Split::kFree) {  // clamped by its own split, and left as it is
            EXPECT_EQ(b.upper[k][i], p.bounds.upper[k][i]);
            EXPECT_EQ(b.lower[k][i], p.bounds.lower[k][i]);
            continue;
          }
          const double tol = 1e-12 * (1.0 + std::abs(exact_max[k][i]) + std::abs(exact_min[k][i]));
          EXPECT_GE(b.upper[k][i], exact_max[k][i] - tol) << iterations << " steps, layer " << k << " neuron " << i;
          EXPECT_LE(b.lower[k][i], exact_min[k][i] + tol) << iterations << " steps, layer " << k << " neuron " << i;
          EXPECT_LE(b.upper[k][i], p.bounds.upper[k][i]);
          EXPECT_GE(b.lower[k][i], p.bounds.lower[k][i]);
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    SmallNetworks, Optimized,
    ::testing::ValuesIn(testing::sanitizer_share<SmallCase>(
        {SmallCase{2, {6}, 1, false, false, 21}, SmallCase{3, {10}, 1, false, false, 22},
         SmallCase{2, {5, 5}, 1, false, false, 24}, SmallCase{3, {6, 6}, 1, true, false, 25},
         SmallCase{4, {6, 5}, 2, false, true, 26}, SmallCase{3, {4, 4, 4}, 1, false, false, 27},
         SmallCase{2, {3, 3, 3, 3}, 1, true, false, 28}, SmallCase{5, {4, 4, 4}, 3, true, true, 29}})),
    testing::small_case_name);

}  // namespace
}  // namespace reluopt
