#pragma once

// Networks, domains and a brute-force optimizer shared by the tests.

#include <cstdint>
#include <vector>

#include "reluopt/domain.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"

namespace reluopt::testing {

// Xavier-uniform weights, biases U(-1/sqrt(fan_in), 1/sqrt(fan_in)), from a fixed seed.
Network random_network(int input_dim, const std::vector<int>& hidden, int outputs, std::uint64_t seed);

// [0,1]^d cut by `rows` random half-spaces that all keep the centre strictly inside.
Domain random_polytope(int dim, int rows, std::uint64_t seed);

// The exact maximum of sign * g over P, by enumerating every activation pattern and solving each region's
// LP in the layered space (variables x_1..x_K, with x_{k+1} = h_k on active and x_{k+1} = 0 >= h_k on
// inactive neurons): a formulation independent of the input-space LP under test.
// Only for networks with at most ~12 hidden neurons. Returns the maximized value sign * g.
double brute_force_max(const Network& network, const Domain& domain, const Objective& objective);

}  // namespace reluopt::testing
