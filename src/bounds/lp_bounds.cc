// LP-based and progressive bounds on pre-activations (MATH.md §4; Fischetti & Jo 2018, "Deep neural networks
// and mixed integer linear optimization", bound tightening). For neuron j of hidden layer k, h_kj = w^T x_k + b:
//   u_kj = max { w^T x_k + b : x_1 in P, (x_1, ..., x_k) in R_k },   l_kj = min { same },
// where R_k is the LP relaxation (z in [0, 1]) of the big-M model (MATH.md §3) of hidden layers 0..k-1, built
// with the bounds already found for those layers. R_0 = P.
//
// R_k is built with z projected out. For one neuron with l < 0 < u, there is a z in [0, 1] with
// x_next <= u z and x_next <= h - l (1 - z) exactly when x_next <= u (h - l) / (u - l) (solve both for z),
// so the big-M relaxation is the triangle
//     x_next >= 0,   x_next >= h,   x_next <= u (h - l) / (u - l),
// and the LP values are those of big_m_formulation's relaxation (the tests cross-check the two). With h as its
// own column (one row h = w^T x + b) the triangle rows have two entries each, where big_m_formulation's two
// big-M rows each repeat w: 1.3-2.5x faster per LP (bench/bench_bounds.cc). With the warm start and order below,
// the second layer's LPs take 2.7-3.1x less time than fresh dual solves of big_m_formulation's relaxation.
// Stable neurons: u <= 0 gives x_next = 0 (no column), l >= 0 gives x_next = h (the h column itself).
//
// Layer by layer:
//   1. interval arithmetic from the previous layer's (tightened) bounds: [max(l,0), max(u,0)] bounds x_k;
//   2. LPs: kLp solves both LPs for every neuron; kProgressive only for the neurons still unstable, and skips
//      the min LP once the max LP has proven u <= 0 (an inactive neuron's lower bound is never used);
//   3. the tighter of the two, both being valid.
// Over a plain box, interval arithmetic on layer 0 is already the exact max and min: layer 0 needs LPs only
// when P has rows.
//
// Validity: an LP's value is LpSolver::maximize's weak-duality bound, which holds for any dual values the
// solver returns, loosened by kSlack (1 + |v|); an LP that fails or is cut off by the deadline leaves the
// interval bound. Threads split a layer's neurons into fixed blocks and each keeps one LP, warm-started from its
// own previous solve, so the result is deterministic for a given thread count.
#include <algorithm>
#include <cmath>
#include <memory>

#include "bounds/bounds.h"
#include "bounds/symbolic_bounds.h"
#include "core/worker_threads.h"
#include "lp/domain_rows.h"
#include "reluopt/error.h"
#include "solver/lp_solver.h"

namespace reluopt {

namespace {

constexpr double kSlack = 1e-7;

// An upper bound v from an LP, moved outward so that round-off can never make it cut off a feasible point.
double loosen(double v) { return v + kSlack * (1.0 + std::abs(v)); }

// Step 1: interval bounds of layer k from the bounds on its inputs.
void interval_layer(const Network& network, const Domain& domain, int k, NeuronBounds& bounds) {
  const Eigen::VectorXd lo = k == 0 ? domain.lower : Eigen::VectorXd(bounds.lower[k - 1].cwiseMax(0.0));
  const Eigen::VectorXd hi = k == 0 ? domain.upper : Eigen::VectorXd(bounds.upper[k - 1].cwiseMax(0.0));
  Eigen::VectorXd l, u;
  interval_step(network.hidden_layer(k).weights, network.hidden_layer(k).bias, lo, hi, &l, &u);
  bounds.lower.push_back(std::move(l));
  bounds.upper.push_back(std::move(u));
}

// R_k with a zero objective, and the column of each input of layer k (-1 for an input fixed at 0).
struct Relaxation {
  LinearModel model;
  std::vector<int> layer_input;
};

Relaxation relaxation(const Network& network, const Domain& domain, const NeuronBounds& bounds, int k) {
  Relaxation r;
  LinearModel& m = r.model;
  std::vector<int> inputs;
  for (int i = 0; i < domain.dim(); ++i) inputs.push_back(m.add_column(domain.lower[i], domain.upper[i]));
  add_domain_rows(domain, m);
  for (int layer = 0; layer < k; ++layer) {
    const DenseLayer& weights = network.hidden_layer(layer);
    std::vector<int> outputs(network.hidden_width(layer), -1);
    for (int j = 0; j < network.hidden_width(layer); ++j) {
      const double l = bounds.lower[layer][j], u = bounds.upper[layer][j];
      if (u <= 0.0) continue;
      const int h = m.add_column(l, u);  // implied by R_layer; finite bounds keep the dual bound finite
      std::vector<int> index{h};
      std::vector<double> value{-1.0};
      weights.weights.for_each_in_row(j, [&](Eigen::Index i, double w) {
        const int column = inputs[static_cast<std::size_t>(i)];
        if (column < 0 || w == 0.0) return;
        index.push_back(column);
        value.push_back(w);
      });
      m.add_row(index, value, -weights.bias[j], -weights.bias[j]);  // w^T x - h = -b
      if (l >= 0.0) {
        outputs[j] = h;
        continue;
      }
      const int a = m.add_column(0.0, u);
      // The slope, rounded up by far more than its rounding error, so the triangle contains the graph of the ReLU.
      const double slope = u / (u - l) * (1.0 + 1e-12);
      m.add_row({a, h}, {1.0, -1.0}, 0.0, kInfinity);          // a >= h
      m.add_row({a, h}, {1.0, -slope}, -kInfinity, -slope * l);  // a <= slope (h - l)
      outputs[j] = a;
    }
    inputs = std::move(outputs);
  }
  r.layer_input = std::move(inputs);
  return r;
}

// The neurons reordered so that each one's weight vector is close in angle to the one before (greedy nearest
// neighbour from the first). Consecutive LPs then differ little and the warm start needs fewer simplex
// iterations: 7-11% fewer on the benchmark networks, after 13-25% fewer from solving every max before every
// min (bench/bench_bounds.cc). The cosines take n^2 d multiply-adds and no look at the deadline: past
// kMaxOrderWork (about a second under load) the neurons keep their order (6000 unstable neurons over 6000 inputs,
// an NN4Sys-size layer, would take minutes; bench/results/deadline_conv.md).
std::vector<int> similar_in_turn(const Weights& weights, const std::vector<int>& neurons) {
  constexpr double kMaxOrderWork = 2e8;
  const Eigen::Index n = static_cast<Eigen::Index>(neurons.size());
  if (static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(weights.cols()) > kMaxOrderWork)
    return neurons;
  Eigen::MatrixXd unit(n, weights.cols());
  for (Eigen::Index i = 0; i < n; ++i) {
    unit.row(i) = weights.row(neurons[i]);
    if (unit.row(i).norm() > 0.0) unit.row(i).normalize();
  }
  const Eigen::MatrixXd cosine = unit * unit.transpose();
  std::vector<int> order{0};
  std::vector<bool> used(n, false);
  used[0] = true;
  for (Eigen::Index step = 1; step < n; ++step) {
    Eigen::Index next = -1;
    for (Eigen::Index c = 0; c < n; ++c)
      if (!used[c] && (next < 0 || cosine(order.back(), c) > cosine(order.back(), next))) next = c;
    used[next] = true;
    order.push_back(static_cast<int>(next));
  }
  std::vector<int> result;
  for (int i : order) result.push_back(neurons[i]);
  return result;
}

struct LayerLps {
  const LinearModel& model;
  LpStart start;
  const std::vector<int>& layer_input;
  const DenseLayer& layer;
  bool skip_inactive_min;  // kProgressive: no min LP once u <= 0
  std::vector<double> upper, lower;  // LP results, +-infinity where none
};

// Step 2 for neurons[begin, end): one kept LP, each solve warm-started from the one before; every max, then
// every min.
void solve_block(LayerLps& lps, const std::vector<int>& neurons, std::size_t begin, std::size_t end,
                 const Deadline& deadline) {
  const std::unique_ptr<LpSolver> lp = make_lp_solver();
  lp->set_stop_request(deadline.stop_request());
  lp->load(lps.model);
  std::vector<double> objective(lps.model.num_cols(), 0.0);
  auto extreme = [&](int j, double sign) {
    for (std::size_t i = 0; i < lps.layer_input.size(); ++i)
      if (lps.layer_input[i] >= 0)
        objective[lps.layer_input[i]] = sign * lps.layer.weights(j, static_cast<Eigen::Index>(i));
    const LpBound result = lp->maximize(objective, sign * lps.layer.bias[j], lps.start, deadline.remaining());
    return result.status == LpStatus::kOptimal ? loosen(result.bound) : kInfinity;
  };
  for (std::size_t n = begin; n < end && !deadline.expired(); ++n) lps.upper[neurons[n]] = extreme(neurons[n], 1.0);
  for (std::size_t n = begin; n < end && !deadline.expired(); ++n) {
    const int j = neurons[n];
    if (!(lps.skip_inactive_min && lps.upper[j] <= 0.0)) lps.lower[j] = -extreme(j, -1.0);
  }
}

void tighten_layer(const Network& network, const Domain& domain, BoundMethod method, int threads, int k,
                   NeuronBounds& bounds, const Deadline& deadline) {
  std::vector<int> neurons;
  for (int j = 0; j < network.hidden_width(k); ++j)
    if (method == BoundMethod::kLp || !bounds.is_stable(k, j)) neurons.push_back(j);
  if (neurons.empty()) return;
  neurons = similar_in_turn(network.hidden_layer(k).weights, neurons);
  const Relaxation relaxed = relaxation(network, domain, bounds, k);
  const int width = network.hidden_width(k);
  // R_0 = P: the objective is on the inputs themselves and the slack basis is next to the optimum.
  const LpStart start = k == 0 ? LpStart::kSlackDual : LpStart::kWarmPrimal;
  LayerLps lps{relaxed.model, start, relaxed.layer_input, network.hidden_layer(k), method == BoundMethod::kProgressive,
               std::vector<double>(width, kInfinity), std::vector<double>(width, -kInfinity)};
  // Contiguous blocks keep each thread's sequence of similar neurons together; this thread solves block 0.
  WorkerThreads helpers(static_cast<int>(std::min<std::size_t>(threads, neurons.size())) - 1);
  const std::size_t blocks = static_cast<std::size_t>(helpers.started()) + 1;
  auto block_start = [&](std::size_t t) { return t * neurons.size() / blocks; };
  helpers.run([&](int t) { solve_block(lps, neurons, block_start(t + 1), block_start(t + 2), deadline); });
  solve_block(lps, neurons, 0, block_start(1), deadline);
  helpers.join();
  for (int j = 0; j < width; ++j) {
    bounds.upper[k][j] = std::min(bounds.upper[k][j], lps.upper[j]);
    bounds.lower[k][j] = std::max(bounds.lower[k][j], lps.lower[j]);
  }
}

}  // namespace

NeuronBounds compute_bounds(const Network& network, const Domain& domain, const BoundOptions& options,
                            const Deadline& deadline) {
  if (options.method == BoundMethod::kInterval) return interval_bounds(network, domain);
  if (options.method == BoundMethod::kSymbolic) return symbolic_bounds(network, domain.lower, domain.upper, &deadline);
  const bool progressive = options.method == BoundMethod::kProgressive;
  // Symbolic bounds tighten layers after the first only (layer 0's are the interval bounds), and a pass over a
  // wide first layer takes a second: none when there is no later layer or no time left.
  const bool symbolic_pass = progressive && network.num_hidden_layers() > 1 && !deadline.expired();
  const NeuronBounds symbolic =
      symbolic_pass ? symbolic_bounds(network, domain.lower, domain.upper, &deadline) : NeuronBounds{};
  const int threads = resolve_threads(options.threads);
  NeuronBounds bounds;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    interval_layer(network, domain, k, bounds);
    if (symbolic_pass) {
      // Fewer neurons left unstable for the LPs; both bounds are valid over P.
      bounds.lower[k] = bounds.lower[k].cwiseMax(symbolic.lower[k]);
      bounds.upper[k] = bounds.upper[k].cwiseMin(symbolic.upper[k]);
    }
    if (k == 0 && !domain.has_rows()) continue;  // interval arithmetic is exact over a box
    if (!deadline.expired()) tighten_layer(network, domain, options.method, threads, k, bounds, deadline);
  }
  return bounds;
}

}  // namespace reluopt
