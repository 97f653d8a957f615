// Separation of the Anderson, Huchette, Ma, Tjandraatmadja & Vielma (2020) inequalities, "Strong mixed-integer
// programming formulations for trained neural networks", Math. Programming (their ideal formulation of one
// neuron and its O(n) separation; MATH.md §5).
// For y = max(0, w^T x + b) with inputs L <= x <= U, let Lc_i = L_i if w_i >= 0 else U_i and
// Uc_i = U_i if w_i >= 0 else L_i. Every subset I of the inputs gives a valid inequality
//     y <= sum_{i in I} w_i (x_i - Lc_i (1 - z)) + (b + sum_{i not in I} w_i Uc_i) z,
// written as the cut
//     y - sum_{i in I} w_i x_i - (b + sum_{i in I} w_i Lc_i + sum_{i not in I} w_i Uc_i) z <= -sum_{i in I} w_i Lc_i.
// The right side is separable in i, so at (x*, y*, z*) the subset minimizing it is
//     I* = {i : w_i x*_i < w_i (Lc_i (1 - z*) + Uc_i z*)},
// and the point violates some inequality of the family exactly when it violates that of I*.
// L and U are the model's column bounds: the domain box for layer 1, [max(l,0), max(u,0)] after. They are
// global, so the cuts are valid at every node of a branch-and-bound tree.
#include "formulation/anderson_cuts.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "formulation/formulation_parts.h"

namespace reluopt {

namespace {

// Lc_i and Uc_i of one input: the bound that minimizes, and the one that maximizes, w_i x_i.
struct InputBounds {
  double low_end, high_end;
};

InputBounds oriented_bounds(double w, double lower, double upper) {
  return w >= 0.0 ? InputBounds{lower, upper} : InputBounds{upper, lower};
}

}  // namespace

AndersonSeparator::AndersonSeparator(const MipFormulation& formulation, const Network& network, double tolerance)
    : formulation_(formulation), network_(network), tolerance_(tolerance) {}

std::vector<LinearCut> AndersonSeparator::separate(const double* solution) const {
  const std::vector<double>& lower = formulation_.model.col_lower();
  const std::vector<double>& upper = formulation_.model.col_upper();
  std::vector<LinearCut> cuts;
  for (int k = 0; k < network_.num_hidden_layers(); ++k) {
    const DenseLayer& layer = network_.hidden_layer(k);
    const std::vector<int>& inputs = layer_inputs(formulation_, k);
    for (int j = 0; j < network_.hidden_width(k); ++j) {
      const int z = formulation_.binary[k][j];
      if (z < 0) continue;
      const int y = formulation_.post_activation[k][j];
      const double z_star = solution[z];
      const auto in_set = [&](int i, const InputBounds& c) {
        const double w = layer.weights(j, i);
        return w * solution[inputs[i]] < w * (c.low_end * (1.0 - z_star) + c.high_end * z_star);
      };
      // One pass for the right side at I*, a second one only to write a violated cut.
      double rhs_at_star = 0.0, z_coefficient = layer.bias[j];
      bool finite = true;
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        const double w = layer.weights(j, static_cast<Eigen::Index>(i));
        if (w == 0.0) continue;
        const InputBounds c = oriented_bounds(w, lower[inputs[i]], upper[inputs[i]]);
        finite = finite && std::isfinite(c.low_end) && std::isfinite(c.high_end);
        if (in_set(static_cast<int>(i), c)) {
          rhs_at_star += w * (solution[inputs[i]] - c.low_end * (1.0 - z_star));
        } else {
          z_coefficient += w * c.high_end;
        }
      }
      rhs_at_star += z_coefficient * z_star;
      if (!finite || solution[y] - rhs_at_star <= tolerance_) continue;

      LinearCut cut;
      cut.index.push_back(y);
      cut.value.push_back(1.0);
      double constant = 0.0;  // sum_{i in I*} w_i Lc_i
      for (std::size_t i = 0; i < inputs.size(); ++i) {
        const double w = layer.weights(j, static_cast<Eigen::Index>(i));
        if (w == 0.0) continue;
        const InputBounds c = oriented_bounds(w, lower[inputs[i]], upper[inputs[i]]);
        if (!in_set(static_cast<int>(i), c)) continue;
        cut.index.push_back(inputs[i]);
        cut.value.push_back(-w);
        constant += w * c.low_end;
      }
      if (z_coefficient + constant != 0.0) {
        cut.index.push_back(z);
        cut.value.push_back(-(z_coefficient + constant));
      }
      cut.lower = -kInfinity;
      cut.upper = -constant;
      cuts.push_back(std::move(cut));
    }
  }
  return cuts;
}

bool add_anderson_cuts(MipFormulation& f, const Network& network, const double* point, std::atomic<long>& next_id) {
  const std::vector<LinearCut> found = AndersonSeparator(f, network, 1e-6).separate(point);
  for (const LinearCut& cut : found) {
    double scale = std::abs(cut.upper);
    for (std::size_t i = 0; i < cut.index.size(); ++i)
      scale += std::abs(cut.value[i]) * std::max(std::abs(f.model.col_lower()[cut.index[i]]),
                                                 std::abs(f.model.col_upper()[cut.index[i]]));
    f.model.add_row(cut.index, cut.value, cut.lower, cut.upper + 1e-9 * scale, "cut" + std::to_string(next_id++));
  }
  return !found.empty();
}

}  // namespace reluopt
