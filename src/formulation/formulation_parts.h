#pragma once

// Pieces shared by the MIP formulations (big-M, partition): inputs with the domain, post-activation columns,
// the objective on the last layer.
#include "reluopt/mip_formulation.h"

namespace reluopt {

void add_inputs(MipFormulation& f, const Domain& domain);
int add_post_activation(MipFormulation& f, const DenseLayer& layer, int k, int j, double l, double u, bool& stable);
void add_objective(MipFormulation& f, const Network& network, const Objective& objective);

}  // namespace reluopt
