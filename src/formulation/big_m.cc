// Big-M MIP of a ReLU network (Fischetti & Jo 2018, "Deep neural networks and mixed integer linear
// optimization"; Perakis & Tsiourvas, eq. (5); MATH.md §3). For neuron j of hidden layer k with
// pre-activation h = w^T x_k + b and bounds l < 0 < u:
//     x_{k+1,j} >= 0,   x_{k+1,j} >= h,   x_{k+1,j} <= u z,   x_{k+1,j} <= h - l (1 - z),   z in {0, 1}.
// Stable neurons need no binary: u <= 0 gives x_{k+1,j} = 0, l >= 0 gives x_{k+1,j} = h. Nor do concave
// neurons (last hidden layer, objective coefficient <= 0; pattern_lp.cc) unless the paper's model is asked for:
// x_{k+1,j} >= 0, x_{k+1,j} >= h is exact for them.
// The objective sign * (w^T (W_K x_K + b_K) + c) is placed on the last post-activations.
#include "formulation/mip_formulation.h"

#include <algorithm>

#include "formulation/formulation_parts.h"
#include "formulation/pattern_lp.h"
#include "reluopt/error.h"

namespace reluopt {

const std::vector<int>& layer_inputs(const MipFormulation& f, int k) {
  return k == 0 ? f.input : f.post_activation[k - 1];
}

void add_objective(MipFormulation& f, const Network& network, const Objective& objective) {
  const DenseLayer& out = network.output_layer();
  const Eigen::VectorXd c = objective.sign() * (out.weights.transpose() * objective.weights);
  const std::vector<int>& last = layer_inputs(f, network.num_hidden_layers());
  for (std::size_t i = 0; i < last.size(); ++i) f.model.set_objective(last[i], c[static_cast<Eigen::Index>(i)]);
  f.model.set_objective_constant(objective.sign() * (objective.weights.dot(out.bias) + objective.constant));
}

void add_inputs(MipFormulation& f, const Domain& domain) {
  for (int i = 0; i < domain.dim(); ++i)
    f.input.push_back(f.model.add_column(domain.lower[i], domain.upper[i], 0.0, false, "x" + std::to_string(i)));
  for (int r = 0; r < domain.num_rows(); ++r) {
    std::vector<int> index;
    std::vector<double> value;
    for (int i = 0; i < domain.dim(); ++i) {
      index.push_back(f.input[i]);
      value.push_back(domain.A(r, i));
    }
    f.model.add_row(index, value, -kInfinity, domain.b[r], "domain" + std::to_string(r));
  }
}

// The row y - w^T x_k of neuron j of layer k (its right-hand sides are up to the caller): index and value.
std::pair<std::vector<int>, std::vector<double>> y_minus_h_row(const MipFormulation& f, const LayerRows& layer,
                                                              int k, int j, int y) {
  const std::vector<int>& inputs = layer_inputs(f, k);
  std::pair<std::vector<int>, std::vector<double>> row{{y}, {1.0}};
  // A convolution's dense layer is mostly zeros (48 of 3072 weights per neuron on CIFAR): rows keep the
  // nonzeros only, which keeps the formulation and its LPs the size of the convolution.
  for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator w(layer.rows, j); w; ++w) {
    row.first.push_back(inputs[static_cast<std::size_t>(w.col())]);
    row.second.push_back(-w.value());
  }
  return row;
}

// Adds x_{k+1,j} with bounds [max(l,0), max(u,0)] and, for stable neurons, the row that fixes it to h.
// Returns the column; `stable` tells whether the caller must still model the ReLU.
int add_post_activation(MipFormulation& f, const LayerRows& layer, int k, int j, double l, double u,
                        bool& stable) {
  const std::string name = "x" + std::to_string(k + 2) + "_" + std::to_string(j);
  const int col = f.model.add_column(std::max(l, 0.0), std::max(u, 0.0), 0.0, false, name);
  stable = u <= 0.0 || l >= 0.0;
  if (stable && l >= 0.0) {
    // Always active: x_{k+1,j} - w^T x_k = b.
    const auto [index, value] = y_minus_h_row(f, layer, k, j, col);
    f.model.add_row(index, value, layer.layer.bias[j], layer.layer.bias[j], "active_" + name);
  }
  return col;
}

// y - w^T x_k >= b: with y >= 0 from its column bound, the epigraph of max(h, 0).
void add_above_h_row(MipFormulation& f, const LayerRows& layer, int k, int j, int y) {
  const auto [index, value] = y_minus_h_row(f, layer, k, j, y);
  f.model.add_row(index, value, layer.layer.bias[j], kInfinity, "above_h" + std::to_string(k + 2) + "_" + std::to_string(j));
}

// Neurons modelled between two looks at the deadline: a neuron of a wide layer takes microseconds.
constexpr int kNeuronsPerLook = 64;

MipFormulation formulate_network(const Network& network, const Domain& domain, const Objective& objective,
                                 const NeuronBounds& bounds, bool relax_concave,
                                 const UnstableReluModel& add_unstable_relu, const Deadline* deadline,
                                 const FreeMask* relaxed) {
  const auto expired = [deadline] { return deadline != nullptr && deadline->expired(); };
  // Concave neurons need no binary (pattern_lp.cc): the objective pushes y down onto max(h, 0).
  FreeMask concave = relax_concave ? concave_neurons(network, objective, bounds) : FreeMask{};
  if (relax_concave && relaxed != nullptr)
    for (std::size_t k = 0; k < concave.size(); ++k)
      for (std::size_t j = 0; j < concave[k].size(); ++j) concave[k][j] = concave[k][j] && (*relaxed)[k][j];
  MipFormulation f;
  f.bounds = bounds;
  add_inputs(f, domain);
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    if (expired()) {
      f.complete = false;
      return f;
    }
    const LayerRows layer(network.hidden_layer(k));
    f.post_activation.emplace_back();
    f.binary.emplace_back();
    for (int j = 0; j < network.hidden_width(k); ++j) {
      if (j % kNeuronsPerLook == kNeuronsPerLook - 1 && expired()) {
        f.complete = false;
        return f;
      }
      bool stable = false;
      const int y = add_post_activation(f, layer, k, j, bounds.lower[k][j], bounds.upper[k][j], stable);
      f.post_activation[k].push_back(y);
      if (stable) {
        f.binary[k].push_back(-1);
      } else if (relax_concave && concave[k][j]) {
        add_above_h_row(f, layer, k, j, y);
        f.binary[k].push_back(-1);
        ++f.concave;
      } else {
        f.binary[k].push_back(add_unstable_relu(f, layer, k, j, y));
      }
    }
  }
  add_objective(f, network, objective);
  return f;
}

MipFormulation big_m_formulation(const Network& network, const Domain& domain, const Objective& objective,
                                 const NeuronBounds& bounds, bool relax_concave, const Deadline* deadline,
                                 const FreeMask* relaxed) {
  const auto big_m_relu = [&bounds](MipFormulation& f, const LayerRows& layer, int k, int j, int y) {
    const double l = bounds.lower[k][j], u = bounds.upper[k][j];
    const std::string tag = std::to_string(k + 2) + "_" + std::to_string(j);
    const int z = f.model.add_column(0.0, 1.0, 0.0, true, "z" + tag);
    add_above_h_row(f, layer, k, j, y);                                     // y - w^T x >= b
    f.model.add_row({y, z}, {1.0, -u}, -kInfinity, 0.0, "below_uz" + tag);  // y - u z <= 0
    auto [index, value] = y_minus_h_row(f, layer, k, j, y);
    const double b = layer.layer.bias[j];
    index.push_back(z);
    value.push_back(-l);
    f.model.add_row(index, value, -kInfinity, b - l, "below_h" + tag);  // y - w^T x - l z <= b - l
    return z;
  };
  return formulate_network(network, domain, objective, bounds, relax_concave, big_m_relu, deadline, relaxed);
}

std::vector<double> warm_start(const MipFormulation& f, const Network& network, const Eigen::VectorXd& x) {
  if (x.size() != static_cast<Eigen::Index>(f.input.size())) throw Error("warm_start: x has the wrong dimension");
  std::vector<double> values(f.model.num_cols(), 0.0);
  for (std::size_t i = 0; i < f.input.size(); ++i) values[f.input[i]] = x[static_cast<Eigen::Index>(i)];
  const ForwardTrace trace = network.trace(x);
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    const Eigen::VectorXd& h = trace.pre_activation[k];
    for (int j = 0; j < network.hidden_width(k); ++j) {
      values[f.post_activation[k][j]] = std::max(h[j], 0.0);
      if (f.binary[k][j] >= 0) values[f.binary[k][j]] = h[j] > 0.0 ? 1.0 : 0.0;
    }
  }
  // Partition copies: z_n = sigma * v_n with v_n = sum_{i in S_n} w_i x_i over the layer's inputs.
  for (const MipFormulation::PartitionNeuron& p : f.partition_neurons) {
    const double sigma = trace.pre_activation[p.layer][p.neuron] > 0.0 ? 1.0 : 0.0;
    const Eigen::VectorXd layer_input =
        p.layer == 0 ? x : Eigen::VectorXd(trace.pre_activation[p.layer - 1].cwiseMax(0.0));
    for (std::size_t n = 0; n < p.copy_cols.size(); ++n) {
      double v = 0.0;
      for (int i : p.input_sets[n]) v += network.hidden_layer(p.layer).weights(p.neuron, i) * layer_input[i];
      values[p.copy_cols[n]] = sigma * v;
    }
  }
  return values;
}

}  // namespace reluopt
