// Networks with linear neurons (residual branches, max(a, b) = b + relu(a - b)) against an independent ReLU
// network: each linear neuron v written as relu(v) - relu(-v), exact without any bound. Every method runs on
// the rewriting of core/network_specialize.h (relu(v - L) + L); brute-force enumeration of the activation
// patterns of the independent network gives the exact optimum they must reach.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/network_specialize.h"
#include "reluopt/model_io.h"
#include "reluopt/error.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

// random_network with neuron j of hidden layer k linear when j < linear[k].
Network with_linear(const Network& network, const std::vector<int>& linear) {
  std::vector<DenseLayer> layers = network.layers();
  for (std::size_t k = 0; k < linear.size(); ++k) {
    layers[k].linear.assign(static_cast<std::size_t>(layers[k].bias.size()), 0);
    for (int j = 0; j < linear[k]; ++j) layers[k].linear[static_cast<std::size_t>(j)] = 1;
  }
  return Network(std::move(layers));
}

// Every linear neuron v as the two ReLUs relu(v), relu(-v), the next layer taking relu(v) - relu(-v).
Network split_linear(const Network& network) {
  std::vector<DenseLayer> layers = network.layers();
  for (std::size_t k = 0; k + 1 < layers.size(); ++k) {
    DenseLayer& layer = layers[k];
    DenseLayer& next = layers[k + 1];
    const Eigen::Index n = layer.bias.size();
    for (Eigen::Index j = 0; j < n; ++j) {
      if (!layer.is_linear(j)) continue;
      const Eigen::Index m = layer.weights.rows();
      Eigen::MatrixXd& w = layer.weights.dense();
      w.conservativeResize(m + 1, Eigen::NoChange);
      w.row(m) = -w.row(j);
      layer.bias.conservativeResize(m + 1);
      layer.bias[m] = -layer.bias[j];
      Eigen::MatrixXd& v = next.weights.dense();
      v.conservativeResize(Eigen::NoChange, m + 1);
      v.col(m) = -v.col(j);
    }
    layer.linear.clear();
  }
  return Network(std::move(layers));
}

Eigen::VectorXd uniform_point(const Domain& domain, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  Eigen::VectorXd x(domain.dim());
  for (int i = 0; i < domain.dim(); ++i) x[i] = domain.lower[i] + unit(rng) * (domain.upper[i] - domain.lower[i]);
  return x;
}

TEST(NetworkSpecialize, EqualsTheNetworkOnTheBox) {
  const Network net = with_linear(testing::random_network(3, {5, 4}, 2, 11), {2, 1});
  const Domain box = Domain::box(Eigen::VectorXd::Constant(3, -2.0), Eigen::VectorXd::Constant(3, 3.0));
  const Network relus = detail::specialize_linear_neurons(net, box.lower, box.upper);
  const Network split = split_linear(net);
  EXPECT_TRUE(net.has_linear_neurons());
  EXPECT_FALSE(relus.has_linear_neurons());
  EXPECT_EQ(relus.describe(), net.describe());
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    const Eigen::VectorXd x = uniform_point(box, rng);
    const Eigen::VectorXd y = net.forward(x);
    EXPECT_LE((relus.forward(x) - y).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + y.cwiseAbs().maxCoeff()));
    EXPECT_LE((split.forward(x) - y).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + y.cwiseAbs().maxCoeff()));
    // Every rewritten neuron is active: its pre-activation stays at least about 1 above zero.
    const ForwardTrace t = relus.trace(x);
    for (int k = 0; k < net.num_hidden_layers(); ++k)
      for (Eigen::Index j = 0; j < t.pre_activation[k].size(); ++j)
        if (net.hidden_layer(k).is_linear(j)) EXPECT_GE(t.pre_activation[k][j], 0.5);
  }
}

TEST(NetworkSpecialize, NeedsAFiniteBox) {
  const Network net = with_linear(testing::random_network(2, {3}, 1, 1), {1});
  const Eigen::VectorXd lower = Eigen::VectorXd::Constant(2, -std::numeric_limits<double>::infinity());
  EXPECT_THROW(detail::specialize_linear_neurons(net, lower, Eigen::VectorXd::Ones(2)), Error);
}

TEST(NetworkSpecialize, LinearFlagsOnTheOutputLayerAreRefused) {
  std::vector<DenseLayer> layers = testing::random_network(2, {3}, 1, 1).layers();
  layers.back().linear = {1};
  EXPECT_THROW(Network{layers}, Error);
}

struct LinearCase {
  int dim;
  std::vector<int> hidden, linear;
  bool polytope;
  std::uint64_t seed;
};

class LinearNeuronsBruteForce : public ::testing::TestWithParam<LinearCase> {};

// mip and bab prove the optimum that enumeration finds on the independent ReLU network; the point they report
// is re-evaluated on the network as given.
TEST_P(LinearNeuronsBruteForce, MipAndBabReachTheEnumeratedOptimum) {
  const LinearCase& c = GetParam();
  const Network net = with_linear(testing::random_network(c.dim, c.hidden, 2, c.seed), c.linear);
  const Domain domain = c.polytope ? testing::random_polytope(c.dim, 3, c.seed + 100) : Domain::unit_box(c.dim);
  Objective objective = Objective::output(2, 0);
  objective.weights = Eigen::Vector2d(1.0, -0.5);
  const double exact = testing::brute_force_max(split_linear(net), domain, objective);
  for (Method method : {Method::kMip, Method::kBab}) {
    SolveOptions options;
    options.method = method;
    options.threads = 1;
    const SolveResult r = solve(net, domain, objective, options);
    ASSERT_EQ(r.status, SolveStatus::kOptimal) << method_name(method);
    EXPECT_NEAR(r.objective, exact, 1e-6 * std::max(1.0, std::abs(exact))) << method_name(method);
    EXPECT_NEAR(r.objective, objective.value(net.forward(r.x)), 1e-12) << method_name(method);
  }
  const Objective max_min = Objective::max_min({{ObjectiveTerm{Eigen::Vector2d(1.0, 0.0), 0.0},
                                                 ObjectiveTerm{Eigen::Vector2d(0.0, -1.0), 0.1}}});
  SolveOptions options;
  options.method = Method::kBab;
  const SolveResult r = solve(net, domain, max_min, options);
  ASSERT_EQ(r.status, SolveStatus::kOptimal);
  const double exact_max_min = testing::brute_force_max_min(split_linear(net), domain, max_min);
  EXPECT_NEAR(r.objective, exact_max_min, 1e-6 * std::max(1.0, std::abs(exact_max_min)));
}

INSTANTIATE_TEST_SUITE_P(SmallNetworks, LinearNeuronsBruteForce,
                         ::testing::Values(LinearCase{2, {4, 3}, {1, 1}, false, 1},
                                           LinearCase{3, {5}, {2}, false, 2},
                                           LinearCase{2, {3, 3}, {2, 0}, true, 3},
                                           LinearCase{3, {4, 3}, {0, 2}, true, 4}),
                         [](const ::testing::TestParamInfo<LinearCase>& info) {
                           return "seed" + std::to_string(info.param.seed);
                         });

// bench/pwl_verify.py's leaky model (LeakyRelu, Clip, Abs; tests/io/make_pwl_fixtures.py): with free concave
// neurons its MIP bound is within 1e-5 of the best point, where a solver that prunes nodes by an absolute
// cutoff increment calls a worse incumbent optimal. mip, mip-cuts and bab must all prove the same optimum, at a
// point that the forward pass confirms.
TEST(NetworkSpecialize, TheLeakyModelsMipProvesTheOptimumWithFreeConcaveNeurons) {
  const Network net = read_onnx(std::string(RELUOPT_FIXTURES_DIR) + "/pwl/leaky_clip_abs.onnx");
  Eigen::VectorXd x0(6);
  x0 << 0.625095466604667, 0.8972138009695755, 0.7756856902451935, 0.22520718999059186, 0.30016628491122543,
      0.8735534453962619;  // numpy's default_rng(7).uniform(0, 1, 6)
  const Domain box = Domain::box(x0.array() - 0.1, x0.array() + 0.1);
  Objective objective = Objective::output(3, 1);
  objective.weights = Eigen::Vector3d(-1.0, 1.0, 0.0);
  const double optimum = -0.4135114904;  // bab and partition at a re-evaluated point (bench/results/pwl_verify.md)
  for (Method method : {Method::kMip, Method::kMipCuts, Method::kBab}) {
    SolveOptions options;
    options.method = method;
    options.threads = 1;
    ASSERT_TRUE(options.relax_concave);
    const SolveResult r = solve(net, box, objective, options);
    ASSERT_EQ(r.status, SolveStatus::kOptimal) << method_name(method);
    EXPECT_NEAR(r.objective, optimum, 2e-10) << method_name(method);
    EXPECT_GE(r.bound, optimum - 1e-9) << method_name(method);
    EXPECT_NEAR(r.objective, objective.value(net.forward(r.x)), 1e-12) << method_name(method);
  }
}

// Behind max pooling the objective reaches most unstable neurons through their lower lines only, so no split
// removes an upper line's intercept from the optimized bound; bab then scores the splits at the node LP's point.
// Scored by width alone, it branched on neurons that leave the bound unchanged and did not close these boxes in
// 10 s (above 11000 nodes); scored at the LP's point it proves them within a few hundred nodes.
TEST(NetworkSpecialize, BabProvesMaxPoolingBoxesWithinAFewHundredNodes) {
  // The optima, proven by mip (about 4 s together, so not rerun here).
  const std::vector<std::pair<const char*, double>> cases = {{"maxpool", 0.60999284590305214},
                                                             {"global_maxpool", 1.1960316250358307}};
  for (const auto& [name, optimum] : cases) {
    const Network net = read_onnx(std::string(RELUOPT_FIXTURES_DIR) + "/pwl/" + name + ".onnx");
    std::mt19937_64 rng(7);
    const Domain unit = Domain::box(Eigen::VectorXd::Constant(net.input_dim(), -0.7),
                                    Eigen::VectorXd::Constant(net.input_dim(), 0.7));
    const Eigen::VectorXd x0 = uniform_point(unit, rng);
    const Domain box = Domain::box(x0.array() - 0.3, x0.array() + 0.3);
    Objective objective = Objective::output(net.output_dim(), 1);
    objective.weights[0] = -1.0;
    SolveOptions options;
    options.method = Method::kBab;
    options.threads = 1;
    options.bab.node_limit = 1000;
    const SolveResult bab = solve(net, box, objective, options);
    ASSERT_EQ(bab.status, SolveStatus::kOptimal) << name << ": " << bab.run.nodes << " nodes";
    EXPECT_NEAR(bab.objective, optimum, 1e-9) << name;
    EXPECT_NEAR(bab.objective, objective.value(net.forward(bab.x)), 1e-12) << name;
  }
}

}  // namespace
}  // namespace reluopt
