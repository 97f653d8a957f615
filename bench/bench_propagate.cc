// CPU time per propagate() on input-split nodes, as bab makes them (src/algorithms/bab.cc, split_input): a node at
// depth D is the box [0, 1]^d halved D times on random coordinates (random halves), its neuron bounds those of its
// own propagation with its parent's as the prior; its children are its halves on the widest coordinate, each
// propagated with the node's bounds as the prior (objective_only as bab's default). CPU time of this thread: on a
// loaded machine wall time says more about the other processes. To compare two versions, link this file against
// each library and run the two alternately; the mean bound says whether they agree.
//
//   bench_propagate MODEL.onnx [--depth 15] [--nodes 2000] [--rounds 5] [--seed 1] [--objective-only 1]
//
// Not built by CMake (run from the repository root, one command line):
//   g++ -std=c++20 -O3 -DNDEBUG -Iinclude -Isrc -I/usr/include/eigen3 bench/bench_propagate.cc build/libreluopt.a
//       -lonnx_proto -lprotobuf $(pkg-config --libs clp cbc nlopt) -lpthread -o /tmp/bench_propagate
#include <time.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "bounds/symbolic_bounds.h"
#include "reluopt/model_io.h"

using namespace reluopt;

namespace {

// The thread's CPU time: on a loaded machine wall time says more about the other processes than about this one.
double now() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Parent {
  Eigen::VectorXd lo, hi;
  NeuronBounds bounds;
};

std::vector<Parent> make_parents(const Network& net, const Eigen::VectorXd& w, int depth, int count, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Parent> parents;
  const int d = net.input_dim();
  while (static_cast<int>(parents.size()) < count) {
    Parent p{Eigen::VectorXd::Zero(d), Eigen::VectorXd::Ones(d), {}};
    Propagation prop = propagate(net, p.lo, p.hi, w, 0.0, {}, nullptr);
    for (int k = 0; k < depth; ++k) {
      const int i = static_cast<int>(rng() % d);
      const double mid = 0.5 * (p.lo[i] + p.hi[i]);
      (rng() % 2 ? p.lo : p.hi)[i] = mid;
      prop = propagate(net, p.lo, p.hi, w, 0.0, {}, &prop.bounds);
    }
    p.bounds = std::move(prop.bounds);
    parents.push_back(std::move(p));
  }
  return parents;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_propagate MODEL.onnx [--depth D] [--nodes N] [--rounds R] [--seed S] [--objective-only 0|1]\n");
    return 2;
  }
  int depth = 15, nodes = 2000, rounds = 5;
  bool objective_only = true;  // bab's default (SolveOptions::relax_concave)
  unsigned seed = 1;
  for (int a = 2; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    const int v = std::atoi(argv[a + 1]);
    if (k == "--depth") depth = v;
    else if (k == "--nodes") nodes = v;
    else if (k == "--rounds") rounds = v;
    else if (k == "--seed") seed = static_cast<unsigned>(v);
    else if (k == "--objective-only") objective_only = v != 0;
  }
  const Network net = read_onnx(argv[1]);
  const Eigen::VectorXd w = Eigen::VectorXd::Ones(net.output_dim());
  const std::vector<Parent> parents = make_parents(net, w, depth, nodes, seed);
  std::vector<std::array<Eigen::VectorXd, 4>> halves;  // lo0, hi0, lo1, hi1
  for (const Parent& p : parents) {
    Eigen::Index i;
    (p.hi - p.lo).maxCoeff(&i);
    const double mid = 0.5 * (p.lo[i] + p.hi[i]);
    std::array<Eigen::VectorXd, 4> h{p.lo, p.hi, p.lo, p.hi};
    h[1][i] = mid;
    h[2][i] = mid;
    halves.push_back(std::move(h));
  }
  double seconds = 0.0, sum = 0.0;
  for (int r = 0; r < rounds; ++r) {
    const double start = now();
    for (std::size_t n = 0; n < parents.size(); ++n)
      for (int s = 0; s < 2; ++s)
        sum += propagate(net, halves[n][2 * s], halves[n][2 * s + 1], w, 0.0, {}, &parents[n].bounds, nullptr,
                         objective_only)
                   .objective.upper;
    seconds += now() - start;
  }
  const double count = 2.0 * static_cast<double>(parents.size()) * rounds;
  std::printf("depth %d, %zu nodes x %d rounds, objective_only %d: %.2f CPU us per propagation, mean bound %.9f\n",
              depth, parents.size(), rounds, objective_only ? 1 : 0, 1e6 * seconds / count, sum / count);
  return 0;
}
