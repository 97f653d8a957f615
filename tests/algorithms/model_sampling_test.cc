// The sampling methods (sampling, enhanced, gradient, walk) on models with integer variables and constraints on
// network outputs (reluopt/solve.h), against the brute-force oracle (algorithms/model_brute_force.h): every
// reported point passes evaluate(), none is better than the oracle's optimum, `optimal` is the oracle's optimum
// and `infeasible` only when the oracle finds no point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <limits>
#include <map>
#include <random>
#include <tuple>

#include "algorithms/model_brute_force.h"
#include "algorithms/problem.h"
#include "reluopt/error.h"
#include "formulation/pattern_lp.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::make_constraint;
using R = Reference;

std::shared_ptr<const Network> shared(Network network) { return std::make_shared<const Network>(std::move(network)); }

// The smallest and largest value of `net` on a grid of [-1, 1] x [-1, 2] with step 0.1.
std::pair<double, double> grid_range(const Network& net) {
  double least = std::numeric_limits<double>::infinity(), most = -least;
  for (int i = 0; i <= 20; ++i)
    for (int j = 0; j <= 30; ++j) {
      const double value = net.forward(Eigen::Vector2d(-1.0 + 0.1 * i, -1.0 + 0.1 * j))[0];
      least = std::min(least, value);
      most = std::max(most, value);
    }
  return {least, most};
}

// x = (x0 integer in [0, 3], x1 in [-1, 1]), z in [-1, 2]; demand(x0, x1), risk(x1, z); a risk limit, a row on
// variables and an objective drawn from `seed`. Every fourth seed puts the limit below the risk's smallest value
// on a grid (most of those are infeasible); with `narrow` the risk must lie in a band of 5% of its range near
// its smallest value, which cuts most of P.
Model random_model(std::uint64_t seed, Sense sense, bool narrow = false) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coefficient(-1.0, 1.0);
  Model m;
  m.variables = {{"x", Eigen::Vector2d(0.0, -1.0), Eigen::Vector2d(3.0, 1.0), {true, false}},
                 {"z", Eigen::VectorXd::Constant(1, -1.0), Eigen::VectorXd::Constant(1, 2.0), {}}};
  m.networks = {{"demand", shared(testing::random_network(2, {3, 3}, 1, seed)), {0, 1}, ""},
                {"risk", shared(testing::random_network(2, {4}, 1, seed + 1000)), {1, 2}, ""}};
  const auto [least, most] = grid_range(*m.networks[1].network);
  const bool low = seed % 4 == 0;
  const double drawn = m.networks[1].network->forward(Eigen::Vector2d(coefficient(rng), coefficient(rng)))[0] +
                       0.3 * coefficient(rng);
  const double limit = low ? least - 0.3 : narrow ? least + 0.05 * (most - least) : drawn;
  const double x0_term = low ? 0.1 * std::abs(coefficient(rng)) : 0.1 * coefficient(rng);
  m.constraints = {
      make_constraint({{R::output(1, 0), 1.0}, {R::variable(0, 0), x0_term}}, ConstraintSense::kLessEqual, limit),
      make_constraint({{R::variable(0, 1), 1.0}, {R::variable(1, 0), 1.0}}, ConstraintSense::kLessEqual, 1.5)};
  if (narrow)
    m.constraints.push_back(make_constraint({{R::output(1, 0), 1.0}}, ConstraintSense::kGreaterEqual, least));
  m.objective = {{{R::output(0, 0), 1.0}, {R::variable(0, 0), 0.2 * coefficient(rng)},
                  {R::variable(1, 0), 0.2 * coefficient(rng)}},
                 coefficient(rng)};
  m.sense = sense;
  return m;
}

// The oracle's answer for random_model(seed, sense, narrow), computed once for every method.
const testing::ModelOptimum& exact_optimum(std::uint64_t seed, Sense sense, bool narrow = false) {
  static std::map<std::tuple<std::uint64_t, Sense, bool>, testing::ModelOptimum> known;
  const auto key = std::tuple{seed, sense, narrow};
  if (!known.count(key)) known[key] = testing::brute_force_model(random_model(seed, sense, narrow));
  return known.at(key);
}

ModelResult run(const Model& m, Method method, double time_limit = kInfinity, long samples = 40) {
  SolveOptions options;
  options.method = method;
  options.threads = 1;
  options.seed = 5;
  options.sampling.samples = samples;
  options.walk.iterations = 5;
  RunControl control;
  control.time_limit = time_limit;
  return solve(m, options, control);
}

// What every run must give: a feasible point no better than the optimum, `optimal` only at the optimum and
// `infeasible` only without one.
void expect_sound(const Model& m, const testing::ModelOptimum& exact, const ModelResult& got) {
  const double sign = m.sense == Sense::kMaximize ? 1.0 : -1.0;
  const SolveStatus status = got.result.status;
  if (status == SolveStatus::kInfeasible || status == SolveStatus::kNoSolution) {
    EXPECT_FALSE(got.point.has_value());
    if (status == SolveStatus::kInfeasible) {
      EXPECT_FALSE(exact.feasible) << "infeasible claimed, oracle found a point";
    }
    return;
  }
  ASSERT_TRUE(exact.feasible) << "a point reported on an infeasible model";
  ASSERT_TRUE(got.point.has_value());
  const ModelPoint check = evaluate(m, got.point->v);
  EXPECT_LE(check.max_violation, model_tolerance(m));
  EXPECT_EQ(check.v[0], std::round(check.v[0])) << "x0 is integer";
  EXPECT_EQ(check.objective, got.result.objective);
  const double tolerance = 1e-6 * std::max(1.0, std::abs(exact.objective));
  EXPECT_LE(sign * got.result.objective, sign * exact.objective + tolerance) << "better than the optimum";
  if (status == SolveStatus::kOptimal) {
    EXPECT_NEAR(got.result.objective, exact.objective, tolerance);
  }
  if (got.result.bound) {
    EXPECT_GE(sign * *got.result.bound, sign * exact.objective - tolerance);
  }
}

class ModelSampling : public ::testing::TestWithParam<Method> {};

TEST_P(ModelSampling, ReportsOnlyFeasiblePointsNoBetterThanTheOracle) {
  int points = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const Sense sense = seed % 2 == 0 ? Sense::kMaximize : Sense::kMinimize;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Model m = random_model(seed, sense);
    const testing::ModelOptimum& exact = exact_optimum(seed, sense);
    const ModelResult got = run(m, GetParam());
    expect_sound(m, exact, got);
    points += got.point.has_value();
  }
  EXPECT_GE(points, 4);
}

TEST_P(ModelSampling, FindsAPointWhereTheRowsCutMostOfTheDomain) {
  for (std::uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Model m = random_model(seed, Sense::kMaximize, true);
    const testing::ModelOptimum& exact = exact_optimum(seed, Sense::kMaximize, true);
    ASSERT_TRUE(exact.feasible);
    const ModelResult got = run(m, GetParam(), 30.0, 20);
    expect_sound(m, exact, got);
    EXPECT_TRUE(got.point.has_value());
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, ModelSampling,
                         ::testing::Values(Method::kSampling, Method::kEnhanced, Method::kGradient, Method::kWalk),
                         [](const auto& info) { return method_name(info.param); });

TEST(ModelEnhanced, ProvesTheOraclesOptimumOrInfeasibilityWithATimeLimit) {
  int infeasible = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const Sense sense = seed % 2 == 0 ? Sense::kMaximize : Sense::kMinimize;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Model m = random_model(seed, sense);
    const testing::ModelOptimum& exact = exact_optimum(seed, sense);
    const ModelResult got = run(m, Method::kEnhanced, 30.0);

    expect_sound(m, exact, got);
    if (!exact.feasible) {
      ++infeasible;
      EXPECT_EQ(got.result.status, SolveStatus::kInfeasible);
    } else {
      EXPECT_EQ(got.result.status, SolveStatus::kOptimal);
    }
  }
  EXPECT_GT(infeasible, 0);
}

// 0.2 <= |x| <= 0.8 holds for x = +-0.5 but for no integer x: every region LP meets the rows, no region MIP does.
// No method reports a point; enhanced with a time limit proves infeasibility (by the model MIP).
Model integer_infeasible_model() {
  std::vector<DenseLayer> layers{{Eigen::Matrix<double, 2, 1>(1.0, -1.0), Eigen::Vector2d::Zero()},
                                 {Eigen::RowVector2d(1.0, 1.0), Eigen::VectorXd::Zero(1)}};
  Model m;
  m.variables = {{"x", Eigen::VectorXd::Constant(1, -2.0), Eigen::VectorXd::Constant(1, 3.0), {true}}};
  m.networks = {{"abs", shared(Network(std::move(layers))), {0}, ""}};
  m.constraints = {make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kLessEqual, 0.8),
                   make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kGreaterEqual, 0.2)};
  m.objective = {{{R::variable(0, 0), 1.0}}, 0.0};
  return m;
}

TEST(ModelIntegers, NoPointWhereIntegralityAloneMakesTheModelInfeasible) {
  const Model m = integer_infeasible_model();
  const testing::ModelOptimum exact = testing::brute_force_model(m);
  ASSERT_FALSE(exact.feasible);
  for (Method method : {Method::kSampling, Method::kEnhanced, Method::kGradient, Method::kWalk}) {
    SCOPED_TRACE(method_name(method));
    expect_sound(m, exact, run(m, method));
  }
  EXPECT_EQ(run(m, Method::kEnhanced, 30.0).result.status, SolveStatus::kInfeasible);
}

TEST(ModelStopRule, RefusedInOneLine) {
  SolveOptions options;
  options.method = Method::kSampling;
  options.sampling.stop_rule = StopRuleOptions{};
  try {
    solve(integer_infeasible_model(), options);
    FAIL() << "the stop rule ran on a model with rows";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--stop-rule"), std::string::npos) << e.what();
  }
}

// y = -relu(x0) - relu(x1) maximized is concave in both neurons, and an LP may leave them free (y >= h, y >= 0)
// for the objective alone. A row y <= -0.5 is met by a free post-activation above relu(h) at a point whose
// forward pass misses it: with the row, the neurons keep their fixed states, and every method reports a point
// that meets the row by its forward pass.
Network two_relu_sum() {
  std::vector<DenseLayer> layers{{Eigen::Matrix2d::Identity(), Eigen::Vector2d::Zero()},
                                 {Eigen::RowVector2d(-1.0, -1.0), Eigen::VectorXd::Zero(1)}};
  return Network(std::move(layers));
}

TEST(ModelConcave, ARowThatALargerPostActivationMeetsKeepsTheNeuronsFixed) {
  const Network net = two_relu_sum();
  const Domain domain = Domain::box(Eigen::Vector2d(-2.0, -2.0), Eigen::Vector2d(2.0, 2.0));
  Objective objective;
  objective.weights = Eigen::VectorXd::Ones(1);
  EXPECT_EQ(count_neurons(make_problem(net, domain, objective).concave), 2);
  ModelRows pushed_up{Eigen::MatrixXd::Constant(1, 1, 1.0), Eigen::VectorXd::Constant(1, -0.5), {}};
  EXPECT_EQ(count_neurons(make_problem(net, domain, objective, pushed_up).concave), 0);
  ModelRows pushed_down{Eigen::MatrixXd::Constant(1, 1, -1.0), Eigen::VectorXd::Constant(1, 1.0), {}};
  EXPECT_EQ(count_neurons(make_problem(net, domain, objective, pushed_down).concave), 2);
}

TEST(ModelConcave, FreeNeuronsDoNotFakeARow) {
  Model m;
  m.variables = {{"x", Eigen::Vector2d(-2.0, -2.0), Eigen::Vector2d(2.0, 2.0), {}}};
  m.networks = {{"net", shared(two_relu_sum()), {0, 1}, ""}};
  m.constraints = {make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kLessEqual, -0.5),
                   make_constraint({{R::variable(0, 0), 1.0}, {R::variable(0, 1), 1.0}}, ConstraintSense::kLessEqual, 0.2)};
  m.objective = {{{R::output(0, 0), 1.0}}, 0.0};
  const testing::ModelOptimum exact = testing::brute_force_model(m);
  ASSERT_TRUE(exact.feasible);
  for (Method method : {Method::kSampling, Method::kEnhanced, Method::kGradient, Method::kWalk}) {
    SCOPED_TRACE(method_name(method));
    const ModelResult got = run(m, method);
    expect_sound(m, exact, got);
    EXPECT_TRUE(got.point.has_value());
  }
}

}  // namespace
}  // namespace reluopt
