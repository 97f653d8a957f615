// Models with a max-min objective max_k min_l (expr_kl) (algorithms/model_objective.h) against the brute-force
// oracle: the oracle sees each disjunct (max) or each choice of one term per disjunct (min) as a linear model
// with an epigraph variable t, and the answer is the best of those optima.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "algorithms/model_brute_force.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::make_constraint;
using R = Reference;

constexpr double kEpigraphBound = 100.0;

// x = (x0 integer in [0, 2], x1 in [-1, 1]), z in [-1, 1]; f(x0, x1) with 2 outputs, g(x1, z) with one; a row on
// g's output; two disjuncts of two terms over f, g and the variables, drawn from `seed`.
Model random_max_min_model(std::uint64_t seed, Sense sense) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> c(-1.0, 1.0);
  Model m;
  m.variables = {{"x", Eigen::Vector2d(0.0, -1.0), Eigen::Vector2d(2.0, 1.0), {true, false}},
                 {"z", Eigen::VectorXd::Constant(1, -1.0), Eigen::VectorXd::Constant(1, 1.0), {}}};
  m.networks = {{"f", std::make_shared<const Network>(testing::random_network(2, {4}, 2, seed)), {0, 1}, ""},
                {"g", std::make_shared<const Network>(testing::random_network(2, {3, 2}, 1, seed + 50)), {1, 2}, ""}};
  m.constraints = {make_constraint({{R::output(1, 0), 1.0}, {R::variable(1, 0), 0.2 * c(rng)}},
                                   ConstraintSense::kLessEqual, m.networks[1].network->forward(Eigen::Vector2d(0, 0))[0] + 0.5)};
  for (int k = 0; k < 2; ++k) {
    m.objective_disjuncts.emplace_back();
    for (int l = 0; l < 2; ++l)
      m.objective_disjuncts.back().push_back(
          {{{R::output(0, l), 1.0}, {R::output(1, 0), 0.5 * c(rng)}, {R::variable(k, 0), 0.3 * c(rng)}}, c(rng)});
  }
  m.sense = sense;
  return m;
}

// The model with block t in [-B, B] and the objective t, which each of `terms` bounds (from above for max).
Model epigraph(const Model& model, const std::vector<const LinearExpr*>& terms) {
  Model m = model;
  m.objective_disjuncts.clear();
  const int t = static_cast<int>(m.variables.size());
  m.variables.push_back({"t", Eigen::VectorXd::Constant(1, -kEpigraphBound), Eigen::VectorXd::Constant(1, kEpigraphBound), {}});
  for (const LinearExpr* term : terms) {
    LinearConstraint row;
    row.expr = *term;
    for (LinearExpr::Term& each : row.expr.terms) each.coefficient = -each.coefficient;
    row.expr.terms.push_back({R::variable(t, 0), 1.0});
    row.sense = model.sense == Sense::kMaximize ? ConstraintSense::kLessEqual : ConstraintSense::kGreaterEqual;
    row.rhs = term->constant;
    row.expr.constant = 0.0;
    m.constraints.push_back(row);
  }
  m.objective = {{{R::variable(t, 0), 1.0}}, 0.0};
  return m;
}

// max: the best disjunct's max of its min (t <= every term); min: the best choice of one term per disjunct of
// the min of their max (t >= each chosen term).
testing::ModelOptimum brute_force_max_min(const Model& model) {
  std::vector<std::vector<const LinearExpr*>> pieces;
  const auto& d = model.objective_disjuncts;
  if (model.sense == Sense::kMaximize) {
    for (const auto& disjunct : d) {
      pieces.emplace_back();
      for (const LinearExpr& term : disjunct) pieces.back().push_back(&term);
    }
  } else {
    for (const LinearExpr& a : d[0])
      for (const LinearExpr& b : d[1]) pieces.push_back({&a, &b});
  }
  testing::ModelOptimum best;
  const double sign = model.sense == Sense::kMaximize ? 1.0 : -1.0;
  for (const auto& terms : pieces) {
    testing::ModelOptimum piece = testing::brute_force_model(epigraph(model, terms));
    if (!piece.feasible) continue;
    EXPECT_LT(std::abs(piece.objective), kEpigraphBound - 1.0) << "the epigraph's box cuts the optimum off";
    piece.v.conservativeResize(model.num_variables());
    if (!best.feasible || sign * piece.objective > sign * best.objective) best = piece;
  }
  return best;
}

ModelResult run(const Model& m, Method method) {
  SolveOptions options;
  options.method = method;
  options.threads = 1;
  options.seed = 3;
  RunControl control;
  control.time_limit = 30.0;
  return solve(m, options, control);
}

class ModelMaxMin : public ::testing::TestWithParam<Method> {};

TEST_P(ModelMaxMin, ProvesTheOraclesOptimum) {
  int feasible = 0;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Model m = random_max_min_model(seed, seed % 2 == 0 ? Sense::kMaximize : Sense::kMinimize);
    const testing::ModelOptimum exact = brute_force_max_min(m);
    feasible += exact.feasible ? 1 : 0;
    testing::expect_oracles_answer(m, exact, run(m, GetParam()));
  }
  EXPECT_GT(feasible, 3);
}

INSTANTIATE_TEST_SUITE_P(Methods, ModelMaxMin, ::testing::Values(Method::kMip, Method::kBab),
                         [](const ::testing::TestParamInfo<Method>& info) { return method_name(info.param); });

// The search methods: every point feasible by evaluate() and never beyond the optimum.
TEST(ModelMaxMinSearch, PointsAreFeasibleAndNeverBeyondTheOptimum) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Model m = random_max_min_model(seed, seed % 2 == 0 ? Sense::kMaximize : Sense::kMinimize);
    const testing::ModelOptimum exact = brute_force_max_min(m);
    const double sign = m.sense == Sense::kMaximize ? 1.0 : -1.0;
    for (Method method : {Method::kSampling, Method::kEnhanced}) {
      const ModelResult got = run(m, method);
      if (!got.point) continue;
      const ModelPoint p = evaluate(m, got.result.x);
      EXPECT_LE(p.max_violation, 1e-6);
      EXPECT_NEAR(p.objective, got.result.objective, 1e-12);
      ASSERT_TRUE(exact.feasible);
      EXPECT_LE(sign * p.objective, sign * exact.objective + 1e-7) << method_name(method);
    }
  }
}

}  // namespace
}  // namespace reluopt
