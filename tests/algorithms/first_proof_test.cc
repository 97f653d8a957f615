// The first proof of a timed default run (algorithms/first_proof.h): it proves a small instance at once and ends
// the run with the prover's result and statistics; when it does not prove, the search follows, the prover resumes
// at the end and the run keeps the better point and the tighter bound of both.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "algorithms/model_brute_force.h"
#include "algorithms/solve_in_context.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

SolveOptions timed_default(int threads = 1) {
  SolveOptions options;
  options.sampling.samples = 20;
  options.enhanced.local_search = LocalSearch::kFlip;
  options.seed = 4;
  options.threads = threads;
  return options;
}

RunControl long_limit() {
  RunControl control;
  control.time_limit = 600.0;
  return control;
}

TEST(FirstProof, ProvesASmallInstanceBeforeAnySample) {
  const Network net = testing::random_network(3, {6, 6}, 1, 21);
  const Domain domain = testing::random_polytope(3, 3, 71);
  for (Sense sense : {Sense::kMaximize, Sense::kMinimize}) {
    Objective objective = Objective::output(1);
    objective.sense = sense;
    const double exact = objective.sign() * testing::brute_force_max(net, domain, objective);
    const SolveResult result = solve(net, domain, objective, timed_default(), long_limit());
    EXPECT_EQ(result.method, "enhanced");
    EXPECT_EQ(result.status, SolveStatus::kOptimal);
    EXPECT_EQ(result.stopped_by, StopReason::kCompleted);
    EXPECT_EQ(result.sampling.samples, 0);
    EXPECT_EQ(result.prover, "bab");
    EXPECT_GT(result.run.nodes, 0);
    ASSERT_TRUE(result.bound.has_value());
    EXPECT_NEAR(result.objective, exact, 1e-6 * std::max(1.0, std::abs(exact)));
    EXPECT_NEAR(*result.bound, exact, 1e-6 * std::max(1.0, std::abs(exact)));
    EXPECT_DOUBLE_EQ(result.objective, objective.value(net.forward(result.x)));
  }
}

// --first-proof 0, and a run without a time limit: the search comes first, as before.
TEST(FirstProof, OffOrUntimedTheSearchComesFirst) {
  const Network net = testing::random_network(3, {6, 6}, 1, 21);
  const Domain domain = testing::random_polytope(3, 3, 71);
  SolveOptions options = timed_default();
  options.enhanced.first_proof = 0.0;
  const SolveResult off = solve(net, domain, Objective::output(1), options, long_limit());
  EXPECT_EQ(off.sampling.samples, 20);
  EXPECT_EQ(off.status, SolveStatus::kOptimal);
  const SolveResult untimed = solve(net, domain, Objective::output(1), timed_default());
  EXPECT_EQ(untimed.sampling.samples, 20);
  EXPECT_FALSE(untimed.bound.has_value());
}

// A first proof stopped after one node (bab's node limit, a count: deterministic): the search follows, the prover
// resumes at the end (one node again), and the run reports the better point and the tighter of both bounds, with
// one anytime profile on the run's clock.
TEST(FirstProof, AnUnfinishedFirstProofJoinsTheSearch) {
  const Network net = testing::random_network(4, {6, 6}, 1, 5);
  const Domain domain = Domain::unit_box(4);
  const Objective objective = Objective::output(1);
  const double exact = testing::brute_force_max(net, domain, objective);
  SolveOptions options = timed_default();
  options.bab.node_limit = 1;
  const SolveResult result = solve(net, domain, objective, options, long_limit());
  ASSERT_NE(result.status, SolveStatus::kOptimal) << "one node proved it: the test needs a harder network";
  EXPECT_EQ(result.sampling.samples, 20);
  EXPECT_EQ(result.prover, "bab");
  EXPECT_GE(result.run.nodes, 2);
  ASSERT_TRUE(result.bound.has_value());
  EXPECT_GE(*result.bound, exact - 1e-9);
  EXPECT_LE(result.objective, exact + 1e-9);
  EXPECT_DOUBLE_EQ(result.objective, objective.value(net.forward(result.x)));
  for (std::size_t i = 1; i < result.trajectory.size(); ++i) {
    EXPECT_GE(result.trajectory[i].first, result.trajectory[i - 1].first);
    EXPECT_GT(result.trajectory[i].second, result.trajectory[i - 1].second);
  }
  ASSERT_FALSE(result.trajectory.empty());
  EXPECT_DOUBLE_EQ(result.trajectory.back().second, result.objective);
}

// With a model's rows and integers the first proof is the mip method's model MIP: the oracle's answer, before any
// sample.
TEST(FirstProof, AModelsRowsAreProvenByTheModelMip) {
  using R = Reference;
  Model m;
  m.variables = {{"x", Eigen::Vector2d(0.0, -1.0), Eigen::Vector2d(3.0, 1.0), {true, false}}};
  m.networks = {{"net", std::make_shared<const Network>(testing::random_network(2, {5, 4}, 2, 33)), {0, 1}, ""}};
  m.constraints = {testing::make_constraint({{R::output(0, 1), 1.0}, {R::variable(0, 0), 0.1}},
                                            ConstraintSense::kLessEqual, 0.4)};
  m.objective = {{{R::output(0, 0), 1.0}, {R::variable(0, 1), 0.3}}, 0.0};
  const testing::ModelOptimum exact = testing::brute_force_model(m);
  ASSERT_TRUE(exact.feasible);
  const ModelResult got = solve(m, timed_default(), long_limit());
  testing::expect_oracles_answer(m, exact, got);
  EXPECT_EQ(got.result.prover, "mip");
  EXPECT_EQ(got.result.sampling.samples, 0);
  // The model MIP's own report (its search's point, the optimum here, tightens every neuron stable under the
  // objective cutoff, so its formulation may keep no binary).
  EXPECT_EQ(got.result.mip.bound_method, "progressive");
}

// The same through the composite's API (solve with ModelRows): the first proof is the MIP with the rows, and it
// proves the optimum bab proves.
TEST(FirstProof, RowsOnOutputsAreProvenByTheirMip) {
  const Network net = testing::random_network(3, {6, 5}, 2, 9);
  const Domain domain = Domain::unit_box(3);
  const Objective objective = Objective::output(2);
  const double cap = net.forward(Eigen::Vector3d(0.5, 0.5, 0.5))[1];
  const ModelRows rows{Eigen::RowVector2d(0.0, 1.0), Eigen::VectorXd::Constant(1, cap), {}};
  const SolveResult got = solve(net, domain, objective, rows, timed_default(), RunContext(long_limit()));
  SolveOptions bab = timed_default();
  bab.method = Method::kBab;
  const SolveResult reference = solve(net, domain, objective, rows, bab, RunContext(long_limit()));
  ASSERT_EQ(reference.status, SolveStatus::kOptimal);
  EXPECT_EQ(got.status, SolveStatus::kOptimal);
  EXPECT_EQ(got.prover, "mip");
  EXPECT_EQ(got.sampling.samples, 0);
  EXPECT_NEAR(got.objective, reference.objective, 1e-6 * std::max(1.0, std::abs(reference.objective)));
  EXPECT_LE(net.forward(got.x)[1], cap + 1e-6);
}

}  // namespace
}  // namespace reluopt
