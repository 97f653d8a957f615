// The piecewise-linear operators of the ONNX reader, each written exactly with ReLUs and linear neurons
// (docs/MATH.md section 13 for max(a, b) = b + relu(a - b)):
//   Relu(v)                      relu(v)
//   LeakyRelu(v), PRelu(v)       s v + (1 - s) relu(v)                 (s the slope, a linear neuron v)
//   Clip(v, lo, hi)              lo + relu(v - lo) - relu(v - hi)      (ReLU6, HardTanh; one side when the other is absent)
//   HardSigmoid(v)               Clip(alpha v + beta, 0, 1)
//   Abs(v)                       relu(v) + relu(-v)
//   Max(a, b, ...), MaxPool,     pairwise b + relu(a - b) in a tree, one hidden layer per halving (b a linear
//   GlobalMaxPool, ReduceMax     neuron); Min(a, b, ...) = -Max(-a, -b, ...), ReduceMin likewise
// Each operator closes the layer under construction through CloseLayer, which also carries as linear neurons
// every tensor that a later node still needs (a residual branch). The MIP encodings and relaxations of these
// operators are those of their ReLUs; a linear neuron v becomes the stably active relu(v - L) + L over the domain
// (core/network_specialize.h), which costs no binary. Constant inputs are evaluated as numbers.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "io/onnx_graph.h"

namespace reluopt::detail::onnx_graph {
namespace {

Value scaled(const NodeContext& ctx, const Value& v, double factor) { return multiply(ctx, v, scalar(factor)); }

Value minus(const NodeContext& ctx, const Value& a, const Value& b) { return add(ctx, a, scaled(ctx, b, -1.0)); }

// v written out as rows over the current layer input: an identity (a layer's output) as sparse rows.
Value rows_of(const Value& v) { return sparse_rows_of(v); }

// Elements `index` of v as a vector of their count.
Value take(const NodeContext& ctx, const Value& v, const std::vector<Index>& index) {
  return select_rows(ctx, v, {static_cast<std::int64_t>(index.size())}, index, 0.0);
}

// f applied to each element of a constant tensor.
template <typename F>
Value map_constant(const Value& v, F f) {
  Value out = v;
  out.rows = v.rows.unaryExpr(f);
  return out;
}

Value relu_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  const Value& v = input(ctx, inputs, 0);
  if (v.constant) return map_constant(v, [](double x) { return std::max(x, 0.0); });
  return close({{v, false}})[0];
}

// s v + (1 - s) relu(v), the slope s a constant that broadcasts to v's shape.
Value leaky_from(const NodeContext& ctx, const Value& v, const Value& slope, const CloseLayer& close) {
  if (!slope.constant) ctx.fail("the slope must be a constant tensor");
  if (broadcast_shape(ctx, v.shape, slope.shape) != v.shape)
    ctx.fail("inconsistent shapes: slope " + shape_string(slope.shape) + " does not broadcast to " +
             shape_string(v.shape));
  const Value s = broadcast_to(ctx, slope, v.shape);
  if (v.constant) {
    Value out = v;
    for (Index i = 0; i < out.rows.rows(); ++i) out.rows(i, 0) *= out.rows(i, 0) < 0.0 ? s.rows(i, 0) : 1.0;
    return out;
  }
  const std::vector<Value> y = close({{v, false}, {v, true}});
  const Value one_minus = map_constant(s, [](double t) { return 1.0 - t; });
  return add(ctx, multiply(ctx, rows_of(y[1]), s), multiply(ctx, rows_of(y[0]), one_minus));
}

Value leaky_relu_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  return leaky_from(ctx, input(ctx, inputs, 0), scalar(float_attribute(ctx, "alpha", 0.01)), close);
}

Value prelu_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  return leaky_from(ctx, input(ctx, inputs, 0), input(ctx, inputs, 1), close);
}

// A bound of Clip: an input (opset 11 on) or an attribute (before), absent when beyond float's range.
double clip_bound(const NodeContext& ctx, const Inputs& inputs, std::size_t k, const std::string& name,
                  double absent) {
  if (inputs.size() > k && inputs[k] != nullptr) {
    const Value& b = *inputs[k];
    if (!b.constant || b.rows.rows() != 1) ctx.fail(name + " must be a constant scalar");
    const double value = b.rows(0, 0);
    return std::abs(value) >= std::numeric_limits<float>::max() ? absent : value;
  }
  const double value = float_attribute(ctx, name, absent);
  return std::abs(value) >= std::numeric_limits<float>::max() ? absent : value;
}

// min(max(v, lo), hi) = lo + relu(v - lo) - relu(v - hi); either bound may be infinite (absent).
Value clip(const NodeContext& ctx, const Value& v, double lo, double hi, const CloseLayer& close) {
  if (lo > hi) ctx.fail("min " + std::to_string(lo) + " is above max " + std::to_string(hi));
  if (v.constant) return map_constant(v, [&](double x) { return std::min(std::max(x, lo), hi); });
  const bool has_lo = std::isfinite(lo), has_hi = std::isfinite(hi);
  if (!has_lo && !has_hi) return v;
  if (!has_hi) return add(ctx, rows_of(close({{add(ctx, v, scalar(-lo)), false}})[0]), scalar(lo));
  const Value above = add(ctx, rows_of(v), scalar(-hi));
  if (!has_lo) {
    const Value y = rows_of(close({{scaled(ctx, above, -1.0), false}})[0]);
    return add(ctx, scaled(ctx, y, -1.0), scalar(hi));
  }
  const std::vector<Value> y = close({{add(ctx, rows_of(v), scalar(-lo)), false}, {above, false}});
  return add(ctx, minus(ctx, rows_of(y[0]), rows_of(y[1])), scalar(lo));
}

Value clip_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  const double inf = std::numeric_limits<double>::infinity();
  return clip(ctx, input(ctx, inputs, 0), clip_bound(ctx, inputs, 1, "min", -inf),
              clip_bound(ctx, inputs, 2, "max", inf), close);
}

Value hard_sigmoid_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  const Value& v = input(ctx, inputs, 0);
  const Value u = add(ctx, scaled(ctx, rows_of(v), float_attribute(ctx, "alpha", 0.2)),
                      scalar(float_attribute(ctx, "beta", 0.5)));
  return clip(ctx, u, 0.0, 1.0, close);
}

Value abs_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  const Value& v = input(ctx, inputs, 0);
  if (v.constant) return map_constant(v, [](double x) { return std::abs(x); });
  const std::vector<Value> y = close({{v, false}, {scaled(ctx, rows_of(v), -1.0), false}});
  return add(ctx, rows_of(y[0]), rows_of(y[1]));
}

// The maximum over each group of v's elements (v non-constant, rows written out): each round pairs the
// candidates of every group, a with b, into b + relu(a - b) (relu(a - b) a ReLU, b a linear neuron; an odd
// candidate passes as a linear neuron), so a group of k elements takes ceil(log2 k) hidden layers.
Value group_max(const NodeContext& ctx, Value v, std::vector<std::vector<Index>> groups, const Shape& shape,
                const CloseLayer& close) {
  const auto unfinished = [&] {
    return std::any_of(groups.begin(), groups.end(), [](const auto& g) { return g.size() > 1; });
  };
  while (unfinished()) {
    std::vector<Index> a, b, single;
    for (const std::vector<Index>& g : groups) {
      for (std::size_t i = 0; i + 1 < g.size(); i += 2) {
        a.push_back(g[i]);
        b.push_back(g[i + 1]);
      }
      if (g.size() % 2 == 1) single.push_back(g.back());
    }
    std::vector<Index> kept = b;
    kept.insert(kept.end(), single.begin(), single.end());
    const std::vector<Value> y =
        close({{minus(ctx, take(ctx, v, a), take(ctx, v, b)), false}, {take(ctx, v, kept), true}});
    // Pair p's maximum b + relu(a - b) is row p of the passed candidates plus row p of the differences.
    std::vector<Index> padded(kept.size(), -1);
    std::iota(padded.begin(), padded.begin() + static_cast<std::ptrdiff_t>(a.size()), Index{0});
    v = add(ctx, rows_of(y[1]), take(ctx, rows_of(y[0]), padded));
    // The candidates of the next round, in the order of `kept`: pair p is row p, single s row |a| + s.
    Index pair = 0, alone = static_cast<Index>(a.size());
    for (std::vector<Index>& g : groups) {
      std::vector<Index> next;
      for (std::size_t i = 0; i + 1 < g.size(); i += 2) next.push_back(pair++);
      if (g.size() % 2 == 1) next.push_back(alone++);
      g = std::move(next);
    }
  }
  std::vector<Index> first;
  for (const std::vector<Index>& g : groups) first.push_back(g.front());
  return reshape(ctx, take(ctx, v, first), shape);
}

// The maximum (sign 1) or minimum (sign -1) of broadcast inputs, elementwise: max over the group of each
// element's values, min(...) = -max(-...).
Value extremum(const NodeContext& ctx, const Inputs& inputs, double sign, const CloseLayer& close) {
  if (inputs.empty()) ctx.fail("no input");
  Shape shape = input(ctx, inputs, 0).shape;
  bool constant = true;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    shape = broadcast_shape(ctx, shape, input(ctx, inputs, k).shape);
    constant = constant && inputs[k]->constant;
  }
  const Index n = num_elements(shape);
  if (constant) {
    Value out = broadcast_to(ctx, *inputs[0], shape);
    for (std::size_t k = 1; k < inputs.size(); ++k) {
      const Eigen::MatrixXd other = broadcast_to(ctx, *inputs[k], shape).rows;
      out.rows = sign > 0 ? Eigen::MatrixXd(out.rows.cwiseMax(other)) : Eigen::MatrixXd(out.rows.cwiseMin(other));
    }
    return out;
  }
  if (inputs.size() == 1) return *inputs[0];
  // The inputs stacked, each as rows over x: element i of input k is row k n + i.
  std::vector<Value> terms;
  std::vector<std::pair<const Value*, Index>> parts;
  std::vector<std::vector<Index>> groups(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < inputs.size(); ++k)
    terms.push_back(scaled(ctx, broadcast_to(ctx, *inputs[k], shape), sign));
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Index top = static_cast<Index>(k) * n;
    for (Index i = 0; i < n; ++i) {
      parts.emplace_back(&terms[k], i);
      groups[static_cast<std::size_t>(i)].push_back(top + i);
    }
  }
  Value stacked = join_rows(ctx, {static_cast<std::int64_t>(inputs.size()) * n}, parts);
  return scaled(ctx, group_max(ctx, std::move(stacked), std::move(groups), shape, close), sign);
}

Value max_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  return extremum(ctx, inputs, 1.0, close);
}

Value min_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  return extremum(ctx, inputs, -1.0, close);
}

Value max_pool_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  const Value& x = input(ctx, inputs, 0);
  Shape shape;
  std::vector<std::vector<Index>> windows = max_pool_windows(ctx, x, shape);
  if (x.constant) {
    Value out = make_constant(shape, Eigen::VectorXd(static_cast<Index>(windows.size())));
    for (std::size_t o = 0; o < windows.size(); ++o) {
      double m = -std::numeric_limits<double>::infinity();
      for (Index i : windows[o]) m = std::max(m, x.rows(i, 0));
      out.rows(static_cast<Index>(o), 0) = m;
    }
    return out;
  }
  return group_max(ctx, rows_of(x), std::move(windows), shape, close);
}

// ReduceMax (sign 1) and ReduceMin (sign -1): the same tree over each group of the reduction.
Value reduce_extremum(const NodeContext& ctx, const Inputs& inputs, double sign, const CloseLayer& close) {
  const Value& x = input(ctx, inputs, 0);
  Reduction r = reduction_of(ctx, x, inputs);
  if (r.noop) return x;
  for (const std::vector<Index>& g : r.groups)
    if (g.empty()) ctx.fail(std::string(sign > 0 ? "the maximum" : "the minimum") + " of no elements");
  if (x.constant) {
    Value out = make_constant(r.shape, Eigen::VectorXd(static_cast<Index>(r.groups.size())));
    for (std::size_t o = 0; o < r.groups.size(); ++o) {
      double m = sign * x.rows(r.groups[o].front(), 0);
      for (Index i : r.groups[o]) m = std::max(m, sign * x.rows(i, 0));
      out.rows(static_cast<Index>(o), 0) = sign * m;
    }
    return out;
  }
  return scaled(ctx, group_max(ctx, scaled(ctx, rows_of(x), sign), std::move(r.groups), r.shape, close), sign);
}

Value reduce_max_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  return reduce_extremum(ctx, inputs, 1.0, close);
}

Value reduce_min_op(const NodeContext& ctx, const Inputs& inputs, const CloseLayer& close) {
  return reduce_extremum(ctx, inputs, -1.0, close);
}

}  // namespace

void add_pwl_operators(std::unordered_map<std::string, PwlOperator>& operators) {
  operators.emplace("Relu", relu_op);
  operators.emplace("LeakyRelu", leaky_relu_op);
  operators.emplace("PRelu", prelu_op);
  operators.emplace("Clip", clip_op);
  operators.emplace("HardSigmoid", hard_sigmoid_op);
  operators.emplace("Abs", abs_op);
  operators.emplace("Max", max_op);
  operators.emplace("Min", min_op);
  operators.emplace("MaxPool", max_pool_op);
  operators.emplace("GlobalMaxPool", max_pool_op);
  operators.emplace("ReduceMax", reduce_max_op);
  operators.emplace("ReduceMin", reduce_min_op);
}

}  // namespace reluopt::detail::onnx_graph
