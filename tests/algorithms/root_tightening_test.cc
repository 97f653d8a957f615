// The refinement of hidden layers' bounds over a box (refine_hidden_layers, src/algorithms/root_tightening.cc)
// against brute force: with 0, 1 and 2 rounds of Anderson cuts, on random networks of 2-4 hidden layers, every
// refined bound holds the exact maximum and minimum of its pre-activation over the box (enumerated activation
// patterns of the truncated network) and is no looser than the propagation's it started from; the layers after
// the first come out narrower.
#include <gtest/gtest.h>

#include "algorithms/root_tightening.h"
#include "bounds/symbolic_bounds.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::SmallCase;

// Hidden layers 0..k-1 of `net` with hidden layer k as the output layer.
Network head(const Network& net, int k) {
  return Network(std::vector<DenseLayer>(net.layers().begin(), net.layers().begin() + k + 1));
}

class Refined : public testing::SmallProblemTest {
 protected:
  Domain box() const { return Domain::box(domain_.lower, domain_.upper); }
};

TEST_P(Refined, BoundsHoldTheExactRangeAtEveryRoundCount) {
  const Eigen::VectorXd c = objective_.sign() * objective_.weights;
  const double c0 = objective_.sign() * objective_.constant;
  const Propagation p = propagate(net_, domain_.lower, domain_.upper, c, c0, SplitState{}, nullptr);
  ASSERT_FALSE(p.empty);
  for (int rounds = 0; rounds <= 2; ++rounds) {
    NeuronBounds b = p.bounds;
    refine_hidden_layers(net_, box(), c, c0, net_.num_hidden_layers() - 1, rounds, b, Deadline());
    // The LPs see what the propagation cannot (both sides of each triangle at once; the cuts): on each of these
    // networks the layers after the first come out narrower.
    double before = 0.0, after = 0.0;
    for (int k = 1; k < net_.num_hidden_layers(); ++k) {
      before += (p.bounds.upper[k] - p.bounds.lower[k]).sum();
      after += (b.upper[k] - b.lower[k]).sum();
    }
    EXPECT_LT(after, before) << rounds << " rounds";
    for (int k = 0; k < net_.num_hidden_layers(); ++k)
      for (int i = 0; i < net_.hidden_width(k); ++i) {
        Objective h = Objective::output(net_.hidden_width(k), i);
        const double exact_max = testing::brute_force_max(head(net_, k), box(), h);
        h.weights = -h.weights;
        const double exact_min = -testing::brute_force_max(head(net_, k), box(), h);
        const double tol = 1e-12 * (1.0 + std::abs(exact_max) + std::abs(exact_min));
        EXPECT_GE(b.upper[k][i], exact_max - tol) << rounds << " rounds, layer " << k << " neuron " << i;
        EXPECT_LE(b.lower[k][i], exact_min + tol) << rounds << " rounds, layer " << k << " neuron " << i;
        EXPECT_LE(b.upper[k][i], p.bounds.upper[k][i]);
        EXPECT_GE(b.lower[k][i], p.bounds.lower[k][i]);
      }
  }
}

// A deadline already passed leaves the bounds as they were.
TEST_P(Refined, AnExpiredDeadlineChangesNothing) {
  const Eigen::VectorXd c = objective_.sign() * objective_.weights;
  const Propagation p = propagate(net_, domain_.lower, domain_.upper, c, 0.0, SplitState{}, nullptr);
  NeuronBounds b = p.bounds;
  refine_hidden_layers(net_, box(), c, 0.0, net_.num_hidden_layers() - 1, 1, b, Deadline(0.0, nullptr));
  for (int k = 0; k < net_.num_hidden_layers(); ++k) {
    EXPECT_EQ(b.upper[k], p.bounds.upper[k]);
    EXPECT_EQ(b.lower[k], p.bounds.lower[k]);
  }
}

INSTANTIATE_TEST_SUITE_P(
    SmallNetworks, Refined,
    ::testing::ValuesIn(testing::sanitizer_share<SmallCase>(
        {SmallCase{2, {5, 5}, 1, false, false, 31}, SmallCase{3, {6, 6}, 1, false, false, 32},
         SmallCase{4, {6, 5}, 2, false, true, 33}, SmallCase{3, {4, 4, 4}, 1, false, false, 34},
         SmallCase{2, {3, 3, 3, 3}, 1, false, false, 35}, SmallCase{5, {4, 4, 4}, 3, false, true, 36}})),
    testing::small_case_name);

}  // namespace
}  // namespace reluopt
