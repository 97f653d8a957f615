#include "solver/mip_solver.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <vector>

#include "solver/cbc_mip.h"

namespace reluopt {
namespace {

// max sum v_i x_i  s.t.  sum w_i x_i <= capacity, x binary. The values and weights are fixed, distinct and
// fractional, so that no objective-integrality argument closes the tree early.
struct Knapsack {
  std::vector<double> value;
  std::vector<double> weight;
  double capacity = 0.0;

  LinearModel model() const {
    LinearModel m;
    std::vector<int> index;
    for (std::size_t i = 0; i < value.size(); ++i) index.push_back(m.add_column(0.0, 1.0, value[i], true));
    m.add_row(index, weight, -kInfinity, capacity);
    return m;
  }

  // The optimum by enumeration of every subset.
  double brute_force() const {
    const int n = static_cast<int>(value.size());
    double best = 0.0;
    for (long subset = 0; subset < (1L << n); ++subset) {
      double v = 0.0, w = 0.0;
      for (int i = 0; i < n; ++i)
        if (subset >> i & 1) v += value[i], w += weight[i];
      if (w <= capacity + 1e-9) best = std::max(best, v);
    }
    return best;
  }
};

// Fourteen items with weights near their values: the LP relaxation stays loose and the tree has hundreds of
// nodes (a "weakly correlated" knapsack).
Knapsack correlated_knapsack() {
  Knapsack k;
  for (int i = 0; i < 14; ++i) {
    const double w = 10.0 + (37 * i % 23) + 0.1 * i;
    k.weight.push_back(w);
    k.value.push_back(w + 1.5 + 0.37 * (11 * i % 7));
  }
  k.capacity = 0.5 * 14 * 21.0 + 0.3;
  return k;
}

// Jeroslow's problem: max sum x_i s.t. 2 sum x_i = n, n odd, x binary. It is infeasible, and branch-and-bound
// without cuts needs exponentially many nodes to prove it: a proof by node limit or deadline is impossible.
LinearModel jeroslow(int n) {
  LinearModel m;
  std::vector<int> index;
  for (int i = 0; i < n; ++i) index.push_back(m.add_column(0.0, 1.0, 1.0 + 1e-3 * i, true));
  m.add_row(index, std::vector<double>(n, 2.0), n, n);
  return m;
}

TEST(MipSolver, SolvesAKnapsackToTheEnumeratedOptimum) {
  const Knapsack k = correlated_knapsack();
  const LinearModel model = k.model();
  const MipResult result = make_mip_solver()->solve(model, Deadline(30.0, nullptr), MipParameters{});
  const double exact = k.brute_force();
  ASSERT_EQ(result.status, MipStatus::kOptimal);
  ASSERT_TRUE(result.objective.has_value());
  EXPECT_NEAR(*result.objective, exact, 1e-9);
  ASSERT_EQ(result.values.size(), k.value.size());
  EXPECT_NEAR(model.evaluate(result.values), exact, 1e-9);
  EXPECT_LE(model.max_violation(result.values), 1e-9);
  EXPECT_GE(result.bound, exact - 1e-9);
  EXPECT_LE(result.bound, exact + 1e-6 * exact);
  EXPECT_GT(result.nodes, 5) << "the node-limit test below relies on a tree of more than 5 nodes";
}

// The correlated knapsack under `parameters` proves the enumerated optimum with another tree than by default.
void expect_same_optimum_with_another_tree(const MipParameters& parameters) {
  const Knapsack k = correlated_knapsack();
  const LinearModel model = k.model();
  const MipResult by_default = make_mip_solver()->solve(model, Deadline(30.0, nullptr), MipParameters{});
  const MipResult result = make_mip_solver()->solve(model, Deadline(30.0, nullptr), parameters);
  const double exact = k.brute_force();
  ASSERT_EQ(result.status, MipStatus::kOptimal);
  ASSERT_TRUE(result.objective.has_value());
  EXPECT_NEAR(*result.objective, exact, 1e-9);
  EXPECT_NEAR(model.evaluate(result.values), exact, 1e-9);
  EXPECT_GE(result.bound, exact - 1e-9);
  EXPECT_LE(result.bound, exact + 1e-6 * exact);
  EXPECT_NE(result.nodes, by_default.nodes);
}

// The model MIPs trust pseudo-costs after one strong branching (algorithms/model_mip.cc): the parameter reaches
// the tree (another node count) and the proof stays the enumerated optimum.
TEST(MipSolver, AReliabilityOfOneProvesTheSameOptimumWithAnotherTree) {
  MipParameters parameters;
  parameters.reliability = 1;
  expect_same_optimum_with_another_tree(parameters);
}

// The model MIPs switch to best-first search (algorithms/model_mip.cc): best-first from the start reaches the
// tree (another node count) and proves the enumerated optimum.
TEST(MipSolver, BestFirstSearchProvesTheSameOptimumWithAnotherTree) {
  MipParameters parameters;
  parameters.best_bound_after = 0;
  expect_same_optimum_with_another_tree(parameters);
}

TEST(MipSolver, ANodeLimitEndsTheTreeWithAValidBound) {
  const Knapsack k = correlated_knapsack();
  MipParameters parameters;
  parameters.node_limit = 5;
  const MipResult result = make_mip_solver()->solve(k.model(), Deadline(30.0, nullptr), parameters);
  EXPECT_LE(result.nodes, 5);
  EXPECT_NE(result.status, MipStatus::kOptimal);
  EXPECT_GE(result.bound, k.brute_force() - 1e-9);
}

TEST(MipSolver, ReportsAnInfeasibleModelOnlyWithAProof) {
  const LinearModel model = jeroslow(11);
  const MipResult proof = make_mip_solver()->solve(model, Deadline(30.0, nullptr), MipParameters{});
  EXPECT_EQ(proof.status, MipStatus::kInfeasible);
  EXPECT_FALSE(proof.objective.has_value());
  EXPECT_GT(proof.nodes, 10);
  // Ten nodes are too few for the proof: no solution, not infeasible.
  MipParameters parameters;
  parameters.node_limit = 10;
  const MipResult stopped = make_mip_solver()->solve(model, Deadline(30.0, nullptr), parameters);
  EXPECT_EQ(stopped.status, MipStatus::kNoSolution);
  EXPECT_LE(stopped.nodes, 10);
}

TEST(MipSolver, ATimeLimitHoldsOnATreeTooLargeToFinish) {
  const auto started = std::chrono::steady_clock::now();
  const MipResult result = make_mip_solver()->solve(jeroslow(41), Deadline(0.5, nullptr), MipParameters{});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(result.status, MipStatus::kNoSolution);
  EXPECT_LE(seconds, 0.5 + 5.0);
}

TEST(MipSolver, AStopRequestEndsTheSolve) {
  std::atomic<bool> stop{true};
  const MipResult result = make_mip_solver()->solve(jeroslow(41), Deadline(kInfinity, &stop), MipParameters{});
  EXPECT_EQ(result.status, MipStatus::kNoSolution);
}

TEST(MipSolver, KeepsAMipStartWhenTheTreeIsCutShort) {
  const Knapsack k = correlated_knapsack();
  const LinearModel model = k.model();
  const MipResult optimum = make_mip_solver()->solve(model, Deadline(30.0, nullptr), MipParameters{});
  ASSERT_EQ(optimum.status, MipStatus::kOptimal);
  MipParameters parameters;
  parameters.start = &optimum.values;
  parameters.node_limit = 1;
  const MipResult result = make_mip_solver()->solve(model, Deadline(30.0, nullptr), parameters);
  ASSERT_TRUE(result.objective.has_value());
  EXPECT_GE(*result.objective, *optimum.objective - 1e-9);
  EXPECT_LE(model.max_violation(result.values), 1e-9);
}

TEST(MipSolver, SolvesAModelWhoseIntegersAreAllFixed) {
  // max 3a - 2b + c + 1 with a = 1, b = 0 fixed and c <= 2 - a: the optimum is 3 + 1 + 1 = 5.
  LinearModel model;
  model.add_column(1.0, 1.0, 3.0, true);
  model.add_column(0.0, 0.0, -2.0, true);
  model.add_column(0.0, kInfinity, 1.0);
  model.set_objective_constant(1.0);
  model.add_row({0, 2}, {1.0, 1.0}, -kInfinity, 2.0);
  const MipResult result = make_mip_solver()->solve(model, Deadline(30.0, nullptr), MipParameters{});
  ASSERT_EQ(result.status, MipStatus::kOptimal);
  EXPECT_NEAR(*result.objective, 5.0, 1e-9);
  EXPECT_NEAR(result.bound, 5.0, 1e-9);
}

TEST(MipSolver, ClaimsNothingOnAnUnboundedModel) {
  LinearModel model;
  model.add_column(0.0, kInfinity, 1.0, true);
  const MipResult result = make_mip_solver()->solve(model, Deadline(30.0, nullptr), MipParameters{});
  EXPECT_NE(result.status, MipStatus::kOptimal);
  EXPECT_NE(result.status, MipStatus::kInfeasible);
  EXPECT_EQ(result.bound, kInfinity);
}

// Counts its calls and separates nothing.
class CountingSeparator : public CutSeparator {
 public:
  std::vector<LinearCut> separate(const double*) const override {
    calls.fetch_add(1);
    return {};
  }
  mutable std::atomic<int> calls{0};
};

// At the root only, the separator runs in the root's cut passes; every node, in (most of) the tree's nodes too.
TEST(MipSolver, RunsTheSeparatorAtTheRootOnlyOrEveryKNodes) {
  const Knapsack k = correlated_knapsack();
  const LinearModel model = k.model();
  std::vector<int> calls;
  for (int frequency : {kRootOnly, 1}) {
    CountingSeparator separator;
    MipParameters parameters;
    parameters.separator = &separator;
    parameters.cut_frequency = frequency;
    const MipResult result = make_mip_solver()->solve(model, Deadline(30.0, nullptr), parameters);
    ASSERT_EQ(result.status, MipStatus::kOptimal);
    EXPECT_NEAR(*result.objective, k.brute_force(), 1e-9);
    calls.push_back(separator.calls.load());
  }
  EXPECT_GE(calls[0], 1);
  EXPECT_GT(calls[1], 10 * calls[0]) << "root only: " << calls[0] << " calls; every node: " << calls[1];
}

// CBC's howOften -1 means every node (switched off when the root finds few cuts); its root only is -99.
TEST(CbcMipSolver, RootOnlyReachesCbcAsMinus99) {
  EXPECT_EQ(cbc_how_often(kRootOnly), -99);
  EXPECT_EQ(cbc_how_often(-99), -99);
  EXPECT_EQ(cbc_how_often(1), 1);
  EXPECT_EQ(cbc_how_often(100), 100);
}

}  // namespace
}  // namespace reluopt
