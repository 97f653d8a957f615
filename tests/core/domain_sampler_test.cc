#include "core/domain_sampler.h"

#include <gtest/gtest.h>

#include "algorithms/problem.h"
#include "test_networks.h"

namespace reluopt {
namespace {

TEST(DomainSampler, BoxSamplesAreUniformAndInside) {
  Domain box = Domain::box(Eigen::Vector2d(-1.0, 2.0), Eigen::Vector2d(1.0, 6.0));
  DomainSampler sampler(box, Eigen::Vector2d(0.0, 4.0), 7);
  Eigen::Vector2d mean = Eigen::Vector2d::Zero();
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd x = sampler.next();
    ASSERT_DOUBLE_EQ(box.max_violation(x), 0.0);
    mean += x / n;
  }
  EXPECT_NEAR(mean[0], 0.0, 0.03);
  EXPECT_NEAR(mean[1], 4.0, 0.05);
}

TEST(DomainSampler, SameSeedSameStream) {
  const Domain box = Domain::unit_box(3);
  DomainSampler a(box, Eigen::Vector3d::Constant(0.5), 42), b(box, Eigen::Vector3d::Constant(0.5), 42);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(a.next(), b.next());
  EXPECT_NE(stream_seed(1, 0), stream_seed(1, 1));
  EXPECT_NE(stream_seed(1, 0), stream_seed(2, 0));
}

// The triangle x + y <= 1 in [0,1]^2 (area 1/2) has centroid (1/3, 1/3) and contains the square
// [0, 1/2]^2 (area 1/4), so a uniform sampler puts half of its points in that square.
TEST(DomainSampler, HitAndRunIsUniformOnATriangle) {
  Domain triangle = Domain::unit_box(2);
  triangle.A = Eigen::MatrixXd{{1.0, 1.0}};
  triangle.b = Eigen::VectorXd{{1.0}};
  const Network net = testing::random_network(2, {2}, 1, 1);
  const Problem problem = make_problem(net, triangle, Objective::output(1));
  DomainSampler sampler(problem.domain, problem.interior_point, 3);
  const int n = 20000;
  Eigen::Vector2d mean = Eigen::Vector2d::Zero();
  int in_square = 0;
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd x = sampler.next();
    ASSERT_LE(triangle.max_violation(x), 1e-12);
    mean += x / n;
    in_square += (x[0] <= 0.5 && x[1] <= 0.5) ? 1 : 0;
  }
  EXPECT_NEAR(mean[0], 1.0 / 3.0, 0.02);
  EXPECT_NEAR(mean[1], 1.0 / 3.0, 0.02);
  EXPECT_NEAR(static_cast<double>(in_square) / n, 0.5, 0.03);
}

TEST(DomainSampler, HitAndRunStaysInsideARandomPolytopeWithAFixedCoordinate) {
  Domain domain = testing::random_polytope(6, 8, 4);
  domain.lower[2] = domain.upper[2] = 0.5;
  const Network net = testing::random_network(6, {2}, 1, 1);
  const Problem problem = make_problem(net, domain, Objective::output(1));
  DomainSampler sampler(problem.domain, problem.interior_point, 9);
  for (int i = 0; i < 2000; ++i) {
    const Eigen::VectorXd x = sampler.next();
    ASSERT_LE(domain.max_violation(x), 1e-12);
    ASSERT_EQ(x[2], 0.5);
  }
}

}  // namespace
}  // namespace reluopt
