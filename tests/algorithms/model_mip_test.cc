// The MIP methods on models with integer variables and constraints on network outputs (reluopt/solve.h)
// against the brute-force oracle (algorithms/model_brute_force.h): `optimal` is the oracle's optimum,
// `infeasible` only when the oracle finds no point, and every reported point passes evaluate().
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "algorithms/model_brute_force.h"
#include "algorithms/model_mip.h"
#include "core/model_reduction.h"
#include "reluopt/error.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::make_constraint;
using R = Reference;

std::shared_ptr<const Network> shared(Network network) { return std::make_shared<const Network>(std::move(network)); }

// The smallest value of `net` on a grid of [-1, 1] x [-1, 2] with step 0.1.
double grid_minimum(const Network& net) {
  double least = std::numeric_limits<double>::infinity();
  for (int i = 0; i <= 20; ++i)
    for (int j = 0; j <= 30; ++j) least = std::min(least, net.forward(Eigen::Vector2d(-1.0 + 0.1 * i, -1.0 + 0.1 * j))[0]);
  return least;
}

// x = (x0 integer in [0, 3], x1 in [-1, 1]), z in [-1, 2]; demand(x0, x1), risk(x1, z) of another depth; the
// risk limit, a row on variables and the objective drawn from `seed`. Every third seed puts the limit 0.3 below
// the risk's smallest value on a grid (and the x0 term, x0 >= 0, only adds to it): most of those are infeasible.
Model random_model(std::uint64_t seed, Sense sense) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> coefficient(-1.0, 1.0);
  Model m;
  m.variables = {{"x", Eigen::Vector2d(0.0, -1.0), Eigen::Vector2d(3.0, 1.0), {true, false}},
                 {"z", Eigen::VectorXd::Constant(1, -1.0), Eigen::VectorXd::Constant(1, 2.0), {}}};
  m.networks = {{"demand", shared(testing::random_network(2, {4, 3}, 1, seed)), {0, 1}, ""},
                {"risk", shared(testing::random_network(2, {3}, 1, seed + 1000)), {1, 2}, ""}};
  const bool low = seed % 3 == 0;
  const double drawn = m.networks[1].network->forward(Eigen::Vector2d(coefficient(rng), coefficient(rng)))[0] +
                       0.3 * coefficient(rng);
  const double limit = low ? grid_minimum(*m.networks[1].network) - 0.3 : drawn;
  const double x0_term = low ? 0.1 * std::abs(coefficient(rng)) : 0.1 * coefficient(rng);
  m.constraints = {
      make_constraint({{R::output(1, 0), 1.0}, {R::variable(0, 0), x0_term}},
                      ConstraintSense::kLessEqual, limit),
      make_constraint({{R::variable(0, 1), 1.0}, {R::variable(1, 0), 1.0}}, ConstraintSense::kLessEqual, 1.5)};
  m.objective = {{{R::output(0, 0), 1.0}, {R::variable(0, 0), 0.2 * coefficient(rng)},
                  {R::variable(1, 0), 0.2 * coefficient(rng)}},
                 coefficient(rng)};
  m.sense = sense;
  return m;
}

ModelResult run(const Model& m, Method method) {
  SolveOptions options;
  options.method = method;
  options.threads = 1;
  options.seed = 5;
  RunControl control;
  control.time_limit = 30.0;
  return solve(m, options, control);
}

class ModelMip : public ::testing::TestWithParam<Method> {};

// Also where concave neurons go without a binary under the risk row (model_mip.cc, formulate): the runs that
// free some must keep the oracle's optimum too.
TEST_P(ModelMip, ProvesTheOraclesOptimumOrInfeasibility) {
  int feasible = 0, infeasible = 0, freed = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const Sense sense = seed % 2 == 0 ? Sense::kMaximize : Sense::kMinimize;
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Model m = random_model(seed, sense);
    const testing::ModelOptimum exact = testing::brute_force_model(m);
    (exact.feasible ? feasible : infeasible) += 1;
    const ModelResult result = run(m, GetParam());
    testing::expect_oracles_answer(m, exact, result);
    freed += result.result.run.concave_neurons > 0 ? 1 : 0;
  }
  EXPECT_GT(feasible, 3);
  EXPECT_GT(infeasible, 0);
  EXPECT_GT(freed, 3);
}

// A first run of one node leaves most of these to the second: the start from samples and the formulation
// tightened with the rows and integrality, which must keep the oracle's optimum (and its infeasibility).
TEST_P(ModelMip, TheTightenedSecondRunProvesTheOraclesOptimum) {
  int second_runs = 0;  // runs whose samples solved region problems (the second run's start)
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Model m = random_model(seed, seed % 2 == 0 ? Sense::kMaximize : Sense::kMinimize);
    SolveOptions options;
    options.method = GetParam();
    options.threads = 1;
    options.seed = 5;
    const Deadline deadline(30.0, nullptr);
    const ModelResult result = run_model_mip(m, reduce(m), options, deadline, RunControl{}, 1);
    testing::expect_oracles_answer(m, testing::brute_force_model(m), result);
    second_runs += result.result.run.lps > 0 ? 1 : 0;
  }
  EXPECT_GT(second_runs, 3);
}

// The composites here have two hidden layers and a few binaries: the first run (Anderson et al.'s cuts at its
// root, no start) closes most of them, and those skip the search and the tightening (no region LP).
TEST_P(ModelMip, ASmallDeepFormulationClosesInItsFirstRun) {
  int first_run_proofs = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Model m = random_model(seed, seed % 2 == 0 ? Sense::kMaximize : Sense::kMinimize);
    const ReducedModel reduced = reduce(m);
    ASSERT_GE(reduced.composite->num_hidden_layers(), 2);
    SolveOptions options;
    options.method = GetParam();
    options.threads = 1;
    options.seed = 5;
    const Deadline deadline(30.0, nullptr);
    const ModelResult result = run_model_mip(m, reduced, options, deadline, RunControl{});
    testing::expect_oracles_answer(m, testing::brute_force_model(m), result);
    if (result.result.run.nodes < kFirstRunNodes) {
      EXPECT_EQ(result.result.run.lps, 0);
      first_run_proofs += 1;
    }
  }
  EXPECT_GT(first_run_proofs, 6);
}

// |x| = relu(x) + relu(-x).
std::shared_ptr<const Network> absolute_value() {
  std::vector<DenseLayer> layers{{Eigen::Matrix<double, 2, 1>(1.0, -1.0), Eigen::Vector2d::Zero()},
                                 {Eigen::RowVector2d(1.0, 1.0), Eigen::VectorXd::Zero(1)}};
  return shared(Network(std::move(layers)));
}

// 0.2 <= |x| <= 0.8 holds for x = +-0.5 but for no integer x: the LP relaxation is feasible, the MIP is not.
Model integer_infeasible_model(bool integer) {
  Model m;
  m.variables = {{"x", Eigen::VectorXd::Constant(1, -2.0), Eigen::VectorXd::Constant(1, 3.0), {integer}}};
  m.networks = {{"abs", absolute_value(), {0}, ""}};
  m.constraints = {make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kLessEqual, 0.8),
                   make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kGreaterEqual, 0.2)};
  m.objective = {{{R::variable(0, 0), 1.0}}, 0.0};
  return m;
}

TEST_P(ModelMip, IntegralityAloneMakesAModelInfeasible) {
  EXPECT_FALSE(testing::brute_force_model(integer_infeasible_model(true)).feasible);
  EXPECT_EQ(run(integer_infeasible_model(true), GetParam()).result.status, SolveStatus::kInfeasible);
  const ModelResult continuous = run(integer_infeasible_model(false), GetParam());
  EXPECT_EQ(continuous.result.status, SolveStatus::kOptimal);
  EXPECT_NEAR(continuous.result.objective, 0.8, 1e-7);
}

// random_model with x0 (integer) restricted to [lower, upper].
Model with_x0_within(Model m, double lower, double upper) {
  m.variables[0].lower[0] = lower;
  m.variables[0].upper[0] = upper;
  return m;
}

// From the best point with x0 fixed to each value (by the oracle), the neighbourhood search ends at a point that
// evaluate() accepts, integral in x0, at least as good as the oracle's optimum over x0 within 1 of the start's
// (its first sub-MIP closes on these) and so as the start.
TEST(ModelNeighbourhood, EndsAtLeastAtTheOraclesOptimumWithinOneOfTheStart) {
  int searched = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    const Sense sense = seed % 2 == 0 ? Sense::kMaximize : Sense::kMinimize;
    const double sign = sense == Sense::kMaximize ? 1.0 : -1.0;
    const Model m = random_model(seed, sense);
    const ReducedModel reduced = reduce(m);
    ASSERT_EQ(reduced.domain.dim(), 3);  // no variable eliminated: u = v
    for (int c = 0; c <= 3; ++c) {
      SCOPED_TRACE("seed " + std::to_string(seed) + ", x0 = " + std::to_string(c));
      const testing::ModelOptimum start = testing::brute_force_model(with_x0_within(m, c, c));
      if (!start.feasible) continue;
      const testing::ModelOptimum near = testing::brute_force_model(with_x0_within(m, std::max(c - 1, 0), std::min(c + 1, 3)));
      ASSERT_TRUE(near.feasible);
      SolveOptions options;
      options.method = Method::kMip;
      options.threads = 1;
      const std::optional<ModelPoint> found =
          search_integer_neighbourhoods(m, reduced, options, Deadline(30.0, nullptr), start.v);
      ASSERT_TRUE(found.has_value());
      const ModelPoint again = evaluate(m, found->v);
      EXPECT_LE(again.max_violation, model_tolerance(m));
      EXPECT_EQ(found->v[0], std::round(found->v[0]));
      EXPECT_GE(sign * again.objective, sign * near.objective - 1e-6 * std::max(1.0, std::abs(near.objective)));
      EXPECT_GE(sign * again.objective, sign * start.objective - 1e-6 * std::max(1.0, std::abs(start.objective)));
      searched += 1;
    }
  }
  EXPECT_GT(searched, 10);
}

INSTANTIATE_TEST_SUITE_P(Methods, ModelMip, ::testing::Values(Method::kMip, Method::kMipCuts, Method::kPartition),
                         [](const auto& info) { return std::string(method_name(info.param) == "mip-cuts" ? "mip_cuts" : method_name(info.param)); });

}  // namespace
}  // namespace reluopt
