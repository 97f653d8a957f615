// reluopt::verify on tiny_network (tests/test_networks.h), whose output ranges over [-0.5, 2.5] on [0,1]^2:
// the answers are known by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "io/readers.h"
#include "reluopt/model_io.h"
#include "reluopt/error.h"
#include "reluopt/verify.h"
#include "test_networks.h"

namespace reluopt {
namespace {

const std::string kHeader = "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n";
const std::string kUnitBox = "(assert (<= 0 X_0 1))\n(assert (<= 0 X_1 1))\n";

VerifyResult run_property(const Network& network, const VnnlibProperty& property, double time_limit = 20.0) {
  VerifyOptions options;
  options.threads = 2;
  options.seed = 3;
  options.property_file = "p.vnnlib";
  RunControl control;
  control.time_limit = time_limit;
  return verify(network, property, options, control);
}

VerifyResult run(const std::string& text, double time_limit = 20.0) {
  std::istringstream in(kHeader + text);
  return run_property(testing::tiny_network(), detail::read_vnnlib(in, "p.vnnlib"), time_limit);
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
  // With a margin to spare, the counterexample is the float-rounded point: a float32 checker reads it exactly.
  EXPECT_EQ(result.x, result.x.cast<float>().cast<double>());
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

// The row X_0 - X_1 <= 0.5 keeps h1 = relu(X_0 - X_1) <= 0.5, so y = 2 h1 - h2 + 0.5 <= 1.5 (at (0.5, 0)) on the
// polyhedron, against 2.5 on the box: y >= 1.4 is sat with a point meeting the row, y >= 1.6 unsat.
TEST(Verify, CoupledInputConstraintIsARowOfTheDomain) {
  const std::string row = "(assert (<= (+ X_0 (* -1.0 X_1)) 0.5))\n";
  const VerifyResult sat = run(kUnitBox + row + "(assert (>= Y_0 1.4))\n");
  expect_counterexample(sat);
  EXPECT_LE(sat.x[0] - sat.x[1], 0.5);
  EXPECT_GE(sat.y[0], 1.4);
  const VerifyResult unsat = run(kUnitBox + row + "(assert (>= Y_0 1.6))\n");
  ASSERT_EQ(unsat.status, VerifyStatus::kUnsat);
  ASSERT_EQ(unsat.cases.size(), 1u);
  ASSERT_TRUE(unsat.cases[0].bound.has_value());
  EXPECT_LT(*unsat.cases[0].bound, -kUnsatMargin);
  EXPECT_GE(*unsat.cases[0].bound, -0.1 - 1e-6);  // the margin's maximum is 1.5 - 1.6
}

// X_0 + X_1 = 1 leaves the polyhedron no interior to sample: refused naming the file and the rows' lines.
TEST(Verify, FlatPolyhedronIsRefusedNamingItsLines) {
  try {
    run(kUnitBox + "(assert (<= (+ X_0 X_1) 1))\n(assert (>= (+ X_0 X_1) 1))\n(assert (>= Y_0 1.4))\n");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "VNN-LIB file 'p.vnnlib', a box cut by 2 rows A x <= b (lines 6, 7): domain has an empty "
                           "interior: its rows leave no room to sample (equality-like rows are not supported)");
  }
}

TEST(Verify, ZeroTimeIsTimeout) {
  EXPECT_EQ(run(kUnitBox + "(assert (>= Y_0 2.4))\n", 0.0).status, VerifyStatus::kTimeout);
}

TEST(Verify, PropertyOfAnotherShapeIsRefused) {
  std::istringstream in("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= 0 X_0 1))\n");
  const VnnlibProperty property = detail::read_vnnlib(in, "p.vnnlib");
  EXPECT_THROW(verify(testing::tiny_network(), property, VerifyOptions{}), Error);
}

// ---- Folding (fold_case) ----

// weights^T y + constant <= 0 on line `line`.
OutputConstraint constraint(Eigen::VectorXd weights, double constant, int line = 1, bool strict = false) {
  return OutputConstraint{std::move(weights), constant, strict, line};
}

// y >= value.
OutputConstraint at_least(double value, int line = 1) {
  return constraint(Eigen::VectorXd::Constant(1, -1.0), value, line);
}

VnnlibCase unit_case(std::vector<std::vector<OutputConstraint>> unsafe) {
  return VnnlibCase{Domain::unit_box(2), std::move(unsafe)};
}

// 50,000 copies of one constraint compile to one: a max-min tree of them took 24 GB.
TEST(VerifyFold, IdenticalConstraintsFoldToOne) {
  const VnnlibCase big = unit_case({std::vector<OutputConstraint>(50000, at_least(2.4))});
  const FoldedCase folded = fold_case(testing::tiny_network(), big);
  ASSERT_EQ(folded.folded.unsafe.size(), 1u);
  ASSERT_EQ(folded.folded.unsafe[0].size(), 1u);
  EXPECT_EQ(folded.folded.unsafe[0][0].constant, 2.4);
  const VerifyResult result = run_property(testing::tiny_network(), VnnlibProperty{2, 1, {big}});
  expect_counterexample(result);
  EXPECT_EQ(result.cases[0].constraints_read, 50000u);
  EXPECT_EQ(result.cases[0].constraints, 1u);
  EXPECT_EQ(result.cases[0].runs, 1u);
}

// y >= 1, y >= 2 and 2 y >= 2.2 are y >= 2; of the disjuncts y >= 2, y >= 2.2 and (y >= 2 and y <= 2.4) only
// the first is left, the others' unsafe sets lie in it.
TEST(VerifyFold, TightestOfADirectionAndImpliedDisjuncts) {
  const Eigen::VectorXd up = Eigen::VectorXd::Constant(1, 1.0);
  const FoldedCase conjunction = fold_case(testing::tiny_network(),
      unit_case({{at_least(1.0), at_least(2.0), constraint(Eigen::VectorXd::Constant(1, -2.0), 2.2)}}));
  ASSERT_EQ(conjunction.folded.unsafe.size(), 1u);
  ASSERT_EQ(conjunction.folded.unsafe[0].size(), 1u);
  EXPECT_EQ(conjunction.folded.unsafe[0][0].constant, 2.0);
  const FoldedCase disjunction = fold_case(testing::tiny_network(),
      unit_case({{at_least(2.2)}, {at_least(2.0), constraint(up, -2.4)}, {at_least(2.0)}, {at_least(2.0)}}));
  ASSERT_EQ(disjunction.folded.unsafe.size(), 1u);
  ASSERT_EQ(disjunction.folded.unsafe[0].size(), 1u);
  EXPECT_EQ(disjunction.folded.unsafe[0][0].constant, 2.0);
}

// Over [0,1]^2 tiny_network's output lies in [-0.5, 2.5]: y <= 1e20 always holds and leaves its conjunction,
// y >= 1e20 never does and takes its conjunction with it; a conjunction left empty makes the whole box unsafe.
TEST(VerifyFold, ConstraintsDecidedByTheOutputBounds) {
  const Eigen::VectorXd up = Eigen::VectorXd::Constant(1, 1.0);
  const FoldedCase folded = fold_case(testing::tiny_network(),
      unit_case({{constraint(up, -1e20), at_least(2.4)}, {at_least(1e20), constraint(up, 0.0)}}));
  ASSERT_EQ(folded.folded.unsafe.size(), 1u);
  ASSERT_EQ(folded.folded.unsafe[0].size(), 1u);
  EXPECT_EQ(folded.folded.unsafe[0][0].constant, 2.4);
  ASSERT_TRUE(folded.dropped_bound.has_value());
  EXPECT_LT(*folded.dropped_bound, -1e19);
  const FoldedCase whole = fold_case(testing::tiny_network(), unit_case({{constraint(up, -3.0)}, {at_least(2.4)}}));
  ASSERT_EQ(whole.folded.unsafe.size(), 1u);
  EXPECT_TRUE(whole.folded.unsafe[0].empty());
}

// A constraint that always holds is dropped, not refused for its 1e20.
TEST(Verify, HugeConstantThatAlwaysHoldsIsDropped) {
  expect_counterexample(run(kUnitBox + "(assert (<= Y_0 1e20))\n(assert (>= Y_0 2.4))\n"));
  EXPECT_EQ(run(kUnitBox + "(assert (or (>= Y_0 1e20) (>= Y_0 2.6)))\n").status, VerifyStatus::kUnsat);
}

// y = 1000 relu(1e12 x) on x in [0, 1e6] reaches 1e21: y >= 1e20 binds, and no LP can use its constant.
TEST(Verify, HugeConstantThatBindsNamesTheFileAndLine) {
  const Network steep({DenseLayer{Eigen::MatrixXd::Constant(1, 1, 1e12), Eigen::VectorXd::Zero(1)},
                       DenseLayer{Eigen::MatrixXd::Constant(1, 1, 1e3), Eigen::VectorXd::Zero(1)}});
  std::istringstream in("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= 0 X_0 1e6))\n"
                        "(assert (>= Y_0 1e20))\n");
  const VnnlibProperty property = detail::read_vnnlib(in, "p.vnnlib");
  try {
    run_property(steep, property);
    FAIL() << "a binding constant of 1e20 was accepted";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("VNN-LIB file 'p.vnnlib' line 4"), std::string::npos) << what;
    EXPECT_NE(what.find("1e+20"), std::string::npos) << what;
  }
}

// 1e-9 y >= 2.6e-9 is y >= 2.6 (the maximum is 2.5): the margin is in the outputs' units, not the file's.
TEST(Verify, UnsatMarginIsRelativeToTheConstraintsScale) {
  const VerifyResult result = run(kUnitBox + "(assert (>= (* 1e-9 Y_0) 2.6e-9))\n");
  EXPECT_EQ(result.status, VerifyStatus::kUnsat);
  ASSERT_TRUE(result.cases[0].bound.has_value());
  EXPECT_LT(*result.cases[0].bound, -0.05);
}

// The same through the prover: 1e-9 (y_0 - y_1) >= 1e-9 (M + 0.01), M the maximum of y_0 - y_1, which the
// outputs' bounds leave open; the margin's bound is about -0.01, not -1e-11.
TEST(Verify, UnsatMarginIsRelativeThroughTheProver) {
  const Network network = testing::random_network(2, {6, 6}, 2, 4);
  Objective difference = Objective::output(2, 0);
  difference.weights[1] = -1.0;
  const double top = testing::brute_force_max(network, Domain::unit_box(2), difference);
  const Eigen::Vector2d scaled(-1e-9, 1e-9);
  const VnnlibProperty property{2, 2, {unit_case({{constraint(scaled, 1e-9 * (top + 0.01))}})}};
  const VerifyResult result = run_property(network, property);
  EXPECT_EQ(result.status, VerifyStatus::kUnsat);
  ASSERT_EQ(result.cases.size(), 1u);
  EXPECT_EQ(result.cases[0].runs, 1u);
  ASSERT_TRUE(result.cases[0].bound.has_value());
  EXPECT_LT(*result.cases[0].bound, -1e-3);
}

// Constraints a_k^T (y - y_c) >= 0 of random directions a_k, with y_c the outputs at the box's centre, in one
// conjunction or one per disjunct: the outputs' bounds decide none of them, and none implies another.
std::vector<std::vector<OutputConstraint>> random_disjuncts(const Network& network, int count, bool conjoined) {
  const Eigen::VectorXd centre = network.forward(Eigen::VectorXd::Constant(network.input_dim(), 0.5));
  const int outputs = network.output_dim();
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal;
  std::vector<std::vector<OutputConstraint>> unsafe(conjoined ? 1 : count);
  for (int k = 0; k < count; ++k) {
    Eigen::VectorXd a(outputs);
    for (int j = 0; j < outputs; ++j) a[j] = normal(rng);
    unsafe[conjoined ? 0 : k].push_back(constraint(-a, a.dot(centre), k + 1));
  }
  return unsafe;
}

bool violates_one(const VnnlibCase& property_case, const Eigen::VectorXd& y) {
  for (const std::vector<OutputConstraint>& conjunction : property_case.unsafe)
    if (std::all_of(conjunction.begin(), conjunction.end(), [&](const OutputConstraint& c) { return c.holds(y); }))
      return true;
  return false;
}

// 2000 disjuncts compile beyond kMaxMinBudgetBytes in one run, so they run in two.
TEST(Verify, ManyDisjunctsRunInGroupsWithinTheBudget) {
  const Network network = testing::random_network(2, {4}, 3, 9);
  const VnnlibProperty property{2, 3, {unit_case(random_disjuncts(network, 2000, false))}};
  const VerifyResult result = run_property(network, property, 3.0);
  ASSERT_EQ(result.cases.size(), 1u);
  EXPECT_EQ(result.cases[0].disjuncts, 2000u);
  EXPECT_EQ(result.cases[0].runs, 2u);
  if (result.status == VerifyStatus::kSat) {
    EXPECT_TRUE(violates_one(property.cases[0], result.y));
  }
}

// y = x on [0,1]^2: one hidden ReLU layer and the output layer are the identity.
Network identity_network() {
  return Network({DenseLayer{Eigen::MatrixXd::Identity(2, 2), Eigen::VectorXd::Zero(2)},
                  DenseLayer{Eigen::MatrixXd::Identity(2, 2), Eigen::VectorXd::Zero(2)}});
}

// `count` constraints a^T y <= t of random directions on y in [0,1]^2, each cutting off a strip 5% wide at the
// corner where a^T y is largest: no output bound decides them, and each is far from failing everywhere.
std::vector<OutputConstraint> corner_cuts(int count) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  std::vector<OutputConstraint> cuts;
  for (int k = 0; k < count; ++k) {
    const Eigen::Vector2d a(normal(rng), normal(rng));
    const double high = a.cwiseMax(0.0).sum(), low = a.cwiseMin(0.0).sum();
    cuts.push_back(constraint(a, -(high - 0.05 * (high - low)), k + 3));
  }
  return cuts;
}

// A conjunction too big to compile runs on its most binding constraints: here y_0 >= 0.6 and y_0 <= 0.4, which
// no point satisfies together, are among them, and their proof is the whole conjunction's.
TEST(Verify, ConjunctionBeyondTheBudgetIsProvenOnItsMostBindingConstraints) {
  std::vector<OutputConstraint> conjunction = corner_cuts(3000);
  conjunction.push_back(constraint(Eigen::Vector2d(-1.0, 0.0), 0.6, 1));   // y_0 >= 0.6
  conjunction.push_back(constraint(Eigen::Vector2d(1.0, 0.0), -0.4, 2));   // y_0 <= 0.4
  const VnnlibProperty property{2, 2, {unit_case({conjunction})}};
  const VerifyResult result = run_property(identity_network(), property);
  ASSERT_EQ(result.cases.size(), 1u);
  EXPECT_EQ(result.cases[0].constraints, 3002u);
  EXPECT_GT(result.cases[0].constraints_left_out, 0u);
  EXPECT_EQ(result.cases[0].runs, 1u);
  EXPECT_EQ(result.status, VerifyStatus::kUnsat);
  ASSERT_TRUE(result.cases[0].bound.has_value());
  EXPECT_LT(*result.cases[0].bound, -kUnsatMargin);
}

// The same conjunction with y_0 >= 0.6 and y_1 >= 0.6 has points, e.g. y = (0.8, 0.8): a point is sat only when
// it satisfies all 3002 constraints, those left out of the run too.
TEST(Verify, ConjunctionBeyondTheBudgetIsSatOnlyWithEveryConstraint) {
  std::vector<OutputConstraint> conjunction = corner_cuts(3000);
  conjunction.push_back(constraint(Eigen::Vector2d(-1.0, 0.0), 0.6, 1));  // y_0 >= 0.6
  conjunction.push_back(constraint(Eigen::Vector2d(0.0, -1.0), 0.6, 2));  // y_1 >= 0.6
  const VnnlibProperty property{2, 2, {unit_case({conjunction})}};
  const VerifyResult result = run_property(identity_network(), property);
  ASSERT_EQ(result.cases.size(), 1u);
  EXPECT_GT(result.cases[0].constraints_left_out, 0u);
  ASSERT_EQ(result.status, VerifyStatus::kSat);
  for (const OutputConstraint& c : conjunction) EXPECT_TRUE(c.holds(result.y)) << "line " << c.line;
}

// 3000 constraints a_i^T y <= a_i^T y_c + 0.01 (1 + u_i) of random directions, which every output near y_c (the
// outputs at a point away from the box's centre) satisfies: the maximizer of the 64 most binding ones violates others, so the run
// goes on with those added until its point satisfies them all.
TEST(Verify, ConjunctionBeyondTheBudgetAddsTheConstraintsItsPointsViolate) {
  const Network network = testing::random_network(5, {16, 8}, 3, 21);
  const Eigen::VectorXd off_centre = (Eigen::VectorXd(5) << 0.2, 0.7, 0.4, 0.9, 0.3).finished();
  const Eigen::VectorXd centre = network.forward(off_centre);
  std::mt19937_64 rng(13);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> uniform;
  std::vector<OutputConstraint> conjunction;
  for (int k = 0; k < 3000; ++k) {
    const Eigen::Vector3d a(normal(rng), normal(rng), normal(rng));
    conjunction.push_back(constraint(a, -(a.dot(centre) + 0.01 * (1.0 + uniform(rng))), k + 1));
  }
  const VnnlibProperty property{5, 3, {VnnlibCase{Domain::unit_box(5), {conjunction}}}};
  const VerifyResult result = run_property(network, property);
  ASSERT_EQ(result.cases.size(), 1u);
  EXPECT_GT(result.cases[0].constraints_left_out, 0u);
  ASSERT_EQ(result.status, VerifyStatus::kSat);
  for (const OutputConstraint& c : conjunction) EXPECT_TRUE(c.holds(result.y)) << "line " << c.line;
}

// Three margins y_j - y_2 >= t of a small convolutional network with a residual block (the ONNX and VNN-LIB files
// of bench/verify_crosscheck.py --seed 2 --width 24 --maps 5 --blocks 5, trial 25: t is 1e-3 (1 + |m*|) above the
// largest maximum m*, which bab and mip prove; the best margin is -0.0016). Passed through the max's layers as
// relu(v) - relu(-v), the margins keep the bound at 0; with their bounds in the compile, and each disjunct bounded
// alone when the joint run leaves the case undecided, the case is proven.
TEST(Verify, DisjunctionOfMarginsJustBelowZeroIsUnsat) {
  const std::string dir = std::string(RELUOPT_FIXTURES_DIR) + "/vnnlib/";
  const LoadedModel model = read_model(dir + "conv_disjunction3.onnx");
  const VnnlibProperty property = read_vnnlib(dir + "conv_disjunction3_unsat.vnnlib");
  const VerifyResult result = run_property(model.network, property, 120.0);
  EXPECT_EQ(result.status, VerifyStatus::kUnsat);
  ASSERT_EQ(result.cases.size(), 1u);
  EXPECT_EQ(result.cases[0].disjuncts, 3u);
}

}  // namespace
}  // namespace reluopt
