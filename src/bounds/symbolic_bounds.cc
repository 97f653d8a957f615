// Linear bound propagation (DeepPoly: Singh et al., POPL 2019; CROWN: Zhang et al., NeurIPS 2018;
// docs/MATH.md §10). Network: x_0 = x in the box [lo, hi], h_j = W_j x_j + b_j, x_{j+1} = relu(h_j); the
// outputs y = W_K x_K + b_K. For a neuron with bounds l < 0 < u on h the triangle relaxation is
//     alpha h  <=  relu(h)  <=  a h + t,   a = u / (u - l),  t = max(-a l, u - a u) = -a l,  alpha in {0, 1},
// with alpha = 1 when u >= -l (CROWN's adaptive lower slope), 0 otherwise. Stable and split neurons are exact.
// An upper bound on Lambda h_k + c is found by back-substitution: h_j = W_j x_j + b_j is substituted exactly,
// x_j = relu(h_{j-1}) by the upper line where Lambda >= 0 and the lower line where Lambda < 0, down to the
// input, where max { lambda^T x : lo <= x <= hi } = sum_i max(lambda_i lo_i, lambda_i hi_i). Lower bounds are
// upper bounds of -Lambda. Layer k's bounds use those of layers < k.
//
// Round-off: a product of n terms computed in double precision is off by at most gamma_n sum |terms|,
// gamma_n = n u / (1 - n u), u = 2^-53 (Higham, Accuracy and Stability of Numerical Algorithms, §3.1). A
// coefficient row Lambda' = fl(Lambda W) differs from Lambda W by E with |E| <= gamma_n |Lambda| |W|, so
// Lambda W x = Lambda' x + E x with |E x| <= gamma_n |Lambda| (|W| m) where m bounds |x| componentwise. Each
// step adds such terms (and gamma_n |c| for the sums added to the running constant c) to a per-row error
// `margin`, which is added (with room for its own rounding) to the bound. The line's intercept t is computed as the maximum over the interval's endpoints of relu(h) - a h
// (a convex function, so the maximum on [l, u] is at an endpoint) and rounded up, so the line is valid for
// the slope a as computed.
#include "bounds/symbolic_bounds.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "bounds/round_off.h"

namespace reluopt {

namespace {

// Rounds of lower-slope improvement for the objective's bound (optimize_objective).
constexpr int kSlopeRounds = 4;

// Neurons whose bounds are back-substituted together between two looks at the deadline: at most
// kMaxRowsPerCheck, large enough for efficient matrix products, and no more than fit in kWorkPerCheck
// multiply-adds, so that a block takes well under a second also through the wide layers of a convolutional
// network (3600 x 3072 and 1152 x 3600 weights: 6 neurons a block; bench/results/conv_models.md).
constexpr std::size_t kMaxRowsPerCheck = 256;
constexpr double kWorkPerCheck = 2e8;
// A pair of rows whose back-substitution alone is more work than this (about a second) is not started: between two
// looks at the deadline it would run past a time limit (one row through a VGG16's convolutions is a forward pass,
// 15 G multiply-adds). The neurons keep their interval bounds.
constexpr double kMaxWorkPerBlock = 10 * kWorkPerCheck;

// The relaxation of x_{j+1} = relu(h_j) for every neuron of layer j.
struct ReluLines {
  Eigen::VectorXd upper_slope, upper_intercept, lower_slope;
  Eigen::VectorXd h_magnitude;  // max(|l|, |u|)
  // The neurons whose relaxation is not zero (the others, u <= 0, add nothing to a back-substitution: their
  // columns are left out of its products; on the 10 -> 2x100 -> 1 grid network about 40% of a box's first layer).
  std::vector<Eigen::Index> live;
};

ReluLines relu_lines(const Eigen::VectorXd& l, const Eigen::VectorXd& u) {
  const Eigen::Index n = l.size();
  ReluLines r{Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n), Eigen::VectorXd::Zero(n),
              l.cwiseAbs().cwiseMax(u.cwiseAbs()), {}};
  for (Eigen::Index i = 0; i < n; ++i) {
    if (l[i] >= 0.0) {
      r.upper_slope[i] = r.lower_slope[i] = 1.0;
    } else if (u[i] > 0.0) {
      relu_upper_line(l[i], u[i], r.upper_slope[i], r.upper_intercept[i]);
      r.lower_slope[i] = u[i] >= -l[i] ? 1.0 : 0.0;
    }
    if (u[i] > 0.0) r.live.push_back(i);
  }
  return r;
}

// What the objective's back-substitution leaves per hidden layer j: its coefficients over x_{j+1} and the
// intercept each unstable neuron's upper line adds to the bound.
struct ObjectiveTrace {
  std::vector<Eigen::VectorXd> coefficient, share;
};

// What back-substitution needs of layer j: W_j, b_j, and |W_j| m_j + |b_j| with m_j bounding |x_j|.
struct LayerTerms {
  const DenseLayer* layer;
  Eigen::VectorXd abs_reach;
};

class BackSubstitution {
 public:
  BackSubstitution(const Network& network, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi)
      : network_(network), lo_(lo), hi_(hi) {}

  // Adds hidden layer k (or the output layer, k = K) once the bounds on its inputs are known, with
  // abs_reach = |W_k| m_k + |b_k|.
  void add_layer_terms(int k, Eigen::VectorXd abs_reach) {
    terms_.push_back({&network_.layers()[k], std::move(abs_reach)});
  }
  void add_relu_lines(ReluLines lines) { lines_.push_back(std::move(lines)); }
  // Multiply-adds per row of Lambda to back-substitute from layer k to the input.
  double work_per_row(int k) const {
    double work = 0.0;
    for (int j = 0; j <= k; ++j) work += static_cast<double>(terms_[j].layer->weights.stored());
    return work;
  }
  ReluLines& lines(int j) { return lines_[j]; }

  // Upper bounds of the rows of Lambda h_k + c over the box, through layers k, k-1, ..., 0. With `trace` (a
  // single row), per hidden layer j the row's coefficients over x_{j+1} and the intercept each unstable
  // neuron's upper line adds.
  Eigen::VectorXd upper(Eigen::MatrixXd lambda, Eigen::VectorXd c, int k, Eigen::MatrixXd* input_lambda,
                        ObjectiveTrace* trace) const {
    Eigen::VectorXd margin = Eigen::VectorXd::Zero(lambda.rows());
    affine_step(k, lambda, c, margin);
    return substitute(std::move(lambda), std::move(c), std::move(margin), k, input_lambda, trace);
  }

  // Upper bounds of sign_r h_k[neuron_r] for each row r. The first step, over a unit row e_j, is taken as
  // W_k's row j and b_j themselves (exact: the product's other terms are zeros), with the margin the product
  // would carry: the same bounds as upper() at a fraction of its work (a dense product of the unit rows with
  // W_k is most of a propagation's time through two layers of 100).
  Eigen::VectorXd upper_of_neurons(const std::vector<Eigen::Index>& neuron, const std::vector<double>& sign,
                                   int k) const {
    const LayerTerms& t = terms_[k];
    const auto rows = static_cast<Eigen::Index>(neuron.size());
    Eigen::MatrixXd lambda(rows, t.layer->weights.cols());
    Eigen::VectorXd c(rows), margin(rows);
    const double g = gamma(t.layer->weights.rows() + 1);
    for (Eigen::Index r = 0; r < rows; ++r) {
      const double s = sign[static_cast<std::size_t>(r)];
      const Eigen::Index j = neuron[static_cast<std::size_t>(r)];
      c[r] = s * t.layer->bias[j];
      margin[r] = g * t.abs_reach[j];
    }
    if (!t.layer->weights.is_dense()) {
      for (Eigen::Index r = 0; r < rows; ++r) {
        const double s = sign[static_cast<std::size_t>(r)];
        lambda.row(r).setZero();
        t.layer->weights.for_each_in_row(neuron[static_cast<std::size_t>(r)],
                                         [&](Eigen::Index i, double w) { lambda(r, i) = s * w; });
      }
    } else {
      // Column by column, and only the columns of layer k - 1's live neurons: the next step reads no other.
      const Eigen::MatrixXd& W = t.layer->weights.dense();
      for (Eigen::Index i : lines_[k - 1].live)
        for (Eigen::Index r = 0; r < rows; ++r)
          lambda(r, i) = sign[static_cast<std::size_t>(r)] * W(neuron[static_cast<std::size_t>(r)], i);
    }
    return substitute(std::move(lambda), std::move(c), std::move(margin), k, nullptr, nullptr);
  }

 private:
  // Lambda over h_j becomes Lambda W_j over x_j, the bias going into c.
  void affine_step(int j, Eigen::MatrixXd& lambda, Eigen::VectorXd& c, Eigen::VectorXd& margin) const {
    const LayerTerms& t = terms_[j];
    margin += gamma(lambda.cols() + 1) * (lambda.cwiseAbs() * t.abs_reach + c.cwiseAbs());
    c += lambda * t.layer->bias;
    lambda = lambda * t.layer->weights;
  }

  // The rest of upper() from Lambda over x_k (layer k's affine step taken) down to the input.
  Eigen::VectorXd substitute(Eigen::MatrixXd lambda, Eigen::VectorXd c, Eigen::VectorXd margin, int k,
                             Eigen::MatrixXd* input_lambda, ObjectiveTrace* trace) const {
    for (int j = k; j > 0; --j) {
      if (trace) {
        relu_step(j - 1, lambda, c, margin, trace);
        affine_step(j - 1, lambda, c, margin);
      } else {
        relu_affine_step(j - 1, lambda, c, margin);
      }
    }
    // max over the box of each row of Lambda x + c, column by column, with the round-off of its n + 1 terms.
    Eigen::VectorXd bound, reach;
    interval_step(lambda, c, lo_, hi_, nullptr, &bound, &reach);
    margin += gamma(lambda.cols() + 1) * reach;
    for (Eigen::Index r = 0; r < bound.size(); ++r) bound[r] = settle(bound[r], margin[r]);
    if (input_lambda) *input_lambda = std::move(lambda);
    return bound;
  }

  // Lambda over x_{j+1} = relu(h_j) becomes Lambda' over h_j, the intercepts going into c.
  void relu_step(int j, Eigen::MatrixXd& lambda, Eigen::VectorXd& c, Eigen::VectorXd& margin,
                 ObjectiveTrace* trace) const {
    const ReluLines& r = lines_[j];
    const Eigen::MatrixXd positive = lambda.cwiseMax(0.0);
    const Eigen::VectorXd added = positive * r.upper_intercept;
    if (trace) {
      trace->coefficient[j] = lambda.row(0).transpose();
      trace->share[j] = positive.row(0).transpose().cwiseProduct(r.upper_intercept);
    }
    margin += gamma(lambda.cols() + 1) * (added.cwiseAbs() + c.cwiseAbs());
    c += added;
    lambda = positive * r.upper_slope.asDiagonal() + lambda.cwiseMin(0.0) * r.lower_slope.asDiagonal();
    margin += 2.0 * kUnitRoundoff * (lambda.cwiseAbs() * r.h_magnitude);
  }

  // relu_step then affine_step in one pass over Lambda (no trace): each column's lines, and the intercepts and
  // the bias going into c as they are met. Per row, c becomes a sum of 2n + 1 terms (c, the intercepts added and
  // Lambda'_i b_i), off by at most gamma_{2n+1} times the sum of their magnitudes; the product Lambda' W by
  // gamma_{n+1} |Lambda'| |W| m as in affine_step (abs_reach = |W| m + |b| covers both with gamma_{2n+1}); the
  // slopes' rounding by 2u |Lambda'| max(|l|, |u|) as in relu_step.
  // Only the live neurons' columns are read (a dead one's lines are zero: it adds nothing to c, the margin or the
  // product); with dense weights the product runs over them alone, with W_j's rows gathered once (live_rows).
  void relu_affine_step(int j, Eigen::MatrixXd& lambda, Eigen::VectorXd& c, Eigen::VectorXd& margin) const {
    const ReluLines& r = lines_[j];
    const LayerTerms& t = terms_[j];
    const Eigen::Index n = lambda.cols();
    const double g = gamma(2 * n + 1);
    const bool compact = t.layer->weights.is_dense();
    margin += g * c.cwiseAbs();
    Eigen::ArrayXd added(lambda.rows()), w(lambda.rows());
    // Lambda' over h_j is written in place: with dense weights, the live columns packed to the left (a live
    // neuron's column m <= i is written after column i is read); otherwise every column, the dead ones zero.
    std::size_t next = 0;
    for (Eigen::Index i = 0; i < n; ++i) {
      const bool live = next < r.live.size() && r.live[next] == i;
      if (!live) {
        if (!compact) lambda.col(i).setZero();
        continue;
      }
      const double up = r.upper_slope[i], low = r.lower_slope[i], t_i = r.upper_intercept[i];
      const double b_i = t.layer->bias[i];
      const double weight = g * t.abs_reach[i] + 2.0 * kUnitRoundoff * r.h_magnitude[i];
      added = lambda.col(i).array().max(0.0) * t_i;
      w = lambda.col(i).array().max(0.0) * up + lambda.col(i).array().min(0.0) * low;
      lambda.col(compact ? static_cast<Eigen::Index>(next) : i) = w.matrix();
      c.array() += added + w * b_i;
      margin.array() += g * added + w.abs() * weight;
      ++next;
    }
    if (compact)
      lambda = lambda.leftCols(static_cast<Eigen::Index>(r.live.size())) * live_rows(j);
    else
      lambda = lambda * t.layer->weights;
  }

  // W_j's rows of layer j's live neurons (dense W_j), gathered on first use.
  const Eigen::MatrixXd& live_rows(int j) const {
    if (live_rows_.size() <= static_cast<std::size_t>(j)) live_rows_.resize(static_cast<std::size_t>(j) + 1);
    Eigen::MatrixXd& rows = live_rows_[static_cast<std::size_t>(j)];
    if (rows.size() == 0) rows = terms_[j].layer->weights.dense()(lines_[j].live, Eigen::all);
    return rows;
  }

  const Network& network_;
  const Eigen::VectorXd& lo_;
  const Eigen::VectorXd& hi_;
  std::vector<LayerTerms> terms_;
  std::vector<ReluLines> lines_;
  mutable std::vector<Eigen::MatrixXd> live_rows_;
};

// Applies the splits of one layer to its bounds; false when a split contradicts them.
bool apply_splits(const std::vector<Split>* splits, Eigen::VectorXd& l, Eigen::VectorXd& u) {
  if (!splits) return true;
  for (Eigen::Index i = 0; i < l.size(); ++i) {
    const Split s = (*splits)[static_cast<std::size_t>(i)];
    if (s == Split::kActive) {
      if (u[i] < 0.0) return false;
      l[i] = std::max(l[i], 0.0);
    } else if (s == Split::kInactive) {
      if (l[i] > 0.0) return false;
      u[i] = std::min(u[i], 0.0);
    }
  }
  return true;
}

// Tightens the unstable neurons of layer k by back-substitution (the others are exact in any relaxation).
// Blocks of neurons (two rows of Lambda each), with a look at the deadline before each.
// Neurons where `skip` (may be null) is set keep the bounds they have.
void tighten(const BackSubstitution& back, int k, Eigen::VectorXd& l, Eigen::VectorXd& u, const Deadline* deadline,
             const std::vector<bool>* skip) {
  std::vector<Eigen::Index> unstable;
  for (Eigen::Index i = 0; i < l.size(); ++i)
    if (l[i] < 0.0 && u[i] > 0.0 && !(skip && (*skip)[static_cast<std::size_t>(i)])) unstable.push_back(i);
  if (2.0 * back.work_per_row(k) > kMaxWorkPerBlock) return;
  const auto fitting = static_cast<std::size_t>(kWorkPerCheck / (2.0 * back.work_per_row(k)));
  const std::size_t block = std::clamp<std::size_t>(fitting, 1, kMaxRowsPerCheck);
  for (std::size_t first = 0; first < unstable.size(); first += block) {
    if (deadline && deadline->expired()) return;
    const std::size_t last = std::min(unstable.size(), first + block);
    const Eigen::Index r = static_cast<Eigen::Index>(last - first);
    std::vector<Eigen::Index> neuron(unstable.begin() + first, unstable.begin() + last);
    neuron.insert(neuron.end(), unstable.begin() + first, unstable.begin() + last);
    std::vector<double> sign(2 * last - 2 * first, 1.0);
    std::fill(sign.begin() + r, sign.end(), -1.0);
    const Eigen::VectorXd bound = back.upper_of_neurons(neuron, sign, k);
    for (Eigen::Index n = 0; n < r; ++n) {
      const Eigen::Index j = unstable[first + n];
      u[j] = std::min(u[j], bound[n]);
      l[j] = std::max(l[j], -bound[r + n]);
    }
  }
}

// The objective's bound with the lower slopes improved (alpha-CROWN's idea, Xu et al., ICLR 2021, by coordinate
// steps instead of gradients). With the maximizing vertex x* fixed, the bound is the value at x* of the network
// whose ReLUs are replaced by the lines used, and it depends on a lower slope alpha_i (a neuron whose coefficient
// Lambda_i over x_{j+1} is negative) through Lambda_i alpha_i h^_i, h^_i its pre-activation in that linear network:
// alpha_i = 1 where h^_i > 0 and 0 where h^_i <= 0 minimizes each term. Each round takes those slopes, back-
// substitutes again and keeps the new bound when it is lower; any alpha in [0, 1] gives a valid bound.
// The rounds stop at the deadline: the bound of any round is valid.
void optimize_objective(const Network& network, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                        const Eigen::VectorXd& output_weights, double constant, BackSubstitution& back,
                        PropagatedObjective& objective, const Deadline* deadline) {
  const int hidden = network.num_hidden_layers();
  auto pass = [&](PropagatedObjective& out, ObjectiveTrace& trace) {
    trace.coefficient.assign(static_cast<std::size_t>(hidden), Eigen::VectorXd());
    trace.share.assign(static_cast<std::size_t>(hidden), Eigen::VectorXd());
    Eigen::MatrixXd input_lambda;
    const Eigen::VectorXd bound = back.upper(output_weights.transpose(), Eigen::VectorXd::Constant(1, constant),
                                             hidden, &input_lambda, &trace);
    out.upper = bound[0];
    out.lambda = input_lambda.row(0).transpose();
    // The constant of the linear upper function: its maximum over the box minus the maximum of lambda^T x,
    // rounded up (the difference of a bound and a sum of d products).
    out.constant = upper_function_constant(bound[0], out.lambda, lo, hi);
    out.relaxation_share = trace.share;
  };
  ObjectiveTrace trace;
  pass(objective, trace);
  for (int round = 0; round < kSlopeRounds && !(deadline && deadline->expired()); ++round) {
    // The linear network of the lines in use, at the maximizing vertex.
    Eigen::VectorXd x = best_vertex(objective.lambda, lo, hi);
    std::vector<std::pair<std::pair<int, Eigen::Index>, double>> old_slopes;
    for (int j = 0; j < hidden; ++j) {
      const Eigen::VectorXd h = network.hidden_layer(j).weights * x + network.hidden_layer(j).bias;
      ReluLines& r = back.lines(j);
      const Eigen::VectorXd& coefficient = trace.coefficient[static_cast<std::size_t>(j)];
      x.resize(h.size());
      for (Eigen::Index i = 0; i < h.size(); ++i) {
        const bool upper_line = coefficient[i] >= 0.0;
        x[i] = upper_line ? r.upper_slope[i] * h[i] + r.upper_intercept[i] : r.lower_slope[i] * h[i];
        const bool unstable = r.upper_intercept[i] > 0.0;
        const double best = h[i] > 0.0 ? 1.0 : 0.0;
        if (unstable && !upper_line && r.lower_slope[i] != best) {
          old_slopes.push_back({{j, i}, r.lower_slope[i]});
          r.lower_slope[i] = best;
        }
      }
    }
    if (old_slopes.empty()) return;
    PropagatedObjective candidate;
    ObjectiveTrace candidate_trace;
    pass(candidate, candidate_trace);
    if (!(candidate.upper < objective.upper)) {
      for (const auto& [where, slope] : old_slopes) back.lines(where.first).lower_slope[where.second] = slope;
      return;
    }
    objective = std::move(candidate);
    trace = std::move(candidate_trace);
  }
}

}  // namespace

// Each bound is a sum of 2n + 1 terms (n inputs), off by at most gamma_{2n+1} abs_reach: its round-off margin.
void interval_layer(const DenseLayer& layer, const Eigen::VectorXd& in_lo, const Eigen::VectorXd& in_hi,
                    Eigen::VectorXd& l, Eigen::VectorXd& u, Eigen::VectorXd& abs_reach) {
  interval_step(layer.weights, layer.bias, in_lo, in_hi, &l, &u, &abs_reach);
  const Eigen::VectorXd margin = gamma(2 * layer.weights.cols() + 1) * abs_reach;
  for (Eigen::Index i = 0; i < l.size(); ++i) {
    l[i] = -settle(-l[i], margin[i]);
    u[i] = settle(u[i], margin[i]);
  }
}

// The last hidden layer's neurons on which the objective c^T y is concave: c^T W_K e_j <= 0 (docs/MATH.md §10).
std::vector<bool> concave_last_layer(const Network& network, const Eigen::VectorXd& output_weights) {
  const Eigen::VectorXd c = network.output_layer().weights.transpose() * output_weights;
  std::vector<bool> concave(static_cast<std::size_t>(c.size()));
  for (Eigen::Index j = 0; j < c.size(); ++j) concave[static_cast<std::size_t>(j)] = c[j] <= 0.0;
  return concave;
}

Propagation propagate(const Network& network, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                      const Eigen::VectorXd& output_weights, double constant, const SplitState& splits,
                      const NeuronBounds* prior, const Deadline* deadline, bool objective_only) {
  Propagation result;
  const bool skip_concave = objective_only && output_weights.size() > 0 && network.num_hidden_layers() > 0;
  const std::vector<bool> concave = skip_concave ? concave_last_layer(network, output_weights) : std::vector<bool>{};
  BackSubstitution back(network, lo, hi);
  Eigen::VectorXd in_lo = lo, in_hi = hi;
  const int hidden = network.num_hidden_layers();
  for (int k = 0; k <= hidden; ++k) {
    if (k == hidden) {
      const DenseLayer& out = network.output_layer();
      back.add_layer_terms(k, out.weights.abs_times(in_lo.cwiseAbs().cwiseMax(in_hi.cwiseAbs())) + out.bias.cwiseAbs());
      break;
    }
    Eigen::VectorXd l, u, abs_reach;
    if (prior && k > 0) {
      // Past the first layer a prior takes the interval bounds' place (only |W| m + |b| is needed, for the
      // margins): the prior's bounds come from back-substitution over a box that contains this one, and the
      // interval bounds were never tighter (0 of 10^6 bounds of bab's children at depth 15 on the 10 -> 2x100 -> 1
      // grid network), while computing them was an eighth of bab's time there (bench/results/crown_bench6.md).
      interval_step(network.hidden_layer(k).weights, network.hidden_layer(k).bias, in_lo, in_hi, nullptr, nullptr,
                    &abs_reach);
      l = prior->lower[k];
      u = prior->upper[k];
    } else {
      interval_layer(network.hidden_layer(k), in_lo, in_hi, l, u, abs_reach);
      if (prior) {
        l = l.cwiseMax(prior->lower[k]);
        u = u.cwiseMin(prior->upper[k]);
      }
    }
    back.add_layer_terms(k, std::move(abs_reach));
    const std::vector<Split>* layer_splits = splits.empty() ? nullptr : &splits[k];
    if (!apply_splits(layer_splits, l, u)) {
      result.empty = true;
      return result;
    }
    if (k > 0) tighten(back, k, l, u, deadline, skip_concave && k == hidden - 1 ? &concave : nullptr);
    if (!apply_splits(layer_splits, l, u) || (l.array() > u.array()).any()) {
      result.empty = true;
      return result;
    }
    back.add_relu_lines(relu_lines(l, u));
    in_lo = l.cwiseMax(0.0);
    in_hi = u.cwiseMax(0.0);
    result.bounds.lower.push_back(std::move(l));
    result.bounds.upper.push_back(std::move(u));
  }
  if (output_weights.size() == 0) return result;
  optimize_objective(network, lo, hi, output_weights, constant, back, result.objective, deadline);
  return result;
}

void relu_upper_line(double l, double u, double& a, double& t) {
  a = u / (u - l);
  t = step_up(std::max(-a * l, u - a * u) * (1.0 + 4.0 * kUnitRoundoff));
}

double upper_function_constant(double upper, const Eigen::VectorXd& lambda, const Eigen::VectorXd& lo,
                               const Eigen::VectorXd& hi) {
  const Eigen::VectorXd x = best_vertex(lambda, lo, hi);
  const double top = lambda.dot(x);
  return settle(upper - top, gamma(lambda.size() + 2) * (lambda.cwiseAbs().dot(x.cwiseAbs()) + std::abs(upper)));
}

Eigen::VectorXd best_vertex(const Eigen::VectorXd& lambda, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi) {
  return lambda.binaryExpr(hi, [](double l, double h) { return l >= 0.0 ? h : 0.0; }) +
         lambda.binaryExpr(lo, [](double l, double v) { return l < 0.0 ? v : 0.0; });
}

NeuronBounds symbolic_bounds(const Network& network, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                             const Deadline* deadline) {
  return propagate(network, lo, hi, Eigen::VectorXd(), 0.0, SplitState{}, nullptr, deadline).bounds;
}

OutputRange output_range(const Network& network, const Eigen::VectorXd& lo, const Eigen::VectorXd& hi,
                         const Deadline* deadline) {
  Eigen::VectorXd z_lo = lo, z_hi = hi;
  const int hidden = network.num_hidden_layers();
  if (hidden > 0) {
    const NeuronBounds bounds = symbolic_bounds(network, lo, hi, deadline);
    if (static_cast<int>(bounds.upper.size()) != hidden) {
      const Eigen::Index m = network.output_dim();
      return {Eigen::VectorXd::Constant(m, -kInfinity), Eigen::VectorXd::Constant(m, kInfinity)};
    }
    z_lo = bounds.lower.back().cwiseMax(0.0);
    z_hi = bounds.upper.back().cwiseMax(0.0);
  }
  OutputRange range;
  Eigen::VectorXd reach;
  interval_layer(network.output_layer(), z_lo, z_hi, range.lower, range.upper, reach);
  return range;
}

}  // namespace reluopt
