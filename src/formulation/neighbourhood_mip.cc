// The local-search MIP of the enhanced sampling algorithm (Perakis & Tsiourvas, Algorithm 2), in input
// space. See src/formulation/neighbourhood_mip.h for the model:
//   max c^T v + c_0  s.t.  (2 s - 1)(G v + g) >= 0 on fixed neurons,
//   y >= h, y <= u z, y <= h - l (1 - z), y >= 0, z binary on free neurons,  x in P,   v = [x; y],
//   y >= h, y >= 0 on concave neurons (no binary; see pattern_lp.cc).
#include "formulation/neighbourhood_mip.h"

#include <algorithm>

namespace reluopt {

std::optional<NeighbourhoodMip> neighbourhood_mip(const Network& network, const Domain& domain,
                                                  const Objective& objective, const ActivationPattern& pattern,
                                                  const FreeMask& free, const NeuronBounds& bounds,
                                                  const FreeMask* concave, const Deadline* deadline) {
  // Only unstable neurons can be free; a stable one keeps the state its bounds prove. A concave neuron needs
  // no binary: it gets y and the epigraph row only (pattern_lp.cc).
  ActivationPattern fixed = pattern;
  FreeMask binary = free;     // free with a binary
  FreeMask with_y = free;     // free with a column y: binary or concave
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    for (int j = 0; j < network.hidden_width(k); ++j) {
      if (bounds.is_stable(k, j)) {
        binary[k][j] = with_y[k][j] = 0;
        fixed.active[k][j] = bounds.lower[k][j] >= 0.0 ? 1 : 0;
      } else if (concave != nullptr && (*concave)[k][j]) {
        binary[k][j] = 0;
        with_y[k][j] = 1;
      }
    }
  }
  const RegionAffine region = compose_region(network, objective, fixed, &with_y, deadline);
  if (!region.complete) return std::nullopt;
  const int d = network.input_dim();

  NeighbourhoodMip mip;
  LinearModel& model = mip.model;
  for (int i = 0; i < d; ++i) model.add_column(domain.lower[i], domain.upper[i], region.objective_gradient[i]);
  std::vector<int> y_col(region.num_free, -1);
  std::vector<int> free_position(region.num_free, -1);  // index in mip.free of a neuron with a binary
  for (int k = 0; k < network.num_hidden_layers(); ++k)
    for (int j = 0; j < network.hidden_width(k); ++j)
      if (const int f = region.free_index[k][j]; f >= 0) {
        y_col[f] = model.add_column(0.0, std::max(bounds.upper[k][j], 0.0), region.objective_gradient[d + f]);
        NeighbourhoodMip::FreeNeuron neuron;
        neuron.layer = k;
        neuron.neuron = j;
        neuron.y_col = y_col[f];
        if (!binary[k][j]) {
          mip.concave.push_back(neuron);
          continue;
        }
        free_position[f] = static_cast<int>(mip.free.size());
        mip.free.push_back(neuron);
      }
  for (NeighbourhoodMip::FreeNeuron& neuron : mip.free) neuron.z_col = model.add_column(0.0, 1.0, 0.0, true);
  model.set_objective_constant(region.objective_constant);

  add_domain_rows(domain, model);
  mip.sign_row.resize(network.num_hidden_layers());
  mip.sign_offset.resize(network.num_hidden_layers());
  std::vector<int> index;
  std::vector<double> value;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    if (deadline && deadline->expired()) return std::nullopt;  // a layer's rows are a pass over its map
    mip.sign_row[k].assign(network.hidden_width(k), -1);
    mip.sign_offset[k].assign(network.hidden_width(k), 0.0);
    for (int j = 0; j < network.hidden_width(k); ++j) {
      const double g = region.g[k][j];
      if (const int f = region.free_index[k][j]; f >= 0) {
        // y - h >= 0, with h = G v + g.
        region.G[k].row_entries(j, -1.0, index, value);
        index.push_back(y_col[f]);
        value.push_back(1.0);
        model.add_row(index, value, g, kInfinity);
        if (free_position[f] < 0) continue;  // concave: the epigraph is exact
        // A binary neuron, big-M: y - h - l z <= -l and y - u z <= 0.
        const NeighbourhoodMip::FreeNeuron& neuron = mip.free[free_position[f]];
        const double l = bounds.lower[k][j], u = bounds.upper[k][j];
        index.push_back(neuron.z_col);
        value.push_back(-l);
        model.add_row(index, value, -kInfinity, g - l);
        model.add_row({neuron.y_col, neuron.z_col}, {1.0, -u}, -kInfinity, 0.0);
        continue;
      }
      if (bounds.is_stable(k, j)) continue;
      mip.sign_offset[k][j] = g;
      region.G[k].row_entries(j, 1.0, index, value);
      mip.sign_row[k][j] = fixed.active[k][j] ? model.add_row(index, value, -g, kInfinity)
                                              : model.add_row(index, value, -kInfinity, -g);
    }
  }
  return mip;
}

std::vector<double> neighbourhood_start(const NeighbourhoodMip& mip, const Network& network, const Eigen::VectorXd& x) {
  std::vector<double> values(mip.model.num_cols(), 0.0);
  for (Eigen::Index i = 0; i < x.size(); ++i) values[i] = x[i];
  const ForwardTrace trace = network.trace(x);
  for (const NeighbourhoodMip::FreeNeuron& neuron : mip.free) {
    const double h = trace.pre_activation[neuron.layer][neuron.neuron];
    values[neuron.y_col] = std::max(h, 0.0);
    values[neuron.z_col] = h > 0.0 ? 1.0 : 0.0;
  }
  for (const NeighbourhoodMip::FreeNeuron& neuron : mip.concave)
    values[neuron.y_col] = std::max(trace.pre_activation[neuron.layer][neuron.neuron], 0.0);
  return values;
}

}  // namespace reluopt
