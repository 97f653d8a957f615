#pragma once

#include "core/model_reduction.h"

namespace reluopt {

// A reduced model whose objective is a max-min objective over y, made linear for every method: the max-min
// layers are appended to the composite (docs/MATH.md section 13) and y is carried through them, one stably
// active neuron relu(y_i - L_i) + L_i each, so the new composite's outputs are [g(y); y], the objective is its
// output 0 and the output rows C y <= e become [0 C] y' <= e. L is the interval lower bound of y over the box
// of u, less room for rounding. A model with a linear objective is returned unchanged.
ReducedModel with_linear_objective(ReducedModel reduced);

}  // namespace reluopt
