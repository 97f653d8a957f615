#pragma once

#include "lp/linear_model.h"
#include "reluopt/domain.h"

namespace reluopt {

// Appends the domain P to a model whose first domain.dim() columns are x: the rows A x <= b. Every model over
// the input space (a region's LP, the bound LPs, the MIP formulations) shares them.
void add_domain_rows(const Domain& domain, LinearModel& model);

}  // namespace reluopt
