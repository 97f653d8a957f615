// Optimized linear bounds under splits: alpha-CROWN (Xu et al., "Fast and complete: enabling complete neural
// network verification with rapid and massively parallel incomplete verifiers", ICLR 2021) with beta-CROWN's
// split multipliers (Wang et al., "Beta-CROWN: efficient bound propagation with per-neuron split constraints for
// neural network robustness verification", NeurIPS 2021); docs/MATH.md §10, "optimized slopes and split
// multipliers".
//
// Network x_0 = x in the box [lo, hi], h_j = W_j x_j + b_j, x_{j+1} = relu(h_j), objective c^T (W_K x_K + b_K) + c0.
// Given valid bounds l <= h_j <= u on the node, each unstable neuron (l < 0 < u) is relaxed by
//     alpha h  <=  relu(h)  <=  a h + t,   a = u / (u - l),  t = -a l,   alpha in [0, 1]   (any alpha is valid),
// stable neurons are exact, and each split neuron (s = +1: h >= 0, s = -1: h <= 0) adds beta s h >= 0 with beta >= 0
// to the objective, so that on the node c^T y + c0 <= c^T y + c0 + sum beta s h. Back-substitution from the output,
//     Lambda_K = c^T W_K,   C = c0 + c^T b_K,
//     Lambda'_j = max(Lambda_j, 0) a + min(Lambda_j, 0) alpha_j + beta_j s_j,   C += max(Lambda_j, 0) t + Lambda'_j b_j,
//     Lambda_{j-1} = Lambda'_j W_j   (Lambda_j the coefficients over x_{j+1}),
// ends in a linear function of x whose maximum over the box is the bound B(alpha, beta) = max(Lambda lo, Lambda hi)
// + C: valid for every alpha in [0, 1] and beta >= 0. B is minimized by projected gradient (Adam), from the
// parent's parameters: with the maximizing vertex x* fixed, B is the value at x* of the linear network whose ReLUs
// are the lines in use, so dB/dalpha_i = Lambda_i h^_i (Lambda_i < 0) and dB/dbeta_i = s_i h^_i, h^ the
// pre-activations of that linear network at x* (one forward pass).
//
// The steps run in plain floating point (in float where every W is dense: they only choose the parameters); the
// best parameters are then certified in double by one more pass with the round-off margins of symbolic_bounds.cc
// (round_off.h): a product Lambda' W differs from the exact one by at most gamma_n |Lambda'| |W| m, m bounding the
// true |x_j| on the node (max(u_{j-1}, 0), or the box), the slopes' and multipliers' rounding adds
// 3u (|Lambda'| + beta) max(|l|, |u|), the sums into C gamma_n their magnitudes. So a stopped optimization, at any
// parameters, still gives a valid bound. The nodes of a batch go through each layer together, their coefficients
// the rows of one matrix.
//
// The same bound over a truncated network bounds the pre-activations (alpha-CROWN's intermediate bounds): with
// the output layer replaced by hidden layer k and c = +-e_i, B is an upper bound of +-h_k[i] over the node, each
// row with its own slopes of layers < k. Layer by layer from the first, the unstable neurons' bounds are optimized
// with the layers before at their optimized bounds; tighter lines there make every later bound tighter.
#include "bounds/optimized_bounds.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <type_traits>

#include "bounds/round_off.h"

namespace reluopt {

namespace {

using Matrix = Eigen::MatrixXd;
using Params = std::vector<Matrix>;  // per hidden layer, one row per node

// A batch of few rows (a node's two children) goes through a dense W one matrix-vector product per row: Eigen's
// matrix product first copies W into its blocked layout, and with two rows that copy took as long as the
// multiplications (perf, bab on a 784 -> 4x256 -> 10 network: 45% of its time in gemm_pack_rhs).
constexpr Eigen::Index kRowwiseBelow = 8;

// X W (in double)
Matrix times(const Matrix& x, const Weights& w) {
  if (!w.is_dense() || x.rows() >= kRowwiseBelow) return x * w;
  Matrix out(x.rows(), w.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) out.row(r).noalias() = x.row(r) * w.dense();
  return out;
}

// The batch's relaxation of hidden layer j, one row per node.
struct LayerRelaxation {
  Matrix upper_slope, intercept, fixed_slope;  // fixed_slope: the stable neurons' exact slope (1 or 0)
  Matrix unstable, split_sign;                 // 1 where unstable; +1 split active, -1 split inactive, else 0
  Matrix magnitude;                            // max(|l|, |u|)
  Matrix reach;                                // |W_j| m_j + |b_j| per node, m_j bounding the true |x_j|
};

// What each row of a batch bounds: top_r^T x_depth + constant_r, x_depth the input of layer `depth` (the objective
// over the output layer's input, or +-h_k[i] over layer k's), with the magnitudes of the products that made them:
// the exact function differs from the computed one by at most gamma_n (reach_r^T |x_depth| + constant_reach_r).
struct Top {
  Matrix coefficient, reach;
  Eigen::VectorXd constant, constant_reach;
  double gamma = 0.0;  // gamma_n of those products
};

struct Pass {
  Eigen::VectorXd bound;
  std::vector<Matrix> coefficient;  // Lambda_j over x_{j+1}
  Matrix input, vertex;             // the input slopes and their box maximizers
  std::vector<Matrix> share;        // max(Lambda_j, 0) t (certified passes only)
};

template <typename S>
struct Steps;

class Batch {
 public:
  Batch(const Network& network, int depth, Top top, const std::vector<OptimizedNode>& nodes);

  Eigen::Index rows() const { return static_cast<Eigen::Index>(nodes_.size()); }
  bool empty(Eigen::Index r) const { return empty_[static_cast<std::size_t>(r)]; }
  int hidden() const { return depth_; }
  const LayerRelaxation& layer(int j) const { return layers_[static_cast<std::size_t>(j)]; }
  void start(Params& alpha, Params& beta) const;
  Pass backward(const Params& alpha, const Params& beta, bool certify) const;
  bool dense() const;
  template <typename S>
  void mirror(Steps<S>& steps) const;

 private:
  void add_layer(int j);
  Matrix lower_slope(int j, const Matrix& alpha) const {
    const LayerRelaxation& r = layer(j);
    return (r.unstable.array() > 0.0).select(alpha, r.fixed_slope);
  }
  void finish(Pass& pass, Eigen::VectorXd& c, Eigen::VectorXd* margin) const;

  const Network& network_;
  const int depth_;  // the hidden layers below the bounded function
  const std::vector<OptimizedNode>& nodes_;
  const Top top_;
  std::vector<LayerRelaxation> layers_;
  std::vector<bool> empty_;
  Matrix lo_, hi_;
};

Batch::Batch(const Network& network, int depth, Top top, const std::vector<OptimizedNode>& nodes)
    : network_(network), depth_(depth), nodes_(nodes), top_(std::move(top)), empty_(nodes.size(), false) {
  lo_.resize(rows(), network.input_dim());
  hi_.resize(rows(), network.input_dim());
  for (Eigen::Index r = 0; r < rows(); ++r) {
    lo_.row(r) = nodes[static_cast<std::size_t>(r)].lo->transpose();
    hi_.row(r) = nodes[static_cast<std::size_t>(r)].hi->transpose();
  }
  for (int j = 0; j < depth; ++j) add_layer(j);
}

// The lines of layer j per node, its splits applied to its bounds (a contradiction: the node is empty).
void Batch::add_layer(int j) {
  const auto n = static_cast<Eigen::Index>(network_.hidden_width(j));
  LayerRelaxation r;
  for (Matrix* m : {&r.upper_slope, &r.intercept, &r.fixed_slope, &r.unstable, &r.split_sign, &r.magnitude})
    m->setZero(rows(), n);
  Matrix input_magnitude(rows(), network_.hidden_layer(j).weights.cols());
  for (Eigen::Index row = 0; row < rows(); ++row) {
    const OptimizedNode& node = nodes_[static_cast<std::size_t>(row)];
    const Eigen::VectorXd m = j == 0 ? Eigen::VectorXd(node.lo->cwiseAbs().cwiseMax(node.hi->cwiseAbs()))
                                     : Eigen::VectorXd(node.bounds->upper[j - 1].cwiseMax(0.0));
    input_magnitude.row(row) = m.transpose();
    const bool has_splits = node.splits && !node.splits->empty();
    for (Eigen::Index i = 0; i < n; ++i) {
      double l = node.bounds->lower[j][i], u = node.bounds->upper[j][i];
      const Split s = has_splits ? (*node.splits)[j][static_cast<std::size_t>(i)] : Split::kFree;
      if (s == Split::kActive) l = std::max(l, 0.0);
      if (s == Split::kInactive) u = std::min(u, 0.0);
      if (l > u) empty_[static_cast<std::size_t>(row)] = true;
      r.split_sign(row, i) = s == Split::kActive ? 1.0 : s == Split::kInactive ? -1.0 : 0.0;
      r.magnitude(row, i) = std::max(std::abs(l), std::abs(u));
      if (l >= 0.0) {
        r.upper_slope(row, i) = r.fixed_slope(row, i) = 1.0;
      } else if (u > 0.0) {
        relu_upper_line(l, u, r.upper_slope(row, i), r.intercept(row, i));
        r.unstable(row, i) = 1.0;
      }
    }
  }
  const DenseLayer& layer = network_.hidden_layer(j);
  if (rows() >= kRowwiseBelow) {
    r.reach = input_magnitude * layer.weights.cwiseAbs().transpose();
  } else {  // without forming |W| for a pair of children
    r.reach.resize(rows(), n);
    for (Eigen::Index row = 0; row < rows(); ++row)
      r.reach.row(row) = layer.weights.abs_times(input_magnitude.row(row).transpose()).transpose();
  }
  r.reach.rowwise() += layer.bias.cwiseAbs().transpose();
  layers_.push_back(std::move(r));
}

// The start: the parent's parameters where given (and of the right shape), else CROWN's lower slopes (1 where
// u >= -l) and no multipliers.
void Batch::start(Params& alpha, Params& beta) const {
  alpha.clear();
  beta.clear();
  for (int j = 0; j < hidden(); ++j) {
    const auto n = static_cast<Eigen::Index>(network_.hidden_width(j));
    Matrix a = (layer(j).upper_slope.array() >= 0.5).cast<double>().matrix(), b = Matrix::Zero(rows(), n);
    for (Eigen::Index r = 0; r < rows(); ++r) {
      const Multipliers* given = nodes_[static_cast<std::size_t>(r)].start;
      if (!given || static_cast<int>(given->alpha.size()) != hidden() || given->alpha[j].size() != n) continue;
      a.row(r) = given->alpha[j].transpose().cwiseMax(0.0).cwiseMin(1.0);
      b.row(r) = given->beta[j].transpose().cwiseMax(0.0);
    }
    alpha.push_back(std::move(a));
    beta.push_back(std::move(b));
  }
}

// B(alpha, beta) per node; with `certify`, rounded outward (the margins of the file's comment).
Pass Batch::backward(const Params& alpha, const Params& beta, bool certify) const {
  Pass pass;
  pass.coefficient.resize(static_cast<std::size_t>(hidden()));
  if (certify) pass.share.resize(static_cast<std::size_t>(hidden()));
  Matrix lambda = top_.coefficient;
  Eigen::VectorXd c = top_.constant;
  Eigen::VectorXd margin;
  if (certify) {
    const double g = top_.gamma;
    margin = g * top_.constant_reach;
    for (Eigen::Index r = 0; r < rows(); ++r) {
      const OptimizedNode& node = nodes_[static_cast<std::size_t>(r)];
      const Eigen::VectorXd m = hidden() == 0 ? Eigen::VectorXd(node.lo->cwiseAbs().cwiseMax(node.hi->cwiseAbs()))
                                              : Eigen::VectorXd(node.bounds->upper[hidden() - 1].cwiseMax(0.0));
      margin[r] += g * top_.reach.row(r).dot(m);
    }
  }
  for (int j = hidden() - 1; j >= 0; --j) {
    const LayerRelaxation& r = layer(j);
    const DenseLayer& w = network_.hidden_layer(j);
    pass.coefficient[static_cast<std::size_t>(j)] = lambda;
    const Matrix positive = lambda.cwiseMax(0.0);
    const Matrix added_terms = positive.cwiseProduct(r.intercept);
    const Eigen::VectorXd added = added_terms.rowwise().sum();
    const Matrix next = positive.cwiseProduct(r.upper_slope) +
                        lambda.cwiseMin(0.0).cwiseProduct(lower_slope(j, alpha[static_cast<std::size_t>(j)])) +
                        beta[static_cast<std::size_t>(j)].cwiseProduct(r.split_sign);
    if (certify) {
      const double g = gamma(2 * lambda.cols() + 2);
      margin += 2.0 * g * (c.cwiseAbs() + added);
      margin += 3.0 * kUnitRoundoff *
                (next.cwiseAbs() + beta[static_cast<std::size_t>(j)]).cwiseProduct(r.magnitude).rowwise().sum();
      margin += g * next.cwiseAbs().cwiseProduct(r.reach).rowwise().sum();
      pass.share[static_cast<std::size_t>(j)] = added_terms;
    }
    c += added + next * w.bias;
    lambda = times(next, w.weights);
  }
  pass.input = std::move(lambda);
  finish(pass, c, certify ? &margin : nullptr);
  return pass;
}

// The maximum over each node's box of its linear function, and the vertex where it is reached.
void Batch::finish(Pass& pass, Eigen::VectorXd& c, Eigen::VectorXd* margin) const {
  const Matrix& lambda = pass.input;
  pass.vertex = (lambda.array() >= 0.0).select(hi_, lo_);
  pass.bound = lambda.cwiseProduct(pass.vertex).rowwise().sum() + c;
  if (!margin) return;
  const Matrix m = lo_.cwiseAbs().cwiseMax(hi_.cwiseAbs());
  *margin += gamma(lambda.cols() + 2) * (lambda.cwiseAbs().cwiseProduct(m).rowwise().sum() + c.cwiseAbs());
  for (Eigen::Index r = 0; r < rows(); ++r) pass.bound[r] = settle(pass.bound[r], (*margin)[r]);
}

// The batch's relaxation in scalar S for the projected gradient steps, whose passes only choose the parameters (the
// certified pass in double rounds the bound of the best ones outward): with every W dense, in float, whose
// matrix-vector products ran 2.2-2.5x as fast as double's (SSE2, 256 x 784, one core of the loaded machine).
template <typename S>
struct Steps {
  using M = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using V = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  struct Layer {
    M upper_slope, intercept, fixed_slope, unstable, split_sign;
    V bias;
    std::function<M(const M&)> times, times_transposed;  // X W_j and X W_j^T
  };
  M top, lo, hi;
  V constant;
  std::vector<Layer> layers;
};

// The pass of a step: the bound per node (not rounded outward), the coefficients Lambda_j and the box maximizers.
template <typename S>
struct StepPass {
  Eigen::VectorXd bound;
  std::vector<typename Steps<S>::M> coefficient;
  typename Steps<S>::M vertex;
};

template <typename S>
typename Steps<S>::M lower_slope(const typename Steps<S>::Layer& r, const Matrix& alpha) {
  return (r.unstable.array() > S(0)).select(alpha.cast<S>(), r.fixed_slope);
}

// B(alpha, beta) per node, as Batch::backward computes it but in S and without the margins.
template <typename S>
StepPass<S> step_pass(const Steps<S>& steps, const Params& alpha, const Params& beta) {
  using M = typename Steps<S>::M;
  StepPass<S> pass;
  pass.coefficient.resize(steps.layers.size());
  M lambda = steps.top;
  typename Steps<S>::V c = steps.constant;
  for (std::size_t j = steps.layers.size(); j-- > 0;) {
    const typename Steps<S>::Layer& r = steps.layers[j];
    pass.coefficient[j] = lambda;
    const M positive = lambda.cwiseMax(S(0));
    const M next = positive.cwiseProduct(r.upper_slope) + lambda.cwiseMin(S(0)).cwiseProduct(lower_slope<S>(r, alpha[j])) +
                   beta[j].cast<S>().cwiseProduct(r.split_sign);
    c += positive.cwiseProduct(r.intercept).rowwise().sum() + next * r.bias;
    lambda = r.times(next);
  }
  pass.vertex = (lambda.array() >= S(0)).select(steps.hi, steps.lo);
  pass.bound = (lambda.cwiseProduct(pass.vertex).rowwise().sum() + c).template cast<double>();
  return pass;
}

// dB/dalpha and dB/dbeta from the linear network of the lines in use, at each node's maximizing vertex.
template <typename S>
void step_gradients(const Steps<S>& steps, const StepPass<S>& pass, const Params& alpha, Params& alpha_grad,
                    Params& beta_grad) {
  using M = typename Steps<S>::M;
  M h = steps.layers[0].times_transposed(pass.vertex);
  h.rowwise() += steps.layers[0].bias.transpose();
  for (std::size_t j = 0; j < steps.layers.size(); ++j) {
    const typename Steps<S>::Layer& r = steps.layers[j];
    const M& lambda = pass.coefficient[j];
    alpha_grad[j] = lambda.cwiseMin(S(0)).cwiseProduct(r.unstable).cwiseProduct(h).template cast<double>();
    beta_grad[j] = r.split_sign.cwiseProduct(h).template cast<double>();
    if (j + 1 == steps.layers.size()) break;
    const M on_upper = r.upper_slope.cwiseProduct(h) + r.intercept;
    const M x = (lambda.array() >= S(0)).select(on_upper, lower_slope<S>(r, alpha[j]).cwiseProduct(h));
    h = steps.layers[j + 1].times_transposed(x);
    h.rowwise() += steps.layers[j + 1].bias.transpose();
  }
}

// X W one row at a time (so that each row's result is the same in any batch), W held in S (or its transpose).
template <typename S, typename W>
typename Steps<S>::M rowwise(const typename Steps<S>::M& x, const W& w) {
  typename Steps<S>::M out(x.rows(), w.cols());
  for (Eigen::Index r = 0; r < x.rows(); ++r) out.row(r).noalias() = x.row(r) * w;
  return out;
}

bool Batch::dense() const {
  for (int j = 0; j < hidden(); ++j)
    if (!network_.hidden_layer(j).weights.is_dense()) return false;
  return true;
}

// The relaxation in S; the products through the network's Weights in double, through a dense copy otherwise.
template <typename S>
void Batch::mirror(Steps<S>& steps) const {
  using M = typename Steps<S>::M;
  steps.top = top_.coefficient.cast<S>();
  steps.constant = top_.constant.cast<S>();
  steps.lo = lo_.cast<S>();
  steps.hi = hi_.cast<S>();
  steps.layers.resize(static_cast<std::size_t>(hidden()));
  for (int j = 0; j < hidden(); ++j) {
    const LayerRelaxation& r = layer(j);
    typename Steps<S>::Layer& m = steps.layers[static_cast<std::size_t>(j)];
    m.upper_slope = r.upper_slope.cast<S>();
    m.intercept = r.intercept.cast<S>();
    m.fixed_slope = r.fixed_slope.cast<S>();
    m.unstable = r.unstable.cast<S>();
    m.split_sign = r.split_sign.cast<S>();
    const DenseLayer& w = network_.hidden_layer(j);
    m.bias = w.bias.cast<S>();
    if constexpr (std::is_same_v<S, double>) {
      const Weights* weights = &w.weights;
      m.times = [weights](const M& x) { return times(x, *weights); };
      m.times_transposed = [weights](const M& x) -> M { return x * weights->transpose(); };
    } else {
      const auto copy = std::make_shared<const M>(w.weights.dense().cast<S>());
      m.times = [copy](const M& x) { return rowwise<S>(x, *copy); };
      m.times_transposed = [copy](const M& x) { return rowwise<S>(x, copy->transpose()); };
    }
  }
}

// Adam's state for one set of parameters (Kingma and Ba, ICLR 2015), moving only the rows still optimized.
struct Adam {
  Params first, second;
  void step(Params& value, const Params& grad, const std::vector<Eigen::VectorXd>& rate, int t,
            const Eigen::VectorXd& moving, double lowest, double highest) {
    constexpr double kB1 = 0.9, kB2 = 0.999;
    if (first.empty())
      for (const Matrix& g : grad) {
        first.push_back(Matrix::Zero(g.rows(), g.cols()));
        second.push_back(Matrix::Zero(g.rows(), g.cols()));
      }
    const double c1 = 1.0 - std::pow(kB1, t), c2 = 1.0 - std::pow(kB2, t);
    for (std::size_t j = 0; j < grad.size(); ++j) {
      first[j] = kB1 * first[j] + (1.0 - kB1) * grad[j];
      second[j] = kB2 * second[j] + (1.0 - kB2) * grad[j].cwiseAbs2();
      const Matrix step = (first[j] / c1).array() / ((second[j] / c2).array().sqrt() + 1e-12);
      value[j] -= (rate[j].cwiseProduct(moving)).asDiagonal() * step;
      value[j] = value[j].cwiseMax(lowest).cwiseMin(highest);
    }
  }
};

// Per layer and node, beta's step: beta_rate times the largest coefficient |Lambda_j| of the node's first pass
// (a multiplier of the size of the coefficients it trades against).
template <typename S>
std::vector<Eigen::VectorXd> beta_rates(const StepPass<S>& pass, double rate) {
  std::vector<Eigen::VectorXd> rates;
  for (const auto& lambda : pass.coefficient)
    rates.push_back(rate * lambda.cwiseAbs().rowwise().maxCoeff().template cast<double>().cwiseMax(1e-300));
  return rates;
}

OptimizedBound result_row(const Batch& batch, const Pass& pass, const Params& alpha, const Params& beta,
                          Eigen::Index r) {
  OptimizedBound out;
  if (batch.empty(r)) {
    out.upper = -kInfinity;
    return out;
  }
  out.upper = pass.bound[r];
  out.lambda = pass.input.row(r).transpose();
  out.vertex = pass.vertex.row(r).transpose();
  for (std::size_t j = 0; j < alpha.size(); ++j) {
    out.multipliers.alpha.push_back(alpha[j].row(r).transpose());
    out.multipliers.beta.push_back(beta[j].row(r).transpose());
    out.relaxation_share.push_back(pass.share[j].row(r).transpose());
  }
  return out;
}

// The best parameters found for each row of the batch, by projected gradient from its start, and their certified
// pass.
struct Optimum {
  Params alpha, beta;
  Pass certified;
};

template <typename S>
Optimum descend(const Batch& batch, const OptimizeSettings& settings, const Deadline* deadline) {
  Steps<S> steps;
  batch.mirror(steps);
  Params alpha, beta;
  batch.start(alpha, beta);
  Params best_alpha = alpha, best_beta = beta, alpha_grad = alpha, beta_grad = beta;
  Eigen::VectorXd best = Eigen::VectorXd::Constant(batch.rows(), kInfinity);
  Eigen::VectorXd moving = Eigen::VectorXd::Ones(batch.rows());
  std::vector<Eigen::VectorXd> alpha_rate(alpha.size(), Eigen::VectorXd::Constant(batch.rows(), settings.alpha_rate));
  std::vector<Eigen::VectorXd> beta_rate;
  Adam alpha_state, beta_state;
  for (int t = 0; t <= settings.iterations && batch.hidden() > 0; ++t) {
    const StepPass<S> pass = step_pass(steps, alpha, beta);
    for (Eigen::Index r = 0; r < batch.rows(); ++r) {
      if (!(pass.bound[r] < best[r])) continue;  // NaN never replaces a bound
      best[r] = pass.bound[r];
      for (std::size_t j = 0; j < alpha.size(); ++j) {
        best_alpha[j].row(r) = alpha[j].row(r);
        best_beta[j].row(r) = beta[j].row(r);
      }
    }
    for (Eigen::Index r = 0; r < batch.rows(); ++r)
      if (best[r] < settings.stop_below || batch.empty(r)) moving[r] = 0.0;
    if (t == settings.iterations || moving.isZero() || (deadline && deadline->expired())) break;
    if (t == 0) beta_rate = beta_rates(pass, settings.beta_rate);
    step_gradients(steps, pass, alpha, alpha_grad, beta_grad);
    alpha_state.step(alpha, alpha_grad, alpha_rate, t + 1, moving, 0.0, 1.0);
    beta_state.step(beta, beta_grad, beta_rate, t + 1, moving, 0.0, kInfinity);
  }
  Pass certified = batch.backward(best_alpha, best_beta, true);
  return {std::move(best_alpha), std::move(best_beta), std::move(certified)};
}

Optimum optimize(const Batch& batch, const OptimizeSettings& settings, const Deadline* deadline) {
  return batch.dense() ? descend<float>(batch, settings, deadline) : descend<double>(batch, settings, deadline);
}

}  // namespace

std::vector<OptimizedBound> optimized_bounds(const Network& network, const Eigen::VectorXd& output_weights,
                                             double constant, const std::vector<OptimizedNode>& nodes,
                                             const OptimizeSettings& settings, const Deadline* deadline) {
  if (nodes.empty()) return {};
  const DenseLayer& out = network.output_layer();
  const auto rows = static_cast<Eigen::Index>(nodes.size());
  Top top;
  top.coefficient = Matrix::Ones(rows, 1) * (output_weights.transpose() * out.weights);
  top.reach = Matrix::Ones(rows, 1) * (output_weights.cwiseAbs().transpose() * out.weights.cwiseAbs());
  top.constant = Eigen::VectorXd::Constant(rows, constant + output_weights.dot(out.bias));
  top.constant_reach =
      Eigen::VectorXd::Constant(rows, std::abs(constant) + output_weights.cwiseAbs().dot(out.bias.cwiseAbs()));
  top.gamma = gamma(std::max(out.weights.rows(), out.weights.cols()) + 2);
  const Batch batch(network, network.num_hidden_layers(), std::move(top), nodes);
  const Optimum best = optimize(batch, settings, deadline);
  std::vector<OptimizedBound> out_rows;
  for (Eigen::Index r = 0; r < batch.rows(); ++r)
    out_rows.push_back(result_row(batch, best.certified, best.alpha, best.beta, r));
  return out_rows;
}

namespace {

// Multiply-adds of one block of neurons in optimize_neuron_bounds between two looks at the deadline.
constexpr double kWorkPerBlock = 2e8;

// Tightens the bounds [l, u] of the neurons `unstable` of layer k by optimized back-substitution from layer k;
// true when they cross (the node is empty).
bool tighten_block(const Network& network, int k, const std::vector<Eigen::Index>& unstable,
                   const OptimizedNode& here, const OptimizeSettings& settings, const Deadline* deadline,
                   Eigen::VectorXd& l, Eigen::VectorXd& u) {
  const DenseLayer& layer = network.hidden_layer(k);
  const auto n = static_cast<Eigen::Index>(unstable.size());
  Top top;
  top.coefficient.resize(2 * n, layer.weights.cols());
  top.constant.resize(2 * n);
  for (Eigen::Index r = 0; r < n; ++r) {
    const Eigen::Index i = unstable[static_cast<std::size_t>(r)];
    top.coefficient.row(r) = layer.weights.row(i);
    top.coefficient.row(n + r) = -layer.weights.row(i);
    top.constant[r] = layer.bias[i];
    top.constant[n + r] = -layer.bias[i];
  }
  top.reach = top.coefficient.cwiseAbs();
  top.constant_reach = top.constant.cwiseAbs();
  top.gamma = gamma(2);  // the rows are W_k's own: only the sums of the back-substitution round
  const std::vector<OptimizedNode> rows(static_cast<std::size_t>(2 * n), here);
  const Batch batch(network, k, std::move(top), rows);
  if (batch.empty(0)) return true;
  OptimizeSettings layer_settings = settings;
  layer_settings.stop_below = 0.0;  // a side below zero makes the neuron stable: nothing more to gain
  const Optimum best = optimize(batch, layer_settings, deadline);
  for (Eigen::Index r = 0; r < n; ++r) {
    const Eigen::Index i = unstable[static_cast<std::size_t>(r)];
    u[i] = std::min(u[i], best.certified.bound[r]);
    l[i] = std::max(l[i], -best.certified.bound[n + r]);
  }
  return (l.array() > u.array()).any();
}

}  // namespace

bool optimize_neuron_bounds(const Network& network, const OptimizedNode& node, NeuronBounds& bounds,
                            const OptimizeSettings& settings, const Deadline* deadline) {
  OptimizedNode here = node;
  here.bounds = &bounds;
  here.start = nullptr;
  for (int k = 1; k < network.num_hidden_layers(); ++k) {
    if (deadline && deadline->expired()) break;
    Eigen::VectorXd& l = bounds.lower[static_cast<std::size_t>(k)];
    Eigen::VectorXd& u = bounds.upper[static_cast<std::size_t>(k)];
    const bool has_splits = node.splits && !node.splits->empty();
    std::vector<Eigen::Index> unstable;
    for (Eigen::Index i = 0; i < l.size(); ++i)
      if (l[i] < 0.0 && u[i] > 0.0 && !(has_splits && (*node.splits)[k][static_cast<std::size_t>(i)] != Split::kFree))
        unstable.push_back(i);
    // Blocks of neurons with a look at the deadline before each, each block's optimization within about
    // kWorkPerBlock multiply-adds (one pass takes W's stored entries per row and layer): 6000 unstable neurons of
    // an NN4Sys-size layer in one batch ran 10 s past the limit (bench/results/deadline_conv_sparse.md).
    double work_per_row = 0.0;
    for (int j = 0; j <= k; ++j) work_per_row += static_cast<double>(network.hidden_layer(j).weights.stored());
    work_per_row *= 2.0 * (settings.iterations + 2);
    const auto block = std::max<std::size_t>(1, static_cast<std::size_t>(kWorkPerBlock / work_per_row));
    for (std::size_t first = 0; first < unstable.size(); first += block) {
      if (deadline && deadline->expired()) return false;
      const auto end = static_cast<std::ptrdiff_t>(std::min(unstable.size(), first + block));
      const std::vector<Eigen::Index> some(unstable.begin() + static_cast<std::ptrdiff_t>(first), unstable.begin() + end);
      if (tighten_block(network, k, some, here, settings, deadline, l, u)) return true;
    }
  }
  return false;
}

}  // namespace reluopt
