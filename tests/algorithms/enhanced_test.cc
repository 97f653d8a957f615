// Algorithm 2 (enhanced sampling): local optimality by enumeration of neighbouring regions, agreement with
// brute force, determinism, and the gap test near zero.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <string>

#include "algorithms/enhanced.h"
#include "algorithms/problem.h"
#include "bounds/bounds.h"
#include "formulation/neighbourhood_mip.h"
#include "formulation/pattern_lp.h"
#include "reluopt/solve.h"
#include "solver/lp_solver.h"
#include "solver/mip_solver.h"
#include "test_networks.h"

namespace reluopt {
namespace {

SolveOptions enhanced(long samples, LocalSearch kind, std::uint64_t seed = 0, int threads = 1) {
  SolveOptions options;
  options.method = Method::kEnhanced;
  options.sampling.samples = samples;
  options.enhanced.local_search = kind;
  options.seed = seed;
  options.threads = threads;
  return options;
}

// The best value over every region that contains x: all state combinations of the neurons tight at x.
double best_neighbouring_region(const Network& net, const Domain& domain, const Objective& objective,
                                const Eigen::VectorXd& x, double eps) {
  const ForwardTrace trace = net.trace(x);
  ActivationPattern pattern = net.activation_pattern(x);
  std::vector<std::pair<int, int>> tight;
  for (int k = 0; k < net.num_hidden_layers(); ++k)
    for (int j = 0; j < net.hidden_width(k); ++j)
      if (std::abs(trace.pre_activation[k][j]) <= eps) tight.push_back({k, j});
  EXPECT_LE(tight.size(), 14u);
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  double best = -kInfinity;
  for (long bits = 0; bits < (1L << tight.size()); ++bits) {
    for (std::size_t t = 0; t < tight.size(); ++t) pattern.active[tight[t].first][tight[t].second] = (bits >> t) & 1;
    const LpSolution solution = lp->solve(pattern_lp(net, domain, objective, pattern, nullptr));
    if (solution.status == LpStatus::kOptimal) best = std::max(best, solution.objective);
  }
  return best;
}

struct Case {
  std::vector<int> hidden;
  bool polytope;
  LocalSearch kind;
  std::uint64_t seed;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.hidden.size() << " hidden layers, " << (c.polytope ? "polytope" : "box") << ", "
      << local_search_name(c.kind) << " local search, seed " << c.seed;
}

// "h6x6_polytope_bnb_seed5"
std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  std::string kind = local_search_name(c.kind);
  std::replace(kind.begin(), kind.end(), '-', '_');  // "flip-mip": test names take no '-'
  return testing::hidden_name(c.hidden) + (c.polytope ? "_polytope_" : "_box_") + kind + "_seed" +
         std::to_string(c.seed);
}

class EnhancedOnTinyNetworks : public ::testing::TestWithParam<Case> {};

TEST_P(EnhancedOnTinyNetworks, ReturnsALocalOptimumNeverAboveTheTrueOptimum) {
  const Case& c = GetParam();
  const Network net = testing::random_network(3, c.hidden, 1, c.seed);
  const Domain domain = c.polytope ? testing::random_polytope(3, 3, c.seed + 50) : Domain::unit_box(3);
  const Objective objective = Objective::output(1);
  const double exact = testing::brute_force_max(net, domain, objective);

  // Few samples: the local search, not the sampling, must make the point locally optimal.
  const SolveResult few = solve(net, domain, objective, enhanced(5, c.kind, c.seed));
  ASSERT_EQ(few.status, SolveStatus::kFeasible);
  EXPECT_LE(few.objective, exact + 1e-7);
  EXPECT_LE(domain.max_violation(few.x), 1e-12);
  EXPECT_DOUBLE_EQ(few.objective, net.forward(few.x)[0]);
  const double neighbours = best_neighbouring_region(net, domain, objective, few.x, 1e-6);
  EXPECT_LE(neighbours, few.objective + 1e-6 * std::max(1.0, std::abs(few.objective)))
      << "a neighbouring region improves on the returned point";

  // Enough samples: the global optimum.
  const SolveResult many = solve(net, domain, objective, enhanced(400, c.kind, c.seed, 2));
  EXPECT_NEAR(many.objective, exact, 1e-6 * std::max(1.0, std::abs(exact)));
  EXPECT_LE(many.objective, exact + 1e-7);
}

INSTANTIATE_TEST_SUITE_P(
    Variants, EnhancedOnTinyNetworks,
    ::testing::Values(Case{{8}, false, LocalSearch::kFlip, 1}, Case{{6, 6}, false, LocalSearch::kFlip, 2},
                      Case{{5, 4}, true, LocalSearch::kFlip, 3}, Case{{4, 4, 4}, false, LocalSearch::kFlip, 4},
                      Case{{6, 6}, true, LocalSearch::kBranchAndBound, 5},
                      Case{{6, 6}, false, LocalSearch::kPaper, 6}, Case{{10}, true, LocalSearch::kPaper, 7},
                      Case{{6, 6}, true, LocalSearch::kFlipMip, 8}),
    case_name);

// flip-mip ends where the paper's neighbourhood MIP, solved to optimality by CBC over every neuron tight at
// the point, finds nothing better. (On random networks over a box the best point often has few tight neurons,
// so this checks the end state whichever exact search, our own or CBC's, certified it.)
TEST(Enhanced, FlipMipEndsAtALocalOptimumOfTheNeighbourhoodMip) {
  const Network net = testing::random_network(16, {30, 30}, 1, 21);
  const Domain domain = Domain::unit_box(16);
  const Objective objective = Objective::output(1);
  const SolveResult result = solve(net, domain, objective, enhanced(6, LocalSearch::kFlipMip, 3));
  ASSERT_EQ(result.status, SolveStatus::kFeasible);
  EXPECT_DOUBLE_EQ(result.objective, net.forward(result.x)[0]);
  const ForwardTrace trace = net.trace(result.x);
  FreeMask free(trace.pre_activation.size());
  int tight = 0;
  for (std::size_t k = 0; k < free.size(); ++k) {
    free[k].assign(trace.pre_activation[k].size(), 0);
    for (Eigen::Index j = 0; j < trace.pre_activation[k].size(); ++j)
      if (std::abs(trace.pre_activation[k][j]) <= 1e-6) free[k][j] = 1, ++tight;
  }
  const NeuronBounds bounds = interval_bounds(net, domain);
  const NeighbourhoodMip mip =
      *neighbourhood_mip(net, domain, objective, net.activation_pattern(result.x), free, bounds);
  const MipResult best = make_mip_solver()->solve(mip.model, Deadline(), MipParameters{});
  ASSERT_EQ(best.status, MipStatus::kOptimal);
  EXPECT_LE(*best.objective, result.objective + 1e-6 * std::max(1.0, std::abs(result.objective)))
      << tight << " tight neurons";
}

TEST(Enhanced, SameSeedAndThreadsGiveTheSameAnswer) {
  const Network net = testing::random_network(10, {20, 20}, 1, 12);
  for (int threads : {1, 2}) {
    const SolveResult a = solve(net, Domain::unit_box(10), Objective::output(1), enhanced(60, LocalSearch::kFlip, 3, threads));
    const SolveResult b = solve(net, Domain::unit_box(10), Objective::output(1), enhanced(60, LocalSearch::kFlip, 3, threads));
    EXPECT_EQ(a.x, b.x);
    EXPECT_EQ(a.run.lps, b.run.lps);
    EXPECT_EQ(a.enhanced.local_searches, b.enhanced.local_searches);
    EXPECT_EQ(a.method, "enhanced");
  }
}

TEST(Enhanced, BeatsOrMatchesSamplingOnTheSameSamples) {
  const Network net = testing::random_network(12, {30, 30}, 1, 5);
  SolveOptions sampling;
  sampling.sampling.samples = 100;
  sampling.threads = 1;
  const SolveResult plain = solve(net, Domain::unit_box(12), Objective::output(1), sampling);
  const SolveResult better = solve(net, Domain::unit_box(12), Objective::output(1), enhanced(100, LocalSearch::kFlip));
  EXPECT_GE(better.objective, plain.objective - 1e-12);
  EXPECT_GT(better.enhanced.local_searches, 0);
  EXPECT_GT(better.enhanced.local_mips, 0);
}

// --mip-share: Algorithm 2's samples (the count ends them well inside the time share), then the big-M MIP from
// its best point. On a small network the MIP proves the brute-force optimum: one run, a certified answer.
TEST(Enhanced, MipShareEndsWithAProvenBound) {
  const Network net = testing::random_network(3, {6, 6}, 1, 21);
  const Domain domain = testing::random_polytope(3, 3, 71);
  for (Sense sense : {Sense::kMaximize, Sense::kMinimize}) {
    Objective objective = Objective::output(1);
    objective.sense = sense;
    const double exact = objective.sign() * testing::brute_force_max(net, domain, objective);
    SolveOptions options = enhanced(20, LocalSearch::kFlip, 4);
    options.enhanced.mip_share = 0.5;
    options.enhanced.first_proof = 0.0;  // the prover at the end (tests/algorithms/first_proof_test.cc: the first)
    RunControl control;
    control.time_limit = 600.0;
    const SolveResult result = solve(net, domain, objective, options, control);
    ASSERT_TRUE(result.bound.has_value());
    EXPECT_EQ(result.status, SolveStatus::kOptimal);
    EXPECT_EQ(result.sampling.samples, 20);
    EXPECT_TRUE(result.mip.warm_started);
    EXPECT_NEAR(result.objective, exact, 1e-6 * std::max(1.0, std::abs(exact)));
    EXPECT_NEAR(*result.bound, exact, 1e-6 * std::max(1.0, std::abs(exact)));
    EXPECT_DOUBLE_EQ(result.objective, objective.value(net.forward(result.x)));
    // Without a time limit the run is Algorithm 2 alone (and deterministic): no MIP, no bound.
    EXPECT_FALSE(solve(net, domain, objective, options).bound.has_value());
  }
}

// --prover both: bab and the big-M MIP at once from Algorithm 2's point; either proof ends the run, and the
// answer is the brute-force optimum for max and min.
TEST(Enhanced, BothProversEndWithTheProvenOptimum) {
  const Network net = testing::random_network(3, {6, 6}, 1, 21);
  const Domain domain = testing::random_polytope(3, 3, 71);
  for (Sense sense : {Sense::kMaximize, Sense::kMinimize}) {
    Objective objective = Objective::output(1);
    objective.sense = sense;
    const double exact = objective.sign() * testing::brute_force_max(net, domain, objective);
    SolveOptions options = enhanced(20, LocalSearch::kFlip, 4, 2);
    options.enhanced.prover = Prover::kBoth;
    options.enhanced.first_proof = 0.0;
    RunControl control;
    control.time_limit = 600.0;
    const SolveResult result = solve(net, domain, objective, options, control);
    EXPECT_EQ(result.status, SolveStatus::kOptimal);
    EXPECT_EQ(result.prover, "both");
    ASSERT_TRUE(result.bound.has_value());
    EXPECT_NEAR(result.objective, exact, 1e-6 * std::max(1.0, std::abs(exact)));
    EXPECT_NEAR(*result.bound, exact, 1e-6 * std::max(1.0, std::abs(exact)));
    EXPECT_DOUBLE_EQ(result.objective, objective.value(net.forward(result.x)));
  }
}

// Issue 12: with a time limit the default run uses all of it to improve and prove, not a share of however long
// its samples took (they end in milliseconds here): unless it ends with a proof, it ends at the limit.
TEST(Enhanced, TimedRunUsesTheWholeLimitUnlessItProves) {
  const Network net = testing::random_network(12, {40, 40}, 1, 5);
  SolveOptions options = enhanced(20, LocalSearch::kFlip, 3, 2);
  RunControl control;
  control.time_limit = 1.0;
  const SolveResult result = solve(net, Domain::unit_box(12), Objective::output(1), options, control);
  ASSERT_NE(result.status, SolveStatus::kNoSolution);
  if (result.status != SolveStatus::kOptimal) {
    EXPECT_EQ(result.stopped_by, StopReason::kTimeLimit);
    EXPECT_GE(result.run.seconds, 0.95 * control.time_limit);
  }
}

TEST(Enhanced, GapTestIsSafeNearZero) {
  // The paper's quotient divides by the incumbent: at 0 it never searches, even on a tie.
  EXPECT_FALSE(paper_gap_test(0.0, 0.0, 2.0 / 3.0));
  EXPECT_TRUE(gap_test(0.0, 0.0, 2.0 / 3.0));
  EXPECT_TRUE(gap_test(1e-12, 0.5e-12, 2.0 / 3.0));
  EXPECT_FALSE(gap_test(1e-12, -5e-12, 2.0 / 3.0));
  // Negative incumbents, as in the paper's d = 5 row (-0.0721).
  EXPECT_TRUE(gap_test(-0.07, -0.08, 2.0 / 3.0));
  EXPECT_TRUE(paper_gap_test(-0.07, -0.08, 2.0 / 3.0));
  EXPECT_FALSE(gap_test(1.0, 0.2, 2.0 / 3.0));
  EXPECT_TRUE(gap_test(1.0, 0.5, 2.0 / 3.0));
}

}  // namespace
}  // namespace reluopt
