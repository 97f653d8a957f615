// Weights (include/reluopt/network.h): a network whose layers are stored sparse and its dense twin give the same
// forward passes, interval and symbolic bounds, and MIP and bab optima, checked against brute force.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "bounds/bounds.h"
#include "bounds/symbolic_bounds.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

// A random network with about two thirds of its weights set to zero, as a convolution's layers are.
Network thinned_network(int d, const std::vector<int>& hidden, std::uint64_t seed) {
  std::vector<DenseLayer> layers = testing::random_network(d, hidden, 2, seed).layers();
  std::mt19937_64 rng(seed);
  for (DenseLayer& layer : layers)
    for (Eigen::Index j = 0; j < layer.weights.rows(); ++j)
      for (Eigen::Index i = 0; i < layer.weights.cols(); ++i)
        if (rng() % 3 != 0 && i != j % layer.weights.cols()) layer.weights.dense()(j, i) = 0.0;
  return Network(std::move(layers));
}

Network sparse_twin(const Network& dense) {
  std::vector<DenseLayer> layers = dense.layers();
  for (DenseLayer& layer : layers) layer.weights = Weights(layer.weights.to_sparse());
  return Network(std::move(layers));
}

class SparseTwin : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    const int seed = GetParam();
    dense_.emplace(thinned_network(3, {5, 4}, 700 + seed));
    sparse_.emplace(sparse_twin(*dense_));
    domain_ = Domain::box(Eigen::VectorXd::Constant(3, -1.0), Eigen::VectorXd::Constant(3, 1.0));
  }
  std::optional<Network> dense_, sparse_;
  Domain domain_;
};

TEST_P(SparseTwin, StoresOnlyTheNonzeros) {
  for (std::size_t k = 0; k < dense_->layers().size(); ++k) {
    const Weights& w = sparse_->layers()[k].weights;
    ASSERT_TRUE(w.is_sparse());
    EXPECT_EQ(w.stored(), (dense_->layers()[k].weights.dense().array() != 0.0).count());
    EXPECT_EQ(w.to_dense(), dense_->layers()[k].weights.dense());
  }
}

TEST_P(SparseTwin, ForwardPassesAgree) {
  std::mt19937_64 rng(GetParam());
  Eigen::MatrixXd x(3, 16);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (Eigen::Index i = 0; i < x.size(); ++i) x(i) = u(rng);
  const Eigen::MatrixXd a = dense_->forward_batch(x), b = sparse_->forward_batch(x);
  EXPECT_LE((a - b).cwiseAbs().maxCoeff(), 1e-12);
  for (Eigen::Index c = 0; c < x.cols(); ++c)
    EXPECT_EQ(dense_->activation_pattern(x.col(c)), sparse_->activation_pattern(x.col(c)));
}

TEST_P(SparseTwin, IntervalAndSymbolicBoundsAgree) {
  const NeuronBounds a = interval_bounds(*dense_, domain_), b = interval_bounds(*sparse_, domain_);
  const Eigen::VectorXd c = Eigen::Vector2d(1.0, -0.5);
  const Propagation p = propagate(*dense_, domain_.lower, domain_.upper, c, 0.0, {}, nullptr);
  const Propagation q = propagate(*sparse_, domain_.lower, domain_.upper, c, 0.0, {}, nullptr);
  for (std::size_t k = 0; k < a.lower.size(); ++k) {
    EXPECT_LE((a.lower[k] - b.lower[k]).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LE((a.upper[k] - b.upper[k]).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LE((p.bounds.lower[k] - q.bounds.lower[k]).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_LE((p.bounds.upper[k] - q.bounds.upper[k]).cwiseAbs().maxCoeff(), 1e-12);
  }
  EXPECT_NEAR(p.objective.upper, q.objective.upper, 1e-12);
}

TEST_P(SparseTwin, MipAndBabProveTheBruteForceOptimum) {
  const Objective objective = Objective::output(2, 0);
  const double exact = testing::brute_force_max(*dense_, domain_, objective);
  for (Method method : {Method::kMip, Method::kBab, Method::kPartition}) {
    SolveOptions options;
    options.method = method;
    options.threads = 1;
    const SolveResult r = solve(*sparse_, domain_, objective, options);
    ASSERT_EQ(r.status, SolveStatus::kOptimal) << method_name(method);
    EXPECT_NEAR(r.objective, exact, 1e-6 * std::max(1.0, std::abs(exact))) << method_name(method);
    testing::expect_honest(*sparse_, domain_, objective, r);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, SparseTwin, ::testing::Values(1, 2, 3));

}  // namespace
}  // namespace reluopt
