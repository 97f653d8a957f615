// Numbers that no double-precision LP can use are refused where they are read, with the value and its place.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "core/magnitude.h"
#include "reluopt/domain.h"
#include "reluopt/error.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"

namespace reluopt {
namespace {

// Runs `f` and checks that it throws reluopt::Error with every word in its message.
void expect_error(const std::function<void()>& f, const std::vector<std::string>& words) {
  std::string message;
  try {
    f();
  } catch (const Error& e) {
    message = e.what();
  }
  ASSERT_FALSE(message.empty()) << "expected an error";
  for (const std::string& word : words) EXPECT_NE(message.find(word), std::string::npos) << message << " / " << word;
}

// 2 -> 2 -> 1 with every weight 1: the places of the numbers below are unambiguous.
std::vector<DenseLayer> ones() {
  return {DenseLayer{Eigen::MatrixXd::Ones(2, 2), Eigen::VectorXd::Zero(2)},
          DenseLayer{Eigen::MatrixXd::Ones(1, 2), Eigen::VectorXd::Zero(1)}};
}

TEST(Magnitude, NetworkNamesLayerRowAndColumn) {
  // The cases: a hidden weight of 1e20, a byte flip giving 1.35e35, the CLP abort at 1e26.
  for (double huge : {1e20, -1.35e35, 1e26}) {
    std::vector<DenseLayer> layers = ones();
    layers[1].weights.dense()(0, 1) = huge;
    expect_error([&] { Network{layers}; }, {"layer 2", "W[0][1]", magnitude_text(huge)});
  }
  std::vector<DenseLayer> layers = ones();
  layers[0].bias[1] = -2e15;
  expect_error([&] { Network{layers}; }, {"layer 1", "b[1]", "-2e+15"});
}

TEST(Magnitude, TheThresholdItselfIsAccepted) {
  std::vector<DenseLayer> layers = ones();
  layers[0].weights.dense()(1, 0) = -kMaxMagnitude;
  layers[1].bias[0] = kMaxMagnitude;
  EXPECT_NO_THROW(Network{layers});
  Domain domain = Domain::box(Eigen::Vector2d(-kMaxMagnitude, 0.0), Eigen::Vector2d(kMaxMagnitude, 1.0));
  EXPECT_NO_THROW(domain.validate(2));
}

TEST(Magnitude, DomainNamesTheBoundOrRow) {
  Domain box = Domain::box(Eigen::Vector2d(0.0, -1e16), Eigen::Vector2d(1.0, 1.0));
  expect_error([&] { box.validate(2); }, {"lower[1]", "-1e+16"});
  Domain rows = Domain::unit_box(2);
  rows.A = Eigen::MatrixXd{{1.0, 1.0}, {1.0, 3e20}};
  rows.b = Eigen::Vector2d(1.0, 1.0);
  expect_error([&] { rows.validate(2); }, {"A[1][1]", "3e+20"});
  rows.A(1, 1) = 1.0;
  rows.b[0] = 1e300;
  expect_error([&] { rows.validate(2); }, {"b[0]", "1e+300"});
}

TEST(Magnitude, ObjectiveNamesTheWeight) {
  Objective objective = Objective::output(3, 0);
  objective.weights[2] = 1e308;  // the case: CLP aborts on it
  expect_error([&] { objective.validate(3); }, {"weight 2", "1e+308"});
  objective.weights[2] = 1.0;
  objective.constant = -1e20;
  expect_error([&] { objective.validate(3); }, {"constant", "-1e+20"});
}

}  // namespace
}  // namespace reluopt
