// Algorithm 1 against exhaustive enumeration of activation patterns on networks with at most 12 hidden
// neurons: given enough samples, sampling must reach the exact maximum, and never exceed it.
#include <gtest/gtest.h>

#include <tuple>

#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

struct Case {
  int dim;
  std::vector<int> hidden;
  int outputs;
  bool polytope;
  std::uint64_t seed;
};

class BruteForce : public ::testing::TestWithParam<Case> {};

TEST_P(BruteForce, SamplingReachesTheEnumeratedMaximum) {
  const Case& c = GetParam();
  const Network net = testing::random_network(c.dim, c.hidden, c.outputs, c.seed);
  const Domain domain = c.polytope ? testing::random_polytope(c.dim, 3, c.seed + 100) : Domain::unit_box(c.dim);
  Objective objective = Objective::output(c.outputs);
  if (c.outputs > 1) {
    objective.weights = Eigen::VectorXd::LinSpaced(c.outputs, 1.0, -1.0);
    objective.sense = Sense::kMinimize;
  }
  const double exact = testing::brute_force_max(net, domain, objective);  // maximized sense

  SolveOptions options;
  options.method = Method::kSampling;
  options.sampling.samples = 4000;
  options.threads = 2;
  options.seed = c.seed;
  const SolveResult r = solve(net, domain, objective, options);
  ASSERT_NE(r.status, SolveStatus::kNoSolution);
  const double found = objective.sign() * r.objective;
  const double tolerance = 1e-6 * std::max(1.0, std::abs(exact));
  EXPECT_LE(found, exact + tolerance) << "sampling reported more than the true maximum";
  EXPECT_NEAR(found, exact, tolerance);
  EXPECT_LE(domain.max_violation(r.x), 1e-12);
}

INSTANTIATE_TEST_SUITE_P(
    SmallNetworks, BruteForce,
    ::testing::Values(Case{2, {6}, 1, false, 1}, Case{3, {10}, 1, false, 2}, Case{4, {12}, 1, true, 3},
                      Case{2, {5, 5}, 1, false, 4}, Case{3, {6, 6}, 1, true, 5}, Case{4, {6, 5}, 2, false, 6},
                      Case{3, {4, 4, 4}, 1, false, 7}, Case{2, {4, 4, 3}, 1, true, 8},
                      Case{5, {4, 4, 4}, 3, true, 9}, Case{3, {12}, 1, true, 10}));

}  // namespace
}  // namespace reluopt
