#pragma once

#include <optional>
#include <vector>

#include "bounds/bounds.h"
#include "formulation/pattern_lp.h"
#include "lp/linear_model.h"
#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"

namespace reluopt {

// The local-search MIP of the enhanced sampling algorithm (Perakis & Tsiourvas, Algorithm 2, solve_mip), in
// input space: the activation pattern is fixed except for the free neurons (those with |h| <= eps at the LP
// optimum), whose binaries stay unknown.
//
// With v = [x; y] (y the post-activations of the free neurons) every pre-activation is affine in v,
// h_k = G_k v + g_k (compose_region with a FreeMask). The model is
//   max  c^T v + c_0
//   s.t. (2 s_kj - 1) (G_k v + g_k)_j >= 0                      fixed unstable neuron (kj)
//        y >= h,  y <= u z,  y <= h - l (1 - z),  y >= 0,  z in {0,1}   free neuron, big-M (MATH.md §3)
//        x in P
//        y >= h,  y >= 0                                            concave neuron (optional, pattern_lp.cc)
// with l < 0 < u the neuron's bounds. Free neurons that the bounds prove stable are fixed to that state; a
// neuron in `concave` is never fixed nor given a binary, whether or not it is in `free`.
// With no free neuron this is the fixed-pattern LP of MATH.md §2.
struct NeighbourhoodMip {
  LinearModel model;  // columns: x (d), then y of each free or concave neuron, then z of each free neuron
  struct FreeNeuron {
    int layer = 0, neuron = 0;
    int y_col = -1, z_col = -1;
  };
  std::vector<FreeNeuron> free;     // the neurons with a binary
  std::vector<FreeNeuron> concave;  // the concave neurons (z_col = -1)
  // Row of the sign constraint of each fixed neuron (-1: stable by the bounds, or free). Flipping a neuron's
  // state is a change of that row's bounds: the row (G v + g >= 0) becomes (G v + g <= 0) or back.
  std::vector<std::vector<int>> sign_row;
  std::vector<std::vector<double>> sign_offset;  // g_kj of those rows
};

// With a deadline, the region's maps are composed in blocks with a look at it (compose_region): nullopt when it
// expired first.
std::optional<NeighbourhoodMip> neighbourhood_mip(const Network& network, const Domain& domain,
                                                  const Objective& objective, const ActivationPattern& pattern,
                                                  const FreeMask& free, const NeuronBounds& bounds,
                                                  const FreeMask* concave = nullptr,
                                                  const Deadline* deadline = nullptr);

// The full column vector of the model at input x (y = max(h, 0), z = [h > 0] for the free neurons): a MIP start.
std::vector<double> neighbourhood_start(const NeighbourhoodMip& mip, const Network& network, const Eigen::VectorXd& x);

}  // namespace reluopt
