// reluopt::verify on tiny_network (tests/test_networks.h), whose output ranges over [-0.5, 2.5] on [0,1]^2:
// the answers are known by hand.
#include <gtest/gtest.h>

#include <sstream>

#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/verify.h"
#include "test_networks.h"

namespace reluopt {
namespace {

const std::string kHeader = "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n";
const std::string kUnitBox = "(assert (<= 0 X_0 1))\n(assert (<= 0 X_1 1))\n";

VerifyResult run(const std::string& text, double time_limit = 20.0) {
  std::istringstream in(kHeader + text);
  const VnnlibProperty property = detail::read_vnnlib(in, "p.vnnlib");
  VerifyOptions options;
  options.threads = 2;
  options.seed = 3;
  RunControl control;
  control.time_limit = time_limit;
  return verify(testing::tiny_network(), property, options, control);
}

void expect_counterexample(const VerifyResult& result) {
  ASSERT_EQ(result.status, VerifyStatus::kSat);
  ASSERT_EQ(result.x.size(), 2);
  EXPECT_TRUE((result.x.array() >= 0.0).all() && (result.x.array() <= 1.0).all());
  EXPECT_EQ(result.y, testing::tiny_network().forward(result.x));
}

TEST(Verify, SatWithACheckedCounterexample) {
  const VerifyResult result = run(kUnitBox + "(assert (>= Y_0 2.4))\n");
  expect_counterexample(result);
  EXPECT_GE(result.y[0], 2.4);
}

TEST(Verify, UnsatWithAProvenBound) {
  const VerifyResult result = run(kUnitBox + "(assert (>= Y_0 2.6))\n");
  ASSERT_EQ(result.status, VerifyStatus::kUnsat);
  ASSERT_EQ(result.cases.size(), 1u);
  ASSERT_TRUE(result.cases[0].bound.has_value());
  EXPECT_LT(*result.cases[0].bound, -kUnsatMargin);
  EXPECT_GE(*result.cases[0].bound, -0.1 - 1e-6);  // the margin's maximum is 2.5 - 2.6
  EXPECT_TRUE(result.cases[0].decided);
}

TEST(Verify, DisjunctionOfOutputConstraints) {
  EXPECT_EQ(run(kUnitBox + "(assert (or (and (>= Y_0 2.6)) (and (<= Y_0 -0.6))))\n").status, VerifyStatus::kUnsat);
  const VerifyResult result = run(kUnitBox + "(assert (or (and (>= Y_0 2.6)) (and (<= Y_0 -0.4))))\n");
  expect_counterexample(result);
  EXPECT_LE(result.y[0], -0.4);
}

// Box 1 keeps y <= 0.7 (a <= 0.1); box 2 holds the maximum 2.5 at (1, 0).
TEST(Verify, UnionOfBoxes) {
  const std::string boxes =
      "(assert (or (and (>= X_0 0) (<= X_0 0.1) (>= X_1 0) (<= X_1 1))\n"
      "            (and (>= X_0 0.9) (<= X_0 1) (>= X_1 0) (<= X_1 0.1))))\n";
  const VerifyResult sat = run(boxes + "(assert (>= Y_0 2.0))\n");
  expect_counterexample(sat);
  EXPECT_GE(sat.x[0], 0.9);
  const VerifyResult unsat = run(boxes + "(assert (>= Y_0 2.6))\n");
  ASSERT_EQ(unsat.status, VerifyStatus::kUnsat);
  EXPECT_EQ(unsat.cases.size(), 2u);
}

// The margin's maximum is exactly 0: a strict constraint is never met, and no bound is below -1e-4.
TEST(Verify, StrictConstraintAtTheOptimumIsUndecided) {
  const VerifyResult result = run(kUnitBox + "(assert (> Y_0 2.5))\n");
  EXPECT_EQ(result.status, VerifyStatus::kUnknown);
  ASSERT_EQ(result.cases.size(), 1u);
  EXPECT_NEAR(result.cases[0].best_margin, 0.0, 1e-9);
}

TEST(Verify, EveryBoxEmptyIsUnsat) {
  EXPECT_EQ(run("(assert (<= 1 X_0 0))\n(assert (<= 0 X_1 1))\n(assert (>= Y_0 0))\n").status, VerifyStatus::kUnsat);
}

TEST(Verify, ZeroTimeIsTimeout) {
  EXPECT_EQ(run(kUnitBox + "(assert (>= Y_0 2.4))\n", 0.0).status, VerifyStatus::kTimeout);
}

TEST(Verify, PropertyOfAnotherShapeIsRefused) {
  std::istringstream in("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= 0 X_0 1))\n");
  const VnnlibProperty property = detail::read_vnnlib(in, "p.vnnlib");
  EXPECT_THROW(verify(testing::tiny_network(), property, VerifyOptions{}), Error);
}

}  // namespace
}  // namespace reluopt
