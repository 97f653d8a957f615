#include "formulation/pattern_lp.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <random>

#include "algorithms/problem.h"
#include "formulation/neighbourhood_mip.h"
#include "solver/dense_first_lp.h"
#include "solver/lp_solver.h"
#include "test_networks.h"

namespace reluopt {
namespace {

TEST(PatternLp, TinyNetworkRegionOptimum) {
  const Network net = testing::tiny_network();
  const Domain box = Domain::unit_box(2);
  const Objective objective = Objective::output(1);
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  // The region a > 0, b <= 0 contains (0.6, 0.1); its LP maximum is 2a + 0.5 = 2.5 at (1, 0).
  const ActivationPattern pattern = net.activation_pattern(Eigen::Vector2d(0.6, 0.1));
  const LpSolution solution = lp->solve(pattern_lp(net, box, objective, pattern, nullptr));
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 2.5, 1e-9);
  EXPECT_NEAR(solution.values[0], 1.0, 1e-9);
  EXPECT_NEAR(solution.values[1], 0.0, 1e-9);
  // The region a <= 0, b > 0 (contains (0.6, 0.9)): y = -(x1 + x2 - 1) + 0.5, best 0.5 on its boundary.
  const ActivationPattern other = net.activation_pattern(Eigen::Vector2d(0.6, 0.9));
  const LpSolution second = lp->solve(pattern_lp(net, box, objective, other, nullptr));
  ASSERT_EQ(second.status, LpStatus::kOptimal);
  EXPECT_NEAR(second.objective, 0.5, 1e-9);
}

TEST(PatternLp, MinimizationNegatesTheObjective) {
  const Network net = testing::tiny_network();
  Objective minimize = Objective::output(1);
  minimize.sense = Sense::kMinimize;
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  // Region a <= 0, b > 0: min y = -(x1 + x2 - 1) + 0.5 with x1 <= x2 is -0.5 at (1, 1).
  const ActivationPattern pattern = net.activation_pattern(Eigen::Vector2d(0.6, 0.9));
  const LpSolution solution = lp->solve(pattern_lp(net, Domain::unit_box(2), minimize, pattern, nullptr));
  ASSERT_EQ(solution.status, LpStatus::kOptimal);
  EXPECT_NEAR(solution.objective, 0.5, 1e-9);  // maximized sense: -(-0.5)
}

TEST(PatternLp, ComposedMapsEqualTheForwardPassInsideTheRegion) {
  const Network net = testing::random_network(4, {6, 5, 4}, 2, 17);
  Objective objective;
  objective.weights = Eigen::Vector2d(0.7, -1.3);
  objective.constant = 0.25;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    Eigen::VectorXd x(4);
    for (int i = 0; i < 4; ++i) x[i] = unit(rng);
    const ActivationPattern pattern = net.activation_pattern(x);
    const RegionAffine region = compose_region(net, objective, pattern);
    const ForwardTrace trace = net.trace(x);
    for (int k = 0; k < net.num_hidden_layers(); ++k)
      EXPECT_LT((region.G[k] * x + region.g[k] - trace.pre_activation[k]).norm(), 1e-12);
    EXPECT_NEAR(region.objective_gradient.dot(x) + region.objective_constant, objective.value(trace.output),
                1e-12);
  }
}

TEST(PatternLp, OptimumIsAtLeastTheSampleAndMatchesItsForwardValue) {
  const Network net = testing::random_network(5, {8, 8}, 1, 23);
  const Domain domain = testing::random_polytope(5, 4, 2);
  const Problem problem = make_problem(net, domain, Objective::output(1));
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 30; ++trial) {
    const EvaluatedPoint sample = evaluate_point(problem, Eigen::VectorXd::NullaryExpr(5, [&] {
      return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
    }));
    const ActivationPattern pattern = net.activation_pattern(sample.x);
    const LpSolution solution = lp->solve(pattern_lp(net, domain, problem.objective, pattern, &problem.interval));
    ASSERT_EQ(solution.status, LpStatus::kOptimal);
    EXPECT_GE(solution.objective, sample.value - 1e-9);
    const EvaluatedPoint optimum =
        evaluate_point(problem, Eigen::Map<const Eigen::VectorXd>(solution.values.data(), 5));
    EXPECT_NEAR(optimum.value, solution.objective, 1e-6 * std::max(1.0, std::abs(solution.objective)));
  }
}


// The concave neurons: unstable, last hidden layer, objective coefficient c_j = sign (W_K^T w)_j <= 0.
TEST(PatternLp, ConcaveNeuronsAreTheLastLayersNonPositiveCoefficients) {
  const Network net = testing::random_network(3, {5, 6}, 2, 41);
  const Domain box = Domain::unit_box(3);
  const NeuronBounds bounds = interval_bounds(net, box);
  Objective objective;
  objective.weights = Eigen::Vector2d(1.0, -0.5);
  for (Sense sense : {Sense::kMaximize, Sense::kMinimize}) {
    objective.sense = sense;
    const FreeMask concave = concave_neurons(net, objective, bounds);
    const Eigen::VectorXd c = objective.sign() * (net.output_layer().weights.transpose() * objective.weights);
    EXPECT_EQ(count_neurons(FreeMask{concave[0]}), 0);
    int expected = 0;
    for (int j = 0; j < 6; ++j) {
      const bool is_concave = c[j] <= 0.0 && !bounds.is_stable(1, j);
      EXPECT_EQ(concave[1][j] != 0, is_concave) << "neuron " << j;
      expected += is_concave;
    }
    EXPECT_EQ(count_neurons(concave), expected);
    EXPECT_GT(expected, 0);
  }
}

// With the concave neurons free, the LP of a pattern is the best of the fixed-pattern LPs over every state of
// those neurons (regions that are empty do not count), and its optimum is the forward value of its x.
TEST(PatternLp, FreeConcaveNeuronsGiveTheBestRegionOverTheirStates) {
  for (std::uint64_t seed : {3u, 4u, 5u}) {
    const Network net = testing::random_network(3, {5, 6}, 2, seed);
    const Domain domain = seed == 4 ? testing::random_polytope(3, 3, 7) : Domain::unit_box(3);
    Objective objective;
    objective.weights = Eigen::Vector2d(0.8, -1.1);
    objective.sense = seed == 5 ? Sense::kMinimize : Sense::kMaximize;
    const Problem problem = make_problem(net, domain, objective);
    std::vector<int> concave;
    for (int j = 0; j < 6; ++j)
      if (problem.concave[1][j]) concave.push_back(j);
    ASSERT_FALSE(concave.empty());
    const std::unique_ptr<LpSolver> clp = make_lp_solver();
    DenseFirstLp dense;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (int trial = 0; trial < 15; ++trial) {
      const EvaluatedPoint sample =
          evaluate_point(problem, Eigen::VectorXd::NullaryExpr(3, [&] { return unit(rng); }));
      const ActivationPattern pattern = net.activation_pattern(sample.x);
      const LinearModel relaxed =
          pattern_lp(net, domain, problem.objective, pattern, &problem.interval, &problem.concave);
      EXPECT_EQ(relaxed.num_cols(), 3 + static_cast<int>(concave.size()));
      const LpSolution solution = clp->solve(relaxed);
      ASSERT_EQ(solution.status, LpStatus::kOptimal);
      double best = -kInfinity;
      for (long bits = 0; bits < (1L << concave.size()); ++bits) {
        ActivationPattern other = pattern;
        for (std::size_t t = 0; t < concave.size(); ++t) other.active[1][concave[t]] = (bits >> t) & 1L;
        const LpSolution fixed = clp->solve(pattern_lp(net, domain, problem.objective, other, &problem.interval));
        if (fixed.status == LpStatus::kOptimal) best = std::max(best, fixed.objective);
        else EXPECT_EQ(fixed.status, LpStatus::kInfeasible);
      }
      const double tolerance = 1e-7 * std::max(1.0, std::abs(best));
      EXPECT_NEAR(solution.objective, best, tolerance) << "seed " << seed << ", trial " << trial;
      EXPECT_GE(solution.objective, sample.value - tolerance);
      const EvaluatedPoint optimum =
          evaluate_point(problem, Eigen::Map<const Eigen::VectorXd>(solution.values.data(), 3));
      EXPECT_NEAR(optimum.value, solution.objective, tolerance);
      // The sampling hot path's dense solver agrees.
      const LpSolution by_dense = dense.solve(relaxed);
      ASSERT_EQ(by_dense.status, LpStatus::kOptimal);
      EXPECT_NEAR(by_dense.objective, solution.objective, tolerance);
    }
  }
}

TEST(PatternLp, PatternsThatDifferOnlyInConcaveNeuronsShareAKey) {
  const Network net = testing::random_network(3, {5, 6}, 1, 3);
  const Problem problem = make_problem(net, Domain::unit_box(3), Objective::output(1));
  const ActivationPattern pattern = net.activation_pattern(Eigen::Vector3d(0.2, 0.5, 0.9));
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < net.hidden_width(k); ++j) {
      ActivationPattern other = pattern;
      other.active[k][j] ^= 1;
      EXPECT_EQ(pattern_key(other, &problem.concave) == pattern_key(pattern, &problem.concave),
                problem.concave[k][j] != 0);
      EXPECT_FALSE(pattern_key(other, nullptr) == pattern_key(pattern, nullptr));
    }
}


// The local-search model with concave neurons: they get y and no binary; its MIP start (y = max(h, 0) for every
// neuron with a column) is feasible with the forward value; with no binary neuron its optimum is the relaxed
// pattern LP's.
TEST(PatternLp, NeighbourhoodMipCarriesConcaveNeuronsWithoutBinaries) {
  const Network net = testing::random_network(3, {5, 6}, 2, 4);
  Objective objective;
  objective.weights = Eigen::Vector2d(0.8, -1.1);
  const Problem problem = make_problem(net, Domain::unit_box(3), objective);
  const int concave = count_neurons(problem.concave);
  ASSERT_GT(concave, 0);
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  int positive_concave = 0;  // concave neurons seen active at a sample: their y must be h in the start
  for (int trial = 0; trial < 15; ++trial) {
    const Eigen::VectorXd x = Eigen::VectorXd::NullaryExpr(3, [&] { return unit(rng); });
    const ActivationPattern pattern = net.activation_pattern(x);
    // Every unstable neuron of the first layer is free with a binary; none is concave.
    FreeMask free = problem.concave;
    for (auto& layer : free) std::fill(layer.begin(), layer.end(), 0);
    for (int j = 0; j < net.hidden_width(0); ++j) free[0][j] = !problem.interval.is_stable(0, j);
    const NeighbourhoodMip mip =
        *neighbourhood_mip(net, problem.domain, problem.objective, pattern, free, problem.interval, &problem.concave);
    EXPECT_EQ(static_cast<int>(mip.concave.size()), concave);
    for (const NeighbourhoodMip::FreeNeuron& neuron : mip.free)
      EXPECT_FALSE(problem.concave[neuron.layer][neuron.neuron]);
    const std::vector<double> start = neighbourhood_start(mip, net, x);
    const double value = problem.objective.sign() * problem.objective.value(net.forward(x));
    EXPECT_LE(mip.model.max_violation(start), 1e-9);
    EXPECT_NEAR(mip.model.evaluate(start), value, 1e-9 * std::max(1.0, std::abs(value)));
    for (const NeighbourhoodMip::FreeNeuron& neuron : mip.concave)
      positive_concave += net.trace(x).pre_activation[neuron.layer][neuron.neuron] > 0.0;

    FreeMask no_binary = free;
    for (auto& layer : no_binary) std::fill(layer.begin(), layer.end(), 0);
    const NeighbourhoodMip lp_only = *neighbourhood_mip(net, problem.domain, problem.objective, pattern, no_binary,
                                                       problem.interval, &problem.concave);
    EXPECT_TRUE(lp_only.free.empty());
    const LpSolution by_mip_model = lp->solve(lp_only.model);
    const LpSolution by_pattern_lp =
        lp->solve(pattern_lp(net, problem.domain, problem.objective, pattern, &problem.interval, &problem.concave));
    ASSERT_EQ(by_mip_model.status, LpStatus::kOptimal);
    ASSERT_EQ(by_pattern_lp.status, LpStatus::kOptimal);
    EXPECT_NEAR(by_mip_model.objective, by_pattern_lp.objective,
                1e-7 * std::max(1.0, std::abs(by_pattern_lp.objective)));
  }
  EXPECT_GT(positive_concave, 0) << "no sample made a concave neuron active: the start check saw only y = 0";
}

// With free neurons in several layers, v = [x; y] with y the free neurons' true post-activations reproduces the
// forward pass: the products that skip G's zero columns (compose_region) lose nothing.
TEST(PatternLp, ComposedMapsWithFreeNeuronsInSeveralLayersEqualTheForwardPass) {
  const Network net = testing::random_network(3, {7, 6, 5}, 2, 29);
  Objective objective;
  objective.weights = Eigen::Vector2d(-0.4, 1.1);
  const FreeMask free{{1, 0, 0, 1, 0, 0, 0}, {0, 0, 0, 0, 0, 0}, {0, 1, 1, 0, 1}};
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::VectorXd x = Eigen::VectorXd::NullaryExpr(3, [&] { return unit(rng); });
    const ForwardTrace trace = net.trace(x);
    const RegionAffine region = compose_region(net, objective, net.activation_pattern(x), &free);
    ASSERT_EQ(region.num_free, 5);
    Eigen::VectorXd v(3 + region.num_free);
    v.head(3) = x;
    for (int k = 0; k < net.num_hidden_layers(); ++k)
      for (int j = 0; j < net.hidden_width(k); ++j)
        if (const int f = region.free_index[k][j]; f >= 0) v[3 + f] = std::max(trace.pre_activation[k][j], 0.0);
    for (int k = 0; k < net.num_hidden_layers(); ++k)
      EXPECT_LT((region.G[k] * v + region.g[k] - trace.pre_activation[k]).norm(), 1e-12) << "layer " << k;
    EXPECT_NEAR(region.objective_gradient.dot(v) + region.objective_constant, objective.value(trace.output), 1e-12);
  }
}

// A network whose layers are stored sparse, each neuron reading three neighbouring neurons (or inputs) of the
// layer before, as a convolution reads a small window:
//   x (16) -> 16 -> 16 -> 16 -> 16 -> 2,   W_k(j, i) != 0 only for i = j, j + 1, j + 2 (mod 16); the output dense.
// G_0 = W_0 has 3 nonzeros a row; G_k has at most 2k + 3, fewer where neurons are inactive: the composed maps
// start sparse and turn dense past a quarter of their entries, so the composition takes every path.
Network banded_sparse_network(std::uint64_t seed) {
  constexpr int kWidth = 16;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> weight(-1.0, 1.0);
  std::vector<DenseLayer> layers;
  for (int k = 0; k < 4; ++k) {
    std::vector<Eigen::Triplet<double>> entries;
    for (int j = 0; j < kWidth; ++j)
      for (int i : {j, (j + 1) % kWidth, (j + 2) % kWidth}) entries.emplace_back(j, i, weight(rng));
    Weights::Sparse W(kWidth, kWidth);
    W.setFromTriplets(entries.begin(), entries.end());
    DenseLayer layer;
    layer.weights = Weights(std::move(W));
    layer.bias = Eigen::VectorXd::NullaryExpr(kWidth, [&] { return 0.3 * weight(rng); });
    layers.push_back(std::move(layer));
  }
  DenseLayer out;
  out.weights = Eigen::MatrixXd::NullaryExpr(2, kWidth, [&] { return weight(rng); });
  out.bias = Eigen::VectorXd::Zero(2);
  layers.push_back(std::move(out));
  return Network(std::move(layers));
}

// The maps composed from sparse layers (kept sparse while few of their entries are nonzero) reproduce the forward
// pass, with and without free neurons, and give the same LP as the dense twin of the network.
TEST(PatternLp, ComposedMapsOfSparseLayersEqualTheForwardPass) {
  const Network net = banded_sparse_network(41);
  std::vector<DenseLayer> dense_layers = net.layers();
  for (DenseLayer& layer : dense_layers) layer.weights = Weights(layer.weights.to_dense());
  const Network twin(std::move(dense_layers));
  Objective objective;
  objective.weights = Eigen::Vector2d(0.8, -0.6);
  const Domain box = Domain::unit_box(16);
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  FreeMask free(4, std::vector<std::uint8_t>(16, 0));
  free[0][3] = free[1][7] = free[2][0] = 1;
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  int later_sparse = 0, later_dense = 0;  // maps of layers 1-3 kept sparse or turned dense
  for (int trial = 0; trial < 10; ++trial) {
    const Eigen::VectorXd x = Eigen::VectorXd::NullaryExpr(16, [&] { return unit(rng); });
    const ForwardTrace trace = net.trace(x);
    const RegionAffine region = compose_region(net, objective, net.activation_pattern(x));
    ASSERT_TRUE(region.complete);
    EXPECT_TRUE(region.G[0].is_sparse);
    for (int k = 1; k < 4; ++k) ++(region.G[k].is_sparse ? later_sparse : later_dense);
    for (int k = 0; k < 4; ++k)
      EXPECT_LT((region.G[k] * x + region.g[k] - trace.pre_activation[k]).norm(), 1e-12) << "layer " << k;
    EXPECT_NEAR(region.objective_gradient.dot(x) + region.objective_constant, objective.value(trace.output), 1e-12);

    const RegionAffine with_free = compose_region(net, objective, net.activation_pattern(x), &free);
    ASSERT_EQ(with_free.num_free, 3);
    Eigen::VectorXd v(16 + 3);
    v.head(16) = x;
    for (int k = 0; k < 4; ++k)
      for (int j = 0; j < 16; ++j)
        if (const int f = with_free.free_index[k][j]; f >= 0) v[16 + f] = std::max(trace.pre_activation[k][j], 0.0);
    for (int k = 0; k < 4; ++k)
      EXPECT_LT((with_free.G[k] * v + with_free.g[k] - trace.pre_activation[k]).norm(), 1e-12) << "layer " << k;
    EXPECT_NEAR(with_free.objective_gradient.dot(v) + with_free.objective_constant, objective.value(trace.output),
                1e-12);

    const LpSolution sparse_lp = lp->solve(pattern_lp(net, box, objective, net.activation_pattern(x), nullptr));
    const LpSolution dense_lp = lp->solve(pattern_lp(twin, box, objective, net.activation_pattern(x), nullptr));
    ASSERT_EQ(sparse_lp.status, LpStatus::kOptimal);
    ASSERT_EQ(dense_lp.status, LpStatus::kOptimal);
    EXPECT_NEAR(sparse_lp.objective, dense_lp.objective, 1e-9 * std::max(1.0, std::abs(dense_lp.objective)));
  }
  EXPECT_GT(later_sparse, 0);
  EXPECT_GT(later_dense, 0);
}

// A deadline that has passed (or a stop request) stops the composition before its first product, dense or sparse:
// the region is incomplete, and the region LP and the neighbourhood MIP say so rather than use it.
TEST(PatternLp, AnExpiredDeadlineStopsTheRegionBeforeItsProducts) {
  const std::atomic<bool> stop{true};
  for (const Network& net : {banded_sparse_network(43), testing::random_network(16, {10, 8}, 2, 44)}) {
    Objective objective;
    objective.weights = Eigen::Vector2d(1.0, -1.0);
    const Domain box = Domain::unit_box(16);
    const ActivationPattern pattern = net.activation_pattern(Eigen::VectorXd::Constant(16, 0.5));
    for (const Deadline& passed : {Deadline(0.0, nullptr), Deadline(60.0, &stop)}) {
      EXPECT_FALSE(compose_region(net, objective, pattern, nullptr, &passed).complete);
      EXPECT_FALSE(pattern_lp_within(net, box, objective, pattern, nullptr, nullptr, passed).has_value());
      const NeuronBounds bounds = interval_bounds(net, box);
      FreeMask free(net.num_hidden_layers());
      for (int k = 0; k < net.num_hidden_layers(); ++k) free[k].assign(net.hidden_width(k), 0);
      EXPECT_FALSE(neighbourhood_mip(net, box, objective, pattern, free, bounds, nullptr, &passed).has_value());
    }
    EXPECT_TRUE(compose_region(net, objective, pattern, nullptr, nullptr).complete);
  }
}

}  // namespace
}  // namespace reluopt
