#include "solver/lp_solver.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "solver/clp_lp.h"

namespace reluopt {
namespace {

// max 2x + y + 0.5  s.t.  x + y <= 3,  x - y <= 1,  0 <= x, y <= 2.5.
// The two rows meet at (2, 1), value 5.5; the other vertices, (0, 0), (1, 0), (0.5, 2.5) and (0, 2.5), give at
// most 4. The duals 1.5 and 0.5 (2 = y1 + y2, 1 = y1 - y2) prove it: 1.5 * 3 + 0.5 * 1 + 0.5 = 5.5.
LinearModel tiny_lp() {
  LinearModel model;
  model.add_column(0.0, 2.5, 2.0);
  model.add_column(0.0, 2.5, 1.0);
  model.set_objective_constant(0.5);
  model.add_row({0, 1}, {1.0, 1.0}, -kInfinity, 3.0);
  model.add_row({0, 1}, {1.0, -1.0}, -kInfinity, 1.0);
  return model;
}

TEST(LpSolver, SolvesATinyLpToItsOptimumWithASafeBound) {
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  const LpSolution solution = lp->solve(tiny_lp());
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 5.5, 1e-9);
  ASSERT_EQ(solution.values.size(), 2u);
  EXPECT_NEAR(solution.values[0], 2.0, 1e-9);
  EXPECT_NEAR(solution.values[1], 1.0, 1e-9);
  EXPECT_GE(solution.bound, 5.5);
  EXPECT_LE(solution.bound, 5.5 + 1e-9);
}

TEST(LpSolver, ReportsAnInfeasibleLp) {
  LinearModel model = tiny_lp();
  model.add_row({0, 1}, {1.0, 1.0}, 5.5, kInfinity);  // x + y >= 5.5 against x + y <= 3
  EXPECT_EQ(make_lp_solver()->solve(model).status, LpStatus::kInfeasible);
}

TEST(LpSolver, KeptModelMaximizesEachObjectiveFromEitherStart) {
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  lp->load(tiny_lp());
  for (LpStart start : {LpStart::kSlackDual, LpStart::kWarmPrimal}) {
    const LpBound first = lp->maximize({2.0, 1.0}, 0.5, start);
    ASSERT_EQ(first.status, LpStatus::kOptimal);
    EXPECT_NEAR(first.objective, 5.5, 1e-9);
    EXPECT_GE(first.bound, 5.5);
    EXPECT_LE(first.bound, 5.5 + 1e-9);
    // min y (max -y) is 0, at (0, 0) or (1, 0).
    const LpBound second = lp->maximize({0.0, -1.0}, 0.0, start);
    ASSERT_EQ(second.status, LpStatus::kOptimal);
    EXPECT_NEAR(second.objective, 0.0, 1e-9);
    EXPECT_GE(second.bound, 0.0);
    EXPECT_LE(second.bound, 1e-9);
  }
}

TEST(WarmLpSolver, ResolvesAfterBoundChangesAndFromASavedBasis) {
  const std::unique_ptr<WarmLpSolver> lp = make_warm_lp_solver(tiny_lp());
  LpSolution solution = lp->solve();
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 5.5, 1e-9);
  lp->save_basis();
  // x <= 1: the optimum moves to (1, 2) on x + y <= 3, value 2 + 2 + 0.5.
  lp->set_col_bounds(0, 0.0, 1.0);
  solution = lp->solve();
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 4.5, 1e-9);
  EXPECT_NEAR(solution.values[0], 1.0, 1e-9);
  EXPECT_NEAR(solution.values[1], 2.0, 1e-9);
  // x >= 2.5 and x - y <= 1 need y >= 1.5, which x + y <= 3 forbids.
  lp->set_col_bounds(0, 2.5, 2.5);
  EXPECT_EQ(lp->solve().status, LpStatus::kInfeasible);
  lp->set_col_bounds(0, 0.0, 2.5);
  lp->restore_basis();
  solution = lp->solve();
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 5.5, 1e-9);
}

// max sum x over [0, 1]^n with `rows` random rows a x <= 1 (a >= 0): many pivots from the slack basis.
LinearModel dense_random_lp(int rows, int cols) {
  LinearModel model;
  for (int c = 0; c < cols; ++c) model.add_column(0.0, 1.0, 1.0);
  std::uint64_t state = 12345;
  for (int r = 0; r < rows; ++r) {
    std::vector<int> index(cols);
    std::vector<double> value(cols);
    for (int c = 0; c < cols; ++c) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      index[c] = c;
      value[c] = static_cast<double>(state >> 11) / 9007199254740992.0 * 0.1;
    }
    model.add_row(index, value, -kInfinity, 1.0);
  }
  return model;
}

TEST(LpSolver, ClpStopsAtTheIterationItsTimeLimitPasses) {
  const LinearModel model = dense_random_lp(150, 100);
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  const LpSolution whole = lp->solve(model);
  ASSERT_EQ(whole.status, LpStatus::kOptimal);
  ASSERT_GT(whole.iterations, 3);
  // A limit already past ends the solve after its first iteration, not at CLP's next refactorization.
  const LpSolution cut = lp->solve(model, 0.0);
  EXPECT_NE(cut.status, LpStatus::kOptimal);
  EXPECT_LE(cut.iterations, 1);
  lp->load(model);
  std::vector<double> objective(100, 1.0);
  const LpBound bound = lp->maximize(objective, 0.0, LpStart::kSlackDual, 0.0);
  EXPECT_NE(bound.status, LpStatus::kOptimal);
  EXPECT_LE(bound.iterations, 1);
}

TEST(LpSolver, ClpDeclinesAModelWhoseSetupWouldEndPastItsLimit) {
  // CLP sets a model up without looking at any limit (a 25 M-nonzero region LP: seconds), so a model whose
  // estimated setup is longer than the limit is not started.
  const LinearModel model = dense_random_lp(150, 100);
  const double setup = ClpLp::setup_seconds(model);
  ASSERT_GT(setup, 0.0);
  EXPECT_GT(ClpLp::setup_seconds(dense_random_lp(300, 100)), setup);
  ClpLp lp;
  const LpSolution declined = lp.solve(model, 0.5 * setup);
  EXPECT_EQ(declined.status, LpStatus::kTimeLimit);
  EXPECT_EQ(declined.iterations, 0);
  EXPECT_TRUE(declined.values.empty());
  EXPECT_EQ(lp.solve(model).status, LpStatus::kOptimal);
}

}  // namespace
}  // namespace reluopt
