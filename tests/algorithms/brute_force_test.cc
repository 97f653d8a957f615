// Algorithm 1 against exhaustive enumeration of activation patterns on networks with at most 12 hidden
// neurons: given enough samples, sampling must reach the exact maximum, and never exceed it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::SmallCase;

class BruteForce : public testing::SmallProblemTest {};

TEST_P(BruteForce, SamplingReachesTheEnumeratedMaximum) {
  const double exact = testing::brute_force_max(net_, domain_, objective_);  // maximized sense

  SolveOptions options;
  options.method = Method::kSampling;
  options.sampling.samples = 4000;
  options.threads = 2;
  options.seed = GetParam().seed;
  const SolveResult r = solve(net_, domain_, objective_, options);
  ASSERT_NE(r.status, SolveStatus::kNoSolution);
  const double found = objective_.sign() * r.objective;
  const double tolerance = 1e-6 * std::max(1.0, std::abs(exact));
  EXPECT_LE(found, exact + tolerance) << "sampling reported more than the true maximum";
  EXPECT_NEAR(found, exact, tolerance);
  EXPECT_LE(domain_.max_violation(r.x), 1e-12);
}

// The cases with several outputs minimize.
INSTANTIATE_TEST_SUITE_P(
    SmallNetworks, BruteForce,
    ::testing::ValuesIn(testing::sanitizer_share<SmallCase>(
        {SmallCase{2, {6}, 1, false, false, 1}, SmallCase{3, {10}, 1, false, false, 2},
         SmallCase{4, {12}, 1, true, false, 3}, SmallCase{2, {5, 5}, 1, false, false, 4},
         SmallCase{3, {6, 6}, 1, true, false, 5}, SmallCase{4, {6, 5}, 2, false, true, 6},
         SmallCase{3, {4, 4, 4}, 1, false, false, 7}, SmallCase{2, {4, 4, 3}, 1, true, false, 8},
         SmallCase{5, {4, 4, 4}, 3, true, true, 9}, SmallCase{3, {12}, 1, true, false, 10}})),
    testing::small_case_name);

}  // namespace
}  // namespace reluopt
