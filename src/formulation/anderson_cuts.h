#pragma once

#include <atomic>
#include <vector>

#include "formulation/mip_formulation.h"
#include "reluopt/network.h"
#include "solver/cut_separator.h"

namespace reluopt {

// Separation of the Anderson et al. (2020) inequalities (MATH.md §5) for every unstable neuron of a
// big-M formulation, in O(n) per neuron.
class AndersonSeparator : public CutSeparator {
 public:
  AndersonSeparator(const MipFormulation& formulation, const Network& network, double tolerance = 1e-6);
  std::vector<LinearCut> separate(const double* solution) const override;

 private:
  const MipFormulation& formulation_;
  const Network& network_;
  double tolerance_;
};

// Adds to f's model the Anderson cuts that `point` violates, each loosened by a margin for the rounding of its
// coefficients and named "cut<id>" from `next_id` (counted up): false when there is none.
bool add_anderson_cuts(MipFormulation& f, const Network& network, const double* point, std::atomic<long>& next_id);

}  // namespace reluopt
