// Every method on the reduction of a model (core/model_reduction.h) without output rows or integer variables:
// the composite network is a problem of the form solve() takes, so the provers prove the model's optimum (by
// the brute-force oracle) and every point's value is the model's own forward passes' value. With an equality
// on variables, the methods run over the variables it leaves.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <utility>

#include "algorithms/model_brute_force.h"
#include "core/model_reduction.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using R = Reference;

// Two networks of different depths on overlapping variables, a row on variables, a variable in the objective;
// with `balance`, a block w fed to the shallow network and tied by w == x0 - z0 + 1.
Model two_network_model(Sense sense, bool balance) {
  Model m;
  m.variables = {{"x", Eigen::Vector2d(0.0, -1.0), Eigen::Vector2d(1.0, 1.0), {}},
                 {"z", Eigen::VectorXd::Constant(1, -1.0), Eigen::VectorXd::Constant(1, 2.0), {}}};
  m.networks = {{"deep", std::make_shared<const Network>(testing::random_network(3, {4, 3}, 1, 51)), {0, 1, 2}, ""},
                {"shallow", std::make_shared<const Network>(testing::random_network(2, {4}, 1, 52)), {1, 2}, ""}};
  m.constraints = {
      testing::make_constraint({{R::variable(0, 0), 1.0}, {R::variable(0, 1), 1.0}}, ConstraintSense::kLessEqual, 1.2)};
  m.objective = {{{R::output(0, 0), 1.0}, {R::output(1, 0), -2.0}, {R::variable(0, 1), 0.3}}, 0.5};
  m.sense = sense;
  if (!balance) return m;
  m.variables.push_back({"w", Eigen::VectorXd::Constant(1, -1.0), Eigen::VectorXd::Constant(1, 1.5), {}});
  m.networks[1].input = {1, 3};
  m.constraints.push_back(testing::make_constraint(
      {{R::variable(2, 0), 1.0}, {R::variable(0, 0), -1.0}, {R::variable(1, 0), 1.0}}, ConstraintSense::kEqual, 1.0));
  m.objective.terms.push_back({R::variable(2, 0), 0.2});
  return m;
}

// The oracle's answer, computed once for all the methods.
const testing::ModelOptimum& exact_optimum(Sense sense, bool balance) {
  static std::map<std::pair<Sense, bool>, testing::ModelOptimum> known;
  const auto key = std::pair{sense, balance};
  if (!known.count(key)) known[key] = testing::brute_force_model(two_network_model(sense, balance));
  return known.at(key);
}

class ModelSolve : public ::testing::TestWithParam<Method> {
 protected:
  // The method under test on one thread.
  static SolveOptions options(std::uint64_t seed = 3) {
    SolveOptions options;
    options.method = GetParam();
    options.threads = 1;
    options.seed = seed;
    return options;
  }
  static RunControl twenty_seconds() {
    RunControl control;
    control.time_limit = 20.0;
    return control;
  }
};

TEST_P(ModelSolve, ReachesTheModelsOptimumOnTheComposite) {
  for (const auto& [sense, balance] : {std::pair{Sense::kMaximize, false}, std::pair{Sense::kMinimize, false},
                                       std::pair{Sense::kMaximize, true}, std::pair{Sense::kMinimize, true}}) {
    SCOPED_TRACE(balance ? "with an equality" : "without an equality");
    const Model m = two_network_model(sense, balance);
    const testing::ModelOptimum& exact = exact_optimum(sense, balance);
    ASSERT_TRUE(exact.feasible);
    const ReducedModel r = reduce(m);
    const SolveOptions options = ModelSolve::options();
    const RunControl control = twenty_seconds();
    const SolveResult result = solve(*r.composite, r.domain, r.objective, options, control);
    ASSERT_NE(result.status, SolveStatus::kNoSolution);
    const ModelPoint p = evaluate(m, r.variables(result.x));
    EXPECT_LE(p.max_violation, 1e-12);
    EXPECT_NEAR(p.objective, result.objective, 1e-12);
    EXPECT_EQ(r.domain.dim(), 3);  // with the balance, one of the four variables is eliminated
    const double sign = sense == Sense::kMaximize ? 1.0 : -1.0;
    EXPECT_LE(sign * p.objective, sign * exact.objective + 1e-9) << "beyond the optimum";
    if (result.status == SolveStatus::kOptimal) {
      EXPECT_NEAR(result.objective, exact.objective, 1e-6);
    }
    if (GetParam() == Method::kBab || GetParam() == Method::kMip) {
      EXPECT_EQ(result.status, SolveStatus::kOptimal);
    }
  }
}

// Rows on variables alone that no point of the box meets: every method answers `infeasible`, a result and not an
// error, since the model as a whole is well formed.
TEST_P(ModelSolve, RowsOnVariablesThatNoPointMeetsGiveInfeasible) {
  Model m = two_network_model(Sense::kMaximize, false);
  m.constraints.push_back(
      testing::make_constraint({{R::variable(0, 0), 1.0}, {R::variable(1, 0), 1.0}}, ConstraintSense::kGreaterEqual, 3.5));
  ASSERT_FALSE(testing::brute_force_model(m).feasible);
  const SolveOptions options = ModelSolve::options(0);
  const RunControl control = twenty_seconds();
  const ModelResult got = solve(m, options, control);
  EXPECT_EQ(got.result.status, SolveStatus::kInfeasible);
  EXPECT_FALSE(got.point.has_value());
  EXPECT_EQ(got.result.x.size(), 0);
  EXPECT_EQ(got.result.method, method_name(GetParam()));
}

// A choice of exactly one of three options (binaries n, n0 + n1 + n2 == 1) beside two continuous inputs, all read
// by one network, with a row on its output and a cost per option: the equality is solved for an option, so every
// method runs; the provers prove the oracle's optimum and every point is a choice of one option.
TEST_P(ModelSolve, AChoiceOfOneOptionIsSolvedByEveryMethod) {
  Model m;
  m.variables = {{"x", Eigen::Vector2d(-1.0, 0.0), Eigen::Vector2d(1.0, 2.0), {}},
                 {"n", Eigen::Vector3d::Zero(), Eigen::Vector3d::Ones(), {true, true, true}}};
  m.networks = {{"f", std::make_shared<const Network>(testing::random_network(5, {6}, 1, 91)), {0, 1, 2, 3, 4}, ""}};
  m.constraints = {
      testing::make_constraint({{R::variable(1, 0), 1.0}, {R::variable(1, 1), 1.0}, {R::variable(1, 2), 1.0}},
                               ConstraintSense::kEqual, 1.0),
      testing::make_constraint({{R::output(0, 0), 1.0}, {R::variable(0, 0), -0.5}}, ConstraintSense::kLessEqual, 0.4)};
  m.objective = {{{R::output(0, 0), 1.0}, {R::variable(1, 1), -0.1}, {R::variable(1, 2), 0.05}}, 0.0};
  const testing::ModelOptimum exact = testing::brute_force_model(m);
  ASSERT_TRUE(exact.feasible);
  const SolveOptions options = ModelSolve::options();
  const RunControl control = twenty_seconds();
  const ModelResult got = solve(m, options, control);
  if (GetParam() == Method::kBab || GetParam() == Method::kMip) {
    testing::expect_oracles_answer(m, exact, got);
    return;
  }
  ASSERT_TRUE(got.point.has_value());
  EXPECT_LE(got.point->max_violation, model_tolerance(m));
  const Eigen::Vector3d n = got.point->v.tail<3>();
  EXPECT_EQ(n, n.array().round().matrix());
  EXPECT_EQ(n.sum(), 1.0);
  // A point may cross the output row by model_tolerance (1e-6 here) and gain that much, times the row's slope.
  EXPECT_LE(got.point->objective, exact.objective + 1e-5) << "beyond the optimum, violation " << got.point->max_violation;
}

// Equalities that fix every variable: x0 - x1 == 0.25 and x1 == 0.5 eliminate x0 and x1, and 2 n == 4 fixes the
// last variable's box to n = 2 (every method needs an input). Every method finds the one point; a last equality
// that puts n off the integers (2 n == 3) or outside its box (n == 5) leaves none: `infeasible`, not an error.
TEST_P(ModelSolve, EqualitiesThatFixEveryVariableLeaveOnePointOrNone) {
  const auto fixed_model = [](double coefficient, double rhs) {
    Model m;
    m.variables = {{"x", Eigen::Vector2d::Zero(), Eigen::Vector2d::Ones(), {}},
                   {"n", Eigen::VectorXd::Zero(1), Eigen::VectorXd::Constant(1, 3.0), {true}}};
    m.networks = {{"f", std::make_shared<const Network>(testing::random_network(3, {4}, 1, 93)), {0, 1, 2}, ""}};
    m.constraints = {
        testing::make_constraint({{R::variable(0, 0), 1.0}, {R::variable(0, 1), -1.0}}, ConstraintSense::kEqual, 0.25),
        testing::make_constraint({{R::variable(0, 1), 1.0}}, ConstraintSense::kEqual, 0.5),
        testing::make_constraint({{R::variable(1, 0), coefficient}}, ConstraintSense::kEqual, rhs)};
    m.objective = {{{R::output(0, 0), 1.0}, {R::variable(0, 0), 0.1}}, 0.0};
    return m;
  };
  const SolveOptions options = ModelSolve::options();
  const RunControl control = twenty_seconds();
  const Model m = fixed_model(2.0, 4.0);
  const ModelResult got = solve(m, options, control);
  ASSERT_TRUE(got.point.has_value()) << status_name(got.result.status);
  EXPECT_EQ(got.point->v, Eigen::Vector3d(0.75, 0.5, 2.0));
  EXPECT_EQ(got.point->max_violation, 0.0);
  EXPECT_EQ(got.result.objective, evaluate(m, Eigen::Vector3d(0.75, 0.5, 2.0)).objective);
  if (GetParam() == Method::kBab || GetParam() == Method::kMip) {
    EXPECT_EQ(got.result.status, SolveStatus::kOptimal);
  }
  for (const auto& [coefficient, rhs] : {std::pair{2.0, 3.0}, std::pair{1.0, 5.0}}) {
    SCOPED_TRACE(rhs);
    const ModelResult none = solve(fixed_model(coefficient, rhs), options, control);
    EXPECT_EQ(none.result.status, SolveStatus::kInfeasible);
    EXPECT_FALSE(none.point.has_value());
  }
}

// Integers fixed by rows rather than by equalities: s == 3 + n0 + n1 eliminates s, whose box [0, 3] becomes
// 0 <= 3 + n0 + n1 <= 3 over n >= 0, which only n = 0 meets; the domain over (x, n) is flat in n until the rows
// fix n0 = n1 = 0 (model_reduction.cc, narrow_integers), and every method then runs over x. The provers prove
// the oracle's optimum; every point has n = 0 and s = 3. Asking s == 4 + n0 + n1 leaves no point: `infeasible`.
TEST_P(ModelSolve, IntegersFixedByTheirRowsLeaveADomainEveryMethodRuns) {
  const auto model = [](double shift) {
    Model m;
    m.variables = {{"x", Eigen::VectorXd::Zero(1), Eigen::VectorXd::Ones(1), {}},
                   {"n", Eigen::Vector2d::Zero(), Eigen::Vector2d::Constant(3.0), {true, true}},
                   {"s", Eigen::VectorXd::Zero(1), Eigen::VectorXd::Constant(1, 3.0), {true}}};
    m.networks = {{"f", std::make_shared<const Network>(testing::random_network(3, {5}, 1, 95)), {0, 1, 2}, ""}};
    m.constraints = {testing::make_constraint(
        {{R::variable(2, 0), 1.0}, {R::variable(1, 0), -1.0}, {R::variable(1, 1), -1.0}}, ConstraintSense::kEqual,
        shift)};
    m.objective = {{{R::output(0, 0), 1.0}, {R::variable(0, 0), 0.2}}, 0.0};
    return m;
  };
  const Model m = model(3.0);
  const testing::ModelOptimum exact = testing::brute_force_model(m);
  ASSERT_TRUE(exact.feasible);
  const ModelResult got = solve(m, ModelSolve::options(), twenty_seconds());
  if (GetParam() == Method::kBab || GetParam() == Method::kMip) testing::expect_oracles_answer(m, exact, got);
  ASSERT_TRUE(got.point.has_value()) << status_name(got.result.status);
  EXPECT_EQ(got.point->v.tail<3>(), Eigen::Vector3d(0.0, 0.0, 3.0));
  EXPECT_LE(got.point->max_violation, model_tolerance(m));
  EXPECT_LE(got.point->objective, exact.objective + 1e-9);
  const ModelResult none = solve(model(4.0), ModelSolve::options(), twenty_seconds());
  EXPECT_EQ(none.result.status, SolveStatus::kInfeasible);
  EXPECT_FALSE(none.point.has_value());
}

// Numbers where CBC 2.10 misreports: integers in [0, 1.4e9] put big-M coefficients of 1.4e9 into the model MIP,
// and CBC ends its root without a branch, calling the model infeasible (solver/cbc_mip.cc, kTrustedMagnitude).
// x0 = 1.4e9, x1 = 0 is the optimum, 2.1e9 - 0.1: no method answers `infeasible`, and bab proves it.
TEST_P(ModelSolve, LargeNumbersAreNeverCalledInfeasible) {
  Model m;
  m.variables = {{"n", Eigen::Vector2d::Zero(), Eigen::Vector2d::Constant(1.4e9), {true, true}}};
  m.networks = {{"f",
                 std::make_shared<const Network>(std::vector<DenseLayer>{
                     DenseLayer{Eigen::MatrixXd{{1.0, -1.0}, {0.5, 0.25}}, Eigen::VectorXd{{0.1, -0.2}}},
                     DenseLayer{Eigen::MatrixXd{{1.0, 1.0}}, Eigen::VectorXd{{0.0}}}}),
                 {0, 1}, ""}};
  m.objective = {{{R::output(0, 0), 1.0}}, 0.0};
  const ModelResult got = solve(m, ModelSolve::options(), twenty_seconds());
  EXPECT_NE(got.result.status, SolveStatus::kInfeasible);
  if (GetParam() == Method::kBab) {
    EXPECT_EQ(got.result.status, SolveStatus::kOptimal);
    ASSERT_TRUE(got.point.has_value());
    EXPECT_EQ(got.point->v, Eigen::Vector2d(1.4e9, 0.0));
    EXPECT_EQ(got.result.objective, evaluate(m, Eigen::Vector2d(1.4e9, 0.0)).objective);
  }
}

INSTANTIATE_TEST_SUITE_P(Methods, ModelSolve,
                         ::testing::Values(Method::kSampling, Method::kEnhanced, Method::kBab, Method::kMip,
                                           Method::kGradient, Method::kWalk),
                         [](const ::testing::TestParamInfo<Method>& info) { return method_name(info.param); });

}  // namespace
}  // namespace reluopt
