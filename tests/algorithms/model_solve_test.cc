// Every method on the reduction of a model (core/model_reduction.h) without output rows or integer variables:
// the composite network is a problem of the form solve() takes, so the provers prove the model's optimum (by
// the brute-force oracle) and every point's value is the model's own forward passes' value.
#include <gtest/gtest.h>

#include "algorithms/model_brute_force.h"
#include "core/model_reduction.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using R = Reference;

// Two networks of different depths on overlapping variables, a row on variables, a variable in the objective.
Model two_network_model(Sense sense) {
  Model m;
  m.variables = {{"x", Eigen::Vector2d(0.0, -1.0), Eigen::Vector2d(1.0, 1.0), {}},
                 {"z", Eigen::VectorXd::Constant(1, -1.0), Eigen::VectorXd::Constant(1, 2.0), {}}};
  m.networks = {{"deep", std::make_shared<const Network>(testing::random_network(3, {4, 3}, 1, 51)), {0, 1, 2}, ""},
                {"shallow", std::make_shared<const Network>(testing::random_network(2, {4}, 1, 52)), {1, 2}, ""}};
  m.constraints = {{{{{R::variable(0, 0), 1.0}, {R::variable(0, 1), 1.0}}, 0.0}, ConstraintSense::kLessEqual, 1.2, ""}};
  m.objective = {{{R::output(0, 0), 1.0}, {R::output(1, 0), -2.0}, {R::variable(0, 1), 0.3}}, 0.5};
  m.sense = sense;
  return m;
}

class ModelSolve : public ::testing::TestWithParam<Method> {};

TEST_P(ModelSolve, ReachesTheModelsOptimumOnTheComposite) {
  for (Sense sense : {Sense::kMaximize, Sense::kMinimize}) {
    const Model m = two_network_model(sense);
    const testing::ModelOptimum exact = testing::brute_force_model(m);
    ASSERT_TRUE(exact.feasible);
    const ReducedModel r = reduce(m);
    SolveOptions options;
    options.method = GetParam();
    options.threads = 1;
    options.seed = 3;
    RunControl control;
    control.time_limit = 20.0;
    const SolveResult result = solve(*r.composite, r.domain, r.objective, options, control);
    ASSERT_NE(result.status, SolveStatus::kNoSolution);
    const ModelPoint p = evaluate(m, result.x);
    EXPECT_LE(p.max_violation, 1e-12);
    EXPECT_NEAR(p.objective, result.objective, 1e-12);
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

INSTANTIATE_TEST_SUITE_P(Methods, ModelSolve,
                         ::testing::Values(Method::kSampling, Method::kEnhanced, Method::kBab, Method::kMip,
                                           Method::kGradient, Method::kWalk),
                         [](const ::testing::TestParamInfo<Method>& info) { return method_name(info.param); });

}  // namespace
}  // namespace reluopt
