#include "reluopt/network.h"

#include <gtest/gtest.h>

#include "reluopt/error.h"
#include "test_networks.h"

namespace reluopt {
namespace {

TEST(Network, ForwardMatchesHandComputation) {
  const Network net = testing::tiny_network();
  EXPECT_EQ(net.input_dim(), 2);
  EXPECT_EQ(net.output_dim(), 1);
  EXPECT_EQ(net.num_hidden_layers(), 1);
  EXPECT_EQ(net.num_hidden_neurons(), 2);
  // x = (1, 0): a = 1, b = 0 -> y = 2.5
  EXPECT_DOUBLE_EQ(net.forward(Eigen::Vector2d(1.0, 0.0))[0], 2.5);
  // x = (1, 1): a = 0, b = 1 -> y = -0.5
  EXPECT_DOUBLE_EQ(net.forward(Eigen::Vector2d(1.0, 1.0))[0], -0.5);
  // x = (0.25, 0.5): a = 0, b = 0 -> y = 0.5
  EXPECT_DOUBLE_EQ(net.forward(Eigen::Vector2d(0.25, 0.5))[0], 0.5);
  EXPECT_EQ(net.describe(), "2 -> 2 -> 1");
}

TEST(Network, ActivationPatternAndTrace) {
  const Network net = testing::tiny_network();
  const ActivationPattern p = net.activation_pattern(Eigen::Vector2d(1.0, 0.0));
  ASSERT_EQ(p.active.size(), 1u);
  EXPECT_EQ(p.active[0], (std::vector<std::uint8_t>{1, 0}));  // b = 0 exactly counts as inactive
  const ForwardTrace t = net.trace(Eigen::Vector2d(0.9, 0.8));
  EXPECT_NEAR(t.pre_activation[0][0], 0.1, 1e-15);
  EXPECT_NEAR(t.pre_activation[0][1], 0.7, 1e-15);
  EXPECT_EQ(p, net.activation_pattern(Eigen::Vector2d(0.7, 0.1)));
  EXPECT_EQ(p.hash(), net.activation_pattern(Eigen::Vector2d(0.7, 0.1)).hash());
  EXPECT_NE(p.hash(), net.activation_pattern(Eigen::Vector2d(0.9, 0.8)).hash());
}

TEST(Network, BatchedForwardEqualsSingle) {
  const Network net = testing::random_network(5, {7, 6}, 3, 11);
  Eigen::MatrixXd inputs = Eigen::MatrixXd::Random(5, 9);
  const Eigen::MatrixXd outputs = net.forward_batch(inputs);
  ASSERT_EQ(outputs.rows(), 3);
  for (int c = 0; c < 9; ++c) EXPECT_LT((outputs.col(c) - net.forward(inputs.col(c))).norm(), 1e-12);
}

TEST(Network, LinearNetworkHasNoHiddenLayer) {
  const Network net({DenseLayer{Eigen::MatrixXd{{1.0, 2.0}}, Eigen::VectorXd{{3.0}}}});
  EXPECT_EQ(net.num_hidden_layers(), 0);
  EXPECT_DOUBLE_EQ(net.forward(Eigen::Vector2d(1.0, 1.0))[0], 6.0);
}

TEST(Network, RejectsInconsistentShapes) {
  DenseLayer a{Eigen::MatrixXd::Ones(3, 2), Eigen::VectorXd::Zero(3)};
  DenseLayer b{Eigen::MatrixXd::Ones(1, 4), Eigen::VectorXd::Zero(1)};
  try {
    Network({a, b});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("inconsistent shapes"), std::string::npos);
  }
  DenseLayer bad_bias{Eigen::MatrixXd::Ones(3, 2), Eigen::VectorXd::Zero(2)};
  EXPECT_THROW(Network({bad_bias}), Error);
  EXPECT_THROW(Network(std::vector<DenseLayer>{}), Error);
}

TEST(Network, RejectsNonFiniteWeights) {
  DenseLayer a{Eigen::MatrixXd::Ones(1, 2), Eigen::VectorXd::Zero(1)};
  a.weights.dense()(0, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(Network({a}), Error);
}

TEST(Network, ForwardRejectsWrongInputDimension) {
  EXPECT_THROW(testing::tiny_network().forward(Eigen::Vector3d(1, 2, 3)), Error);
}

}  // namespace
}  // namespace reluopt
