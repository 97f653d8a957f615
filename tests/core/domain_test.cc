#include "reluopt/domain.h"

#include <gtest/gtest.h>

#include "algorithms/problem.h"
#include "reluopt/error.h"
#include "test_networks.h"

namespace reluopt {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Domain, UnitBoxValidates) {
  const Domain box = Domain::unit_box(3);
  EXPECT_NO_THROW(box.validate(3));
  EXPECT_EQ(box.description, "[0,1]^3");
  EXPECT_DOUBLE_EQ(box.max_violation(Eigen::Vector3d(0.5, 1.0, 0.0)), 0.0);
  EXPECT_DOUBLE_EQ(box.max_violation(Eigen::Vector3d(0.5, 1.25, 0.0)), 0.25);
}

TEST(Domain, ValidationNamesTheProblem) {
  EXPECT_NE(error_of([] { Domain::unit_box(3).validate(4); }).find("dimension"), std::string::npos);
  Domain crossed = Domain::unit_box(2);
  crossed.lower[1] = 2.0;
  EXPECT_NE(error_of([&] { crossed.validate(2); }).find("empty"), std::string::npos);
  Domain infinite = Domain::unit_box(2);
  infinite.upper[0] = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of([&] { infinite.validate(2); }).find("not finite"), std::string::npos);
  Domain nan = Domain::unit_box(2);
  nan.lower[0] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(error_of([&] { nan.validate(2); }).find("not finite"), std::string::npos);
  Domain bad_rows = Domain::unit_box(2);
  bad_rows.A = Eigen::MatrixXd::Ones(1, 3);
  bad_rows.b = Eigen::VectorXd::Ones(1);
  EXPECT_NE(error_of([&] { bad_rows.validate(2); }).find("dimension"), std::string::npos);
}

TEST(Problem, EmptyPolyhedronIsRejected) {
  const Network net = testing::random_network(2, {3}, 1, 1);
  Domain domain = Domain::unit_box(2);
  // x1 + x2 >= 3 cannot hold in the unit box.
  domain.A = Eigen::MatrixXd{{-1.0, -1.0}};
  domain.b = Eigen::VectorXd{{-3.0}};
  EXPECT_NE(error_of([&] { make_problem(net, domain, Objective::output(1)); }).find("empty"), std::string::npos);
}

TEST(Problem, FlatPolyhedronIsRejected) {
  const Network net = testing::random_network(2, {3}, 1, 1);
  Domain domain = Domain::unit_box(2);
  domain.A = Eigen::MatrixXd{{1.0, 1.0}, {-1.0, -1.0}};  // x1 + x2 = 1
  domain.b = Eigen::VectorXd{{1.0, -1.0}};
  EXPECT_NE(error_of([&] { make_problem(net, domain, Objective::output(1)); }).find("empty interior"),
            std::string::npos);
}

TEST(Problem, InteriorPointIsStrictlyInside) {
  const Network net = testing::random_network(4, {3}, 1, 1);
  const Domain domain = testing::random_polytope(4, 6, 3);
  const Problem problem = make_problem(net, domain, Objective::output(1));
  EXPECT_LT((domain.A * problem.interior_point - domain.b).maxCoeff(), 0.0);
  EXPECT_DOUBLE_EQ(domain.max_violation(problem.interior_point), 0.0);
}

TEST(Problem, FixedCoordinatesAreAllowed) {
  const Network net = testing::random_network(3, {3}, 1, 1);
  Domain domain = testing::random_polytope(3, 2, 5);
  domain.lower[1] = domain.upper[1] = 0.5;
  const Problem problem = make_problem(net, domain, Objective::output(1));
  EXPECT_DOUBLE_EQ(problem.interior_point[1], 0.5);
}

TEST(Problem, ObjectiveOfWrongDimensionIsRejected) {
  const Network net = testing::random_network(2, {3}, 2, 1);
  EXPECT_NE(error_of([&] { make_problem(net, Domain::unit_box(2), Objective::output(3)); }).find("dimension"),
            std::string::npos);
}

TEST(Problem, EvaluatePointRepairsSmallRowViolations) {
  const Network net = testing::random_network(3, {4}, 1, 2);
  const Domain domain = testing::random_polytope(3, 4, 9);
  const Problem problem = make_problem(net, domain, Objective::output(1));
  // A point just outside one row and outside the box.
  Eigen::VectorXd x = problem.interior_point;
  const Eigen::VectorXd a = domain.A.row(0).transpose();
  x += a * ((domain.b[0] - a.dot(x)) + 1e-7) / a.squaredNorm();
  const EvaluatedPoint point = evaluate_point(problem, x);
  EXPECT_DOUBLE_EQ(domain.max_violation(point.x), 0.0);
  EXPECT_LT((point.x - x).norm(), 1e-5);
  EXPECT_DOUBLE_EQ(point.value, net.forward(point.x)[0]);
}

}  // namespace
}  // namespace reluopt
