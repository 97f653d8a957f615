// The first layer's pre-activation bounds under ReLU splits (docs/MATH.md §10, "first-layer bounds under
// splits"; the intermediate-bound tightening of beta-CROWN, Wang et al., NeurIPS 2021, done here exactly by
// LPs). A split of a first-layer
// neuron i is a half-space in the input, s_i (w_i^T x + b_i) >= 0 with s_i = +1 (active) or -1 (inactive), so
// a node's inputs range over Q = { x in [lo, hi], A x <= b, the split half-spaces }, and
//     u_j = max { w_j^T x + b_j : x in Q },   l_j = min { w_j^T x + b_j : x in Q }
// are LPs in d columns. Over the box alone they are interval arithmetic (which propagation already does); under
// the splits they shrink as the node gets deeper, and every triangle relaxation built on them (propagation's,
// the node LP's) with them. For a network of one hidden layer the first layer is every layer. Validity: each
// bound is LpSolver::maximize's weak-duality bound from the solver's duals, valid whatever its tolerances.
#include "bounds/split_bounds.h"

#include <algorithm>
#include <cmath>

#include "lp/domain_rows.h"

namespace reluopt {

int first_layer_splits(const SplitState& splits) {
  if (splits.empty()) return 0;
  return static_cast<int>(std::count_if(splits[0].begin(), splits[0].end(),
                                        [](Split s) { return s != Split::kFree; }));
}

namespace {

// Q as a model: columns x, the domain's rows, one row per split of layer 0.
LinearModel split_polyhedron(const DenseLayer& layer, const Domain& domain, const Eigen::VectorXd& lo,
                             const Eigen::VectorXd& hi, const std::vector<Split>& splits) {
  LinearModel model;
  std::vector<int> columns;
  for (Eigen::Index i = 0; i < lo.size(); ++i) columns.push_back(model.add_column(lo[i], hi[i]));
  add_domain_rows(domain, model);
  for (std::size_t j = 0; j < splits.size(); ++j) {
    if (splits[j] == Split::kFree) continue;
    const Eigen::Index n = static_cast<Eigen::Index>(j);
    std::vector<double> row(static_cast<std::size_t>(lo.size()));
    for (Eigen::Index i = 0; i < lo.size(); ++i) row[static_cast<std::size_t>(i)] = layer.weights(n, i);
    if (splits[j] == Split::kActive)
      model.add_row(columns, row, -layer.bias[n], kInfinity);
    else
      model.add_row(columns, row, -kInfinity, -layer.bias[n]);
  }
  return model;
}


// `basis`, a basis of an ancestor's Q (whose split rows `from` lists), on this node's Q, whose split rows are
// `split_rows`: the columns and the domain's rows as they were, each split row with the ancestor's status of the
// same neuron's row, or its slack basic when the ancestor had none.
LpBasis start_basis(const LpBasis& basis, const FirstLayerBases& from, const std::vector<int>& split_rows,
                    int domain_rows, int width) {
  std::vector<int> row_of(static_cast<std::size_t>(width), -1);
  for (std::size_t r = 0; r < from.split_rows.size(); ++r) row_of[from.split_rows[r]] = domain_rows + static_cast<int>(r);
  LpBasis start;
  start.cols = basis.cols;
  start.rows.assign(basis.rows.begin(), basis.rows.begin() + domain_rows);
  for (int j : split_rows) start.rows.push_back(row_of[j] < 0 ? BasisStatus::kBasic : basis.rows[row_of[j]]);
  return start;
}

constexpr double kMaxKeptPointEntries = 1e4;

// Whether x lies in Q = {lo <= x <= hi, A x <= b, the split half-spaces}, each to 1e-9 of its scale.
bool in_polyhedron(const std::vector<double>& x, const DenseLayer& layer, const Domain& domain,
                   const Eigen::VectorXd& lo, const Eigen::VectorXd& hi, const std::vector<Split>& splits) {
  const Eigen::Map<const Eigen::VectorXd> v(x.data(), static_cast<Eigen::Index>(x.size()));
  if (v.size() != lo.size()) return false;
  constexpr double kTol = 1e-9;
  for (Eigen::Index i = 0; i < v.size(); ++i)
    if (v[i] < lo[i] - kTol * (1.0 + std::abs(lo[i])) || v[i] > hi[i] + kTol * (1.0 + std::abs(hi[i]))) return false;
  if (domain.has_rows() && (domain.A * v - domain.b).maxCoeff() > kTol * (1.0 + domain.b.cwiseAbs().maxCoeff()))
    return false;
  for (std::size_t j = 0; j < splits.size(); ++j) {
    if (splits[j] == Split::kFree) continue;
    const Eigen::Index n = static_cast<Eigen::Index>(j);
    double h = layer.bias[n], reach = std::abs(layer.bias[n]);  // a sparse row visits its nonzeros only
    layer.weights.for_each_in_row(n, [&](Eigen::Index i, double w) {
      h += w * v[i];
      reach += std::abs(w * v[i]);
    });
    const double scale = kTol * (1.0 + reach);
    if (splits[j] == Split::kActive ? h < -scale : h > scale) return false;
  }
  return true;
}

}  // namespace

void tighten_first_layer(const Network& network, const Domain& domain, const Eigen::VectorXd& lo,
                         const Eigen::VectorXd& hi, const SplitState& splits,
                         const std::vector<std::uint8_t>* skip, NeuronBounds& bounds, LpSolver& lp,
                         const Deadline& deadline, long* lps, const FirstLayerBases* from,
                         FirstLayerBases* bases) {
  if (first_layer_splits(splits) == 0 && !domain.has_rows()) return;  // interval arithmetic is exact on a box
  const DenseLayer& layer = network.hidden_layer(0);
  const int width = static_cast<int>(layer.bias.size());
  std::vector<int> split_rows;
  for (int j = 0; j < width && !splits.empty(); ++j)
    if (splits[0][static_cast<std::size_t>(j)] != Split::kFree) split_rows.push_back(j);
  lp.load(split_polyhedron(layer, domain, lo, hi, splits.empty() ? std::vector<Split>() : splits[0]));
  if (bases != nullptr) {
    bases->split_rows = split_rows;
    bases->upper.assign(static_cast<std::size_t>(width), LpBasis{});
    bases->lower.assign(static_cast<std::size_t>(width), LpBasis{});
    bases->upper_x.assign(static_cast<std::size_t>(width), {});
    bases->lower_x.assign(static_cast<std::size_t>(width), {});
  }
  // The optimal points cost 2 d doubles per neuron and node, kept while the node's children are open: only
  // for inputs of at most kMaxKeptPointEntries / width coordinates (d <= 100 at width 100: 160 kB a node).
  const bool keep_points = static_cast<double>(lo.size()) * width <= kMaxKeptPointEntries;
  const std::vector<Split> no_splits;
  const std::vector<Split>& first = splits.empty() ? no_splits : splits[0];
  std::vector<double> objective(static_cast<std::size_t>(lo.size()));
  // The bound of sign * h_j over Q; +infinity when the LP gives none.
  auto extreme = [&](Eigen::Index j, double sign) {
    for (Eigen::Index i = 0; i < lo.size(); ++i) objective[static_cast<std::size_t>(i)] = sign * layer.weights(j, i);
    const std::size_t n = static_cast<std::size_t>(j);
    const LpBasis* ancestor = from == nullptr ? nullptr : sign > 0 ? &from->upper[n] : &from->lower[n];
    const std::vector<double>* witness = from == nullptr ? nullptr : sign > 0 ? &from->upper_x[n] : &from->lower_x[n];
    LpBasis start;
    if (ancestor != nullptr && !ancestor->empty())
      start = start_basis(*ancestor, *from, split_rows, domain.num_rows(), width);
    LpBasis* end = bases == nullptr ? nullptr : sign > 0 ? &bases->upper[n] : &bases->lower[n];
    std::vector<double>* point =
        bases == nullptr || !keep_points ? nullptr : sign > 0 ? &bases->upper_x[n] : &bases->lower_x[n];
    if (!start.empty() && witness != nullptr && in_polyhedron(*witness, layer, domain, lo, hi, first)) {
      if (end != nullptr) *end = std::move(start);
      if (point != nullptr) *point = *witness;
      return kInfinity;  // the ancestor's optimum is this LP's: the bound in `bounds` stands
    }
    if (lps) ++*lps;
    const LpBound r = lp.maximize_from(objective, sign * layer.bias[j], start.empty() ? nullptr : &start,
                                       deadline.remaining(), end, point);
    return r.status == LpStatus::kOptimal ? r.bound : kInfinity;
  };
  Eigen::VectorXd& l = bounds.lower[0];
  Eigen::VectorXd& u = bounds.upper[0];
  for (Eigen::Index j = 0; j < l.size() && !deadline.expired(); ++j) {
    const bool split = !splits.empty() && splits[0][static_cast<std::size_t>(j)] != Split::kFree;
    if (split || !(l[j] < 0.0 && u[j] > 0.0) || (skip && (*skip)[static_cast<std::size_t>(j)])) continue;
    u[j] = std::min(u[j], extreme(j, 1.0));
    if (u[j] > 0.0) l[j] = std::max(l[j], -extreme(j, -1.0));
  }
}

}  // namespace reluopt
