#pragma once

#include <cstddef>
#include <vector>

#include "lp/linear_model.h"
#include "solver/lp_solution.h"

namespace reluopt {

// An optimal basis with the keys (hashes of the names) of its model's columns and rows, so that a related model
// (a branch-and-bound child's LP: mostly the same named columns and rows) can start from it (carry_basis).
struct KeyedBasis {
  std::vector<std::size_t> col_keys, row_keys;
  LpBasis basis;
};

KeyedBasis keyed_basis(const LinearModel& model, LpBasis basis);

// The keys of the model's columns: hashes of their names.
std::vector<std::size_t> col_keys(const LinearModel& model);

// `from`'s statuses on the columns and rows of `model` with the same names (the first of equal names): a column
// `from` lacks starts at a bound, a row it lacks with its slack basic. The number of basic variables may then be
// off by the few that changed; the simplex repairs that at its first factorization. Only the start of the simplex
// depends on it, never the answer (LpSolver::solve_from).
LpBasis carry_basis(const KeyedBasis& from, const LinearModel& model);

}  // namespace reluopt
