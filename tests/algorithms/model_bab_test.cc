// The branch-and-bound prover on models with integer variables and constraints on network outputs
// (reluopt/solve.h) against the brute-force oracle (algorithms/model_brute_force.h): `optimal` is the oracle's
// optimum, `infeasible` only when the oracle finds no point, every reported point passes evaluate(), and the
// bound never cuts off the oracle's optimum, whatever the node limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>

#include "algorithms/model_brute_force.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::make_constraint;
using R = Reference;

std::shared_ptr<const Network> shared(Network network) { return std::make_shared<const Network>(std::move(network)); }

// x = (x0 integer in [-2, 2], x1 in [-1, 1]), z integer in [0, 2]; f(x0, x1) and g(x1, z) of another depth. A limit
// on g (with an x0 term), a floor on f, a row on variables and the objective are drawn from `seed`; a fourth of
// the seeds put the limit on g below its smallest value at a few points: many of those are infeasible.
Model random_model(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coefficient(-1.0, 1.0);
  Model m;
  m.variables = {{"x", Eigen::Vector2d(-2.0, -1.0), Eigen::Vector2d(2.0, 1.0), {true, false}},
                 {"z", Eigen::VectorXd::Constant(1, 0.0), Eigen::VectorXd::Constant(1, 2.0), {true}}};
  m.networks = {{"f", shared(testing::random_network(2, {3, 2}, 1, seed)), {0, 1}, ""},
                {"g", shared(testing::random_network(2, {3}, 1, seed + 1000)), {1, 2}, ""}};
  const Network& g = *m.networks[1].network;
  double at_points = g.forward(Eigen::Vector2d(coefficient(rng), 2.0 * std::abs(coefficient(rng))))[0];
  if (seed % 4 == 0)
    for (double x1 : {-1.0, 0.0, 1.0})
      for (double z : {0.0, 1.0, 2.0}) at_points = std::min(at_points, g.forward(Eigen::Vector2d(x1, z))[0]);
  const double limit = at_points + (seed % 4 == 0 ? -0.2 : 0.3 * coefficient(rng));
  const double floor = m.networks[0].network->forward(Eigen::Vector2d(coefficient(rng), coefficient(rng)))[0] -
                       0.5 * std::abs(coefficient(rng));
  m.constraints = {
      make_constraint({{R::output(1, 0), 1.0}, {R::variable(0, 0), 0.1 * coefficient(rng)}},
                      ConstraintSense::kLessEqual, limit),
      make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kGreaterEqual, floor),
      make_constraint({{R::variable(0, 1), 1.0}, {R::variable(1, 0), 1.0}}, ConstraintSense::kLessEqual, 2.5)};
  m.objective = {{{R::output(0, 0), 1.0}, {R::output(1, 0), 0.5 * coefficient(rng)},
                  {R::variable(0, 0), 0.2 * coefficient(rng)}},
                 coefficient(rng)};
  m.sense = seed % 2 == 0 ? Sense::kMaximize : Sense::kMinimize;
  return m;
}

ModelResult run(const Model& m, int threads, long node_limit = 0, bool check_proof = false) {
  SolveOptions options;
  options.method = Method::kBab;
  options.threads = threads;
  options.seed = 5;
  options.bab.node_limit = node_limit;
  options.check_proof = check_proof;
  RunControl control;
  control.time_limit = 30.0;
  return solve(m, options, control);
}

// The oracle's answer for a seed of random_model, computed once for both thread counts.
const testing::ModelOptimum& exact_optimum(std::uint64_t seed) {
  static std::map<std::uint64_t, testing::ModelOptimum> known;
  if (!known.count(seed)) known[seed] = testing::brute_force_model(random_model(seed));
  return known.at(seed);
}

double sign(const Model& m) { return m.sense == Sense::kMaximize ? 1.0 : -1.0; }

// A reported point is the model's: evaluate() finds it feasible and gives the reported objective.
void expect_feasible_point(const Model& m, const ModelResult& got) {
  ASSERT_TRUE(got.point.has_value());
  const ModelPoint check = evaluate(m, got.point->v);
  EXPECT_LE(check.max_violation, model_tolerance(m));
  EXPECT_EQ(check.objective, got.result.objective);
  for (double integral : {got.point->v[0], got.point->v[2]}) EXPECT_EQ(integral, std::round(integral));
}

// Seeds of random_model: six feasible, two infeasible (4 and 12).
constexpr std::uint64_t kSeeds[] = {1, 2, 3, 4, 5, 6, 7, 12};

class ModelBab : public ::testing::TestWithParam<int> {};

TEST_P(ModelBab, ProvesTheOraclesOptimumOrInfeasibility) {
  int feasible = 0, infeasible = 0;
  for (std::uint64_t seed : kSeeds) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Model m = random_model(seed);
    const testing::ModelOptimum& exact = exact_optimum(seed);
    const ModelResult got = run(m, GetParam());
    (exact.feasible ? feasible : infeasible) += 1;
    testing::expect_oracles_answer(m, exact, got);
    if (got.point) expect_feasible_point(m, got);  // the integer variables exactly integral
  }
  EXPECT_EQ(feasible, 6);
  EXPECT_EQ(infeasible, 2);
}

TEST_P(ModelBab, TheBoundHoldsAtEveryNodeLimit) {
  for (std::uint64_t seed : {2, 3, 6}) {
    const Model m = random_model(seed);
    const testing::ModelOptimum& exact = exact_optimum(seed);
    ASSERT_TRUE(exact.feasible) << "seed " << seed;
    for (long limit : {1, 2, 3, 5, 8, 13, 21}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", node limit " + std::to_string(limit));
      const ModelResult got = run(m, GetParam(), limit);
      EXPECT_NE(got.result.status, SolveStatus::kInfeasible);
      if (got.point) {
        expect_feasible_point(m, got);
      }
      if (got.result.bound) {
        EXPECT_GE(sign(m) * *got.result.bound, sign(m) * exact.objective - 1e-9);
      }
      if (got.result.status == SolveStatus::kOptimal) {
        EXPECT_NEAR(got.result.objective, exact.objective, 1e-6 * std::max(1.0, std::abs(exact.objective)));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, ModelBab, ::testing::Values(1, 2),
                         [](const auto& info) { return std::to_string(info.param) + "_threads"; });

// x integer in [-7, 7]^2 with x0 + x1 <= 5, a network 2 -> 10 -> 10 -> 2 (deep enough that bab splits the box),
// the objective its first output, a cap on its second at the median of its values over the grid.
Model integer_grid_model(std::uint64_t seed, Sense sense) {
  Model m;
  m.variables = {{"x", Eigen::Vector2d(-7.0, -7.0), Eigen::Vector2d(7.0, 7.0), {true, true}}};
  m.networks = {{"f", shared(testing::random_network(2, {10, 10}, 2, seed)), {0, 1}, ""}};
  std::vector<double> second;
  for (int a = -7; a <= 7; ++a)
    for (int b = -7; b <= 7; ++b) second.push_back(m.networks[0].network->forward(Eigen::Vector2d(a, b))[1]);
  std::nth_element(second.begin(), second.begin() + second.size() / 2, second.end());
  m.constraints = {
      make_constraint({{R::variable(0, 0), 1.0}, {R::variable(0, 1), 1.0}}, ConstraintSense::kLessEqual, 5.0),
      make_constraint({{R::output(0, 1), 1.0}}, ConstraintSense::kLessEqual, second[second.size() / 2])};
  m.objective = {{{R::output(0, 0), 1.0}}, 0.0};
  m.sense = sense;
  return m;
}

// The optimum of an all-integer model is its best feasible grid point: forward passes alone.
TEST(ModelBabRows, AnAllIntegerModelsOptimumIsItsBestGridPoint) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    for (const Sense sense : {Sense::kMaximize, Sense::kMinimize}) {
      SCOPED_TRACE("seed " + std::to_string(seed));
      const Model m = integer_grid_model(seed, sense);
      double best = -std::numeric_limits<double>::infinity();
      for (int a = -7; a <= 7; ++a)
        for (int b = -7; b <= 7; ++b) {
          const ModelPoint p = evaluate(m, Eigen::Vector2d(a, b));
          if (p.max_violation == 0.0) best = std::max(best, sign(m) * p.objective);
        }
      for (int threads : {1, 2}) {
        const ModelResult got = run(m, threads);
        ASSERT_EQ(got.result.status, SolveStatus::kOptimal);
        ASSERT_TRUE(got.point.has_value());
        EXPECT_LE(evaluate(m, got.point->v).max_violation, model_tolerance(m));
        EXPECT_NEAR(sign(m) * got.result.objective, best, 1e-6 * std::max(1.0, std::abs(best)));
      }
    }
  }
}

// |x0 + x1 - 1/2| = relu(x0 + x1 - 1/2) + relu(1/2 - x0 - x1): at least 1/2 where x0 + x1 is an integer.
std::shared_ptr<const Network> distance_to_half() {
  Eigen::Matrix2d w;
  w << 1.0, 1.0, -1.0, -1.0;
  std::vector<DenseLayer> layers{{w, Eigen::Vector2d(-0.5, 0.5)},
                                 {Eigen::RowVector2d(1.0, 1.0), Eigen::VectorXd::Zero(1)}};
  return shared(Network(std::move(layers)));
}

// |x0 + x1 - 1/2| <= 0.4 over [-2, 3]^2, max x0 - x1: no integer point meets the row, which continuous points do
// (the optimum 4.9 at x = (2.9, -2)), so only the branching on the integers proves the model infeasible.
Model half_model(bool integer) {
  Model m;
  m.variables = {{"x", Eigen::Vector2d(-2.0, -2.0), Eigen::Vector2d(3.0, 3.0), {integer, integer}}};
  m.networks = {{"distance", distance_to_half(), {0, 1}, ""}};
  m.constraints = {make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kLessEqual, 0.4)};
  m.objective = {{{R::variable(0, 0), 1.0}, {R::variable(0, 1), -1.0}}, 0.0};
  return m;
}

TEST(ModelBabRows, IntegralityAloneMakesAModelInfeasible) {
  for (int threads : {1, 2}) {
    const ModelResult integral = run(half_model(true), threads);
    EXPECT_EQ(integral.result.status, SolveStatus::kInfeasible);
    EXPECT_EQ(integral.result.stopped_by, StopReason::kCompleted);
    EXPECT_FALSE(integral.result.bound.has_value());
    const ModelResult continuous = run(half_model(false), threads);
    EXPECT_EQ(continuous.result.status, SolveStatus::kOptimal);
    EXPECT_NEAR(continuous.result.objective, 4.9, 1e-7);
  }
}

// A row no point of the box meets (|x0 + x1 - 1/2| <= -1): bound propagation alone drops the root.
TEST(ModelBabRows, AFarRowIsProvenInfeasible) {
  Model m = half_model(false);
  m.constraints[0].rhs = -1.0;
  const ModelResult got = run(m, 2);
  EXPECT_EQ(got.result.status, SolveStatus::kInfeasible);
  EXPECT_FALSE(got.point.has_value());
}

// y = relu(x) - relu(-x) = x on [-1, 1] with y >= 0.5 and y <= 0: each row alone has points, so bound propagation
// cannot drop the root; its LP has none, which the phase-one LP's bound proves.
TEST(ModelBabRows, RowsThatNoPointMeetsTogetherAreProvenInfeasible) {
  std::vector<DenseLayer> layers{{Eigen::Vector2d(1.0, -1.0), Eigen::Vector2d::Zero()},
                                 {Eigen::RowVector2d(1.0, -1.0), Eigen::VectorXd::Zero(1)}};
  Model m;
  m.variables = {{"x", Eigen::VectorXd::Constant(1, -1.0), Eigen::VectorXd::Constant(1, 1.0), {false}}};
  m.networks = {{"identity", shared(Network(std::move(layers))), {0}, ""}};
  m.constraints = {make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kGreaterEqual, 0.5),
                   make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kLessEqual, 0.0)};
  m.objective = {{{R::variable(0, 0), 1.0}}, 0.0};
  const ModelResult got = run(m, 1);
  EXPECT_EQ(got.result.status, SolveStatus::kInfeasible);
  EXPECT_EQ(got.result.stopped_by, StopReason::kCompleted);
  m.constraints[1].rhs = 0.7;
  EXPECT_NEAR(run(m, 1).result.objective, 0.7, 1e-9);
}

// The proof's cross-check counts only points that meet the rows: a proven optimum passes it.
TEST(ModelBabRows, TheProofCheckCountsOnlyFeasiblePoints) {
  for (std::uint64_t seed : {2, 3}) {
    const Model m = random_model(seed);
    const testing::ModelOptimum& exact = exact_optimum(seed);
    ASSERT_TRUE(exact.feasible);
    const ModelResult got = run(m, 1, 0, true);
    ASSERT_EQ(got.result.status, SolveStatus::kOptimal) << got.result.solver_failure;
    EXPECT_EQ(got.result.proof_check.rfind("passed", 0), 0u) << got.result.proof_check;
    EXPECT_NEAR(got.result.objective, exact.objective, 1e-6 * std::max(1.0, std::abs(exact.objective)));
  }
}

// x0 integer in [0, 9], x1 in [0, 1], y = relu(x0 + x1) - relu(-x0 - x1) = x0 + x1 <= 4.5, max x0. The root's LPs
// over the relaxation with the row bound x0 by 4.5 and integrality rounds that to 4, the optimum: the first node
// proves it (the node LP alone stops at x0 = 4.5 and needs a split on x0).
TEST(ModelBabRows, TheRowsAndIntegralityTightenTheRootBox) {
  std::vector<DenseLayer> layers{{Eigen::Matrix2d{{1.0, 1.0}, {-1.0, -1.0}}, Eigen::Vector2d::Zero()},
                                 {Eigen::RowVector2d(1.0, -1.0), Eigen::VectorXd::Zero(1)}};
  Model m;
  m.variables = {{"x", Eigen::Vector2d(0.0, 0.0), Eigen::Vector2d(9.0, 1.0), {true, false}}};
  m.networks = {{"sum", shared(Network(std::move(layers))), {0, 1}, ""}};
  m.constraints = {make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kLessEqual, 4.5)};
  m.objective = {{{R::variable(0, 0), 1.0}}, 0.0};
  for (int threads : {1, 2}) {
    const ModelResult got = run(m, threads, 1);
    EXPECT_EQ(got.result.status, SolveStatus::kOptimal);
    EXPECT_EQ(got.result.objective, 4.0);
    ASSERT_TRUE(got.result.bound.has_value());
    EXPECT_GE(*got.result.bound, 4.0);
    EXPECT_LE(*got.result.bound, 4.0 + 1e-6);
  }
}

}  // namespace
}  // namespace reluopt
