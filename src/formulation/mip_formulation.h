#pragma once

#include <vector>

#include <Eigen/Dense>

#include "bounds/bounds.h"
#include "formulation/pattern_lp.h"  // FreeMask
#include "lp/linear_model.h"
#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/run_control.h"

namespace reluopt {

// A MIP model of max sign * g(x) over P, with the map from network quantities to model columns.
// Column conventions shared by every formulation (big-M, partition):
//   input[i]             x_i, with the domain's bounds
//   post_activation[k][j] x_{k+1, j} = max(h_kj, 0), bounds [max(l,0), max(u,0)]
//   binary[k][j]         z_kj (1 = active) for unstable neurons, -1 for neurons the bounds prove stable and
//                        for concave neurons when relaxed
// Formulation-specific auxiliary columns (partition copies z_n) follow; warm_start() fills them.
struct MipFormulation {
  LinearModel model;
  std::vector<int> input;
  std::vector<std::vector<int>> post_activation;
  std::vector<std::vector<int>> binary;
  NeuronBounds bounds;  // the bounds the formulation was built with
  int partitions = 1;   // 1 for big-M
  int concave = 0;      // unstable neurons modelled without a binary (relax_concave)
  // Per unstable neuron of the partition formulation: the columns of z_n and the input index sets S_n.
  struct PartitionNeuron {
    int layer = 0, neuron = 0;
    std::vector<int> copy_cols;                 // z_n, one per set
    std::vector<std::vector<int>> input_sets;   // S_n as indices into the layer's inputs
  };
  std::vector<PartitionNeuron> partition_neurons;
  // False when the deadline given to the builder passed before the last neuron: the model is a part of the
  // network's and must not be solved (its bound would not hold).
  bool complete = true;
};

// Big-M (Fischetti & Jo 2018; the paper's eq. for K layers; MATH.md §3). With relax_concave, the concave
// neurons (formulation/pattern_lp.h; or those of `relaxed` when given, a subset of them) get y >= h, y >= 0 and
// no binary; false: the paper's model. Building takes time in proportion to the weights (seconds for a
// convolution of 150 M dense weights): with a deadline, the builder looks at it before each layer and every
// kNeuronsPerLook neurons, and stops there (`complete` false).
MipFormulation big_m_formulation(const Network& network, const Domain& domain, const Objective& objective,
                                 const NeuronBounds& bounds, bool relax_concave = false,
                                 const Deadline* deadline = nullptr, const FreeMask* relaxed = nullptr);

// Partition-based formulation with N sets per neuron (Tsay et al. 2021; MATH.md §6); relax_concave, the
// deadline and `relaxed` as above.
MipFormulation partition_formulation(const Network& network, const Domain& domain, const Objective& objective,
                                     const NeuronBounds& bounds, int partitions, bool relax_concave = false,
                                     const Deadline* deadline = nullptr, const FreeMask* relaxed = nullptr);

// The rows C y <= e on the network's outputs y = W_L x_L + b_L, as rows (C W_L) x_L <= e - C b_L on the last
// post-activation columns (the inputs when the network has no hidden layer): no output column, so warm_start()
// still fills every column.
void add_output_rows(MipFormulation& f, const Network& network, const Eigen::MatrixXd& C, const Eigen::VectorXd& e);

// Marks input column i integer where integer[i] is true (an empty mask leaves every input continuous).
void set_integer_inputs(MipFormulation& f, const std::vector<bool>& integer);

// The full variable vector of `formulation` at input x, from one forward pass (MATH.md §7):
// x, post-activations, z = activation pattern, partition copies z_n = z v_n.
std::vector<double> warm_start(const MipFormulation& formulation, const Network& network, const Eigen::VectorXd& x);

}  // namespace reluopt
