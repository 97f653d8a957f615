// Built as part of the bounds layer (ctest layer_include_upward): algorithms is above bounds
// (src/layers.txt), so the bounds layer's include path has no algorithms/ and this include must fail.
#include "algorithms/problem.h"
