#include "solver/dense_dual_simplex.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "core/domain_sampler.h"
#include "formulation/pattern_lp.h"
#include "solver/clp_lp.h"
#include "solver/dense_first_lp.h"
#include "test_networks.h"

namespace reluopt {
namespace {

// max x + y  s.t.  x + 2 y <= 2,  0 <= x, y <= 1: the optimum is (1, 0.5), value 1.5.
LinearModel two_by_two() {
  LinearModel model;
  model.add_column(0.0, 1.0, 1.0);
  model.add_column(0.0, 1.0, 1.0);
  model.add_row({0, 1}, {1.0, 2.0}, -kInfinity, 2.0);
  return model;
}

TEST(DenseDualSimplex, SolvesASmallLpByHand) {
  DenseDualSimplex dense;
  const LpSolution solution = dense.solve(two_by_two());
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 1.5, 1e-12);
  EXPECT_NEAR(solution.values[0], 1.0, 1e-12);
  EXPECT_NEAR(solution.values[1], 0.5, 1e-12);
}

TEST(DenseDualSimplex, EqualityAndTwoSidedRowsAndAConstant) {
  // max x - y + 3  s.t.  x + y = 1,  0.2 <= x - y <= 0.6,  x, y in [0, 1]: x - y = 0.6 at (0.8, 0.2).
  LinearModel model;
  model.add_column(0.0, 1.0, 1.0);
  model.add_column(0.0, 1.0, -1.0);
  model.set_objective_constant(3.0);
  model.add_row({0, 1}, {1.0, 1.0}, 1.0, 1.0);
  model.add_row({0, 1}, {1.0, -1.0}, 0.2, 0.6);
  model.add_row({0, 1}, {1.0, 1.0}, -kInfinity, kInfinity);  // no finite side: ignored
  DenseDualSimplex dense;
  const LpSolution solution = dense.solve(model);
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 3.6, 1e-12);
  EXPECT_NEAR(solution.values[0], 0.8, 1e-12);
  EXPECT_NEAR(solution.values[1], 0.2, 1e-12);
}

TEST(DenseDualSimplex, ReportsAnInfeasibleLp) {
  LinearModel model = two_by_two();
  model.add_row({0, 1}, {1.0, 1.0}, 3.0, kInfinity);  // x + y >= 3 on [0, 1]^2
  DenseDualSimplex dense;
  EXPECT_EQ(dense.solve(model).status, LpStatus::kInfeasible);
}

// max x + y with y <= 5 only through a row: y's column is free, which the dense method declines.
LinearModel free_column_lp() {
  LinearModel model;
  model.add_column(0.0, 1.0, 1.0);
  model.add_column(-kInfinity, kInfinity, 1.0);
  model.add_row({1}, {1.0}, -kInfinity, 5.0);
  return model;
}

TEST(DenseDualSimplex, DeclinesAnUnboundedColumnAndDenseFirstFallsBackToClp) {
  const LinearModel model = free_column_lp();
  DenseDualSimplex dense;
  EXPECT_EQ(dense.solve(model).status, LpStatus::kError);
  DenseFirstLp lp;
  const LpSolution solution = lp.solve(model);
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 6.0, 1e-9);
  EXPECT_EQ(lp.fallbacks(), 1);
}

TEST(DenseDualSimplex, DenseFirstGivesClpOnlyTheTimeTheDenseAttemptLeft) {
  // The dense method declines the free column at once; with no time left CLP does not start.
  DenseFirstLp lp;
  EXPECT_EQ(lp.solve(free_column_lp(), 0.0).status, LpStatus::kTimeLimit);
  EXPECT_EQ(lp.fallbacks(), 1);
}

// A stop request ends a solve at its next pivot, and DenseFirstLp then hands nothing to CLP; cleared, the same
// objects solve again.
TEST(DenseDualSimplex, StopsOnTheStopRequest) {
  std::atomic<bool> stop{true};
  DenseDualSimplex dense;
  dense.set_stop_request(&stop);
  EXPECT_EQ(dense.solve(two_by_two()).status, LpStatus::kTimeLimit);
  DenseFirstLp lp;
  lp.set_stop_request(&stop);
  EXPECT_EQ(lp.solve(two_by_two()).status, LpStatus::kTimeLimit);
  EXPECT_EQ(lp.fallbacks(), 0);
  stop = false;
  EXPECT_EQ(dense.solve(two_by_two()).status, LpStatus::kOptimal);
  EXPECT_EQ(lp.solve(two_by_two()).status, LpStatus::kOptimal);
}

TEST(DenseDualSimplex, DegenerateRowsAndAZeroObjective) {
  LinearModel model = two_by_two();
  for (int k = 0; k < 5; ++k) model.add_row({0, 1}, {1.0, 2.0}, -kInfinity, 2.0);  // the same row again
  model.add_row({0, 1}, {2.0, 4.0}, -kInfinity, 4.0);                              // and scaled
  DenseDualSimplex dense;
  const LpSolution solution = dense.solve(model);
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 1.5, 1e-12);
  LinearModel flat = two_by_two();
  flat.set_objective(0, 0.0);
  flat.set_objective(1, 0.0);
  const LpSolution any = dense.solve(flat);
  ASSERT_EQ(any.status, LpStatus::kOptimal);
  EXPECT_LE(flat.max_violation(any.values), 1e-9);
}

struct DenseCase {
  int dim;
  std::vector<int> hidden;
  bool polytope;
  bool minimize;
};

class DenseAgreesWithClp : public ::testing::TestWithParam<DenseCase> {};

// The fixed-pattern LPs of sampled regions: the dense method's optimum equals CLP's, and its point is feasible.
TEST_P(DenseAgreesWithClp, OnSampledRegions) {
  const DenseCase& c = GetParam();
  const Network network = testing::random_network(c.dim, c.hidden, 2, 7 + c.dim);
  const Domain domain = c.polytope ? testing::random_polytope(c.dim, 2 * c.dim, 11) : Domain::unit_box(c.dim);
  Objective objective = Objective::output(2);
  objective.weights = Eigen::Vector2d(1.0, -0.5);
  if (c.minimize) objective.sense = Sense::kMinimize;
  DomainSampler sampler(domain, Eigen::VectorXd::Constant(c.dim, 0.5), 3);
  DenseDualSimplex dense;
  ClpLp clp;
  for (int i = 0; i < 25; ++i) {
    const LinearModel model =
        pattern_lp(network, domain, objective, network.activation_pattern(sampler.next()), nullptr);
    const LpSolution expected = clp.solve(model);
    const LpSolution solution = dense.solve(model);
    ASSERT_EQ(expected.status, LpStatus::kOptimal);
    ASSERT_EQ(solution.status, LpStatus::kOptimal) << "sample " << i;
    EXPECT_NEAR(solution.objective, expected.objective, 1e-6 * (1.0 + std::abs(expected.objective)))
        << "sample " << i;
    EXPECT_LE(model.max_violation(solution.values), 1e-7) << "sample " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Regions, DenseAgreesWithClp,
                         ::testing::Values(DenseCase{2, {8}, false, false}, DenseCase{5, {12, 12}, true, false},
                                           DenseCase{10, {30, 30}, false, true},
                                           DenseCase{10, {20, 20, 20}, true, false},
                                           DenseCase{40, {50}, true, true}, DenseCase{60, {40, 40}, false, false}),
                         [](const ::testing::TestParamInfo<DenseCase>& info) {
                           const DenseCase& c = info.param;
                           return "d" + std::to_string(c.dim) + "_" + testing::hidden_name(c.hidden) +
                                  (c.polytope ? "_polytope" : "_box") + (c.minimize ? "_min" : "_max");
                         });

}  // namespace
}  // namespace reluopt
