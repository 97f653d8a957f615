// The ONNX operators whose every output element is a fixed linear combination of input elements: ReduceSum and
// ReduceMean (one sparse matrix applied to the tensor's rows, combine_rows, over the groups of reduction_of, which
// ReduceMax and ReduceMin of onnx_pwl.cc share), and Resize and Upsample in nearest
// mode (each output element one input element, select_rows).
//
// Resize (opsets 11-28) maps an output coordinate x on an axis of input length n, output length m and scale s
// (m / n when `sizes` is given) to the input coordinate
//   half_pixel (default)   (x + 1/2) / s - 1/2        asymmetric      x / s
//   pytorch_half_pixel     as half_pixel if m > 1, else 0
//   align_corners          x (n - 1) / (m - 1), 0 if m = 1
//   tf_half_pixel_for_nn   (x + 1/2) / s
//   half_pixel_symmetric   (n / 2) (1 - m / (s n)) + (x + 1/2) / s - 1/2     (opset 19)
// and takes the input element nearest to it by `nearest_mode` (round_prefer_floor by default, round_prefer_ceil,
// floor, ceil), clamped to [0, n - 1]. From opset 18, `axes` names the axes that scales or sizes give (the others
// keep their length), and keep_aspect_ratio_policy not_larger (not_smaller) resizes every such axis by the one
// scale s = min (max) of sizes / n, to length round(s n), halves up; antialias filters linear and cubic modes only.
// Upsample (opsets 7-9) and Resize-10 take element floor(x / s), each element repeated s times for an integer s
// (ONNX's Upsample example); they scale up only (s >= 1), where runtimes agree.
// Interpolating modes (linear, cubic) and tf_crop_and_resize are refused by name.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "io/onnx_graph.h"

namespace reluopt::detail::onnx_graph {
namespace {

// The axes of a reduction: an attribute (ReduceMean, ReduceMax and ReduceMin up to opset 17, ReduceSum up to 12)
// or an input (ReduceSum from 13, the others from 18).
Shape reduction_axes(const NodeContext& ctx, const Inputs& inputs) {
  if (const onnx::AttributeProto* a = find_attribute(ctx.node(), "axes"))
    return Shape(a->ints().begin(), a->ints().end());
  if (inputs.size() > 1 && inputs[1] != nullptr) return to_ints(ctx, *inputs[1], "axes");
  return {};
}

// sum (or mean) over the axes: row j of the result combines the rows of the elements of group j.
Value reduce(const NodeContext& ctx, const Inputs& inputs, bool mean) {
  const Value& v = input(ctx, inputs, 0);
  const Reduction r = reduction_of(ctx, v, inputs);
  if (r.noop) return v;
  std::vector<Eigen::Triplet<double, Index>> entries;
  entries.reserve(static_cast<std::size_t>(num_elements(v.shape)));
  for (std::size_t j = 0; j < r.groups.size(); ++j) {
    if (r.groups[j].empty() && mean) ctx.fail("the mean of no elements");
    const double weight = mean ? 1.0 / static_cast<double>(r.groups[j].size()) : 1.0;
    for (Index i : r.groups[j]) entries.emplace_back(static_cast<Index>(j), i, weight);
  }
  SparseRows combination(static_cast<Index>(r.groups.size()), num_elements(v.shape));
  combination.setFromTriplets(entries.begin(), entries.end());
  return combine_rows(ctx, v, r.shape, combination);
}

Value reduce_sum_op(const NodeContext& ctx, const Inputs& inputs) { return reduce(ctx, inputs, false); }
Value reduce_mean_op(const NodeContext& ctx, const Inputs& inputs) { return reduce(ctx, inputs, true); }

// The floating-point contents of a constant (scales).
std::vector<double> to_doubles(const NodeContext& ctx, const Value& v, const std::string& what) {
  if (!v.constant) ctx.fail(what + " must be a constant tensor");
  return std::vector<double>(v.rows.data(), v.rows.data() + v.rows.size());
}

bool given(const Inputs& inputs, std::size_t k) { return k < inputs.size() && inputs[k] != nullptr; }

// The input index nearest to output index x on one axis (see the file's comment).
struct NearestAxis {
  std::int64_t in = 0, out = 0;
  double scale = 1.0;
  std::string transform = "asymmetric", rounding = "floor";

  // An axis that keeps its length at scale 1 (the batch and channel axes, an axis not among Resize-18's `axes`) is
  // not resampled, as onnx's reference skips it: every mode maps x to x there but tf_half_pixel_for_nn (Resize-11's,
  // read at every opset), whose x + 1/2 rounded up would be x + 1.
  bool kept() const { return out == in && std::abs(scale - 1.0) <= 1e-9 * std::max(1.0, std::abs(scale)); }

  std::int64_t source(std::int64_t x) const {
    if (kept()) return x;
    const double xd = static_cast<double>(x);
    double c = xd / scale;
    if (transform == "half_pixel" || (transform == "pytorch_half_pixel" && out > 1)) {
      c = (xd + 0.5) / scale - 0.5;
    } else if (transform == "pytorch_half_pixel") {
      c = 0.0;
    } else if (transform == "align_corners") {
      c = out == 1 ? 0.0 : xd * static_cast<double>(in - 1) / static_cast<double>(out - 1);
    } else if (transform == "tf_half_pixel_for_nn") {
      c = (xd + 0.5) / scale;
    } else if (transform == "half_pixel_symmetric") {
      const double width = scale * static_cast<double>(in);  // the output length before it is made an integer
      const double offset = static_cast<double>(in) / 2.0 * (1.0 - static_cast<double>(out) / width);
      c = offset + (xd + 0.5) / scale - 0.5;
    }
    const bool half = c - std::floor(c) == 0.5;
    double r = std::round(c);
    if (rounding == "floor" || (half && rounding == "round_prefer_floor")) r = std::floor(c);
    else if (rounding == "ceil" || (half && rounding == "round_prefer_ceil")) r = std::ceil(c);
    return std::clamp(static_cast<std::int64_t>(r), std::int64_t{0}, in - 1);
  }
};

// Nearest-neighbour resampling of v to `shape`, axis by axis.
Value resample(const NodeContext& ctx, const Value& v, const std::vector<NearestAxis>& axes) {
  Shape shape;
  for (const NearestAxis& a : axes) shape.push_back(a.out);
  if (num_elements(shape) < 0) ctx.fail("result " + shape_string(shape) + " is too large");
  ctx.check_memory(shape, 1);  // the source of each element
  std::vector<std::vector<std::int64_t>> sources(axes.size());
  for (std::size_t d = 0; d < axes.size(); ++d)
    for (std::int64_t x = 0; x < axes[d].out; ++x) sources[d].push_back(axes[d].source(x));
  const std::vector<std::int64_t> strides = row_major_strides(v.shape);
  std::vector<Index> rows(static_cast<std::size_t>(num_elements(shape)));
  Shape index(shape.size(), 0);
  for (Index& row : rows) {
    row = 0;
    for (std::size_t d = 0; d < shape.size(); ++d) row += sources[d][index[d]] * strides[d];
    for (std::size_t d = shape.size(); d-- > 0;) {  // odometer over the output index
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return select_rows(ctx, v, shape, rows, 0.0);
}

// How Resize's scales or sizes apply: to the axes `axes` (all when empty), sizes per keep_aspect_ratio_policy.
struct ResizeTarget {
  std::vector<double> scales;
  Shape sizes;
  Shape axes;
  std::string policy = "stretch";
};

// One axis scaled by `scale` (output length floor(n s)) or resized to `size` (s = m / n).
void scale_axis(const NodeContext& ctx, const Shape& shape, NearestAxis& a, const ResizeTarget& t, std::size_t i) {
  if (t.sizes.empty()) {
    const double s = t.scales[i];
    if (!(s > 0.0) || !std::isfinite(s) || s * static_cast<double>(a.in) > 0x1p40)
      ctx.fail("scale " + std::to_string(s) + " is not a sane positive number");
    a.scale = s;
    a.out = static_cast<std::int64_t>(std::floor(static_cast<double>(a.in) * a.scale));
  } else {
    if (t.sizes[i] < 0 || a.in == 0) ctx.fail("sizes " + shape_string(t.sizes) + " do not fit " + shape_string(shape));
    a.out = t.sizes[i];
    a.scale = static_cast<double>(a.out) / static_cast<double>(a.in);
  }
}

// The axes of v resized as `t` says.
std::vector<NearestAxis> scaled_axes(const NodeContext& ctx, const Value& v, const ResizeTarget& t) {
  const std::size_t rank = v.shape.size();
  Shape axes = distinct_axes(ctx, t.axes, rank);
  if (t.axes.empty())
    for (std::size_t d = 0; d < rank; ++d) axes.push_back(static_cast<std::int64_t>(d));
  if ((t.sizes.empty() ? t.scales.size() : t.sizes.size()) != axes.size())
    ctx.fail(std::string(t.sizes.empty() ? "scales" : "sizes") + " must have one entry per " +
             (t.axes.empty() ? "dimension of " + shape_string(v.shape) : "axis of " + shape_string(t.axes)));
  std::vector<NearestAxis> out(rank);
  for (std::size_t d = 0; d < rank; ++d) out[d].in = out[d].out = v.shape[d];
  for (std::size_t i = 0; i < axes.size(); ++i) scale_axis(ctx, v.shape, out[static_cast<std::size_t>(axes[i])], t, i);
  if (!t.sizes.empty() && t.policy != "stretch") {
    double s = out[static_cast<std::size_t>(axes.front())].scale;
    for (std::int64_t d : axes)
      s = t.policy == "not_larger" ? std::min(s, out[static_cast<std::size_t>(d)].scale)
                                   : std::max(s, out[static_cast<std::size_t>(d)].scale);
    for (std::int64_t d : axes) {
      NearestAxis& a = out[static_cast<std::size_t>(d)];
      a.scale = s;
      const double length = std::floor(s * static_cast<double>(a.in) + 0.5);
      if (length > 0x1p40) ctx.fail("dimension " + std::to_string(d) + " of the result is too large");
      a.out = static_cast<std::int64_t>(length);
    }
  }
  // Each axis's sources are listed before the element count is checked: an axis past the largest tensor is
  // refused even beside an empty one.
  for (std::size_t d = 0; d < rank; ++d)
    if (out[d].out > kMaxElements) ctx.fail("dimension " + std::to_string(d) + " of the result is too large");
  return out;
}

std::string mode_of(const NodeContext& ctx) {
  const std::string m = string_attribute(ctx.node(), "mode", "nearest");
  if (m != "nearest") ctx.fail("mode '" + m + "' is not supported (only nearest)");
  return m;
}

// Upsample-7/9 and Resize-10: element floor(x / s), scaling up only.
Value floor_resample(const NodeContext& ctx, const Value& v, const std::vector<double>& scales) {
  for (double s : scales)
    if (s < 1.0) ctx.fail("a scale below 1 is not supported before opset 11 (give Resize sizes or scales >= 1)");
  ResizeTarget t;
  t.scales = scales;
  return resample(ctx, v, scaled_axes(ctx, v, t));
}

Value upsample_op(const NodeContext& ctx, const Inputs& inputs) {
  mode_of(ctx);
  const Value& v = input(ctx, inputs, 0);
  if (const onnx::AttributeProto* a = find_attribute(ctx.node(), "scales"))
    return floor_resample(ctx, v, std::vector<double>(a->floats().begin(), a->floats().end()));
  return floor_resample(ctx, v, to_doubles(ctx, input(ctx, inputs, 1), "scales"));
}

// Resize-10 has the inputs (X, scales); from opset 11 (X, roi, scales, sizes), scales or sizes given.
Value resize_op(const NodeContext& ctx, const Inputs& inputs) {
  mode_of(ctx);
  const Value& v = input(ctx, inputs, 0);
  if (inputs.size() == 2) return floor_resample(ctx, v, to_doubles(ctx, input(ctx, inputs, 1), "scales"));
  ResizeTarget target;
  if (given(inputs, 2)) target.scales = to_doubles(ctx, *inputs[2], "scales");
  if (given(inputs, 3)) target.sizes = to_ints(ctx, *inputs[3], "sizes");
  if (target.scales.empty() == target.sizes.empty()) ctx.fail("exactly one of scales and sizes must be given");
  if (const onnx::AttributeProto* a = find_attribute(ctx.node(), "axes"))
    target.axes.assign(a->ints().begin(), a->ints().end());
  target.policy = string_attribute(ctx.node(), "keep_aspect_ratio_policy", "stretch");
  if (target.policy != "stretch" && target.policy != "not_larger" && target.policy != "not_smaller")
    ctx.fail("keep_aspect_ratio_policy '" + target.policy + "' is not supported");
  std::vector<NearestAxis> axes = scaled_axes(ctx, v, target);
  const std::string t = string_attribute(ctx.node(), "coordinate_transformation_mode", "half_pixel");
  const std::string r = string_attribute(ctx.node(), "nearest_mode", "round_prefer_floor");
  if (t != "half_pixel" && t != "asymmetric" && t != "pytorch_half_pixel" && t != "align_corners" &&
      t != "tf_half_pixel_for_nn" && t != "half_pixel_symmetric")
    ctx.fail("coordinate_transformation_mode '" + t + "' is not supported");
  if (t == "half_pixel_symmetric" && ctx.opset() < 19)
    ctx.fail_at_opset("coordinate_transformation_mode 'half_pixel_symmetric' (from opset 19)");
  if (r != "round_prefer_floor" && r != "round_prefer_ceil" && r != "floor" && r != "ceil")
    ctx.fail("nearest_mode '" + r + "' is not supported");
  for (NearestAxis& a : axes) {
    a.transform = t;
    a.rounding = r;
  }
  return resample(ctx, v, axes);
}

}  // namespace

// No axes reduce every axis, unless noop_with_empty_axes makes the node the identity (`noop`).
Reduction reduction_of(const NodeContext& ctx, const Value& v, const Inputs& inputs) {
  const std::size_t rank = v.shape.size();
  const Shape axes = reduction_axes(ctx, inputs);
  Reduction r;
  r.noop = axes.empty() && int_attribute(ctx.node(), "noop_with_empty_axes", 0) != 0;
  if (r.noop) return r;
  std::vector<bool> reduced(rank, axes.empty());
  for (std::int64_t axis : axes) reduced[normalize_axis(ctx, axis, rank)] = true;
  Shape kept = v.shape;  // the result's shape with the reduced axes as 1
  for (std::size_t d = 0; d < rank; ++d)
    if (reduced[d]) kept[d] = 1;
  ctx.check_memory(v.shape, 2);  // each element's index in its group
  const std::vector<std::int64_t> strides = row_major_strides(kept);
  const Index n = num_elements(v.shape);
  r.groups.resize(static_cast<std::size_t>(num_elements(kept)));
  Shape index(rank, 0);
  for (Index i = 0; i < n; ++i) {
    Index target = 0;
    for (std::size_t d = 0; d < rank; ++d)
      if (!reduced[d]) target += index[d] * strides[d];
    r.groups[static_cast<std::size_t>(target)].push_back(i);
    for (std::size_t d = rank; d-- > 0;) {  // odometer over the input index
      if (++index[d] < v.shape[d]) break;
      index[d] = 0;
    }
  }
  if (int_attribute(ctx.node(), "keepdims", 1) != 0) {
    r.shape = kept;
  } else {
    for (std::size_t d = 0; d < rank; ++d)
      if (!reduced[d]) r.shape.push_back(v.shape[d]);
  }
  return r;
}

void add_linear_operators(std::unordered_map<std::string, Operator>& operators) {
  operators.emplace("ReduceSum", reduce_sum_op);
  operators.emplace("ReduceMean", reduce_mean_op);
  operators.emplace("Resize", resize_op);
  operators.emplace("Upsample", upsample_op);
}

}  // namespace reluopt::detail::onnx_graph
