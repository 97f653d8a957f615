// The ONNX operators that select, pad, repeat or rearrange elements, and those that compute shapes: Shape,
// Gather, Concat, Slice, Split, Pad, Expand, Tile, Cast, CastLike and Dropout (an identity at inference).
//
// Exporters compute reshape targets at run time (Shape -> Gather -> Unsqueeze -> Concat -> Reshape). Shapes
// are known when the graph is read, so these chains are folded to constants. Element selection works on
// affine tensors alike: each output element is one input element's row, or a constant.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "io/onnx_graph.h"

namespace reluopt::detail::onnx_graph {
namespace {

// Element i of the result (row-major in `shape`, multi-index (i_0, i_1, ...)) is the element of v at
// (source(0, i_0), source(1, i_1), ...), or the constant `fill` where a coordinate is negative.
template <typename Source>
Value select_elements(const NodeContext& ctx, const Value& v, Shape shape, Source source, double fill) {
  if (num_elements(shape) < 0) ctx.fail("result " + shape_string(shape) + " is too large");
  ctx.check_memory(shape, 1);  // the index of each element's source
  const std::vector<std::int64_t> strides = row_major_strides(v.shape);
  std::vector<Index> sources(static_cast<std::size_t>(num_elements(shape)));
  Shape index(shape.size(), 0);
  for (Index& flat : sources) {
    flat = 0;
    for (std::size_t d = 0; d < shape.size() && flat >= 0; ++d) {
      const std::int64_t s = source(d, index[d]);
      flat = s < 0 ? -1 : flat + s * strides[d];
    }
    for (std::size_t d = shape.size(); d-- > 0;) {  // odometer over the output index
      if (++index[d] < shape[d]) break;
      index[d] = 0;
    }
  }
  return select_rows(ctx, v, std::move(shape), sources, fill);
}

// From opset 15, start and end select part of the shape, clamped as Python slices are.
Value shape_op(const NodeContext& ctx, const Inputs& inputs) {
  const Shape& shape = input(ctx, inputs, 0).shape;
  const auto rank = static_cast<std::int64_t>(shape.size());
  const auto clamp = [&](std::int64_t k) { return std::clamp(k < 0 ? k + rank : k, std::int64_t{0}, rank); };
  const std::int64_t start = clamp(int_attribute(ctx.node(), "start", 0));
  const std::int64_t end = clamp(int_attribute(ctx.node(), "end", rank));
  Eigen::VectorXd dims(std::max<std::int64_t>(end - start, 0));
  for (Index k = 0; k < dims.size(); ++k) dims[k] = static_cast<double>(shape[start + k]);
  Value out = make_constant({dims.size()}, dims);
  out.integer = true;
  return out;
}

Value gather_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& data = input(ctx, inputs, 0);
  const Value& indices = input(ctx, inputs, 1);
  if (data.shape.empty()) ctx.fail("cannot gather from a scalar");
  const std::size_t axis = normalize_axis(ctx, int_attribute(ctx.node(), "axis", 0), data.shape.size());
  Shape picks = to_ints(ctx, indices, "indices");
  for (std::int64_t& p : picks) {
    if (p < -data.shape[axis] || p >= data.shape[axis])
      ctx.fail("index " + std::to_string(p) + " out of range for dimension " + std::to_string(data.shape[axis]));
    if (p < 0) p += data.shape[axis];
  }
  // The output shape is data.shape with the axis replaced by indices.shape; the gather runs on a
  // flattened view [outer, picks, inner].
  Shape shape(data.shape.begin(), data.shape.begin() + axis);
  shape.insert(shape.end(), indices.shape.begin(), indices.shape.end());
  shape.insert(shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  const Shape view{num_elements(Shape(data.shape.begin(), data.shape.begin() + axis)),
                   static_cast<std::int64_t>(picks.size()),
                   num_elements(Shape(data.shape.begin() + axis + 1, data.shape.end()))};
  Value flat = data;
  flat.shape = {view[0], data.shape[axis], view[2]};
  const auto source = [&](std::size_t d, std::int64_t i) { return d == 1 ? picks[i] : i; };
  Value out = select_elements(ctx, flat, view, source, 0.0);
  out.shape = std::move(shape);
  return out;
}

// Constants join non-constant tensors with zero coefficients; non-constant tensors must come from the same
// layer, as for Add.
Value concat_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& first = input(ctx, inputs, 0);
  if (first.shape.empty()) ctx.fail("cannot concatenate scalars");
  const std::size_t axis = normalize_axis(ctx, int_attribute(ctx.node(), "axis", 0), first.shape.size());
  Shape shape = first.shape;
  shape[axis] = 0;
  const Value* affine = nullptr;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Value& v = input(ctx, inputs, k);
    Shape other = v.shape;
    if (other.size() == shape.size()) other[axis] = 0;
    if (other != shape)
      ctx.fail("inconsistent shapes " + shape_string(first.shape) + " and " + shape_string(v.shape));
    if (!v.constant && affine && affine->stage != v.stage)
      ctx.fail("concatenation of non-constant tensors from different layers is not supported");
    if (!v.constant) affine = &v;
  }
  for (std::size_t k = 0; k < inputs.size(); ++k) shape[axis] += inputs[k]->shape[axis];
  if (num_elements(shape) < 0) ctx.fail("result " + shape_string(shape) + " is too large");
  ctx.check_memory(shape, 2);  // where each row comes from
  const std::int64_t outer = num_elements(Shape(shape.begin(), shape.begin() + axis));
  const std::int64_t inner = num_elements(Shape(shape.begin() + axis + 1, shape.end()));
  std::vector<std::pair<const Value*, Index>> parts;
  parts.reserve(static_cast<std::size_t>(num_elements(shape)));
  for (std::int64_t o = 0; o < outer; ++o)
    for (const Value* v : inputs) {
      const Index block = v->shape[axis] * inner;
      for (Index i = 0; i < block; ++i) parts.emplace_back(v, o * block + i);
    }
  return join_rows(ctx, shape, parts);
}

constexpr std::int64_t kLargestStep = std::int64_t{1} << 62;

// Slice: starts, ends, axes and steps as attributes (opsets 1-9) or inputs (10 on), clamped as numpy does.
Value slice_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& data = input(ctx, inputs, 0);
  const auto list = [&](const std::string& name, std::size_t k) -> Shape {
    if (const onnx::AttributeProto* a = find_attribute(ctx.node(), name)) return Shape(a->ints().begin(), a->ints().end());
    if (k >= inputs.size() || inputs[k] == nullptr) return {};
    // Exporters write "to the end" as INT64_MAX, which clamps like any bound past the end.
    Value v = *inputs[k];
    v.rows = v.rows.cwiseMax(-0x1p62).cwiseMin(0x1p62);
    return to_ints(ctx, v, name);
  };
  const Shape starts = list("starts", 1), ends = list("ends", 2);
  Shape axes = list("axes", 3), steps = list("steps", 4);
  if (axes.empty())
    for (std::size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<std::int64_t>(k));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    ctx.fail("starts, ends, axes and steps differ in length");
  Shape first(data.shape.size(), 0), step(data.shape.size(), 1), shape = data.shape;
  for (std::size_t k = 0; k < starts.size(); ++k) {
    const std::size_t d = normalize_axis(ctx, axes[k], data.shape.size());
    const std::int64_t n = data.shape[d];
    if (steps[k] == 0) ctx.fail("a step of 0");
    const auto bound = [&](std::int64_t i) {
      i = i < 0 ? std::max<std::int64_t>(i + n, -1) : i;
      return steps[k] > 0 ? std::clamp<std::int64_t>(i, 0, n) : std::clamp<std::int64_t>(i, -1, n - 1);
    };
    first[d] = bound(starts[k]);
    // A step past +-2^62 takes the one element such a step takes, and keeps the count below within int64.
    step[d] = std::clamp<std::int64_t>(steps[k], -kLargestStep, kLargestStep);
    const std::int64_t span = bound(ends[k]) - first[d];
    const bool empty = span == 0 || (span > 0) != (step[d] > 0);
    shape[d] = empty ? 0 : (std::abs(span) + std::abs(step[d]) - 1) / std::abs(step[d]);
  }
  return select_elements(ctx, data, shape, [&](std::size_t d, std::int64_t i) { return first[d] + i * step[d]; },
                         0.0);
}

// Index s of an axis of n elements reflected at both ends without repeating them, as numpy's reflect pads
// (period 2 (n - 1)).
std::int64_t reflected(std::int64_t s, std::int64_t n) {
  if (n == 1) return 0;
  const std::int64_t period = 2 * (n - 1);
  s %= period;
  if (s < 0) s += period;
  return s < n ? s : period - s;
}

// The pads of a Pad node, begin then end for every axis of a tensor of rank `rank`: an attribute (up to opset 10) or
// an input (from 11), from opset 18 for the axes listed in the `axes` input alone (the others unpadded).
Shape pads_of(const NodeContext& ctx, const Inputs& inputs, std::size_t rank) {
  if (const onnx::AttributeProto* a = find_attribute(ctx.node(), "pads"))
    return Shape(a->ints().begin(), a->ints().end());
  const Shape given = to_ints(ctx, input(ctx, inputs, 1), "pads");
  if (inputs.size() <= 3 || inputs[3] == nullptr) return given;
  const Shape axes = to_ints(ctx, *inputs[3], "axes");
  if (given.size() != 2 * axes.size())
    ctx.fail("pads has " + std::to_string(given.size()) + " entries for " + std::to_string(axes.size()) + " axes");
  Shape pads(2 * rank, 0);
  const Shape dims = distinct_axes(ctx, axes, rank);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    pads[dims[i]] = given[i];
    pads[dims[i] + rank] = given[i + dims.size()];
  }
  return pads;
}

// Padding: a constant, or in `edge` mode the nearest element, in `reflect` mode the mirrored one and in `wrap` mode
// (opset 19) the element one period away, each a selection of elements; negative pads crop.
Value pad_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& data = input(ctx, inputs, 0);
  const std::string mode = string_attribute(ctx.node(), "mode", "constant");
  if (mode == "wrap" && ctx.opset() < 19) ctx.fail_at_opset("mode 'wrap' (from opset 19)");
  if (mode != "constant" && mode != "edge" && mode != "reflect" && mode != "wrap")
    ctx.fail("mode '" + mode + "' is not supported (constant, edge, reflect or wrap)");
  double fill = float_attribute(ctx, "value", 0.0);
  if (inputs.size() > 2 && inputs[2] != nullptr) {
    if (!inputs[2]->constant || inputs[2]->rows.size() != 1) ctx.fail("constant_value must be a constant scalar");
    fill = inputs[2]->rows(0, 0);
  }
  const std::size_t rank = data.shape.size();
  const Shape pads = pads_of(ctx, inputs, rank);
  if (pads.size() != 2 * rank)
    ctx.fail("pads has " + std::to_string(pads.size()) + " entries for rank " + std::to_string(rank));
  Shape shape = data.shape;
  for (std::size_t d = 0; d < rank; ++d) {
    shape[d] += pads[d] + pads[d + rank];
    if (shape[d] < 0 || std::abs(pads[d]) > kMaxElements || std::abs(pads[d + rank]) > kMaxElements)
      ctx.fail("pads " + shape_string(pads) + " do not fit shape " + shape_string(data.shape));
  }
  if (mode != "constant")
    for (std::size_t d = 0; d < rank; ++d)
      if (data.shape[d] == 0 && shape[d] > 0) ctx.fail("cannot pad an empty dimension in " + mode + " mode");
  const auto source = [&](std::size_t d, std::int64_t i) {
    const std::int64_t s = i - pads[d], n = data.shape[d];
    if (mode == "edge") return std::clamp<std::int64_t>(s, 0, n - 1);
    if (mode == "reflect") return reflected(s, n);
    if (mode == "wrap") return (s % n + n) % n;
    return s < n ? s : -1;
  };
  return select_elements(ctx, data, shape, source, fill);
}

// Casts between floating types change nothing in double arithmetic; casts of constants to integers
// truncate, as shape computations need. Cast's `saturate` (opset 19) and `round_mode` (24) act only on casts to
// float8 types, which are refused.
Value cast_to(const NodeContext& ctx, Value v, onnx::TensorProto_DataType to) {
  switch (to) {
    case onnx::TensorProto_DataType_FLOAT:
    case onnx::TensorProto_DataType_DOUBLE:
    case onnx::TensorProto_DataType_FLOAT16:
      v.integer = false;
      return v;
    case onnx::TensorProto_DataType_INT32:
    case onnx::TensorProto_DataType_INT64:
      if (!v.constant) ctx.fail("a cast of a network-dependent tensor to integers is not affine");
      v.rows = v.rows.unaryExpr([](double x) { return std::trunc(x); });
      v.integer = true;
      return v;
    default: {
      // Types newer than the onnx headers the reader is built with have no name there.
      const std::string name = onnx::TensorProto_DataType_Name(to);
      ctx.fail_at_opset("cast to type " + (name.empty() ? "number " + std::to_string(static_cast<int>(to)) : name));
    }
  }
}

Value cast_op(const NodeContext& ctx, const Inputs& inputs) {
  return cast_to(ctx, input(ctx, inputs, 0),
                 static_cast<onnx::TensorProto_DataType>(int_attribute(ctx.node(), "to", 0)));
}

// CastLike (opset 15) casts to the type of its second input: an integer constant's (taken as INT64), or else a
// real type (every tensor that depends on the network input is real).
Value cast_like_op(const NodeContext& ctx, const Inputs& inputs) {
  const bool integer = input(ctx, inputs, 1).integer;
  return cast_to(ctx, input(ctx, inputs, 0),
                 integer ? onnx::TensorProto_DataType_INT64 : onnx::TensorProto_DataType_DOUBLE);
}

// Dropout is the identity at inference: before opset 12 always, from 12 unless its training_mode input is true and
// its ratio input (0.5 when absent) is not 0, which makes it random.
Value dropout_op(const NodeContext& ctx, const Inputs& inputs) {
  const auto flag = [&](std::size_t k, const std::string& name, double absent) {
    if (k >= inputs.size() || inputs[k] == nullptr) return absent;
    if (!inputs[k]->constant || inputs[k]->rows.size() != 1) ctx.fail(name + " must be a constant scalar");
    return inputs[k]->rows(0, 0);
  };
  const double training = flag(2, "training_mode", 0.0);
  const double ratio = flag(1, "ratio", 0.5);
  if (training != 0.0 && ratio != 0.0) ctx.fail("training_mode=1 (a random dropout) is not supported");
  return input(ctx, inputs, 0);
}

// Expand broadcasts both ways, as numpy does: the result has the larger of each pair of dimensions.
Value expand_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& v = input(ctx, inputs, 0);
  const Shape target = to_ints(ctx, input(ctx, inputs, 1), "the shape");
  for (std::int64_t d : target)
    if (d < 0) ctx.fail("invalid shape " + shape_string(target));
  return broadcast_to(ctx, v, broadcast_shape(ctx, v.shape, target));
}

// Tile repeats the tensor `repeats[d]` times along each dimension d: element i of dimension d is element
// i mod n_d of the input.
Value tile_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& v = input(ctx, inputs, 0);
  const Shape repeats = to_ints(ctx, input(ctx, inputs, 1), "repeats");
  if (repeats.size() != v.shape.size())
    ctx.fail("repeats has " + std::to_string(repeats.size()) + " entries for rank " + std::to_string(v.shape.size()));
  Shape shape = v.shape;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (repeats[d] < 0 || (repeats[d] > 0 && shape[d] > kMaxElements / repeats[d]))
      ctx.fail("repeats " + shape_string(repeats) + " do not fit shape " + shape_string(v.shape));
    shape[d] *= repeats[d];
  }
  return select_elements(ctx, v, shape, [&](std::size_t d, std::int64_t i) { return i % v.shape[d]; }, 0.0);
}

// The lengths of Split's parts when no `split` is given: equal parts, one per output; from opset 18, num_outputs
// parts of ceil(n / num_outputs) elements but the last, which takes the rest.
Shape even_split(const NodeContext& ctx, std::int64_t n, std::int64_t parts) {
  if (const onnx::AttributeProto* a = find_attribute(ctx.node(), "num_outputs")) {
    if (a->i() != parts)
      ctx.fail("num_outputs " + std::to_string(a->i()) + " for " + std::to_string(parts) + " outputs");
    if (parts > 0 && n % parts != 0) {
      const std::int64_t length = n / parts + 1;
      Shape lengths(static_cast<std::size_t>(parts), length);
      lengths.back() = n - (parts - 1) * length;
      return lengths;
    }
  }
  if (parts == 0 || n % parts != 0)
    ctx.fail("dimension " + std::to_string(n) + " does not split into " + std::to_string(parts) + " equal parts");
  return Shape(static_cast<std::size_t>(parts), n / parts);
}

// Split cuts the tensor along `axis` into consecutive parts, one per output: the lengths `split` as an attribute
// (up to opset 12) or an input (from 13), or equal parts (even_split).
std::vector<Value> split_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& v = input(ctx, inputs, 0);
  if (v.shape.empty()) ctx.fail("cannot split a scalar");
  const std::size_t axis = normalize_axis(ctx, int_attribute(ctx.node(), "axis", 0), v.shape.size());
  const auto parts = static_cast<std::int64_t>(ctx.node().output_size());
  Shape lengths;
  if (const onnx::AttributeProto* a = find_attribute(ctx.node(), "split")) {
    lengths.assign(a->ints().begin(), a->ints().end());
  } else if (inputs.size() > 1 && inputs[1] != nullptr) {
    lengths = to_ints(ctx, *inputs[1], "split");
  } else {
    lengths = even_split(ctx, v.shape[axis], parts);
  }
  std::int64_t total = 0;
  for (std::int64_t n : lengths) {
    if (n < 0 || n > v.shape[axis]) ctx.fail("split " + shape_string(lengths) + " has an invalid length");
    total += n;
  }
  if (static_cast<std::int64_t>(lengths.size()) != parts || total != v.shape[axis])
    ctx.fail("split " + shape_string(lengths) + " does not cut dimension " + std::to_string(v.shape[axis]) +
             " into " + std::to_string(parts) + " outputs");
  std::vector<Value> outputs;
  std::int64_t first = 0;
  for (std::int64_t n : lengths) {
    Shape shape = v.shape;
    shape[axis] = n;
    const auto source = [&](std::size_t d, std::int64_t i) { return d == axis ? first + i : i; };
    outputs.push_back(select_elements(ctx, v, shape, source, 0.0));
    first += n;
  }
  return outputs;
}

}  // namespace

void add_shape_operators(std::unordered_map<std::string, Operator>& operators) {
  operators.emplace("Shape", shape_op);
  operators.emplace("Gather", gather_op);
  operators.emplace("Concat", concat_op);
  operators.emplace("Slice", slice_op);
  operators.emplace("Pad", pad_op);
  operators.emplace("Cast", cast_op);
  operators.emplace("CastLike", cast_like_op);
  operators.emplace("Dropout", dropout_op);
  operators.emplace("Expand", expand_op);
  operators.emplace("Tile", tile_op);
}

void add_multi_output_operators(std::unordered_map<std::string, MultiOperator>& operators) {
  operators.emplace("Split", split_op);
}

}  // namespace reluopt::detail::onnx_graph
