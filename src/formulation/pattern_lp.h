#pragma once

#include <optional>

#include <Eigen/Dense>
#include <Eigen/Sparse>

#include "bounds/bounds.h"
#include "lp/domain_rows.h"
#include "lp/linear_model.h"
#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/run_control.h"

namespace reluopt {

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Which hidden neurons are left free (not fixed to their pattern's state), layer by layer.
using FreeMask = std::vector<std::vector<std::uint8_t>>;

// One layer's G on a region: dense rows, or sparse while the layer's neurons see few coordinates of v (the first
// layers of a convolutional network: 27 of 3072 inputs per neuron, where a dense G is 800 MB of zeros).
struct RegionMap {
  RowMajorMatrix dense;
  Eigen::SparseMatrix<double, Eigen::RowMajor> sparse;
  bool is_sparse = false;

  Eigen::Index rows() const { return is_sparse ? sparse.rows() : dense.rows(); }
  Eigen::Index stored() const { return is_sparse ? sparse.nonZeros() : dense.size(); }
  // f(i, G_ji) for the entries of row j (only the nonzeros when sparse).
  template <typename F>
  void for_each_in_row(Eigen::Index j, F&& f) const {
    if (is_sparse) {
      for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(sparse, j); it; ++it) f(it.col(), it.value());
    } else {
      for (Eigen::Index i = 0; i < dense.cols(); ++i) f(i, dense(j, i));
    }
  }
  // The nonzeros of scale * row j, as a LinearModel row's columns and values (cleared first).
  void row_entries(Eigen::Index j, double scale, std::vector<int>& index, std::vector<double>& value) const;
  Eigen::VectorXd operator*(const Eigen::VectorXd& v) const {
    return is_sparse ? Eigen::VectorXd(sparse * v) : Eigen::VectorXd(dense * v);
  }
};

// The network composed on one activation pattern: on that linear region, every hidden pre-activation is an
// affine function of the input, h_k = G_k x + g_k, and so is the objective, sign * g(x) = c^T x + c_0.
// With free neurons, their post-activations y_1..y_F (in layer order) become variables too and every map is
// affine in v = [x; y]: h_k = G_k v + g_k, sign * g = c^T v + c_0.
struct RegionAffine {
  std::vector<RegionMap> G;              // one per hidden layer: rows = neurons, cols = dim(v)
  std::vector<Eigen::VectorXd> g;
  Eigen::VectorXd objective_gradient;    // c, for the maximized objective sign * g
  double objective_constant = 0.0;       // c_0
  std::vector<std::vector<int>> free_index;  // position in y of each free neuron, -1 for fixed ones
  int num_free = 0;
  bool complete = true;  // false when `deadline` expired before every map was composed
};

// With a deadline, the layer products (7e9 multiply-adds on a CIFAR-size convolutional network) run in blocks
// with a look at it before each.
RegionAffine compose_region(const Network& network, const Objective& objective, const ActivationPattern& pattern,
                            const FreeMask* free = nullptr, const Deadline* deadline = nullptr);

// The concave neurons of a problem (derivation in pattern_lp.cc): the unstable neurons of the last hidden layer whose
// coefficient in the maximized objective, c = sign * (W_K^T w), is <= 0. The objective is concave in their
// post-activations, so an LP needs neither their state nor a binary for them: y >= h, y >= 0 is exact.
FreeMask concave_neurons(const Network& network, const Objective& objective, const NeuronBounds& bounds);
int count_neurons(const FreeMask& mask);

// The fixed-pattern LP in input space (MATH.md §2):
//   max  c^T x + c_0   s.t.  (2 s_kj - 1) (G_k x + g_k)_j >= 0  for every unstable neuron,  x in P,
// with columns 0..d-1 being x. Neurons that `bounds` prove stable need no row (pass nullptr to keep all).
// The optimum is in the maximized sense sign * g.
//
// With `concave` (see concave_neurons; requires `bounds`), those neurons' states are not fixed: each gets a
// column y in [0, max(u, 0)] after x, with its objective coefficient c_j <= 0, and the row y - h >= 0 instead
// of its sign row. The LP is then the maximum over the union of the regions that differ from
// `pattern` only in concave neurons, and its optimum is the forward value of its x.
LinearModel pattern_lp(const Network& network, const Domain& domain, const Objective& objective,
                       const ActivationPattern& pattern, const NeuronBounds* bounds,
                       const FreeMask* concave = nullptr);

// pattern_lp, or nullopt when `deadline` expires while the region is composed.
std::optional<LinearModel> pattern_lp_within(const Network& network, const Domain& domain,
                                             const Objective& objective, const ActivationPattern& pattern,
                                             const NeuronBounds* bounds, const FreeMask* concave,
                                             const Deadline& deadline);

// The pattern with every concave neuron set to 0: patterns with the same key have the same pattern LP.
ActivationPattern pattern_key(ActivationPattern pattern, const FreeMask* concave);


}  // namespace reluopt
