// Measurements behind the bound method default (src/bounds/bounds.h) and ClpLp::maximize's warm start.
//
//   bench_bounds strategies [--dims 10 100 1000] [--neurons 100] [--rows 20] [--repeat 3]
//       How to solve the bound LPs, in CPU ms and simplex iterations per LP, and the largest difference of any
//       LP value to the first column. (a) First layer over P = [0,1]^d cut by --rows rows (1x100 networks):
//       fresh load + dual simplex per LP (ClpLp::solve), ClpLp::maximize from the slack basis (dual) or from
//       the last basis (primal), and a kept model re-solved by the dual simplex from the last basis.
//       (b) Second layer of 2x100 networks over R_1 (P = [0,1]^d, interval bounds on the first layer), the
//       unstable neurons (the first --neurons of them): big_m_formulation's model fresh or warm, then the
//       triangle model of lp_bounds.cc (z projected out, h as columns) fresh, slack dual, warm primal, warm
//       dual, warm primal with every max before every min, and that in lp_bounds.cc's order of neurons.
//   bench_bounds methods [--dims ...] [--layers 1 2] [--threads 1 2] [--rows 0 20] [--repeat 3]
//       compute_bounds with each BoundMethod: wall and CPU seconds (the run with the smallest wall time),
//       unstable neurons left, and the mean width u - l of the second hidden layer (of the only one for 1 layer).
//
// Networks: bench/netgen.py --d D --hidden 100 [100] --seed 10000*L + D (the sampling benchmark's networks),
// written to /tmp and read back with reluopt::read_onnx. --rows R > 0 cuts [0,1]^d by R random half-spaces
// that keep the centre inside (like tests' random_polytope). Run from the repository root. Not built by CMake:
//
//   g++ -std=c++20 -O3 -DNDEBUG -Wall -Wextra -Iinclude -Isrc -I/usr/include/eigen3 bench/bench_bounds.cc
//       build-bounds/libreluopt_lib.a -lonnx_proto -lprotobuf $(pkg-config --libs clp cbc) -o /tmp/bench_bounds
// (one command line)
#include <coin/ClpSimplex.hpp>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "bounds/bounds.h"
#include "formulation/mip_formulation.h"
#include "formulation/pattern_lp.h"
#include "reluopt/model_io.h"
#include "solver/clp_lp.h"
#include "solver/coin_convert.h"

using namespace reluopt;

namespace {

double cpu_seconds() {  // the whole process: all threads
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Network netgen(int d, int layers) {
  const std::string path = "/tmp/bench_bounds_" + std::to_string(d) + "_" + std::to_string(layers) + ".onnx";
  std::string command = "/usr/bin/python3 bench/netgen.py --d " + std::to_string(d) + " --hidden";
  for (int k = 0; k < layers; ++k) command += " 100";
  command += " --seed " + std::to_string(10000 * layers + d) + " -o " + path + " > /dev/null";
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr, "failed: %s\n", command.c_str());
    std::exit(2);
  }
  return read_onnx(path);
}

Domain domain_with_rows(int d, int rows, std::uint64_t seed) {
  Domain domain = Domain::unit_box(d);
  if (rows == 0) return domain;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> gauss(0.0, 1.0);
  std::uniform_real_distribution<double> margin(0.05, 0.4);
  domain.A.resize(rows, d);
  domain.b.resize(rows);
  for (int r = 0; r < rows; ++r) {
    for (int j = 0; j < d; ++j) domain.A(r, j) = gauss(rng);
    domain.A.row(r).normalize();
    domain.b[r] = domain.A.row(r).sum() * 0.5 + margin(rng);
  }
  return domain;
}

std::vector<std::string> values_after(int argc, char** argv, const std::string& flag) {
  std::vector<std::string> values;
  for (int i = 1; i < argc; ++i) {
    if (argv[i] != flag) continue;
    for (int j = i + 1; j < argc && argv[j][0] != '-'; ++j) values.push_back(argv[j]);
  }
  return values;
}

std::vector<int> int_option(int argc, char** argv, const std::string& flag, std::vector<int> fallback) {
  const std::vector<std::string> values = values_after(argc, argv, flag);
  if (values.empty()) return fallback;
  std::vector<int> result;
  for (const std::string& v : values) result.push_back(std::stoi(v));
  return result;
}

// ---- strategies ----

// R_1 with z projected out, as src/formulation/lp_bounds.cc builds it: x, then per first-layer neuron h in
// [l, u] with h = w^T x + b, and for unstable neurons a in [0, u] with a >= h, a <= u (h - l) / (u - l).
// `post` gets the column of each first-layer post-activation (-1: fixed at 0).
LinearModel triangle_relaxation(const Network& network, const NeuronBounds& bounds, std::vector<int>& post) {
  LinearModel m;
  const int d = network.input_dim();
  for (int i = 0; i < d; ++i) m.add_column(0.0, 1.0);
  const DenseLayer& layer = network.hidden_layer(0);
  post.assign(network.hidden_width(0), -1);
  for (int j = 0; j < network.hidden_width(0); ++j) {
    const double l = bounds.lower[0][j], u = bounds.upper[0][j];
    if (u <= 0.0) continue;
    const int h = m.add_column(l, u);
    std::vector<int> index;
    std::vector<double> value;
    for (int i = 0; i < d; ++i) index.push_back(i), value.push_back(layer.weights(j, i));
    index.push_back(h);
    value.push_back(-1.0);
    m.add_row(index, value, -layer.bias[j], -layer.bias[j]);
    if (l >= 0.0) {
      post[j] = h;
      continue;
    }
    const int a = m.add_column(0.0, u);
    const double slope = u / (u - l);
    m.add_row({a, h}, {1.0, -1.0}, 0.0, kInfinity);
    m.add_row({a, h}, {1.0, -slope}, -kInfinity, -slope * l);
    post[j] = a;
  }
  return m;
}

// Greedy nearest-neighbour chain by the angle between weight rows, from the first (as in lp_bounds.cc).
std::vector<int> similar_in_turn(const Eigen::MatrixXd& weights, const std::vector<int>& neurons) {
  const int n = static_cast<int>(neurons.size());
  std::vector<int> order{0};
  std::vector<bool> used(n, false);
  used[0] = true;
  auto cosine = [&](int a, int b) {
    return weights.row(neurons[a]).dot(weights.row(neurons[b])) /
           (weights.row(neurons[a]).norm() * weights.row(neurons[b]).norm());
  };
  for (int step = 1; step < n; ++step) {
    int next = -1;
    for (int c = 0; c < n; ++c)
      if (!used[c] && (next < 0 || cosine(order.back(), c) > cosine(order.back(), next))) next = c;
    used[next] = true;
    order.push_back(next);
  }
  std::vector<int> result;
  for (int i : order) result.push_back(neurons[i]);
  return result;
}

// The LPs of one layer: max (sign +1) and min (-1) of w_j^T v over `model`, v = the columns `inputs`.
struct LayerLpSet {
  const LinearModel& model;
  const std::vector<int>& inputs;
  const Eigen::MatrixXd& weights;
};
using Sequence = std::vector<std::pair<int, double>>;  // (neuron, sign) in solve order

enum class Mode { kFreshDual, kSlackDual, kWarmPrimal, kWarmDual };

struct Timing {
  double ms_per_lp = 1e100, iterations_per_lp = 0.0;
  std::vector<double> values;  // by (neuron, sign), whatever the order
};

// CPU ms per LP (best of `repeat`), iterations, and the optimal values. kFreshDual is ClpLp::solve (load + dual
// simplex per LP), kSlackDual and kWarmPrimal are ClpLp::maximize's LpStart, kWarmDual is a kept ClpSimplex
// re-solved by the dual simplex from the last basis.
Timing measure(const LayerLpSet& set, const Sequence& sequence, Mode mode, int repeat) {
  Timing timing;
  for (int r = 0; r < repeat; ++r) {
    timing.values.assign(2 * set.weights.rows(), NAN);
    long iterations = 0;
    ClpLp lp;
    lp.load(set.model);
    ClpSimplex kept;
    load_maximization(kept, set.model);
    LinearModel copy = set.model;
    copy.set_objective_constant(0.0);
    std::vector<double> objective(set.model.num_cols(), 0.0);
    const double start = cpu_seconds();
    for (const auto& [j, sign] : sequence) {
      for (std::size_t i = 0; i < set.inputs.size(); ++i)
        if (set.inputs[i] >= 0) objective[set.inputs[i]] = sign * set.weights(j, static_cast<Eigen::Index>(i));
      double value = NAN;
      if (mode == Mode::kFreshDual) {
        for (int c = 0; c < copy.num_cols(); ++c) copy.set_objective(c, objective[c]);
        const LpSolution solution = lp.solve(copy);
        iterations += solution.iterations;
        if (solution.status == LpStatus::kOptimal) value = solution.objective;
      } else if (mode == Mode::kWarmDual) {
        kept.chgObjCoefficients(objective.data());
        kept.dual();
        iterations += kept.numberIterations();
        if (kept.status() == 0) {
          value = 0.0;
          for (int c = 0; c < set.model.num_cols(); ++c) value += objective[c] * kept.primalColumnSolution()[c];
        }
      } else {
        const LpBound bound =
            lp.maximize(objective, 0.0, mode == Mode::kSlackDual ? LpStart::kSlackDual : LpStart::kWarmPrimal);
        iterations += bound.iterations;
        if (bound.status == LpStatus::kOptimal) value = bound.objective;
      }
      timing.values[2 * j + (sign > 0 ? 0 : 1)] = value;
    }
    timing.ms_per_lp = std::min(timing.ms_per_lp, 1e3 * (cpu_seconds() - start) / sequence.size());
    timing.iterations_per_lp = static_cast<double>(iterations) / sequence.size();
  }
  return timing;
}

void print_row(const std::string& head, const std::vector<Timing>& timings) {
  double diff = 0.0;
  for (const Timing& t : timings)
    for (std::size_t i = 0; i < t.values.size(); ++i)
      if (!std::isnan(timings[0].values[i])) diff = std::max(diff, std::abs(t.values[i] - timings[0].values[i]));
  std::printf("| %s |", head.c_str());
  for (const Timing& t : timings) std::printf(" %.2f (%.0f) |", t.ms_per_lp, t.iterations_per_lp);
  std::printf(" %.1e |\n", diff);
  std::fflush(stdout);
}

Sequence interleaved(const std::vector<int>& neurons) {
  Sequence s;
  for (int j : neurons) s.insert(s.end(), {{j, 1.0}, {j, -1.0}});
  return s;
}

Sequence max_then_min(const std::vector<int>& neurons) {
  Sequence s;
  for (double sign : {1.0, -1.0})
    for (int j : neurons) s.push_back({j, sign});
  return s;
}

void run_strategies(int argc, char** argv) {
  const int repeat = int_option(argc, argv, "--repeat", {3})[0];
  const int max_neurons = int_option(argc, argv, "--neurons", {100})[0];
  const int rows = int_option(argc, argv, "--rows", {20})[0];
  const std::vector<int> dims = int_option(argc, argv, "--dims", {10, 100, 1000});
  std::printf("CPU ms per LP (simplex iterations per LP), best of %d runs\n\n", repeat);

  std::printf("First layer, over P = [0,1]^d cut by %d rows: max then min of each neuron\n\n", rows);
  std::printf("| d | LPs | fresh dual (ClpLp::solve) | slack dual (lp_bounds.cc) | warm primal | warm dual | "
              "max diff |\n|---|---|---|---|---|---|---|\n");
  for (int d : dims) {
    const Network network = netgen(d, 1);
    LinearModel over_p;
    for (int i = 0; i < d; ++i) over_p.add_column(0.0, 1.0);
    add_domain_rows(domain_with_rows(d, rows, 1000 + d), over_p);
    std::vector<int> inputs(d), neurons;
    for (int i = 0; i < d; ++i) inputs[i] = i;
    for (int j = 0; j < std::min(max_neurons, network.hidden_width(0)); ++j) neurons.push_back(j);
    const LayerLpSet set{over_p, inputs, network.hidden_layer(0).weights.dense()};
    const Sequence sequence = interleaved(neurons);
    std::vector<Timing> timings;
    for (Mode mode : {Mode::kFreshDual, Mode::kSlackDual, Mode::kWarmPrimal, Mode::kWarmDual})
      timings.push_back(measure(set, sequence, mode, repeat));
    print_row(std::to_string(d) + " | " + std::to_string(sequence.size()), timings);
  }

  std::printf("\nSecond layer of 2x100 over R_1 (P = [0,1]^d, interval bounds on the first layer)\n\n");
  std::printf("| d | LPs | big-M, fresh dual | big-M, warm primal | triangle, fresh dual | triangle, slack dual | "
              "triangle, warm primal | triangle, warm dual | triangle, warm primal, max then min | same, similar "
              "neurons in turn (lp_bounds.cc) | max diff |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (int d : dims) {
    const Network network = netgen(d, 2);
    const Domain domain = Domain::unit_box(d);
    const NeuronBounds bounds = interval_bounds(network, domain);
    const Network first(std::vector<DenseLayer>(network.layers().begin(), network.layers().begin() + 2));
    NeuronBounds layer0;
    layer0.lower = {bounds.lower[0]};
    layer0.upper = {bounds.upper[0]};
    const MipFormulation big_m = big_m_formulation(first, domain, Objective::output(first.output_dim()), layer0);
    std::vector<int> triangle_post;
    const LinearModel triangle = triangle_relaxation(network, bounds, triangle_post);
    std::vector<int> neurons;
    for (int j = 0; j < network.hidden_width(1) && static_cast<int>(neurons.size()) < max_neurons; ++j)
      if (!bounds.is_stable(1, j)) neurons.push_back(j);
    const Eigen::MatrixXd& weights = network.hidden_layer(1).weights.dense();
    const LayerLpSet big_m_set{big_m.model, big_m.post_activation[0], weights};
    const LayerLpSet triangle_set{triangle, triangle_post, weights};
    const Sequence plain = interleaved(neurons);
    const std::vector<Timing> timings{
        measure(big_m_set, plain, Mode::kFreshDual, repeat),
        measure(big_m_set, plain, Mode::kWarmPrimal, repeat),
        measure(triangle_set, plain, Mode::kFreshDual, repeat),
        measure(triangle_set, plain, Mode::kSlackDual, repeat),
        measure(triangle_set, plain, Mode::kWarmPrimal, repeat),
        measure(triangle_set, plain, Mode::kWarmDual, repeat),
        measure(triangle_set, max_then_min(neurons), Mode::kWarmPrimal, repeat),
        measure(triangle_set, max_then_min(similar_in_turn(weights, neurons)), Mode::kWarmPrimal, repeat),
    };
    print_row(std::to_string(d) + " | " + std::to_string(plain.size()), timings);
  }
}

// ---- methods ----

void run_methods(int argc, char** argv) {
  const int repeat = int_option(argc, argv, "--repeat", {3})[0];
  std::printf("| d | hidden | P | method | threads | wall s | CPU s | unstable | mean width, layer 2 | "
              "max diff to 1 thread |\n|---|---|---|---|---|---|---|---|---|---|\n");
  for (int layers : int_option(argc, argv, "--layers", {1, 2}))
    for (int d : int_option(argc, argv, "--dims", {10, 100, 1000})) {
      const Network network = netgen(d, layers);
      for (int rows : int_option(argc, argv, "--rows", {0})) {
        const Domain domain = domain_with_rows(d, rows, 1000 + d);
        for (BoundMethod method : {BoundMethod::kInterval, BoundMethod::kLp, BoundMethod::kProgressive}) {
          NeuronBounds one_thread;
          for (int threads : int_option(argc, argv, "--threads", {1, 2})) {
            if (method == BoundMethod::kInterval && threads > 1) continue;
            double best_wall = 1e100, cpu = 0.0;
            NeuronBounds bounds;
            for (int r = 0; r < repeat; ++r) {
              const double wall0 = wall_seconds(), cpu0 = cpu_seconds();
              bounds = compute_bounds(network, domain, BoundOptions{method, threads}, Deadline());
              const double wall = wall_seconds() - wall0;
              if (wall < best_wall) best_wall = wall, cpu = cpu_seconds() - cpu0;
            }
            const int shown = std::min(1, layers - 1);
            const double width = (bounds.upper[shown] - bounds.lower[shown]).mean();
            if (threads == 1) one_thread = bounds;
            double diff = 0.0;
            for (std::size_t k = 0; k < one_thread.lower.size(); ++k)
              diff = std::max({diff, (bounds.lower[k] - one_thread.lower[k]).cwiseAbs().maxCoeff(),
                               (bounds.upper[k] - one_thread.upper[k]).cwiseAbs().maxCoeff()});
            std::printf("| %d | %dx100 | %s | %s | %d | %.3f | %.3f | %d | %.3f | %.1e |\n", d, layers,
                        rows == 0 ? "box" : ("box + " + std::to_string(rows) + " rows").c_str(),
                        bound_method_name(method).c_str(), threads, best_wall, cpu, bounds.num_unstable(), width,
                        diff);
            std::fflush(stdout);
          }
        }
      }
    }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "strategies") {
    run_strategies(argc, argv);
  } else if (mode == "methods") {
    run_methods(argc, argv);
  } else {
    std::fprintf(stderr, "usage: bench_bounds strategies|methods [options]; see the top of bench/bench_bounds.cc\n");
    return 2;
  }
  return 0;
}
