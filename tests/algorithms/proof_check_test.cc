// Cross-checks of proven bounds (docs/MATH.md §12): a bound that a point contradicts is withdrawn and reported
// as a solver failure; a valid one passes; and the digits instance on which CBC with CLP's scaling proved a
// wrong optimum (bench/results/repro_mip_wrong_optimal) stays right for every MIP method.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "algorithms/problem.h"
#include "algorithms/proof_check.h"
#include "reluopt/json_io.h"
#include "reluopt/model_io.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

SolveOptions check_options() {
  SolveOptions options;
  options.threads = 1;
  options.seed = 5;
  options.check_proof = true;
  return options;
}

// A result that claims the box's lower corner is optimal, with the corner's value as its "bound".
SolveResult claim_at_corner(const Problem& problem) {
  SolveResult result;
  result.x = Eigen::VectorXd::Zero(problem.network.input_dim());
  result.outputs = problem.network.forward(result.x);
  result.objective = problem.objective.value(result.outputs);
  result.bound = result.objective;
  result.gap = 0.0;
  result.status = SolveStatus::kOptimal;
  return result;
}

TEST(ProofCheck, AWrongProofIsWithdrawnWithTheBetterPoint) {
  const Network net = testing::random_network(3, {6, 5}, 1, 17);
  const Problem problem = make_problem(net, Domain::unit_box(3), Objective::output(1));
  SolveResult result = claim_at_corner(problem);
  const double exact = testing::brute_force_max(net, Domain::unit_box(3), Objective::output(1));
  ASSERT_GT(exact, result.objective + 1e-3);  // the claim is wrong
  const double claimed = result.objective;
  check_proof(problem, check_options(), Deadline(), result);
  EXPECT_FALSE(result.solver_failure.empty());
  EXPECT_EQ(result.status, SolveStatus::kFeasible);
  EXPECT_FALSE(result.bound.has_value());
  EXPECT_FALSE(result.gap.has_value());
  EXPECT_GT(result.objective, claimed);
  EXPECT_DOUBLE_EQ(result.objective, net.forward(result.x)[0]);
}

TEST(ProofCheck, AValidProofPasses) {
  const Network net = testing::random_network(3, {6, 5}, 1, 17);
  const Domain domain = Domain::unit_box(3);
  SolveOptions options = check_options();
  options.method = Method::kMip;
  const SolveResult result = solve(net, domain, Objective::output(1), options);
  EXPECT_EQ(result.status, SolveStatus::kOptimal);
  EXPECT_TRUE(result.solver_failure.empty());
  EXPECT_EQ(result.proof_check.rfind("passed", 0), 0u) << result.proof_check;
  EXPECT_NEAR(result.objective, testing::brute_force_max(net, domain, Objective::output(1)), 1e-6);
}

TEST(ProofCheck, ABoundBelowTheRunsOwnValueIsWithdrawn) {
  const Network net = testing::random_network(3, {8}, 1, 4);
  const Problem problem = make_problem(net, Domain::unit_box(3), Objective::output(1));
  SolveResult result = claim_at_corner(problem);
  result.bound = result.objective - 1.0;
  check_against_run(problem, result);
  EXPECT_FALSE(result.solver_failure.empty());
  EXPECT_EQ(result.status, SolveStatus::kFeasible);
  EXPECT_FALSE(result.bound.has_value());
}

TEST(ProofCheck, NothingToCheckWithoutABound) {
  const Network net = testing::random_network(3, {8}, 1, 4);
  const Problem problem = make_problem(net, Domain::unit_box(3), Objective::output(1));
  SolveResult result = claim_at_corner(problem);
  result.bound.reset();
  result.status = SolveStatus::kFeasible;
  check_proof(problem, check_options(), Deadline(), result);
  EXPECT_EQ(result.proof_check, "not run: no bound to check");
}

// The L-inf ball of radius 0.1 around digit image 0, maximize logit 3 - logit 2. HiGHS certified 8.428261551908093
// (bench/results/repro_mip_wrong_optimal/highs_certificate_r0.1_img0.json); CBC with CLP's scaling proved
// 5.385 (mip), 5.446 (mip-cuts) and 7.344 (partition) optimal.
TEST(ProofCheck, DigitsInstanceWhereScalingProvedAWrongOptimum) {
  const std::string dir = std::string(RELUOPT_FIXTURES_DIR) + "/digits/";
  const Network net = read_onnx(dir + "digits_mlp.onnx");
  const Domain domain = read_domain_json(dir + "domain_r0.1_img0.json");
  const Objective objective = read_objective_json(dir + "objective_logit3_minus_logit2.json");
  const double certified = 8.428261551908093;
  for (Method method : {Method::kMip, Method::kMipCuts, Method::kPartition}) {
    SolveOptions options;
    options.method = method;
    options.threads = 1;
    options.seed = 1;
    const SolveResult r = solve(net, domain, objective, options);
    SCOPED_TRACE(method_name(method));
    EXPECT_EQ(r.status, SolveStatus::kOptimal);
    EXPECT_NEAR(r.objective, certified, 1e-6 * certified);
    ASSERT_TRUE(r.bound.has_value());
    EXPECT_GE(*r.bound, certified - 1e-6 * certified);
  }
}

}  // namespace
}  // namespace reluopt
