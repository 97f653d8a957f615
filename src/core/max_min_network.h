#pragma once

#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/result.h"

namespace reluopt::detail {

// A network whose single output is a max-min objective of another network's outputs, with the linear objective
// "output 0" in the max-min objective's sense: every method that optimizes linear objectives optimizes the
// max-min objective on it (docs/MATH.md section 13).
struct MaxMinNetwork {
  Network network;
  Objective objective;
};

// Appends ReLU layers that compute max_k min_l (c_kl^T y + d_kl) from the last hidden layer: pairwise trees of
// min(a, b) = a - relu(a - b) over each disjunct's terms, then of max(a, b) = b + relu(a - b) over the
// disjuncts, with a value that only passes a layer written as relu(v) - relu(-v). Exact in real arithmetic.
// `objective` must be valid for `network`.
MaxMinNetwork compile_max_min(const Network& network, const Objective& objective);

// A result of the compiled network as a result of the original one: x unchanged, outputs from a forward pass
// of `network` at x, the objective re-evaluated on them in double precision, the gap recomputed.
SolveResult map_max_min_result(SolveResult result, const Network& network, const Objective& objective);

}  // namespace reluopt::detail
