// Placeholder being replaced: partition formulation (MATH.md §6).
#include "reluopt/error.h"
#include "reluopt/mip_formulation.h"

namespace reluopt {

MipFormulation partition_formulation(const Network&, const Domain&, const Objective&, const NeuronBounds&, int) {
  throw Error("partition formulation: not implemented yet");
}

}  // namespace reluopt
