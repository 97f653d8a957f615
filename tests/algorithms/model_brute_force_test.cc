// The brute-force oracle of models (algorithms/model_brute_force.h) against answers known by hand, against the
// prover on the problems reluopt has always solved, and against the reduction (core/model_reduction.h).
#include "algorithms/model_brute_force.h"

#include <gtest/gtest.h>

#include <random>

#include "core/model_reduction.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::brute_force_model;
using testing::make_constraint;
using testing::ModelOptimum;
using R = Reference;

std::shared_ptr<const Network> shared(Network network) { return std::make_shared<const Network>(std::move(network)); }

// |x| = relu(x) + relu(-x).
std::shared_ptr<const Network> absolute_value() {
  std::vector<DenseLayer> layers{{Eigen::Matrix<double, 2, 1>(1.0, -1.0), Eigen::Vector2d::Zero()},
                                 {Eigen::RowVector2d(1.0, 1.0), Eigen::VectorXd::Zero(1)}};
  return shared(Network(std::move(layers)));
}

VariableBlock interval(const std::string& name, double lower, double upper, bool integer = false) {
  return {name, Eigen::VectorXd::Constant(1, lower), Eigen::VectorXd::Constant(1, upper), {integer}};
}

// max |x| - 0.5 x  s.t.  |x| <= 1.5, x in [-2, 3]: 2.25 at x = -1.5; with x integer, 1.5 at x = -1.
Model absolute_value_model(bool integer) {
  Model m;
  m.variables = {interval("x", -2.0, 3.0, integer)};
  m.networks = {{"abs", absolute_value(), {0}, ""}};
  m.constraints = {make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kLessEqual, 1.5)};
  m.objective = {{{R::output(0, 0), 1.0}, {R::variable(0, 0), -0.5}}, 0.0};
  return m;
}

void expect_optimum(const Model& m, double objective, const Eigen::VectorXd& v) {
  const ModelOptimum best = brute_force_model(m);
  ASSERT_TRUE(best.feasible);
  EXPECT_NEAR(best.objective, objective, 1e-9);
  EXPECT_LE((best.v - v).cwiseAbs().maxCoeff(), 1e-9);
  const ModelPoint p = evaluate(m, best.v);
  EXPECT_NEAR(p.objective, best.objective, 1e-9);
  EXPECT_LE(p.max_violation, 1e-9);
}

TEST(ModelBruteForce, HandComputedAbsoluteValue) {
  expect_optimum(absolute_value_model(false), 2.25, Eigen::VectorXd::Constant(1, -1.5));
  expect_optimum(absolute_value_model(true), 1.5, Eigen::VectorXd::Constant(1, -1.0));
}

// With z = x + 2 (a row on variables alone) and -0.1 z in the objective: max |x| - 0.6 x - 0.2 is 2.2 at
// x = -1.5, and min is -0.2 at x = 0.
TEST(ModelBruteForce, HandComputedWithASecondBlock) {
  Model m = absolute_value_model(false);
  m.variables.push_back(interval("z", 0.0, 10.0));
  m.constraints.push_back(
      make_constraint({{R::variable(1, 0), 1.0}, {R::variable(0, 0), -1.0}}, ConstraintSense::kEqual, 2.0));
  m.objective.terms.push_back({R::variable(1, 0), -0.1});
  expect_optimum(m, 2.2, Eigen::Vector2d(-1.5, 0.5));
  m.sense = Sense::kMinimize;
  expect_optimum(m, -0.2, Eigen::Vector2d(0.0, 2.0));
}

TEST(ModelBruteForce, InfeasibleModels) {
  Model far = absolute_value_model(false);
  far.constraints[0] = make_constraint({{R::output(0, 0), 1.0}}, ConstraintSense::kGreaterEqual, 5.0);
  EXPECT_FALSE(brute_force_model(far).feasible);
  // 2 x = 1 has a continuous solution but no integer one.
  Model odd = absolute_value_model(true);
  odd.constraints.push_back(make_constraint({{R::variable(0, 0), 2.0}}, ConstraintSense::kEqual, 1.0));
  const ModelOptimum none = brute_force_model(odd);
  EXPECT_FALSE(none.feasible);
  // x in {-2..3}: relu(x) and relu(-x) have one state each at every x (both inactive at 0), one piece per x.
  EXPECT_EQ(none.pieces, 6);
  odd.variables[0].integer = {false};
  expect_optimum(odd, 0.25, Eigen::VectorXd::Constant(1, 0.5));
}

// One network over a box or a polytope, the objective on its outputs: the problem of solve(), which bab proves.
TEST(ModelBruteForce, OneNetworkEqualsTheProvenOptimum) {
  for (std::uint64_t seed : {21, 22, 23}) {
    SCOPED_TRACE(seed);
    const Network net = testing::random_network(3, {5, 5}, 2, seed);
    const Domain domain = testing::random_polytope(3, 2, seed);
    Objective objective = Objective::output(2);
    objective.weights << 1.0, -0.5;
    objective.sense = seed == 22 ? Sense::kMinimize : Sense::kMaximize;
    Model m;
    m.variables = {{"x", domain.lower, domain.upper, {}}};
    m.networks = {{"f", std::make_shared<const Network>(net), {0, 1, 2}, ""}};
    for (int r = 0; r < domain.num_rows(); ++r) {
      std::vector<LinearExpr::Term> terms;
      for (int i = 0; i < 3; ++i) terms.push_back({R::variable(0, i), domain.A(r, i)});
      m.constraints.push_back(make_constraint(terms, ConstraintSense::kLessEqual, domain.b[r]));
    }
    m.objective = {{{R::output(0, 0), 1.0}, {R::output(0, 1), -0.5}}, 0.0};
    m.sense = objective.sense;
    const ModelOptimum best = brute_force_model(m);
    ASSERT_TRUE(best.feasible);
    SolveOptions options;
    options.method = Method::kBab;
    options.threads = 1;
    const SolveResult proven = solve(net, domain, objective, options);
    ASSERT_EQ(proven.status, SolveStatus::kOptimal);
    EXPECT_NEAR(best.objective, proven.objective, 1e-6);
    EXPECT_NEAR(objective.sign() * best.objective, testing::brute_force_max(net, domain, objective), 1e-9);
  }
}

// Two networks of different depths, a variable term in the objective: the composite network of the reduction,
// over its domain, has the model's optimum (by enumeration of its own patterns, and proven by bab).
TEST(ModelBruteForce, CompositeOfTheReductionHasTheModelsOptimum) {
  Model m;
  m.variables = {{"x", Eigen::Vector2d(0.0, -1.0), Eigen::Vector2d(1.0, 1.0), {}}};
  m.networks = {{"deep", shared(testing::random_network(2, {3, 2}, 1, 31)), {0, 1}, ""},
                {"shallow", shared(testing::random_network(2, {3}, 1, 32)), {1, 0}, ""}};
  m.constraints = {
      make_constraint({{R::variable(0, 0), 1.0}, {R::variable(0, 1), 1.0}}, ConstraintSense::kLessEqual, 1.2)};
  m.objective = {{{R::output(0, 0), 1.0}, {R::output(1, 0), -2.0}, {R::variable(0, 1), 0.3}}, 0.5};
  const ModelOptimum best = brute_force_model(m);
  ASSERT_TRUE(best.feasible);
  const ReducedModel r = reduce(m);
  ASSERT_FALSE(r.has_output_rows());
  EXPECT_NEAR(testing::brute_force_max(*r.composite, r.domain, r.objective), best.objective, 1e-9);
  SolveOptions options;
  options.method = Method::kBab;
  options.threads = 1;
  const SolveResult proven = solve(*r.composite, r.domain, r.objective, options);
  ASSERT_EQ(proven.status, SolveStatus::kOptimal);
  EXPECT_NEAR(proven.objective, best.objective, 1e-6);
  EXPECT_NEAR(evaluate(m, proven.x).objective, proven.objective, 1e-12);
}

// Integer and continuous variables, two networks, rows on outputs and on variables: the oracle's point is
// feasible by the model's own forward passes and no feasible sample beats it.
TEST(ModelBruteForce, NoFeasibleSampleBeatsTheOptimum) {
  Model m;
  m.variables = {{"n", Eigen::Vector2d(0.0, -1.0), Eigen::Vector2d(3.0, 2.0), {true, true}},
                 {"c", Eigen::VectorXd::Constant(1, -1.0), Eigen::VectorXd::Constant(1, 1.0), {}}};
  m.networks = {{"demand", shared(testing::random_network(2, {4}, 1, 41)), {0, 2}, ""},
                {"risk", shared(testing::random_network(3, {3}, 1, 42)), {1, 2, 0}, ""}};
  // The risk limit is the risk at n = (1, 0), c = 0 (risk reads n[1], c, n[0]), which keeps that point feasible.
  const double limit = m.networks[1].network->forward(Eigen::Vector3d(0.0, 0.0, 1.0))[0];
  m.constraints = {
      make_constraint({{R::output(1, 0), 1.0}, {R::variable(1, 0), -0.2}}, ConstraintSense::kLessEqual, limit),
      make_constraint({{R::variable(0, 0), 1.0}, {R::variable(0, 1), 1.0}}, ConstraintSense::kGreaterEqual, 1.0)};
  m.objective = {{{R::output(0, 0), 1.0}, {R::variable(0, 0), -0.1}, {R::variable(1, 0), 0.05}}, 0.0};
  const ModelOptimum best = brute_force_model(m);
  ASSERT_TRUE(best.feasible);
  const ModelPoint at = evaluate(m, best.v);
  EXPECT_LE(at.max_violation, 1e-9);
  EXPECT_NEAR(at.objective, best.objective, 1e-9);
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> n0(0, 3), n1(-1, 2);
  std::uniform_real_distribution<double> c(-1.0, 1.0);
  int feasible = 0;
  for (int sample = 0; sample < 20000; ++sample) {
    const ModelPoint p = evaluate(m, Eigen::Vector3d(n0(rng), n1(rng), c(rng)));
    if (p.max_violation > 0.0) continue;
    ++feasible;
    EXPECT_LE(p.objective, best.objective + 1e-12);
  }
  EXPECT_GT(feasible, 100);
}

}  // namespace
}  // namespace reluopt
