#pragma once

// Pieces shared by the MIP formulations (big-M, partition): inputs with the domain, post-activation columns,
// the objective on the last layer, and the layer loop that models stable neurons exactly.
#include <functional>
#include <vector>

#include <Eigen/Sparse>

#include "formulation/mip_formulation.h"

namespace reluopt {

// Columns of the layer feeding hidden layer k: the inputs for k = 0, the post-activations of layer k-1 after.
const std::vector<int>& layer_inputs(const MipFormulation& f, int k);

// A hidden layer with its weights also row by row, nonzeros only: the formulation reads W one neuron's row at a
// time, which across the column-major W misses the cache on every entry of a wide layer (2 s for the 8192 x 3072
// layer of an 8-channel convolution of a 32 x 32 image), and a convolution's row is mostly zeros.
struct LayerRows {
  explicit LayerRows(const DenseLayer& dense) : layer(dense), rows(dense.weights.to_sparse()) {}
  const DenseLayer& layer;
  Eigen::SparseMatrix<double, Eigen::RowMajor> rows;
};

void add_inputs(MipFormulation& f, const Domain& domain);
int add_post_activation(MipFormulation& f, const LayerRows& layer, int k, int j, double l, double u, bool& stable);
void add_objective(MipFormulation& f, const Network& network, const Objective& objective);

// Models y = max(h_kj, 0) for an unstable neuron whose post-activation column is y; returns its binary column.
using UnstableReluModel = std::function<int(MipFormulation& f, const LayerRows& layer, int k, int j, int y)>;

// Inputs and domain rows, then layer by layer a post-activation column per neuron (stable neurons exactly, with
// no binary; concave ones, when asked, by y >= h alone; the other unstable ones by `add_unstable_relu`), then the
// objective. Past `deadline` (may be null) it stops with `complete` false. `relaxed` (may be null: all of them)
// narrows the concave neurons relaxed.
MipFormulation formulate_network(const Network& network, const Domain& domain, const Objective& objective,
                                 const NeuronBounds& bounds, bool relax_concave,
                                 const UnstableReluModel& add_unstable_relu, const Deadline* deadline,
                                 const FreeMask* relaxed = nullptr);

}  // namespace reluopt
