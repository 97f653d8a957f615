// The fixed-pattern LP in input space (MATH.md §2; Perakis & Tsiourvas, Algorithm 1, solve_lp).
//
// For an activation pattern s (s_kj = 1 when h_kj > 0 at the sample), D_k = diag(s_k) and the network is
// affine on the region: x_{k+1} = D_k (W_k x_k + b_k). Composing,
//   h_1 = W_1 x + b_1 = G_1 x + g_1,   h_{k+1} = W_{k+1} D_k G_k x + (W_{k+1} D_k g_k + b_{k+1}),
// and the objective sign * (w^T (W_K D_{K-1} (G_{K-1} x + g_{K-1}) + b_K) + constant) is affine too. The LP
//   max  c^T x + c_0   s.t.  (2 s_kj - 1) (G_k x + g_k)_j >= 0,   lo <= x <= hi,  A x <= b
// has one dense row per neuron and d columns; docs/SOLVER-NOTES.md measured it 4.5x (d = 100, 2x100) to 18x
// (d = 1000, 1x100) faster in CLP than the layered big-M model with z fixed.
//
// Concave neurons (an addition to the paper). In the last hidden layer the objective is
// sum_j c_j y_j + (affine in x), with c = sign * W_K^T w and y_j = max(h_j, 0). Where c_j <= 0 the term
// c_j max(h_j, 0) is concave, and
//   max c_j y_j  s.t.  y_j >= h_j,  y_j >= 0
// attains y_j = max(h_j, 0) (for c_j < 0 at every optimum; for c_j = 0 the value does not depend on y_j). So
// these neurons need no fixed state: the LP with the epigraph rows optimizes over all of their 2^n states at
// once, exactly. The same holds for the big-M MIP, where such a neuron needs no binary (MATH.md §3). Only the
// last hidden layer qualifies: an earlier neuron feeds later neurons, whose value y does not push down.
#include "formulation/pattern_lp.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <type_traits>

#include "reluopt/error.h"

namespace reluopt {

FreeMask concave_neurons(const Network& network, const Objective& objective, const NeuronBounds& bounds) {
  const int layers = network.num_hidden_layers();
  FreeMask concave(layers);
  for (int k = 0; k < layers; ++k) concave[k].assign(network.hidden_width(k), 0);
  if (layers == 0) return concave;
  const Eigen::VectorXd c = objective.sign() * (network.output_layer().weights.transpose() * objective.weights);
  const int last = layers - 1;
  for (int j = 0; j < network.hidden_width(last); ++j)
    if (c[j] <= 0.0 && !bounds.is_stable(last, j)) concave[last][j] = 1;
  return concave;
}

int count_neurons(const FreeMask& mask) {
  int n = 0;
  for (const auto& layer : mask)
    for (std::uint8_t m : layer) n += m != 0;
  return n;
}

ActivationPattern pattern_key(ActivationPattern pattern, const FreeMask* concave) {
  if (concave == nullptr) return pattern;
  for (std::size_t k = 0; k < pattern.active.size(); ++k)
    for (std::size_t j = 0; j < pattern.active[k].size(); ++j)
      if ((*concave)[k][j]) pattern.active[k][j] = 0;
  return pattern;
}

void RegionMap::row_entries(Eigen::Index j, double scale, std::vector<int>& index, std::vector<double>& value) const {
  index.clear();
  value.clear();
  for_each_in_row(j, [&](Eigen::Index i, double w) {
    if (w == 0.0) return;
    index.push_back(static_cast<int>(i));
    value.push_back(scale * w);
  });
}

namespace {

using SparseRows = Weights::Sparse;

// Multiply-adds between two looks at the deadline while a region is composed: dense products (BLAS-like kernels)
// run at about 1e9 a second on a loaded core, sparse x sparse ones (index lookups, scattered writes) about ten
// times slower.
constexpr double kDenseWorkPerCheck = 2e8;
constexpr double kSparseWorkPerCheck = 2e7;
// A composed sparse map with more nonzeros than this share of its entries is stored dense: past it, the sparse
// products cost more than dense ones.
constexpr double kDenseShare = 0.25;

// Rows per block when each row costs `work_per_row`: all at once without a deadline.
Eigen::Index rows_per_check(double work_per_row, double work_per_check, Eigen::Index rows, const Deadline* deadline) {
  if (deadline == nullptr) return std::max<Eigen::Index>(rows, 1);
  return std::max<Eigen::Index>(1, static_cast<Eigen::Index>(work_per_check / std::max(work_per_row, 1.0)));
}

bool expired(const Deadline* deadline) { return deadline != nullptr && deadline->expired(); }

// M = 0, by blocks of rows with a look at the deadline (a map of 16384 x 3072 is 400 MB). False when it expired.
bool set_zero(RowMajorMatrix& M, Eigen::Index rows, Eigen::Index cols, const Deadline* deadline) {
  M.resize(rows, cols);
  const Eigen::Index block = rows_per_check(static_cast<double>(cols), kDenseWorkPerCheck, rows, deadline);
  for (Eigen::Index first = 0; first < rows; first += block) {
    if (expired(deadline)) return false;
    M.middleRows(first, std::min(block, rows - first)).setZero();
  }
  return true;
}

// The first columns of G = W, by blocks of rows: a column-major W read in row-major order misses the cache on
// every entry (a second for the 8192 x 3072 layer of a convolution under load), a block of rows reads whole
// cache lines. False when the deadline expired first.
bool copy_rows(RowMajorMatrix& G, const Eigen::MatrixXd& W, const Deadline* deadline) {
  constexpr Eigen::Index kBlock = 64;
  for (Eigen::Index first = 0; first < W.rows(); first += kBlock) {
    if (expired(deadline)) return false;
    const Eigen::Index rows = std::min(kBlock, W.rows() - first);
    G.block(first, 0, rows, W.cols()) = W.middleRows(first, rows);
  }
  return true;
}

// W D for a sparse W: the columns of the neurons not in `keep` dropped (their entries, not the columns).
SparseRows masked_columns(const SparseRows& W, const std::vector<std::uint8_t>& keep) {
  SparseRows masked = W;
  masked.prune([&](Eigen::Index, Eigen::Index col, double) { return keep[col] != 0; });
  return masked;
}

// The rows `active` of a compressed sparse G, in that order.
SparseRows rows_of(const SparseRows& G, const std::vector<Eigen::Index>& active) {
  SparseRows rows(static_cast<Eigen::Index>(active.size()), G.cols());
  // A layer with no active neuron: Eigen's makeCompressed() reads past an empty matrix's outer index once
  // reserve() has made it uncompressed.
  if (active.empty()) return rows;
  Eigen::VectorXi per_row(rows.rows());
  for (Eigen::Index r = 0; r < rows.rows(); ++r)
    per_row[r] = G.outerIndexPtr()[active[r] + 1] - G.outerIndexPtr()[active[r]];
  rows.reserve(per_row);
  for (Eigen::Index r = 0; r < rows.rows(); ++r)
    for (SparseRows::InnerIterator it(G, active[r]); it; ++it) rows.insert(r, it.col()) = it.value();
  rows.makeCompressed();
  return rows;
}

// The map of the first hidden layer (or of the objective without one), G = [W 0] with `dim` columns: sparse
// where W is. Incomplete when the deadline expired first.
std::optional<RegionMap> first_map(const Weights& W, Eigen::Index dim, const Deadline* deadline) {
  RegionMap map;
  if (!W.is_dense()) {
    map.is_sparse = true;
    map.sparse = W.to_sparse();
    map.sparse.conservativeResize(W.rows(), dim);
    return map;
  }
  if (!set_zero(map.dense, W.rows(), dim, deadline) || !copy_rows(map.dense, W.dense(), deadline)) return std::nullopt;
  return map;
}

// next_G = W_active G_active for a sparse G_active, by blocks of rows of W_active: dense when W is dense or the
// product fills more than kDenseShare of its entries. None when the deadline expired first.
template <typename Matrix>
std::optional<RegionMap> sparse_product(const Matrix& W_active, const SparseRows& G_active, const Deadline* deadline) {
  constexpr bool kDenseW = !std::is_base_of_v<Eigen::SparseMatrixBase<Matrix>, Matrix>;
  const Eigen::Index rows = W_active.rows();
  const double g_per_row = static_cast<double>(G_active.nonZeros()) / std::max<Eigen::Index>(G_active.rows(), 1);
  double w_per_row = static_cast<double>(W_active.cols());
  if constexpr (!kDenseW) w_per_row = static_cast<double>(W_active.nonZeros()) / std::max<Eigen::Index>(rows, 1);
  const Eigen::Index block = rows_per_check(w_per_row * g_per_row, kSparseWorkPerCheck, rows, deadline);
  std::vector<SparseRows> blocks;
  RegionMap map;
  if constexpr (kDenseW) map.dense.resize(rows, G_active.cols());
  for (Eigen::Index first = 0; first < rows; first += block) {
    if (expired(deadline)) return std::nullopt;
    const Eigen::Index count = std::min(block, rows - first);
    if constexpr (kDenseW) map.dense.middleRows(first, count).noalias() = W_active.middleRows(first, count) * G_active;
    else blocks.emplace_back(W_active.middleRows(first, count) * G_active);
  }
  if constexpr (kDenseW) return map;
  Eigen::Index nonzeros = 0;
  for (const SparseRows& part : blocks) nonzeros += part.nonZeros();
  map.sparse.resize(rows, G_active.cols());
  map.sparse.reserve(nonzeros);
  Eigen::Index first = 0;
  for (const SparseRows& part : blocks) {
    map.sparse.middleRows(first, part.rows()) = part;
    first += part.rows();
  }
  map.sparse.makeCompressed();
  const double entries = static_cast<double>(rows) * static_cast<double>(G_active.cols());
  map.is_sparse = static_cast<double>(nonzeros) <= kDenseShare * entries;
  if (!map.is_sparse) {
    RowMajorMatrix dense;
    if (!set_zero(dense, rows, G_active.cols(), deadline)) return std::nullopt;
    dense += map.sparse;
    map.dense = std::move(dense);
    map.sparse = SparseRows();
  }
  return map;
}

// The first `used` columns of next_G += W D G for a dense G (next_G zero beyond them): a sparse W with the
// inactive columns dropped, by blocks of its rows; a dense W over the active neurons alone, by blocks of them
// (W(:, a) G(a, :) for a block a of active neurons: no copy of all the active rows of G at once, which for the
// objective's single row is the whole cost). False when the deadline expired first.
bool dense_product(const RegionMap& G, const Weights& W, const std::vector<std::uint8_t>& keep,
                   const std::vector<Eigen::Index>& active, Eigen::Index used, const Deadline* deadline,
                   RowMajorMatrix& next_G) {
  const Eigen::Index rows = W.rows();
  if (!W.is_dense()) {
    const SparseRows masked = masked_columns(W.to_sparse(), keep);
    const double per_row = static_cast<double>(masked.nonZeros()) / std::max<Eigen::Index>(rows, 1) * used;
    const Eigen::Index block = rows_per_check(per_row, kDenseWorkPerCheck, rows, deadline);
    for (Eigen::Index first = 0; first < rows; first += block) {
      if (expired(deadline)) return false;
      const Eigen::Index count = std::min(block, rows - first);
      next_G.block(first, 0, count, used).noalias() += masked.middleRows(first, count) * G.dense.leftCols(used);
    }
    return true;
  }
  // Each block of active neurons also copies its rows of G and its columns of W: counted as one row of work.
  const auto n = static_cast<Eigen::Index>(active.size());
  const Eigen::Index block = rows_per_check(static_cast<double>(used) * (rows + 1), kDenseWorkPerCheck, n, deadline);
  for (Eigen::Index first = 0; first < n; first += block) {
    if (expired(deadline)) return false;
    const auto part = Eigen::seqN(first, std::min(block, n - first));
    const std::vector<Eigen::Index> neurons(active.begin() + first, active.begin() + first + part.size());
    const Eigen::MatrixXd W_part = W.dense()(Eigen::all, neurons);
    const RowMajorMatrix G_part = G.dense(neurons, Eigen::seqN(0, used));
    next_G.leftCols(used).noalias() += W_part * G_part;
  }
  return true;
}

// h_{k+1}'s map from h_k's: next_G = W_{k+1} D_k G_k over the active neurons of layer k, next_g likewise, and a free
// neuron j of layer k feeds its variable's column d + free_index[j] with W_{k+1}'s column j. Only the first `used`
// columns of a dense G_k can be nonzero (x and the free neurons of earlier layers). False when the deadline
// expired first.
bool compose_layer(const RegionMap& G, const Eigen::VectorXd& g, const Weights& W, const Eigen::VectorXd& next_bias,
                   const std::vector<std::uint8_t>& active_state, const std::vector<int>& free_index, int d,
                   Eigen::Index used, Eigen::Index dim, const Deadline* deadline, RegionMap& next_G,
                   Eigen::VectorXd& next_g) {
  std::vector<Eigen::Index> active, free;
  std::vector<std::uint8_t> keep(free_index.size(), 0);
  for (Eigen::Index j = 0; j < static_cast<Eigen::Index>(free_index.size()); ++j) {
    if (free_index[j] >= 0) free.push_back(j);
    else if (active_state[j]) active.push_back(j), keep[j] = 1;
  }
  Eigen::VectorXd active_g = Eigen::VectorXd::Zero(g.size());
  for (Eigen::Index j : active) active_g[j] = g[j];
  next_g = next_bias + W * active_g;
  if (G.is_sparse) {
    std::optional<RegionMap> map =
        !W.is_dense()
            ? sparse_product(masked_columns(W.to_sparse(), keep), G.sparse, deadline)
            : sparse_product(Eigen::MatrixXd(W.dense()(Eigen::all, active)), rows_of(G.sparse, active), deadline);
    if (!map) return false;
    next_G = std::move(*map);
  } else if (!set_zero(next_G.dense, W.rows(), dim, deadline) ||
             !dense_product(G, W, keep, active, used, deadline, next_G.dense)) {
    return false;
  }
  if (next_G.is_sparse) {
    SparseRows columns(W.rows(), dim);  // the free neurons' columns, added to the product
    std::vector<Eigen::Triplet<double>> entries;
    for (Eigen::Index j : free) {
      const Eigen::VectorXd column = W.col(j);
      for (Eigen::Index i = 0; i < column.size(); ++i)
        if (column[i] != 0.0) entries.emplace_back(i, d + free_index[j], column[i]);
    }
    columns.setFromTriplets(entries.begin(), entries.end());
    next_G.sparse += columns;
    next_G.sparse.makeCompressed();
  } else {
    for (Eigen::Index j : free) next_G.dense.col(d + free_index[j]) += W.col(j);
  }
  return true;
}

}  // namespace

RegionAffine compose_region(const Network& network, const Objective& objective, const ActivationPattern& pattern,
                            const FreeMask* free, const Deadline* deadline) {
  // The objective folded into the output layer: a single affine row sign * (w^T (W_K x_K + b_K) + constant).
  const DenseLayer& out = network.output_layer();
  const Weights objective_weights =
      Eigen::MatrixXd(objective.sign() * (objective.weights.transpose() * out.weights));
  const Eigen::VectorXd objective_bias =
      Eigen::VectorXd::Constant(1, objective.sign() * (objective.weights.dot(out.bias) + objective.constant));

  const int layers = network.num_hidden_layers();
  const int d = network.input_dim();
  RegionAffine region;
  region.free_index.resize(layers);
  for (int k = 0; k < layers; ++k) {
    region.free_index[k].assign(network.hidden_width(k), -1);
    if (free == nullptr) continue;
    for (int j = 0; j < network.hidden_width(k); ++j)
      if ((*free)[k][j]) region.free_index[k][j] = region.num_free++;
  }
  const int dim = d + region.num_free;

  std::optional<RegionMap> G =
      first_map(layers > 0 ? network.hidden_layer(0).weights : objective_weights, dim, deadline);
  if (!G) {
    region.complete = false;
    return region;
  }
  Eigen::VectorXd g = layers > 0 ? network.hidden_layer(0).bias : objective_bias;
  // Free variables are numbered in layer order, so G_k is zero beyond its first `used` columns (x and the free
  // neurons of earlier layers); the products skip the rest (with a free last layer of 1000 neurons and d = 10,
  // the product would otherwise be 100x wider than it needs to be).
  int used = d;
  for (int k = 0; k < layers; ++k) {
    // Copying the first G alone (a wide layer's weights) can take a second under load.
    if (deadline && deadline->expired()) {
      region.complete = false;
      return region;
    }
    const bool next_is_output = k + 1 == layers;
    RegionMap next_G;
    Eigen::VectorXd next_g;
    if (!compose_layer(*G, g, next_is_output ? objective_weights : network.hidden_layer(k + 1).weights,
                       next_is_output ? objective_bias : network.hidden_layer(k + 1).bias, pattern.active[k],
                       region.free_index[k], d, used, dim, deadline, next_G, next_g)) {
      region.complete = false;
      return region;
    }
    for (int j = 0; j < network.hidden_width(k); ++j) used += region.free_index[k][j] >= 0;
    region.G.push_back(std::move(*G));
    region.g.push_back(std::move(g));
    G = std::move(next_G);
    g = std::move(next_g);
  }
  // objective_weights is dense, and so is the objective's map (a dense row times any G).
  region.objective_gradient = G->dense.row(0).transpose();
  region.objective_constant = g[0];
  return region;
}

LinearModel pattern_lp(const Network& network, const Domain& domain, const Objective& objective,
                       const ActivationPattern& pattern, const NeuronBounds* bounds, const FreeMask* concave) {
  return *pattern_lp_within(network, domain, objective, pattern, bounds, concave, Deadline());
}

std::optional<LinearModel> pattern_lp_within(const Network& network, const Domain& domain,
                                             const Objective& objective, const ActivationPattern& pattern,
                                             const NeuronBounds* bounds, const FreeMask* concave,
                                             const Deadline& deadline) {
  if (concave != nullptr && bounds == nullptr) throw Error("pattern_lp: concave neurons need the bounds");
  // A neuron these bounds prove stable keeps its fixed state (and needs no row), even if the mask lists it.
  FreeMask free;
  if (concave != nullptr) {
    free = *concave;
    for (int k = 0; k < network.num_hidden_layers(); ++k)
      for (int j = 0; j < network.hidden_width(k); ++j)
        if (bounds->is_stable(k, j)) free[k][j] = 0;
  }
  const RegionAffine region =
      compose_region(network, objective, pattern, concave != nullptr ? &free : nullptr, &deadline);
  if (!region.complete) return std::nullopt;
  const int d = network.input_dim();
  LinearModel model;
  for (int i = 0; i < d; ++i) model.add_column(domain.lower[i], domain.upper[i], region.objective_gradient[i]);
  std::vector<int> y_col(region.num_free, -1);
  for (int k = 0; k < network.num_hidden_layers() && region.num_free > 0; ++k)
    for (int j = 0; j < network.hidden_width(k); ++j)
      if (const int f = region.free_index[k][j]; f >= 0)
        y_col[f] = model.add_column(0.0, std::max(bounds->upper[k][j], 0.0), region.objective_gradient[d + f]);
  model.set_objective_constant(region.objective_constant);
  Eigen::Index entries = region.num_free + static_cast<Eigen::Index>(domain.num_rows()) * d;
  for (const RegionMap& G : region.G) entries += G.stored();
  model.reserve(network.num_hidden_neurons() + domain.num_rows(),
                static_cast<int>(std::min<Eigen::Index>(entries, INT_MAX)));
  std::vector<int> index;
  std::vector<double> value;
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    if (deadline.expired()) return std::nullopt;  // a layer's rows are a pass over its map
    for (int j = 0; j < network.hidden_width(k); ++j) {
      if (bounds != nullptr && bounds->is_stable(k, j)) continue;
      const double offset = region.g[k][j];
      if (const int f = region.free_index[k][j]; f >= 0) {
        // Concave neuron: y - (G v + g) >= 0.
        region.G[k].row_entries(j, -1.0, index, value);
        index.push_back(y_col[f]);
        value.push_back(1.0);
        model.add_row(index, value, offset, kInfinity);
        continue;
      }
      region.G[k].row_entries(j, 1.0, index, value);
      if (pattern.active[k][j]) model.add_row(index, value, -offset, kInfinity);
      else model.add_row(index, value, -kInfinity, -offset);
    }
  }
  add_domain_rows(domain, model);
  return model;
}

}  // namespace reluopt
