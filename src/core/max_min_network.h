#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

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
// disjuncts, with a value that passes a layer (a or b above, or one without a partner) written as
// relu(v) - relu(-v). Exact in real arithmetic. `objective` must be valid for `network`.
MaxMinNetwork compile_max_min(const Network& network, const Objective& objective);
// The same, looking at `deadline` before each layer: nullopt once it has passed.
std::optional<MaxMinNetwork> compile_max_min(const Network& network, const Objective& objective,
                                             const Deadline& deadline);

// Lower bounds of the terms c_kl^T y + d_kl over the domain, laid out as Objective::terms(): entry [k][l].
using TermLowerBounds = std::vector<std::vector<double>>;
// The terms' lower bounds for outputs y in [y_lower, y_upper] (-infinity for a term over an unbounded output).
// Their round-off is far below the 1 that carry_shift puts between a bound and its neuron's shift.
TermLowerBounds term_lower_bounds(const Objective& objective, const Eigen::VectorXd& y_lower,
                                  const Eigen::VectorXd& y_upper);
// The same with each term's lower bound known: a value then passes a layer as one neuron relu(v - L) + L, L below
// its bound, which is active on the whole domain, so a prover never has to split it. Throws Error when the
// bounds' layout is not the objective's.
std::optional<MaxMinNetwork> compile_max_min(const Network& network, const Objective& objective,
                                             const Deadline& deadline, const TermLowerBounds& term_lower);

// compile_max_min that also carries the network's outputs y through the appended layers, one neuron
// relu(y_i - L_i) + L_i each, so that the compiled network's outputs are [g; y] and rows on y stay rows on its
// outputs 1.. . Exact wherever y >= L: `lower` must bound y from below on the domain with room for rounding.
MaxMinNetwork compile_max_min_carrying(const Network& network, const Objective& objective,
                                       const Eigen::VectorXd& lower);

// The bytes compile_max_min takes for the max-min layers (their weights, and its largest temporaries) when the
// network's last hidden layer has `width` neurons and disjunct k has terms[k] terms; computed from the counts
// alone, so that a caller can refuse or split an objective before anything is allocated. The layers' widths
// add up to about 1.5 times the terms, and each is dense over the one before: the bytes grow as the square of
// the number of terms.
double max_min_bytes(Eigen::Index width, const std::vector<std::size_t>& terms);

// A result of the compiled network as a result of the original one: x unchanged, outputs from a forward pass
// of `network` at x, the objective re-evaluated on them in double precision, the gap recomputed.
SolveResult map_max_min_result(SolveResult result, const Network& network, const Objective& objective);

}  // namespace reluopt::detail
