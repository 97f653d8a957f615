// LpSolver::solve_from and carry_basis (solver/carry_basis.h): a branch-and-bound's node LPs started from the
// parent's basis reach the optimum and the safe bound of a fresh solve, whatever the start.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "bounds/bounds.h"
#include "formulation/anderson_cuts.h"
#include "formulation/mip_formulation.h"
#include "solver/carry_basis.h"
#include "solver/lp_solver.h"
#include "test_networks.h"

namespace reluopt {
namespace {

// The warm solve agrees with the fresh one: same status, same optimum (to the solvers' tolerance), and a bound
// that is at least the fresh LP's optimum (valid) and close to it.
void expect_same_lp(const LpSolution& warm, const LpSolution& fresh) {
  ASSERT_EQ(warm.status, fresh.status);
  if (fresh.status != LpStatus::kOptimal) return;
  const double tol = 1e-6 * (1.0 + std::abs(fresh.objective));
  EXPECT_NEAR(warm.objective, fresh.objective, tol);
  EXPECT_GE(warm.bound, fresh.objective - 1e-9 * (1.0 + std::abs(fresh.objective)));
  EXPECT_LE(warm.bound, fresh.objective + tol);
  EXPECT_EQ(warm.basis.cols.size(), warm.values.size());
}

// A path down a branch-and-bound tree on random 4 -> 8 -> 8 -> 1 networks: at each node one unstable neuron is
// fixed (its bounds moved to one side of 0, which removes its binary and big-M rows), the box is halved on one
// coordinate and a round of Anderson cuts is added, so that the child's model has other columns, rows and
// coefficients than its parent's. Each LP is solved fresh and from the carried basis.
TEST(WarmStart, NodeLpsFromTheParentsBasisMatchFreshSolves) {
  int warm_solves = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const Network net = testing::random_network(4, {8, 8}, 1, seed);
    Domain box = Domain::unit_box(4);
    NeuronBounds bounds = interval_bounds(net, box);
    std::mt19937_64 rng(seed);
    std::shared_ptr<const KeyedBasis> parent;
    const std::unique_ptr<LpSolver> warm_lp = make_lp_solver(), fresh_lp = make_lp_solver();
    for (int depth = 0; depth < 8; ++depth) {
      MipFormulation f = big_m_formulation(net, box, Objective::output(1), bounds);
      const LpSolution fresh = fresh_lp->solve(f.model);
      const LpSolution warm = parent ? warm_lp->solve_from(f.model, carry_basis(*parent, f.model)) : fresh;
      expect_same_lp(warm, fresh);
      warm_solves += parent ? 1 : 0;
      if (fresh.status != LpStatus::kOptimal) break;
      // A round of cuts, from the node's own basis with the cuts' slacks basic.
      const std::vector<LinearCut> cuts = AndersonSeparator(f, net, 1e-6).separate(fresh.values.data());
      for (const LinearCut& cut : cuts) f.model.add_row(cut.index, cut.value, cut.lower, cut.upper, "cut");
      LpBasis start = warm.basis;
      start.rows.resize(static_cast<std::size_t>(f.model.num_rows()), BasisStatus::kBasic);
      const LpSolution with_cuts = warm_lp->solve_from(f.model, start);
      expect_same_lp(with_cuts, fresh_lp->solve(f.model));
      ++warm_solves;
      if (with_cuts.status != LpStatus::kOptimal) break;
      parent = std::make_shared<const KeyedBasis>(keyed_basis(f.model, with_cuts.basis));
      // The child: one unstable neuron fixed, the box halved on one coordinate.
      std::vector<std::pair<int, int>> unstable;
      for (int k = 0; k < 2; ++k)
        for (int j = 0; j < 8; ++j)
          if (!bounds.is_stable(k, j)) unstable.emplace_back(k, j);
      if (unstable.empty()) break;
      const auto [k, j] = unstable[rng() % unstable.size()];
      (rng() % 2 ? bounds.upper[k][j] : bounds.lower[k][j]) = 0.0;
      const int i = static_cast<int>(rng() % 4);
      const double mid = 0.5 * (box.lower[i] + box.upper[i]);
      (rng() % 2 ? box.upper[i] : box.lower[i]) = mid;
    }
  }
  EXPECT_GE(warm_solves, 60);
}

TEST(WarmStart, AnyStartGivesTheFreshAnswer) {
  const Network net = testing::random_network(3, {6}, 1, 7);
  const Domain box = Domain::unit_box(3);
  const MipFormulation f = big_m_formulation(net, box, Objective::output(1), interval_bounds(net, box));
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  const LpSolution fresh = lp->solve(f.model);
  ASSERT_EQ(fresh.status, LpStatus::kOptimal);
  const std::size_t cols = f.model.num_cols(), rows = f.model.num_rows();
  // Every variable basic (too many), none basic (too few), and a basis of the wrong size.
  const std::vector<LpBasis> starts = {
      LpBasis{std::vector<BasisStatus>(cols, BasisStatus::kBasic), std::vector<BasisStatus>(rows, BasisStatus::kBasic)},
      LpBasis{std::vector<BasisStatus>(cols, BasisStatus::kAtUpper),
              std::vector<BasisStatus>(rows, BasisStatus::kAtLower)},
      LpBasis{std::vector<BasisStatus>(cols + 1, BasisStatus::kBasic), std::vector<BasisStatus>(rows)}};
  for (const LpBasis& start : starts) expect_same_lp(lp->solve_from(f.model, start), fresh);
  // Its own optimal basis: no iteration needed.
  const LpSolution again = lp->solve_from(f.model, fresh.basis);
  expect_same_lp(again, fresh);
  EXPECT_EQ(again.iterations, 0);
}

}  // namespace
}  // namespace reluopt
