// Anderson et al. (2020) cuts (MATH.md §5): a hand-computed cut, validity against feasible points of the
// MIP, no cut inside the convex hull (partition formulation with one input per set), and CBC with the
// separator against brute-force enumeration.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>

#include "bounds/bounds.h"
#include "core/domain_sampler.h"
#include "formulation/anderson_cuts.h"
#include "formulation/mip_formulation.h"
#include "solver/mip_solver.h"
#include "solver/lp_solver.h"
#include "solver/mip_solver.h"
#include "test_networks.h"

namespace reluopt {
namespace {

double activity(const LinearCut& cut, const std::vector<double>& point) {
  double sum = 0.0;
  for (std::size_t e = 0; e < cut.index.size(); ++e) sum += cut.value[e] * point[cut.index[e]];
  return sum;
}

double violation(const LinearCut& cut, const std::vector<double>& point) {
  const double a = activity(cut, point);
  return std::max(cut.lower - a, a - cut.upper);
}

double relative_tolerance(double value) { return 1e-6 * std::max(1.0, std::abs(value)); }

// x1 ──( 1)──┐
//            ├──> y = relu(x1 + x2 - 1) on [0,1]^2: l = -1, u = 1, Lc = (0, 0), Uc = (1, 1).
// x2 ──( 1)──┘
// At x* = (1, 0), z* = 1/2, y* = 1/2 big-M holds (y <= u z = 1/2, y <= h - l (1 - z) = 1/2), but
// I* = {i : x*_i < 1/2} = {x2} gives y <= x2 + (b + w1 Uc1) z = x2: violated by 1/2.
TEST(Anderson, HandComputedCut) {
  DenseLayer hidden{Eigen::MatrixXd{{1.0, 1.0}}, Eigen::VectorXd{{-1.0}}};
  DenseLayer output{Eigen::MatrixXd{{1.0}}, Eigen::VectorXd{{0.0}}};
  const Network net({hidden, output});
  const Domain box = Domain::unit_box(2);
  const MipFormulation f = big_m_formulation(net, box, Objective::output(1), interval_bounds(net, box));
  const AndersonSeparator separator(f, net);
  const int y = f.post_activation[0][0], z = f.binary[0][0];
  std::vector<double> point(f.model.num_cols(), 0.0);
  point[f.input[0]] = 1.0;
  point[y] = 0.5;
  point[z] = 0.5;
  ASSERT_LE(f.model.max_violation(point), 1e-12);
  const std::vector<LinearCut> cuts = separator.separate(point.data());
  ASSERT_EQ(cuts.size(), 1u);
  // The cut is y - x2 <= 0: check it on the unit vectors of every column.
  for (int col = 0; col < f.model.num_cols(); ++col) {
    std::vector<double> unit(f.model.num_cols(), 0.0);
    unit[col] = 1.0;
    const double expected = col == y ? 1.0 : col == f.input[1] ? -1.0 : 0.0;
    EXPECT_DOUBLE_EQ(activity(cuts[0], unit), expected) << "column " << col;
  }
  EXPECT_EQ(cuts[0].upper, 0.0);
  EXPECT_NEAR(violation(cuts[0], point), 0.5, 1e-12);
  // With z* = 1 and y* = h the point is integral and feasible: nothing to cut.
  point[z] = 1.0;
  point[y] = 0.0;
  EXPECT_TRUE(separator.separate(point.data()).empty());
}

using testing::SmallCase;

class AndersonCuts : public testing::SmallProblemTest {
 protected:
  // Full MIP vectors at random points of P: feasible points every valid cut must keep.
  std::vector<std::vector<double>> feasible_points(const MipFormulation& f, int count) const {
    DomainSampler sampler(domain_, Eigen::VectorXd::Constant(domain_.dim(), 0.5), GetParam().seed);
    std::vector<std::vector<double>> points;
    for (int i = 0; i < count; ++i) points.push_back(warm_start(f, net_, sampler.next()));
    return points;
  }
};

// Separates at (a) LP-relaxation optima of big-M plus the cuts found so far, for the model's objective and
// random ones, and (b) random fractional points: convex combinations of feasible points and random vectors
// in the column bounds. Every cut must be violated where it was found and hold at every feasible point.
TEST_P(AndersonCuts, CutsAreViolatedWhereFoundAndKeepEveryFeasiblePoint) {
  std::mt19937_64 rng(GetParam().seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const NeuronBounds& bounds : bounds_) {
    const MipFormulation f = big_m_formulation(net_, domain_, objective_, bounds);
    const AndersonSeparator separator(f, net_);
    const std::vector<std::vector<double>> feasible = feasible_points(f, 200);
    std::vector<std::vector<double>> separation_points;
    const std::unique_ptr<LpSolver> lp = make_lp_solver();
    for (int direction = 0; direction < 6; ++direction) {
      LinearModel model = f.model;
      if (direction > 0)
        for (int col = 0; col < model.num_cols(); ++col) model.set_objective(col, 2.0 * unit(rng) - 1.0);
      for (int round = 0; round < 3; ++round) {
        const LpSolution solution = lp->solve(model);
        ASSERT_EQ(solution.status, LpStatus::kOptimal);
        separation_points.push_back(solution.values);
        for (const LinearCut& cut : separator.separate(solution.values.data()))
          model.add_row(cut.index, cut.value, cut.lower, cut.upper);
      }
    }
    for (int trial = 0; trial < 100; ++trial) {
      const std::vector<double>& a = feasible[trial];
      const std::vector<double>& b = feasible[feasible.size() - 1 - trial];
      const double t = unit(rng);
      std::vector<double> mix(a.size()), random(a.size());
      for (std::size_t col = 0; col < a.size(); ++col) {
        mix[col] = t * a[col] + (1.0 - t) * b[col];
        random[col] = f.model.col_lower()[col] + unit(rng) * (f.model.col_upper()[col] - f.model.col_lower()[col]);
      }
      separation_points.push_back(mix);
      separation_points.push_back(random);
    }
    int cuts_found = 0;
    for (const std::vector<double>& point : separation_points) {
      for (const LinearCut& cut : separator.separate(point.data())) {
        ++cuts_found;
        EXPECT_GT(violation(cut, point), 1e-6);
        for (const std::vector<double>& x : feasible) ASSERT_LE(violation(cut, x), 1e-7);
      }
    }
    EXPECT_GT(cuts_found, 0);
  }
}

// The big-M LP optimum violates some inequality; adding the separated cuts lowers the relaxation, never
// below the true maximum.
TEST_P(AndersonCuts, CuttingPlanesTightenTheBigMRelaxation) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  const MipFormulation f = big_m_formulation(net_, domain_, objective_, bounds_.front());
  const AndersonSeparator separator(f, net_);
  LinearModel model = f.model;
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  LpSolution solution = lp->solve(model);
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  const double big_m = solution.objective;
  const std::vector<LinearCut> first = separator.separate(solution.values.data());
  ASSERT_FALSE(first.empty());
  for (int round = 0; round < 10; ++round) {
    const std::vector<LinearCut> cuts = separator.separate(solution.values.data());
    if (cuts.empty()) break;
    for (const LinearCut& cut : cuts) model.add_row(cut.index, cut.value, cut.lower, cut.upper);
    solution = lp->solve(model);
    ASSERT_EQ(solution.status, LpStatus::kOptimal);
    EXPECT_GE(solution.objective, exact - relative_tolerance(exact));
  }
  EXPECT_LT(solution.objective, big_m - 1e-6);
}

// With one input per set the partition formulation is the convex hull of every neuron over its input bounds
// (Tsay et al.), where the whole Anderson family holds: its LP optima must leave nothing to separate.
TEST_P(AndersonCuts, NothingToSeparateInTheConvexHull) {
  for (const NeuronBounds& bounds : bounds_) {
    const MipFormulation hull = partition_formulation(net_, domain_, objective_, bounds, net_.input_dim() + 20);
    const AndersonSeparator separator(hull, net_);
    const std::unique_ptr<LpSolver> lp = make_lp_solver();
    const LpSolution solution = lp->solve(hull.model);
    ASSERT_EQ(solution.status, LpStatus::kOptimal);
    EXPECT_TRUE(separator.separate(solution.values.data()).empty());
  }
}

TEST_P(AndersonCuts, CbcWithCutsReachesTheEnumeratedMaximum) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);
  for (const NeuronBounds& bounds : bounds_) {
    const MipFormulation f = big_m_formulation(net_, domain_, objective_, bounds);
    const AndersonSeparator separator(f, net_);
    for (int frequency : {kRootOnly, 1}) {  // root only, then every node
      MipParameters options;
      options.separator = &separator;
      options.cut_frequency = frequency;
      const MipResult solution = make_mip_solver()->solve(f.model, Deadline(30.0, nullptr), options);
      ASSERT_EQ(solution.status, MipStatus::kOptimal) << "cut frequency " << frequency;
      EXPECT_NEAR(*solution.objective, exact, relative_tolerance(exact)) << "cut frequency " << frequency;
      EXPECT_LE(f.model.max_violation(solution.values), 1e-6);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Anderson, AndersonCuts,
    ::testing::ValuesIn(testing::sanitizer_share<SmallCase>(
        {SmallCase{3, {8}, 1, false, false, 1}, SmallCase{5, {12}, 1, true, false, 2},
         SmallCase{4, {10}, 1, false, true, 3}, SmallCase{3, {6, 6}, 1, false, false, 4},
         SmallCase{4, {6, 5}, 2, true, true, 5}, SmallCase{3, {4, 4, 4}, 1, false, false, 6},
         SmallCase{5, {4, 4, 3}, 1, true, true, 7}})),
    testing::small_case_name);

}  // namespace
}  // namespace reluopt
