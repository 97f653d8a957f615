#include "solver/carry_basis.h"

#include <functional>
#include <string>
#include <unordered_map>

namespace reluopt {

namespace {

std::vector<std::size_t> row_keys(const LinearModel& model) {
  std::vector<std::size_t> keys(static_cast<std::size_t>(model.num_rows()));
  for (int r = 0; r < model.num_rows(); ++r) keys[r] = std::hash<std::string>{}(model.row_name(r));
  return keys;
}

// `statuses` over `keys`, looked up by the keys of `to`; `missing` where `from` has no such key.
std::vector<BasisStatus> carry(const std::vector<std::size_t>& keys, const std::vector<BasisStatus>& statuses,
                               const std::vector<std::size_t>& to, BasisStatus missing) {
  std::unordered_map<std::size_t, BasisStatus> status;
  status.reserve(keys.size());
  for (std::size_t i = 0; i < keys.size() && i < statuses.size(); ++i) status.emplace(keys[i], statuses[i]);
  std::vector<BasisStatus> result;
  result.reserve(to.size());
  for (std::size_t key : to) {
    const auto it = status.find(key);
    result.push_back(it == status.end() ? missing : it->second);
  }
  return result;
}

}  // namespace

std::vector<std::size_t> col_keys(const LinearModel& model) {
  std::vector<std::size_t> keys(static_cast<std::size_t>(model.num_cols()));
  for (int c = 0; c < model.num_cols(); ++c) keys[c] = std::hash<std::string>{}(model.col_name(c));
  return keys;
}

KeyedBasis keyed_basis(const LinearModel& model, LpBasis basis) {
  return KeyedBasis{col_keys(model), row_keys(model), std::move(basis)};
}

LpBasis carry_basis(const KeyedBasis& from, const LinearModel& model) {
  LpBasis basis;
  basis.cols = carry(from.col_keys, from.basis.cols, col_keys(model), BasisStatus::kAtLower);
  basis.rows = carry(from.row_keys, from.basis.rows, row_keys(model), BasisStatus::kBasic);
  return basis;
}

}  // namespace reluopt
