// Built as part of the bounds layer (ctest layer_include_downward): its own headers and those of the layers
// below it (src/layers.txt) are found, so the failure of layer_include_upward is its include's.
#include "bounds/bounds.h"
#include "core/worker_threads.h"
#include "lp/linear_model.h"
#include "solver/lp_solver.h"
