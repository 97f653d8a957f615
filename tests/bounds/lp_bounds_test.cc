#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <random>

#include "algorithms/problem.h"
#include "bounds/bounds.h"
#include "core/domain_sampler.h"
#include "formulation/mip_formulation.h"
#include "reluopt/error.h"
#include "solver/lp_solver.h"
#include "test_networks.h"

namespace reluopt {
namespace {

constexpr double kTol = 1e-9;

NeuronBounds bounds_of(const Network& network, const Domain& domain, BoundMethod method, int threads = 1) {
  return compute_bounds(network, domain, BoundOptions{method, threads}, Deadline());
}

// Every bound of `inner` lies inside the matching bound of `outer`, up to kTol.
void expect_inside(const NeuronBounds& inner, const NeuronBounds& outer) {
  ASSERT_EQ(inner.lower.size(), outer.lower.size());
  for (std::size_t k = 0; k < inner.lower.size(); ++k)
    for (Eigen::Index j = 0; j < inner.lower[k].size(); ++j) {
      EXPECT_GE(inner.lower[k][j], outer.lower[k][j] - kTol) << "layer " << k << " neuron " << j;
      EXPECT_LE(inner.upper[k][j], outer.upper[k][j] + kTol) << "layer " << k << " neuron " << j;
      EXPECT_LE(inner.lower[k][j], inner.upper[k][j]) << "layer " << k << " neuron " << j;
    }
}

double total_width(const NeuronBounds& bounds, int from_layer) {
  double width = 0.0;
  for (std::size_t k = from_layer; k < bounds.lower.size(); ++k) width += (bounds.upper[k] - bounds.lower[k]).sum();
  return width;
}

// One input, two hidden layers of two neurons (a1 and a2 both feed g1 and g2):
//
//                  +1                            g1 = a1 + a2 - 0.5
//           .--> h1 --> a1 = relu(h1) --.--> g1 --> relu --.
//   x in [-1, 1]                         X                  >--> y = relu(g1) + relu(g2)
//           '--> h2 --> a2 = relu(h2) --'--> g2 --> relu --'
//                  -1                            g2 = -a1 - a2 + 0.5
//
// Layer 0: h1 = x and h2 = -x lie in [-1, 1], both unstable; a1 + a2 = |x|.
// Interval: a1, a2 in [0, 1], so g1 in [-0.5, 1.5] and g2 in [-1.5, 0.5].
// LP relaxation of layer 0's big-M (l = -1, u = 1):
//   a1 <= z1, a1 <= x + 1 - z1  =>  a1 <= (x + 1) / 2 (best z1 = (x + 1) / 2);  likewise a2 <= (1 - x) / 2.
//   So max a1 + a2 = 1, and min a1 + a2 = 0 (a1 >= max(0, x), a2 >= max(0, -x), equality at x = 0).
// LP bounds: g1 in [-0.5, 0.5], g2 in [-0.5, 0.5], strictly tighter than interval on one side each
// (and exact: a1 + a2 = |x| ranges over [0, 1]).
Network tiny_network() {
  DenseLayer first{Eigen::MatrixXd{{1.0}, {-1.0}}, Eigen::VectorXd{{0.0, 0.0}}};
  DenseLayer second{Eigen::MatrixXd{{1.0, 1.0}, {-1.0, -1.0}}, Eigen::VectorXd{{-0.5, 0.5}}};
  DenseLayer output{Eigen::MatrixXd{{1.0, 1.0}}, Eigen::VectorXd{{0.0}}};
  return Network({first, second, output});
}

TEST(LpBounds, TinyNetworkHandComputed) {
  const Network network = tiny_network();
  const Domain domain = Domain::box(Eigen::VectorXd{{-1.0}}, Eigen::VectorXd{{1.0}});
  const NeuronBounds interval = interval_bounds(network, domain);
  EXPECT_DOUBLE_EQ(interval.upper[1][0], 1.5);
  EXPECT_DOUBLE_EQ(interval.lower[1][1], -1.5);
  for (BoundMethod method : {BoundMethod::kLp, BoundMethod::kProgressive}) {
    SCOPED_TRACE(bound_method_name(method));
    const NeuronBounds b = bounds_of(network, domain, method);
    for (int j = 0; j < 2; ++j) {
      EXPECT_DOUBLE_EQ(b.lower[0][j], -1.0);  // over a box, interval arithmetic is exact in layer 0
      EXPECT_DOUBLE_EQ(b.upper[0][j], 1.0);
    }
    const double expected_lower[] = {-0.5, -0.5}, expected_upper[] = {0.5, 0.5};
    for (int j = 0; j < 2; ++j) {
      EXPECT_NEAR(b.lower[1][j], expected_lower[j], 1e-6);
      EXPECT_NEAR(b.upper[1][j], expected_upper[j], 1e-6);
      // Loosened outward, never inward.
      EXPECT_LE(b.lower[1][j], expected_lower[j]);
      EXPECT_GE(b.upper[1][j], expected_upper[j]);
    }
  }
}

TEST(LpBounds, IntervalMethodIsIntervalArithmetic) {
  const Network network = testing::random_network(4, {6, 6}, 1, 3);
  const Domain domain = testing::random_polytope(4, 3, 5);
  const NeuronBounds a = bounds_of(network, domain, BoundMethod::kInterval);
  const NeuronBounds b = interval_bounds(network, domain);
  for (std::size_t k = 0; k < a.lower.size(); ++k) {
    EXPECT_EQ(a.lower[k], b.lower[k]);
    EXPECT_EQ(a.upper[k], b.upper[k]);
  }
}

TEST(LpBounds, InsideIntervalBoundsAndTighter) {
  for (int layers = 1; layers <= 3; ++layers)
    for (bool polytope : {false, true}) {
      SCOPED_TRACE(::testing::Message() << layers << " layers, polytope " << polytope);
      const Network network = testing::random_network(8, std::vector<int>(layers, 12), 1, 10 + layers);
      const Domain domain = polytope ? testing::random_polytope(8, 6, 20 + layers) : Domain::unit_box(8);
      const NeuronBounds interval = interval_bounds(network, domain);
      for (BoundMethod method : {BoundMethod::kLp, BoundMethod::kProgressive}) {
        SCOPED_TRACE(bound_method_name(method));
        const NeuronBounds b = bounds_of(network, domain, method);
        expect_inside(b, interval);
        EXPECT_LE(b.num_unstable(), interval.num_unstable());
        // LPs help from the second layer on (and from the first one when P has rows).
        const int from = polytope ? 0 : 1;
        if (layers > from) {
          EXPECT_LT(total_width(b, from), total_width(interval, from) - 1e-3);
        }
      }
    }
}

// No pre-activation of sampled points of P leaves the bounds.
TEST(LpBounds, SampledPointsStayInsideBounds) {
  for (int layers = 1; layers <= 3; ++layers)
    for (bool polytope : {false, true}) {
      SCOPED_TRACE(::testing::Message() << layers << " layers, polytope " << polytope);
      const int d = 6;
      const Network network = testing::random_network(d, std::vector<int>(layers, 10), 1, 40 + layers);
      const Domain domain = polytope ? testing::random_polytope(d, 5, 50 + layers) : Domain::unit_box(d);
      const Problem problem = make_problem(network, domain, Objective::output(1));
      for (BoundMethod method : {BoundMethod::kLp, BoundMethod::kProgressive}) {
        SCOPED_TRACE(bound_method_name(method));
        const NeuronBounds b = bounds_of(network, domain, method);
        DomainSampler sampler(problem.domain, problem.interior_point, 7);
        int violations = 0;
        for (int i = 0; i < 5000; ++i) {
          const ForwardTrace trace = network.trace(sampler.next());
          for (int k = 0; k < layers; ++k)
            for (int j = 0; j < network.hidden_width(k); ++j) {
              const double h = trace.pre_activation[k][j];
              violations += (h < b.lower[k][j] - kTol || h > b.upper[k][j] + kTol) ? 1 : 0;
            }
        }
        EXPECT_EQ(violations, 0);
      }
    }
}

// The exact max and min of every pre-activation, by enumerating the activation patterns of the layers before
// it (testing::brute_force_max on the network cut after that layer), lie inside the LP bounds.
TEST(LpBounds, ExactExtremesByEnumerationStayInsideBounds) {
  for (bool polytope : {false, true}) {
    SCOPED_TRACE(::testing::Message() << "polytope " << polytope);
    const Network network = testing::random_network(3, {4, 4, 3}, 1, 77);
    const Domain domain = polytope ? testing::random_polytope(3, 4, 78) : Domain::unit_box(3);
    const NeuronBounds interval = interval_bounds(network, domain);
    for (BoundMethod method : {BoundMethod::kLp, BoundMethod::kProgressive}) {
      SCOPED_TRACE(bound_method_name(method));
      const NeuronBounds b = bounds_of(network, domain, method);
      for (int k = 0; k < network.num_hidden_layers(); ++k) {
        const Network cut(std::vector<DenseLayer>(network.layers().begin(), network.layers().begin() + k + 1));
        for (int j = 0; j < network.hidden_width(k); ++j) {
          Objective max_h = Objective::output(cut.output_dim(), j);
          Objective min_h = max_h;
          min_h.sense = Sense::kMinimize;
          const double exact_max = testing::brute_force_max(cut, domain, max_h);
          const double exact_min = -testing::brute_force_max(cut, domain, min_h);
          EXPECT_GE(b.upper[k][j], exact_max - kTol) << "layer " << k << " neuron " << j;
          EXPECT_LE(b.lower[k][j], exact_min + kTol) << "layer " << k << " neuron " << j;
          EXPECT_LE(b.upper[k][j], interval.upper[k][j] + kTol);
          EXPECT_GE(b.lower[k][j], interval.lower[k][j] - kTol);
        }
      }
    }
  }
}

// kLp's values are the LP relaxation of big_m_formulation's model (which lp_bounds.cc builds with z projected
// out), solved here by a fresh dual simplex per neuron, layer by layer from the same earlier bounds.
TEST(LpBounds, LpMethodMatchesBigMRelaxation) {
  for (bool polytope : {false, true}) {
    SCOPED_TRACE(::testing::Message() << "polytope " << polytope);
    const Network network = testing::random_network(7, {9, 9, 9}, 1, 31);
    const Domain domain = polytope ? testing::random_polytope(7, 5, 32) : Domain::unit_box(7);
    const NeuronBounds b = bounds_of(network, domain, BoundMethod::kLp);
    const std::unique_ptr<LpSolver> lp = make_lp_solver();
    for (int k = 0; k < network.num_hidden_layers(); ++k) {
      const Network cut(std::vector<DenseLayer>(network.layers().begin(), network.layers().begin() + k + 1));
      NeuronBounds earlier;
      earlier.lower.assign(b.lower.begin(), b.lower.begin() + k);
      earlier.upper.assign(b.upper.begin(), b.upper.begin() + k);
      for (int j = 0; j < network.hidden_width(k); ++j) {
        Objective max_h = Objective::output(cut.output_dim(), j);
        Objective min_h = max_h;
        min_h.sense = Sense::kMinimize;
        const LpSolution upper = lp->solve(big_m_formulation(cut, domain, max_h, earlier).model);
        const LpSolution lower = lp->solve(big_m_formulation(cut, domain, min_h, earlier).model);
        ASSERT_EQ(upper.status, LpStatus::kOptimal);
        ASSERT_EQ(lower.status, LpStatus::kOptimal);
        EXPECT_NEAR(b.upper[k][j], upper.objective, 1e-6 * (1.0 + std::abs(upper.objective)))
            << "layer " << k << " neuron " << j;
        EXPECT_NEAR(b.lower[k][j], -lower.objective, 1e-6 * (1.0 + std::abs(lower.objective)))
            << "layer " << k << " neuron " << j;
      }
    }
  }
}

TEST(LpBounds, SameResultForOneAndTwoThreads) {
  const Network network = testing::random_network(15, {25, 25, 25}, 1, 5);
  const Domain domain = testing::random_polytope(15, 8, 6);
  for (BoundMethod method : {BoundMethod::kLp, BoundMethod::kProgressive}) {
    SCOPED_TRACE(bound_method_name(method));
    const NeuronBounds one = bounds_of(network, domain, method, 1);
    const NeuronBounds two = bounds_of(network, domain, method, 2);
    const NeuronBounds again = bounds_of(network, domain, method, 2);
    for (std::size_t k = 0; k < one.lower.size(); ++k) {
      EXPECT_LE((one.lower[k] - two.lower[k]).cwiseAbs().maxCoeff(), kTol) << "layer " << k;
      EXPECT_LE((one.upper[k] - two.upper[k]).cwiseAbs().maxCoeff(), kTol) << "layer " << k;
      EXPECT_EQ(two.lower[k], again.lower[k]) << "layer " << k;  // deterministic per thread count
      EXPECT_EQ(two.upper[k], again.upper[k]) << "layer " << k;
    }
  }
}

// With no time left, neither LPs nor the symbolic propagation run: every method keeps the interval bounds.
TEST(LpBounds, ExpiredDeadlineOrStopGivesIntervalBounds) {
  const Network network = testing::random_network(10, {20, 20}, 1, 9);
  const Domain domain = testing::random_polytope(10, 5, 9);
  const NeuronBounds interval = interval_bounds(network, domain);
  const std::atomic<bool> stop{true};
  for (const Deadline& deadline : {Deadline(0.0, nullptr), Deadline(kInfinity, &stop)})
    for (BoundMethod method : {BoundMethod::kLp, BoundMethod::kProgressive, BoundMethod::kSymbolic}) {
      SCOPED_TRACE(bound_method_name(method));
      const NeuronBounds b = compute_bounds(network, domain, BoundOptions{method, 2}, deadline);
      ASSERT_EQ(b.lower.size(), interval.lower.size());
      for (std::size_t k = 0; k < b.lower.size(); ++k) {
        EXPECT_LE((b.lower[k] - interval.lower[k]).cwiseAbs().maxCoeff(), kTol);
        EXPECT_LE((b.upper[k] - interval.upper[k]).cwiseAbs().maxCoeff(), kTol);
      }
    }
}

// A deadline that expires part-way leaves some neurons with LP bounds and the rest with interval bounds
// from the layers before: still valid, and never looser than plain interval arithmetic.
TEST(LpBounds, DeadlineDuringTighteningStillGivesValidBounds) {
  const int d = 40;
  const Network network = testing::random_network(d, {40, 40, 40}, 1, 12);
  const Domain domain = testing::random_polytope(d, 10, 13);
  const Problem problem = make_problem(network, domain, Objective::output(1));
  const NeuronBounds interval = interval_bounds(network, domain);
  const NeuronBounds b = compute_bounds(network, domain, BoundOptions{BoundMethod::kLp, 2}, Deadline(0.03, nullptr));
  expect_inside(b, interval);
  DomainSampler sampler(problem.domain, problem.interior_point, 11);
  int violations = 0;
  for (int i = 0; i < 2000; ++i) {
    const ForwardTrace trace = network.trace(sampler.next());
    for (int k = 0; k < network.num_hidden_layers(); ++k)
      for (int j = 0; j < network.hidden_width(k); ++j) {
        const double h = trace.pre_activation[k][j];
        violations += (h < b.lower[k][j] - kTol || h > b.upper[k][j] + kTol) ? 1 : 0;
      }
  }
  EXPECT_EQ(violations, 0);
}

TEST(LpBounds, MethodNames) {
  for (BoundMethod method : {BoundMethod::kInterval, BoundMethod::kLp, BoundMethod::kProgressive})
    EXPECT_EQ(parse_bound_method(bound_method_name(method)), method);
  EXPECT_THROW(parse_bound_method("milp"), Error);
}

// LpSolver::maximize on a kept model agrees with a fresh solve() of the same LP, and its dual bound is a valid
// upper bound within round-off of the optimum.
TEST(LpBounds, ClpKeptModelMatchesFreshSolves) {
  const Network network = testing::random_network(12, {20, 20}, 1, 21);
  const Domain domain = testing::random_polytope(12, 6, 22);
  const MipFormulation f = big_m_formulation(network, domain, Objective::output(1), interval_bounds(network, domain));
  const std::unique_ptr<LpSolver> kept = make_lp_solver(), fresh = make_lp_solver();
  kept->load(f.model);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> gauss(0.0, 1.0);
  for (int trial = 0; trial < 30; ++trial) {
    LinearModel model = f.model;
    std::vector<double> objective(model.num_cols());
    for (int c = 0; c < model.num_cols(); ++c) model.set_objective(c, objective[c] = gauss(rng));
    model.set_objective_constant(0.25);
    const LpSolution reference = fresh->solve(model);
    ASSERT_EQ(reference.status, LpStatus::kOptimal);
    for (LpStart start : {LpStart::kWarmPrimal, LpStart::kSlackDual}) {
      const LpBound result = kept->maximize(objective, 0.25, start);
      ASSERT_EQ(result.status, LpStatus::kOptimal);
      EXPECT_NEAR(result.objective, reference.objective, 1e-6 * (1.0 + std::abs(reference.objective)));
      EXPECT_GE(result.bound, reference.objective - 1e-7);
      EXPECT_LE(result.bound, reference.objective + 1e-6 * (1.0 + std::abs(reference.objective)));
    }
  }
}

}  // namespace
}  // namespace reluopt
