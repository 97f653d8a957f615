// Placeholder being replaced: Anderson et al. cut separation (MATH.md §5).
#include "reluopt/anderson_cuts.h"

namespace reluopt {

AndersonSeparator::AndersonSeparator(const MipFormulation& formulation, const Network& network, double tolerance)
    : formulation_(formulation), network_(network), tolerance_(tolerance) {}

std::vector<LinearCut> AndersonSeparator::separate(const double*) const { return {}; }

}  // namespace reluopt
