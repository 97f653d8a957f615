// The fixed-pattern LP in input space (MATH.md §2; Perakis & Tsiourvas, Algorithm 1, solve_lp).
//
// For an activation pattern s (s_kj = 1 when h_kj > 0 at the sample), D_k = diag(s_k) and the network is
// affine on the region: x_{k+1} = D_k (W_k x_k + b_k). Composing,
//   h_1 = W_1 x + b_1 = G_1 x + g_1,   h_{k+1} = W_{k+1} D_k G_k x + (W_{k+1} D_k g_k + b_{k+1}),
// and the objective sign * (w^T (W_K D_{K-1} (G_{K-1} x + g_{K-1}) + b_K) + constant) is affine too. The LP
//   max  c^T x + c_0   s.t.  (2 s_kj - 1) (G_k x + g_k)_j >= 0,   lo <= x <= hi,  A x <= b
// has one dense row per neuron and d columns; SOLVER-NOTES.md measured it 5-10x faster in CLP than the
// layered big-M model with z fixed.
#include "reluopt/pattern_lp.h"

namespace reluopt {

RegionAffine compose_region(const Network& network, const Objective& objective, const ActivationPattern& pattern,
                            const FreeMask* free) {
  // The objective folded into the output layer: a single affine row sign * (w^T (W_K x_K + b_K) + constant).
  const DenseLayer& out = network.output_layer();
  const Eigen::MatrixXd objective_weights = objective.sign() * objective.weights.transpose() * out.weights;
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
  G.leftCols(d) = layers > 0 ? network.hidden_layer(0).weights : objective_weights;
  Eigen::VectorXd g = layers > 0 ? network.hidden_layer(0).bias : objective_bias;
  for (int k = 0; k < layers; ++k) {
    region.G.push_back(G);
    region.g.push_back(g);
    const bool next_is_output = k + 1 == layers;
    const Eigen::MatrixXd& next_weights = next_is_output ? objective_weights : network.hidden_layer(k + 1).weights;
    const Eigen::VectorXd& next_bias = next_is_output ? objective_bias : network.hidden_layer(k + 1).bias;
    // W_{k+1} D_k keeps the columns of the active neurons of layer k; a free neuron feeds its variable y.
    std::vector<Eigen::Index> active;
    RowMajorMatrix next_G = RowMajorMatrix::Zero(next_weights.rows(), dim);
    for (int j = 0; j < network.hidden_width(k); ++j) {
      if (region.free_index[k][j] >= 0) next_G.col(d + region.free_index[k][j]) = next_weights.col(j);
      else if (pattern.active[k][j]) active.push_back(j);
    }
    Eigen::VectorXd next_g = next_bias;
    if (!active.empty()) {
      const Eigen::MatrixXd W_active = next_weights(Eigen::all, active);
      next_G.noalias() += W_active * G(active, Eigen::all);
      next_g.noalias() += W_active * g(active);
    }
    G = std::move(next_G);
    g = std::move(next_g);
  }
  region.objective_gradient = G.row(0).transpose();
  region.objective_constant = g[0];
  return region;
}

void add_domain_rows(const Domain& domain, LinearModel& model) {
  const RowMajorMatrix A = domain.A;
  for (int r = 0; r < domain.num_rows(); ++r)
    model.add_dense_row(A.row(r).data(), domain.dim(), 0, -kInfinity, domain.b[r]);
}

LinearModel pattern_lp(const Network& network, const Domain& domain, const Objective& objective,
                       const ActivationPattern& pattern, const NeuronBounds* bounds) {
  const RegionAffine region = compose_region(network, objective, pattern);
  const int dim = network.input_dim();
  LinearModel model;
  for (int i = 0; i < dim; ++i)
    model.add_column(domain.lower[i], domain.upper[i], region.objective_gradient[i]);
  model.set_objective_constant(region.objective_constant);
  model.reserve(network.num_hidden_neurons() + domain.num_rows(),
                (network.num_hidden_neurons() + domain.num_rows()) * dim);
  for (int k = 0; k < network.num_hidden_layers(); ++k) {
    for (int j = 0; j < network.hidden_width(k); ++j) {
      if (bounds != nullptr && bounds->is_stable(k, j)) continue;
      const double offset = region.g[k][j];
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
