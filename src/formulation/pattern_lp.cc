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

namespace {

// Multiply-adds between two looks at the deadline while a region is composed.
constexpr double kWorkPerCheck = 2e8;

// The first `used` columns of next_G += W_active * G_active, by blocks of rows; false when the deadline expired
// first.
template <typename Matrix>
bool add_product(RowMajorMatrix& next_G, Eigen::Index used, const Matrix& W_active,
                 const RowMajorMatrix& G_active, const Deadline* deadline) {
  const double work_per_row = static_cast<double>(G_active.rows()) * static_cast<double>(G_active.cols());
  const auto block = deadline ? std::max<Eigen::Index>(1, static_cast<Eigen::Index>(kWorkPerCheck / work_per_row))
                              : W_active.rows();
  for (Eigen::Index first = 0; first < W_active.rows(); first += block) {
    if (deadline && deadline->expired()) return false;
    const Eigen::Index rows = std::min(block, W_active.rows() - first);
    next_G.block(first, 0, rows, used).noalias() += W_active.middleRows(first, rows) * G_active;
  }
  return true;
}

// The first columns of G = W, by blocks of rows: a column-major W read in row-major order misses the cache on
// every entry (a second for the 8192 x 3072 layer of a convolution under load), a block of rows reads whole
// cache lines; a sparse W writes its nonzeros. False when the deadline expired first.
bool copy_rows(RowMajorMatrix& G, const Weights& W, const Deadline* deadline) {
  constexpr Eigen::Index kBlock = 64;
  for (Eigen::Index first = 0; first < W.rows(); first += kBlock) {
    if (deadline && deadline->expired()) return false;
    const Eigen::Index rows = std::min(kBlock, W.rows() - first);
    if (!W.is_sparse()) {
      G.block(first, 0, rows, W.cols()) = W.dense().middleRows(first, rows);
      continue;
    }
    for (Eigen::Index j = first; j < first + rows; ++j) W.for_each_in_row(j, [&](Eigen::Index i, double w) { G(j, i) = w; });
  }
  return true;
}

// The columns `active` of a sparse W.
Weights::Sparse columns_of(const Weights::Sparse& W, const std::vector<Eigen::Index>& active) {
  Weights::Sparse select(W.cols(), static_cast<Eigen::Index>(active.size()));
  std::vector<Eigen::Triplet<double>> ones;
  for (std::size_t c = 0; c < active.size(); ++c) ones.emplace_back(active[c], static_cast<Eigen::Index>(c), 1.0);
  select.setFromTriplets(ones.begin(), ones.end());
  return W * select;
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

  RowMajorMatrix G = RowMajorMatrix::Zero(layers > 0 ? network.hidden_width(0) : 1, dim);
  if (!copy_rows(G, layers > 0 ? network.hidden_layer(0).weights : objective_weights, deadline)) {
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
    const Weights& next_weights = next_is_output ? objective_weights : network.hidden_layer(k + 1).weights;
    const Eigen::VectorXd& next_bias = next_is_output ? objective_bias : network.hidden_layer(k + 1).bias;
    // W_{k+1} D_k keeps the columns of the active neurons of layer k; a free neuron feeds its variable y.
    std::vector<Eigen::Index> active;
    RowMajorMatrix next_G = RowMajorMatrix::Zero(next_weights.rows(), dim);
    for (int j = 0; j < network.hidden_width(k); ++j) {
      if (region.free_index[k][j] >= 0) next_G.col(d + region.free_index[k][j]) = next_weights.col(j);
      else if (pattern.active[k][j]) active.push_back(j);
    }
    Eigen::VectorXd next_g = next_bias;
    const auto add_active = [&](const auto& W_active) {
      if (!add_product(next_G, used, W_active, G(active, Eigen::seqN(0, used)), deadline)) return false;
      next_g.noalias() += W_active * g(active);
      return true;
    };
    if (!active.empty() && !(next_weights.is_sparse() ? add_active(columns_of(next_weights.sparse(), active))
                                                       : add_active(Eigen::MatrixXd(next_weights.dense()(Eigen::all, active))))) {
      region.complete = false;
      return region;
    }
    for (int j = 0; j < network.hidden_width(k); ++j) used += region.free_index[k][j] >= 0;
    region.G.push_back(std::move(G));
    region.g.push_back(std::move(g));
    G = std::move(next_G);
    g = std::move(next_g);
  }
  region.objective_gradient = G.row(0).transpose();
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
  const int dim = d + region.num_free;
  LinearModel model;
  for (int i = 0; i < d; ++i) model.add_column(domain.lower[i], domain.upper[i], region.objective_gradient[i]);
  std::vector<int> y_col(region.num_free, -1);
  for (int k = 0; k < network.num_hidden_layers() && region.num_free > 0; ++k)
    for (int j = 0; j < network.hidden_width(k); ++j)
      if (const int f = region.free_index[k][j]; f >= 0)
        y_col[f] = model.add_column(0.0, std::max(bounds->upper[k][j], 0.0), region.objective_gradient[d + f]);
  model.set_objective_constant(region.objective_constant);
  model.reserve(network.num_hidden_neurons() + domain.num_rows(),
                (network.num_hidden_neurons() + domain.num_rows()) * dim);
  Eigen::RowVectorXd row(dim);
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    for (int j = 0; j < network.hidden_width(k); ++j) {
      if (bounds != nullptr && bounds->is_stable(k, j)) continue;
      const double offset = region.g[k][j];
      if (const int f = region.free_index[k][j]; f >= 0) {
        // Concave neuron: y - (G v + g) >= 0.
        row = -region.G[k].row(j);
        row[y_col[f]] += 1.0;
        model.add_dense_row(row.data(), dim, 0, offset, kInfinity);
        continue;
      }
      if (pattern.active[k][j]) {
        model.add_dense_row(region.G[k].row(j).data(), dim, 0, -offset, kInfinity);
      } else {
        model.add_dense_row(region.G[k].row(j).data(), dim, 0, -kInfinity, -offset);
      }
    }
  }
  add_domain_rows(domain, model);
  return model;
}

}  // namespace reluopt
