// Max-min objectives: the compiled network against the max-min of the original outputs, and every method
// against brute force (epigraph LPs over every activation pattern, tests/test_networks.h).
#include <gtest/gtest.h>

#include <random>

#include "core/max_min_network.h"
#include "reluopt/error.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

using testing::brute_force_max_min;
using testing::random_network;

// `shape` disjuncts, shape[k] terms each, with weights and constants from a fixed seed.
Objective random_max_min(const std::vector<int>& shape, int outputs, Sense sense, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<std::vector<ObjectiveTerm>> disjuncts;
  for (const int terms : shape) {
    disjuncts.emplace_back();
    for (int l = 0; l < terms; ++l) {
      ObjectiveTerm term{Eigen::VectorXd(outputs), 0.2 * u(rng)};
      for (int j = 0; j < outputs; ++j) term.weights[j] = u(rng);
      disjuncts.back().push_back(std::move(term));
    }
  }
  return Objective::max_min(std::move(disjuncts), sense);
}

TEST(MaxMinObjective, LinearObjectiveIsOneDisjunctOfOneTerm) {
  const Objective linear = Objective::output(3, 1);
  ASSERT_TRUE(linear.is_linear());
  ASSERT_EQ(linear.terms().size(), 1u);
  ASSERT_EQ(linear.terms()[0].size(), 1u);
  const Eigen::Vector3d y(1.0, -2.0, 3.0);
  EXPECT_EQ(linear.value(y), -2.0);
  const Objective same = Objective::max_min({{ObjectiveTerm{linear.weights, 0.5}}});
  EXPECT_TRUE(same.is_linear());
  EXPECT_EQ(same.value(y), -1.5);
}

//   value = max( min(y0, y1), min(y2 - 1) )
TEST(MaxMinObjective, ValueIsMaxOfMins) {
  const Objective g = Objective::max_min({{ObjectiveTerm{Eigen::Vector3d(1, 0, 0), 0.0}, ObjectiveTerm{Eigen::Vector3d(0, 1, 0), 0.0}},
                                          {ObjectiveTerm{Eigen::Vector3d(0, 0, 1), -1.0}}});
  EXPECT_EQ(g.value(Eigen::Vector3d(2.0, 3.0, 0.0)), 2.0);
  EXPECT_EQ(g.value(Eigen::Vector3d(2.0, 3.0, 5.0)), 4.0);
  EXPECT_THROW(g.validate(2), Error);
  EXPECT_NO_THROW(g.validate(3));
}

// The compiled network's output is the max-min objective of the original outputs at every input.
TEST(MaxMinNetwork, CompiledOutputIsTheMaxMin) {
  for (const std::vector<int>& shape : {std::vector<int>{2}, {3}, {1, 1, 1}, {2, 3}, {3, 1, 2}, {5, 4}}) {
    const Network net = random_network(3, {5, 4}, 4, 11);
    const Objective g = random_max_min(shape, 4, Sense::kMaximize, 7);
    const detail::MaxMinNetwork compiled = detail::compile_max_min(net, g);
    ASSERT_EQ(compiled.network.output_dim(), 1);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (int s = 0; s < 200; ++s) {
      const Eigen::Vector3d x(u(rng), u(rng), u(rng));
      EXPECT_NEAR(compiled.network.forward(x)[0], g.value(net.forward(x)), 1e-9);
    }
  }
}

// With each term's lower bound known, a value passes a layer as one neuron relu(v - L) + L in place of two: the
// compiled network is still the max-min objective on the box, with fewer neurons. A layout of bounds that is not
// the objective's is refused.
TEST(MaxMinNetwork, TermBoundsPassValuesThroughOneActiveNeuron) {
  const Network net = random_network(3, {5, 4}, 4, 11);
  const Eigen::Vector3d lower(-2.0, -2.0, -2.0), upper(2.0, 2.0, 2.0);
  // Interval bounds of the outputs over the box, then of each term.
  Eigen::VectorXd lo = lower, hi = upper;
  for (std::size_t k = 0; k < net.layers().size(); ++k) {
    const Eigen::MatrixXd w = net.layers()[k].weights.dense();
    const Eigen::VectorXd c = 0.5 * (lo + hi), r = 0.5 * (hi - lo);
    const Eigen::VectorXd mid = w * c + net.layers()[k].bias, spread = w.cwiseAbs() * r;
    lo = mid - spread;
    hi = mid + spread;
    if (k + 1 < net.layers().size()) {
      lo = lo.cwiseMax(0.0);
      hi = hi.cwiseMax(0.0);
    }
  }
  for (const std::vector<int>& shape : {std::vector<int>{3}, {1, 1, 1}, {2, 3}, {3, 1, 2}, {5, 4}}) {
    const Objective g = random_max_min(shape, 4, Sense::kMaximize, 7);
    detail::TermLowerBounds term_lower;
    for (const std::vector<ObjectiveTerm>& disjunct : g.terms()) {
      term_lower.emplace_back();
      for (const ObjectiveTerm& t : disjunct)
        term_lower.back().push_back(t.weights.cwiseMax(0.0).dot(lo) + t.weights.cwiseMin(0.0).dot(hi) + t.constant -
                                    1e-9);
    }
    const detail::MaxMinNetwork plain = detail::compile_max_min(net, g);
    const std::optional<detail::MaxMinNetwork> bounded = detail::compile_max_min(net, g, Deadline(), term_lower);
    ASSERT_TRUE(bounded.has_value());
    const auto neurons = [&](const Network& n) {
      Eigen::Index count = 0;
      for (int k = net.num_hidden_layers(); k < n.num_hidden_layers(); ++k) count += n.hidden_layer(k).bias.size();
      return count;
    };
    EXPECT_LT(neurons(bounded->network), neurons(plain.network));
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> u(-2.0, 2.0);
    for (int s = 0; s < 200; ++s) {
      const Eigen::Vector3d x(u(rng), u(rng), u(rng));
      EXPECT_NEAR(bounded->network.forward(x)[0], g.value(net.forward(x)), 1e-9);
    }
  }
  const Objective g = random_max_min({2, 1}, 4, Sense::kMaximize, 7);
  EXPECT_THROW(detail::compile_max_min(net, g, Deadline(), detail::TermLowerBounds{{0.0, 0.0}}), Error);
  EXPECT_THROW(detail::compile_max_min(net, g, Deadline(), detail::TermLowerBounds{{0.0}, {0.0, 0.0}}), Error);
}

// The estimate made from the counts covers the layers the compile makes, and grows as the square of the terms.
TEST(MaxMinNetwork, BytesEstimateCoversTheCompiledLayers) {
  const Network net = random_network(3, {5, 4}, 4, 11);
  for (const std::vector<int>& shape : {std::vector<int>{2}, {1, 1, 1}, {3, 1, 2}, {40}, std::vector<int>(60, 1)}) {
    const Objective g = random_max_min(shape, 4, Sense::kMaximize, 7);
    const detail::MaxMinNetwork compiled = detail::compile_max_min(net, g);
    double layers = 0.0;
    for (std::size_t k = net.layers().size() - 1; k < compiled.network.layers().size(); ++k)
      layers += 8.0 * static_cast<double>(compiled.network.layers()[k].weights.stored());
    const std::vector<std::size_t> terms(shape.begin(), shape.end());
    EXPECT_GE(detail::max_min_bytes(4, terms), layers);
    EXPECT_LE(detail::max_min_bytes(4, terms), 4.0 * layers + 1e4);
  }
  const double thousand = detail::max_min_bytes(32, std::vector<std::size_t>(1000, 1));
  EXPECT_NEAR(detail::max_min_bytes(32, std::vector<std::size_t>(2000, 1)) / thousand, 4.0, 0.5);
}

// The compile looks at the deadline between its layers.
TEST(MaxMinNetwork, CompileStopsAtTheDeadline) {
  const Network net = random_network(3, {5, 4}, 4, 11);
  const Objective g = random_max_min({3, 1, 2}, 4, Sense::kMaximize, 7);
  EXPECT_FALSE(detail::compile_max_min(net, g, Deadline(0.0, nullptr)).has_value());
  EXPECT_TRUE(detail::compile_max_min(net, g, Deadline()).has_value());
}

struct MaxMinCase {
  Method method;
  std::vector<int> shape;
  Sense sense;
  std::uint64_t seed;
};

class MaxMinMethods : public ::testing::TestWithParam<MaxMinCase> {};

// Every method on the max-min objective: the reported objective is the max-min of a forward pass at x, never
// above the brute-force optimum, at it for the exact methods and within the proven bound.
TEST_P(MaxMinMethods, AgreesWithBruteForce) {
  const MaxMinCase& c = GetParam();
  const Network net = random_network(2, {4, 3}, 3, c.seed);
  const Domain box = Domain::unit_box(2);
  const Objective g = random_max_min(c.shape, 3, c.sense, c.seed + 1);
  const double best = brute_force_max_min(net, box, g);
  SolveOptions options;
  options.method = c.method;
  options.threads = 1;
  options.seed = 5;
  const SolveResult result = solve(net, box, g, options);
  ASSERT_NE(result.status, SolveStatus::kNoSolution);
  const double sign = g.sign();
  EXPECT_NEAR(result.objective, g.value(net.forward(result.x)), 1e-12);
  EXPECT_EQ(result.outputs.size(), 3);
  EXPECT_LE(sign * result.objective, best + 1e-7);
  if (c.method == Method::kSampling) {
    EXPECT_GE(sign * result.objective, best - 0.05 * std::max(1.0, std::abs(best)));
  } else {
    EXPECT_NEAR(sign * result.objective, best, 1e-6);
  }
  if (result.bound) {
    EXPECT_GE(sign * *result.bound, best - 1e-6);
  }
  if (c.method != Method::kSampling && c.method != Method::kEnhanced) {
    ASSERT_TRUE(result.bound.has_value());
    EXPECT_EQ(result.status, SolveStatus::kOptimal);
  }
}

std::vector<MaxMinCase> max_min_cases() {
  std::vector<MaxMinCase> cases;
  for (Method method : {Method::kSampling, Method::kEnhanced, Method::kMip, Method::kMipCuts, Method::kPartition,
                        Method::kBab})
    for (const Sense sense : {Sense::kMaximize, Sense::kMinimize})
      for (std::uint64_t seed : {1u, 2u}) {
        cases.push_back({method, {2, 2}, sense, seed});
        cases.push_back({method, {3}, sense, seed + 10});
        cases.push_back({method, {1, 1, 1}, sense, seed + 20});
      }
  return cases;
}

std::string max_min_case_name(const ::testing::TestParamInfo<MaxMinCase>& info) {
  std::string name = method_name(info.param.method) + "_";
  for (const int terms : info.param.shape) name += std::to_string(terms) + "x";
  name += info.param.sense == Sense::kMaximize ? "_max" : "_min";
  name += "_seed" + std::to_string(info.param.seed);
  for (char& ch : name)
    if (ch == '-') ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Methods, MaxMinMethods, ::testing::ValuesIn(testing::sanitizer_share(max_min_cases())),
                         max_min_case_name);

// The relaxation of the compiled network bounds the max-min optimum.
TEST(MaxMinRelax, BoundsTheOptimum) {
  const Network net = random_network(2, {4, 3}, 3, 4);
  const Objective g = random_max_min({2, 2}, 3, Sense::kMaximize, 9);
  SolveOptions options;
  options.method = Method::kMip;
  options.threads = 1;
  const RelaxationReport report = relax(net, Domain::unit_box(2), g, options);
  EXPECT_GE(report.bound, brute_force_max_min(net, Domain::unit_box(2), g) - 1e-7);
}

}  // namespace
}  // namespace reluopt
