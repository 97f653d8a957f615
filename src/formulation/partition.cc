// Partition-based MIP of a ReLU network (Tsay, Kronqvist, Thebelt & Misener 2021, "Partition-based
// formulations for mixed-integer optimization of trained ReLU neural networks", NeurIPS; MATH.md §6).
// For an unstable neuron y = max(0, w^T x + b) of hidden layer k, split its inputs into sets S_1..S_N,
// v_n = sum_{i in S_n} w_i x_i with interval bounds [LB_n, UB_n] over the bounds of the layer's inputs,
// sigma in {0, 1} (1 = active) and continuous copies z_n (the active part of v_n):
//     sum_n z_n + sigma b >= 0
//     sum_n (v_n - z_n) + (1 - sigma) b <= 0
//     y = sum_n z_n + sigma b
//     sigma LB_n <= z_n <= sigma UB_n                          for every n
//     (1 - sigma) LB_n <= v_n - z_n <= (1 - sigma) UB_n        for every n
// z_n in [min(LB_n, 0), max(UB_n, 0)]. N = 1 is big-M with interval bounds; one input per set is the convex
// hull of the neuron. Stable neurons are modelled exactly as in big-M (no sigma, no copies).
// LB_n, UB_n come from the input columns, so with bounds [l, u] on the neuron tighter than interval arithmetic
// (LP bounds) the sums of the sets' bounds are looser than l and u. We therefore add big-M's two upper rows
// with the neuron's own bounds (MATH.md §3), valid for the same sigma:
//     y <= u sigma,     y <= w^T x + b - l (1 - sigma)
// so that the formulation is never weaker than big-M over the same bounds (Tsay et al. use only the sets'
// interval bounds; with those the two rows are implied).
//
// Split: the equal-size partitioning of Tsay et al. (and OMLT's default_partition_split_func): sort the
// neuron's inputs by weight, then cut the sorted order into min(N, inputs) contiguous groups whose sizes
// differ by at most one, the first (inputs mod N) groups taking the extra input.
// Since interval bounds add up over sets, a finer split is never weaker in the LP relaxation.
#include <algorithm>
#include <numeric>
#include <string>

#include "formulation/formulation_parts.h"
#include "formulation/mip_formulation.h"
#include "reluopt/error.h"

namespace reluopt {

namespace {

// S_1..S_N as indices into the neuron's inputs: ties in weight keep index order, so the split is deterministic.
std::vector<std::vector<int>> equal_size_split(const Eigen::VectorXd& w, int partitions) {
  const int inputs = static_cast<int>(w.size());
  std::vector<int> order(inputs);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&w](int a, int c) { return w[a] < w[c]; });
  const int sets = std::min(partitions, inputs);
  std::vector<std::vector<int>> split(sets);
  auto next = order.begin();
  for (int n = 0; n < sets; ++n) {
    const int size = inputs / sets + (n < inputs % sets ? 1 : 0);
    split[n].assign(next, next + size);
    next += size;
  }
  return split;
}

// A linear expression over model columns, built term by term.
struct Expression {
  std::vector<int> index;
  std::vector<double> value;
  void add(int col, double coefficient) {
    index.push_back(col);
    value.push_back(coefficient);
  }
};

// The relu y = max(0, w^T x + b) of one unstable neuron with the sets of `split`; returns the column of sigma.
int add_partitioned_relu(MipFormulation& f, const DenseLayer& layer, int k, int j, int y,
                         const std::vector<std::vector<int>>& split, double l, double u) {
  const std::vector<int>& inputs = layer_inputs(f, k);
  const double b = layer.bias[j];
  const std::string tag = std::to_string(k + 2) + "_" + std::to_string(j);
  const int sigma = f.model.add_column(0.0, 1.0, 0.0, true, "sigma" + tag);
  MipFormulation::PartitionNeuron neuron{k, j, {}, split};
  Expression active;    // sum_n z_n + sigma b
  Expression inactive;  // sum_n (v_n - z_n) - sigma b
  Expression output;    // y - sum_n z_n - sigma b
  active.add(sigma, b);
  inactive.add(sigma, -b);
  output.add(y, 1.0);
  output.add(sigma, -b);
  for (std::size_t n = 0; n < split.size(); ++n) {
    // v_n - z_n, with [LB_n, UB_n] the interval bounds of v_n = sum_{i in S_n} w_i x_i over the input columns.
    Expression rest;
    double lb = 0.0, ub = 0.0;
    for (int i : split[n]) {
      const int col = inputs[i];
      const double w = layer.weights(j, i);
      rest.add(col, w);
      inactive.add(col, w);
      lb += w * (w >= 0.0 ? f.model.col_lower()[col] : f.model.col_upper()[col]);
      ub += w * (w >= 0.0 ? f.model.col_upper()[col] : f.model.col_lower()[col]);
    }
    const std::string set_tag = tag + "_" + std::to_string(n);
    const int z = f.model.add_column(std::min(lb, 0.0), std::max(ub, 0.0), 0.0, false, "z" + set_tag);
    neuron.copy_cols.push_back(z);
    active.add(z, 1.0);
    inactive.add(z, -1.0);
    output.add(z, -1.0);
    rest.add(z, -1.0);
    f.model.add_row({z, sigma}, {1.0, -lb}, 0.0, kInfinity, "copy_above_lb" + set_tag);   // z_n >= sigma LB_n
    f.model.add_row({z, sigma}, {1.0, -ub}, -kInfinity, 0.0, "copy_below_ub" + set_tag);  // z_n <= sigma UB_n
    // (1 - sigma) LB_n <= v_n - z_n <= (1 - sigma) UB_n: one row per side, sigma's coefficient differs.
    rest.add(sigma, lb);
    f.model.add_row(rest.index, rest.value, lb, kInfinity, "rest_above_lb" + set_tag);
    rest.value.back() = ub;
    f.model.add_row(rest.index, rest.value, -kInfinity, ub, "rest_below_ub" + set_tag);
  }
  f.model.add_row(active.index, active.value, 0.0, kInfinity, "active_nonnegative" + tag);
  f.model.add_row(inactive.index, inactive.value, -kInfinity, -b, "inactive_nonpositive" + tag);
  f.model.add_row(output.index, output.value, 0.0, 0.0, "output" + tag);
  // big-M's rows with the neuron's bounds: y - u sigma <= 0 and y - w^T x - l sigma <= b - l.
  f.model.add_row({y, sigma}, {1.0, -u}, -kInfinity, 0.0, "big_m_upper" + tag);
  Expression big_m_lower;
  big_m_lower.add(y, 1.0);
  big_m_lower.add(sigma, -l);
  for (std::size_t i = 0; i < inputs.size(); ++i) big_m_lower.add(inputs[i], -layer.weights(j, i));
  f.model.add_row(big_m_lower.index, big_m_lower.value, -kInfinity, b - l, "big_m_lower" + tag);
  f.partition_neurons.push_back(std::move(neuron));
  return sigma;
}

}  // namespace

MipFormulation partition_formulation(const Network& network, const Domain& domain, const Objective& objective,
                                     const NeuronBounds& bounds, int partitions, bool relax_concave,
                                     const Deadline* deadline, const FreeMask* relaxed) {
  if (partitions < 1)
    throw Error("partition formulation: the number of partitions must be >= 1, got " + std::to_string(partitions));
  const auto partitioned_relu = [partitions, &bounds](MipFormulation& f, const LayerRows& rows, int k, int j,
                                                      int y) {
    const DenseLayer& layer = rows.layer;
    return add_partitioned_relu(f, layer, k, j, y, equal_size_split(layer.weights.row(j).transpose(), partitions),
                                bounds.lower[k][j], bounds.upper[k][j]);
  };
  MipFormulation f = formulate_network(network, domain, objective, bounds, relax_concave, partitioned_relu, deadline,
                                       relaxed);
  f.partitions = partitions;
  return f;
}

}  // namespace reluopt
