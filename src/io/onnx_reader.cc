// Reads an ONNX model of a feed-forward ReLU network by symbolic execution of its graph.
//
// Every tensor is tracked either as a constant or as an affine function M x + c of the input x of the dense
// layer under construction, with ONNX (numpy) shape semantics and a symbolic batch dimension taken as 1.
// Linear operators transform M and c, so affine maps with no ReLU between them are merged and input or
// output normalizations are folded into the neighbouring layers. A Relu (or another piecewise-linear operator,
// onnx_pwl.cc) closes the current layer: its ReLU arguments become neurons of a DenseLayer, beside linear
// neurons that carry every tensor a later node still needs (so residual branches, Add/Sub/Concat of tensors
// from both sides of a ReLU, are exact), and tracking restarts from the identity on the layer's outputs. The
// graph output becomes the linear output layer; with no Relu at all the network is a single linear layer.
//
// Accepted operators: Gemm, MatMul (weight on either side, a batch of matrices on one side), Add, Sub, Mul, Div (by
// constants), Neg, Sum, Flatten, Reshape, Squeeze, Unsqueeze, Transpose, Identity, Constant, ConstantOfShape; Conv,
// ConvTranspose, AveragePool, GlobalAveragePool and BatchNormalization (onnx_conv.cc); Shape, Gather, Concat, Slice,
// Split, Pad, Expand, Tile, Cast, CastLike and Dropout (onnx_shape_ops.cc); ReduceSum, ReduceMean, and Resize and
// Upsample in nearest mode (onnx_linear_ops.cc); Relu, LeakyRelu, PRelu, Clip, HardSigmoid, Abs, Max, Min, MaxPool,
// GlobalMaxPool, ReduceMax and ReduceMin (onnx_pwl.cc), in opsets kMinOpset to kMaxOpset (see there). Weights are
// initializers, possibly also listed among the graph inputs (MATLAB exports); FLOAT, DOUBLE, INT32, INT64 and BOOL
// tensors are read from raw_data, the typed fields or a file beside the model (onnx_external_data.cc), and every
// value must be finite. The input is one sample, a vector or a tensor behind a batch dimension of 1 (or symbolic),
// flattened in row-major order. Anything else throws reluopt::Error naming the node and the file: smooth
// activations and functions (Sigmoid, Tanh, Exp, ...), step functions (Sign, ArgMax, ...), external tensor data out
// of the model's folder, a batch of several inputs, a model whose layers and tensors together need more memory than
// a model may take (io/readers.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <list>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <onnx/onnx_pb.h>

#include "io/onnx_graph.h"
#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/model_io.h"

namespace reluopt {
namespace {

// The opsets whose definitions of the accepted operators are checked against this reader (onnx 1.23's operator
// schemas, opsets 7 to 28): from opset 7 on Add, Sub, Mul, Div and Gemm broadcast as numpy does. The later versions
// of the accepted operators make Gemm's C optional (11), move Squeeze/Unsqueeze axes from an attribute to an input
// (13), which the reader takes from either place, Pad's pads and Slice's bounds to inputs (11 and 10), Split's
// lengths and ReduceSum's axes too (13), the axes of ReduceMean, ReduceMax and ReduceMin (18), Upsample's scales
// (9); BatchNormalization drops `spatial` (9) and gains `training_mode` (14), AveragePool gains ceil_mode (10) and
// dilations (19), Shape start/end (15), Resize (10) roi, sizes and its coordinate modes (11), then axes,
// keep_aspect_ratio_policy and antialias (18, the last for linear and cubic modes only) and half_pixel_symmetric
// (19); Split gains num_outputs, with a shorter last part (18), Pad an axes input (18) and wrap mode (19), Cast
// `saturate` (19) and `round_mode` (24), which act only on casts to float8 types, refused by name. Every other
// version from 18 to 28 of an accepted operator adds element types only. A later opset may change any operator, so
// it is refused as a whole.
constexpr std::int64_t kMinOpset = 7;
constexpr std::int64_t kMaxOpset = 28;

}  // namespace

namespace detail::onnx_graph {

// The element count, or -1 when a dimension is negative or the count exceeds kMaxElements.
std::int64_t num_elements(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d < 0 || (d > 0 && n > kMaxElements / d)) return -1;
    n *= d;
  }
  return n;
}

std::string shape_string(const Shape& shape) {
  std::string s = "[";
  for (std::size_t k = 0; k < shape.size(); ++k) s += (k ? "," : "") + std::to_string(shape[k]);
  return s + "]";
}

// `data` is the tensor's elements as one column: rows is a MatrixXd, and only a matrix of its own type moves into
// it (a VectorXd would be copied, 1.1 GB of writes for VGG16's 138 M weights), so the initializers decode into one.
Value make_constant(Shape shape, Eigen::MatrixXd data) {
  Value v;
  v.shape = std::move(shape);
  v.rows = std::move(data);
  return v;
}

// "" when a tensor of `shape` held as `columns` doubles per element fits within the limits, else why not.
std::string memory_problem(const Shape& shape, Index columns, const ReadLimits& limits) {
  const double bytes = static_cast<double>(num_elements(shape)) * static_cast<double>(columns) * sizeof(double);
  const std::string problem = detail::memory_problem(bytes, limits);
  if (problem.empty()) return "";
  const std::string kind = columns > 1 ? " affine in " + std::to_string(columns - 1) + " inputs" : "";
  return "a tensor of shape " + shape_string(shape) + kind + " " + problem;
}

double sparse_bytes(Index rows, Index nonzeros) {
  return static_cast<double>(nonzeros) * static_cast<double>(sizeof(double) + sizeof(int)) +
         static_cast<double>(rows + 1) * sizeof(int);
}

void NodeContext::check_sparse_memory(const Shape& shape, Index nonzeros) const {
  const std::string problem = detail::memory_problem(sparse_bytes(num_elements(shape), nonzeros), limits_);
  if (!problem.empty())
    fail("a tensor of shape " + shape_string(shape) + " with " + std::to_string(nonzeros) + " nonzero coefficients " +
         problem);
}

Eigen::VectorXd Value::offset() const {
  if (identity) return Eigen::VectorXd::Zero(num_elements(shape));
  if (conv) return conv_bias;
  if (!sparse) return rows.col(rows.cols() - 1);
  Eigen::VectorXd c = Eigen::VectorXd::Zero(sparse_rows.rows());
  const Index last = sparse_rows.cols() - 1;
  for (Index i = 0; i < sparse_rows.outerSize(); ++i)
    for (SparseRows::InnerIterator it(sparse_rows, i); it; ++it)
      if (it.col() == last) c[i] = it.value();
  return c;
}

double Value::bytes() const {
  if (identity) return 0.0;
  if (conv) return static_cast<double>(conv->kernel().size() + conv_bias.size()) * sizeof(double);
  if (sparse) return sparse_bytes(sparse_rows.rows(), sparse_rows.nonZeros());
  return static_cast<double>(rows.size()) * sizeof(double);
}

// A value of the given shape with the same kind (constant or affine in the same x) as v, and no rows yet.
Value kind_of(const Value& v, Shape shape) {
  Value out;
  out.shape = std::move(shape);
  out.constant = v.constant;
  out.integer = v.integer;
  out.stage = v.stage;
  return out;
}

// An uninitialized dense value of the given shape with the same kind (constant or affine in the same x) as v.
Value like(const Value& v, Shape shape) {
  Value out = kind_of(v, std::move(shape));
  out.rows.resize(num_elements(out.shape), v.columns());
  return out;
}

// x itself, for a layer input of the given shape.
Value make_identity(Shape shape, std::size_t stage) {
  Value v;
  v.shape = std::move(shape);
  v.identity = true;
  v.constant = false;
  v.stage = stage;
  return v;
}

Value dense_rows(const NodeContext& ctx, const Value& v) {
  if (!v.identity && !v.sparse) return v;
  const Index n = num_elements(v.shape);
  const Index columns = v.columns();
  ctx.check_memory(v.shape, columns);
  Value out = kind_of(v, v.shape);
  if (v.sparse) {
    out.rows = Eigen::MatrixXd(v.sparse_rows);
  } else {
    out.rows = Eigen::MatrixXd::Zero(n, columns);
    out.rows.middleCols(v.first, n).setIdentity();
  }
  return out;
}

Value conv_rows_of(const NodeContext& ctx, const Value& v) {
  if (!v.conv) return v;
  ctx.check_sparse_memory(v.shape, v.conv->nonzeros() + v.num_rows());
  Value out = kind_of(v, v.shape);
  out.sparse = true;
  out.sparse_rows.resize(v.num_rows(), v.columns());
  out.sparse_rows.reserve(v.conv->nonzeros() + v.num_rows());
  const Index last = v.columns() - 1;
  for (Index j = 0; j < v.num_rows(); ++j) {
    out.sparse_rows.startVec(j);
    v.conv->for_each_in_row(j, [&](Index i, double w) { out.sparse_rows.insertBack(j, i) = w; });
    if (v.conv_bias[j] != 0.0) out.sparse_rows.insertBack(j, last) = v.conv_bias[j];
  }
  out.sparse_rows.finalize();
  return out;
}

Value sparse_rows_of(const Value& v) {
  if (!v.identity) return v;
  const Index n = num_elements(v.shape);
  Value out = kind_of(v, v.shape);
  out.sparse = true;
  out.sparse_rows.resize(n, v.columns());
  out.sparse_rows.reserve(n);
  for (Index i = 0; i < n; ++i) {
    out.sparse_rows.startVec(i);
    out.sparse_rows.insertBack(i, v.first + i) = 1.0;
  }
  out.sparse_rows.finalize();
  return out;
}

SparseRows to_sparse(const Value& v) {
  if (v.identity) return sparse_rows_of(v).sparse_rows;
  if (v.sparse) return v.sparse_rows;
  return v.rows.sparseView();
}

Value from_sparse(const NodeContext& ctx, const Value& like, Shape shape, SparseRows rows) {
  Value out = kind_of(like, std::move(shape));
  out.constant = false;
  rows.prune(0.0);
  if (rows.nonZeros() > rows.rows() * rows.cols() / 4) {
    ctx.check_memory(out.shape, rows.cols());
    out.rows = Eigen::MatrixXd(rows);
    return out;
  }
  out.sparse = true;
  out.sparse_rows = std::move(rows);
  out.sparse_rows.makeCompressed();
  return out;
}

Value select_rows(const NodeContext& ctx, const Value& v, Shape shape, const std::vector<Index>& source, double fill) {
  if (v.identity) return select_rows(ctx, sparse_rows_of(v), std::move(shape), source, fill);
  const auto n = static_cast<Index>(source.size());
  if (!v.sparse) {
    ctx.check_memory(shape, v.columns());
    Value out = like(v, std::move(shape));
    for (Index i = 0; i < n; ++i) {
      if (source[i] >= 0) {
        out.rows.row(i) = v.rows.row(source[i]);
      } else {
        out.rows.row(i).setZero();
        out.rows(i, out.rows.cols() - 1) = fill;
      }
    }
    return out;
  }
  Index nonzeros = 0;
  for (Index i = 0; i < n; ++i) nonzeros += source[i] >= 0 ? v.sparse_rows.innerVector(source[i]).nonZeros() : 1;
  const Index last = v.sparse_rows.cols() - 1;
  if (nonzeros > n * (last + 1) / 4) {  // dense rows take less (from_sparse's rule)
    ctx.check_memory(shape, last + 1);
    Value out = like(v, std::move(shape));
    out.rows.setZero();
    for (Index i = 0; i < n; ++i) {
      if (source[i] < 0) out.rows(i, last) = fill;
      else for (SparseRows::InnerIterator it(v.sparse_rows, source[i]); it; ++it) out.rows(i, it.col()) = it.value();
    }
    return out;
  }
  ctx.check_sparse_memory(shape, nonzeros);
  Value out = kind_of(v, std::move(shape));
  out.sparse = true;
  out.sparse_rows.resize(n, last + 1);
  out.sparse_rows.reserve(nonzeros);
  for (Index i = 0; i < n; ++i) {
    out.sparse_rows.startVec(i);
    if (source[i] >= 0) {
      for (SparseRows::InnerIterator it(v.sparse_rows, source[i]); it; ++it)
        out.sparse_rows.insertBack(i, it.col()) = it.value();
    } else if (fill != 0.0) {
      out.sparse_rows.insertBack(i, last) = fill;
    }
  }
  out.sparse_rows.finalize();
  return out;
}

Value combine_rows(const NodeContext& ctx, const Value& v, Shape shape, const SparseRows& combination) {
  if (v.identity) return combine_rows(ctx, sparse_rows_of(v), std::move(shape), combination);
  if (!v.sparse) {
    ctx.check_memory(shape, v.columns());
    Value out = kind_of(v, std::move(shape));
    out.rows = combination * v.rows;
    return out;
  }
  Index estimate = 0;  // the product's nonzeros at most
  for (Index i = 0; i < combination.outerSize(); ++i)
    for (SparseRows::InnerIterator it(combination, i); it; ++it)
      estimate += v.sparse_rows.innerVector(it.col()).nonZeros();
  ctx.check_sparse_memory(shape, estimate);
  return from_sparse(ctx, v, std::move(shape), SparseRows(combination * v.sparse_rows));
}

namespace {

// Calls f(column, value) for the entries of row r of a non-constant v (a dense row's nonzeros).
template <typename F>
void for_each_entry(const Value& v, Index r, F&& f) {
  if (v.identity) {
    f(v.first + r, 1.0);
  } else if (v.sparse) {
    for (SparseRows::InnerIterator it(v.sparse_rows, r); it; ++it) f(it.col(), it.value());
  } else {
    for (Index c = 0; c < v.rows.cols(); ++c)
      if (v.rows(r, c) != 0.0) f(c, v.rows(r, c));
  }
}

}  // namespace

Value join_rows(const NodeContext& ctx, Shape shape, const std::vector<std::pair<const Value*, Index>>& parts) {
  const Value* affine = nullptr;
  bool sparse = false;
  for (const auto& [v, r] : parts)
    if (!v->constant) {
      affine = v;
      sparse = sparse || v->sparse || v->identity;
    }
  const auto n = static_cast<Index>(parts.size());
  const Value& kind = affine ? *affine : *parts.front().first;
  if (!sparse) {
    ctx.check_memory(shape, kind.columns());
    Value out = like(kind, std::move(shape));
    for (Index i = 0; i < n; ++i) {
      const Value& v = *parts[static_cast<std::size_t>(i)].first;
      out.rows.row(i).setZero();
      out.rows.row(i).tail(v.rows.cols()) = v.rows.row(parts[static_cast<std::size_t>(i)].second);
    }
    return out;
  }
  const Index last = affine->columns() - 1;
  Index nonzeros = 0;
  for (const auto& [v, r] : parts)
    nonzeros += v->constant ? 1 : v->identity ? 1 : v->sparse ? v->sparse_rows.innerVector(r).nonZeros() : last + 1;
  ctx.check_sparse_memory(shape, nonzeros);
  SparseRows rows(n, last + 1);
  rows.reserve(nonzeros);
  for (Index i = 0; i < n; ++i) {
    const auto& [v, r] = parts[static_cast<std::size_t>(i)];
    rows.startVec(i);
    if (v->constant) {
      if (v->rows(r, 0) != 0.0) rows.insertBack(i, last) = v->rows(r, 0);
    } else {
      for_each_entry(*v, r, [&](Index c, double w) { rows.insertBack(i, c) = w; });
    }
  }
  rows.finalize();
  return from_sparse(ctx, *affine, std::move(shape), std::move(rows));
}

const Value& input(const NodeContext& ctx, const Inputs& inputs, std::size_t k) {
  if (k >= inputs.size() || inputs[k] == nullptr) ctx.fail("missing input " + std::to_string(k));
  return *inputs[k];
}

const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const onnx::AttributeProto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback) {
  const onnx::AttributeProto* a = find_attribute(node, name);
  return a ? a->i() : fallback;
}

std::string string_attribute(const onnx::NodeProto& node, const std::string& name, const std::string& fallback) {
  const onnx::AttributeProto* a = find_attribute(node, name);
  return a ? a->s() : fallback;
}

double float_attribute(const NodeContext& ctx, const std::string& name, double fallback) {
  const onnx::AttributeProto* a = find_attribute(ctx.node(), name);
  if (a && !std::isfinite(a->f())) ctx.fail("attribute " + name + " is not finite");
  return a ? a->f() : fallback;
}

// Integer contents of a constant tensor (shapes, axes).
Shape to_ints(const NodeContext& ctx, const Value& v, const std::string& what) {
  if (!v.constant) ctx.fail(what + " must be a constant tensor");
  Shape ints;
  for (Index i = 0; i < v.rows.rows(); ++i) {
    const double x = v.rows(i, 0);
    // Integers beyond 2^62 are no sane shape or axis, and converting them would overflow.
    if (x != std::round(x) || std::abs(x) > 0x1p62) ctx.fail(what + " must hold integers of a sane size");
    ints.push_back(static_cast<std::int64_t>(x));
  }
  return ints;
}

// Squeeze/Unsqueeze take their axes as an attribute up to opset 12 and as an input from opset 13.
Shape axes_of(const NodeContext& ctx, const Inputs& inputs) {
  if (const onnx::AttributeProto* a = find_attribute(ctx.node(), "axes"))
    return Shape(a->ints().begin(), a->ints().end());
  if (inputs.size() > 1 && inputs[1] != nullptr) return to_ints(ctx, *inputs[1], "axes");
  return {};
}

std::int64_t normalize_axis(const NodeContext& ctx, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    ctx.fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(r));
  return axis < 0 ? axis + r : axis;
}

Shape distinct_axes(const NodeContext& ctx, const Shape& axes, std::size_t rank) {
  Shape normalized;
  std::vector<bool> seen(rank, false);
  for (std::int64_t axis : axes) {
    const std::int64_t d = normalize_axis(ctx, axis, rank);
    if (seen[d]) ctx.fail("repeated axis " + std::to_string(axis));
    seen[d] = true;
    normalized.push_back(d);
  }
  return normalized;
}

// ---- Tensor data ----

template <typename T>
Eigen::MatrixXd decode_raw(const std::string& raw, std::int64_t count) {
  Eigen::MatrixXd data(count, 1);
  for (std::int64_t i = 0; i < count; ++i) {
    T element;
    std::memcpy(&element, raw.data() + i * sizeof(T), sizeof(T));  // ONNX raw data is little-endian
    data(i) = static_cast<double>(element);
  }
  return data;
}

template <typename Field>
Eigen::MatrixXd decode_typed(const Field& field) {
  Eigen::MatrixXd data(field.size(), 1);
  for (int i = 0; i < field.size(); ++i) data(i) = static_cast<double>(field.Get(i));
  return data;
}

// IEEE half precision (1 sign, 5 exponent, 10 mantissa bits) and bfloat16 (the upper half of a float) are
// exactly representable in double: each decodes to the value it stands for, subnormals included; the exponent
// field of all ones (infinity, NaN) decodes to a non-finite value, which tensor_value then refuses.
double half_to_double(std::uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0x1f) return mantissa ? std::numeric_limits<double>::quiet_NaN()
                                        : sign * std::numeric_limits<double>::infinity();
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(1024 + mantissa, exponent - 25);
}

double bfloat16_to_double(std::uint16_t bits) {
  const std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &word, sizeof value);
  return value;
}

// 16-bit floats: two little-endian bytes each in raw data, else one per element of int32_data (ONNX's
// TensorProto stores FLOAT16 and BFLOAT16 there, the bits in the low 16).
template <double (*decode)(std::uint16_t), typename Field>
Eigen::MatrixXd decode_16(const std::string& raw, bool has_raw, std::int64_t count, const Field& int32_data) {
  Eigen::MatrixXd data(count, 1);
  for (std::int64_t i = 0; i < count; ++i) {
    std::uint16_t bits;
    if (has_raw)
      std::memcpy(&bits, raw.data() + i * 2, 2);
    else
      bits = static_cast<std::uint16_t>(int32_data.Get(static_cast<int>(i)) & 0xffff);
    data(i) = decode(bits);
  }
  return data;
}

// The index of the first value of `data` that is not finite, or -1 (the vectorized check first: weights are).
Index first_non_finite(const Eigen::MatrixXd& data) {
  if (data.allFinite()) return -1;
  for (Index i = 0; i < data.size(); ++i)
    if (!std::isfinite(data(i))) return i;
  return -1;
}

// `where` says which file or node the tensor belongs to, for error messages.
Value tensor_value(const onnx::TensorProto& tensor, const std::string& where, const ReadLimits& limits) {
  const auto fail = [&](const std::string& what) {
    throw Error("tensor '" + tensor.name() + "' " + where + ": " + what);
  };
  if (tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
    fail("external tensor data is not supported");
  const Shape shape(tensor.dims().begin(), tensor.dims().end());
  const std::int64_t count = num_elements(shape);
  if (count < 0) fail("invalid dimensions " + shape_string(shape));
  if (const std::string problem = memory_problem(shape, 1, limits); !problem.empty()) fail(problem);
  const std::string& raw = tensor.raw_data();
  // Raw data must match the shape in bytes, and a typed field in length, before either is decoded.
  const auto raw_fits = [&](std::size_t element_size) {
    if (raw.size() != static_cast<std::size_t>(count) * element_size)
      fail(std::to_string(raw.size()) + " bytes of data for shape " + shape_string(shape));
    return true;
  };
  const auto fits = [&](const auto& field) -> const auto& {
    if (field.size() != count) fail(std::to_string(field.size()) + " values for shape " + shape_string(shape));
    return field;
  };
  const bool has_raw = tensor.has_raw_data();
  Eigen::MatrixXd data;
  switch (tensor.data_type()) {
    case onnx::TensorProto_DataType_FLOAT:
      data = has_raw && raw_fits(sizeof(float)) ? decode_raw<float>(raw, count)
                                                : decode_typed(fits(tensor.float_data()));
      break;
    case onnx::TensorProto_DataType_DOUBLE:
      data = has_raw && raw_fits(sizeof(double)) ? decode_raw<double>(raw, count)
                                                 : decode_typed(fits(tensor.double_data()));
      break;
    case onnx::TensorProto_DataType_INT64:
      data = has_raw && raw_fits(sizeof(std::int64_t)) ? decode_raw<std::int64_t>(raw, count)
                                                       : decode_typed(fits(tensor.int64_data()));
      break;
    case onnx::TensorProto_DataType_INT32:
      data = has_raw && raw_fits(sizeof(std::int32_t)) ? decode_raw<std::int32_t>(raw, count)
                                                       : decode_typed(fits(tensor.int32_data()));
      break;
    case onnx::TensorProto_DataType_FLOAT16:
    case onnx::TensorProto_DataType_BFLOAT16:
      if (has_raw)
        raw_fits(2);
      else
        fits(tensor.int32_data());
      data = tensor.data_type() == onnx::TensorProto_DataType_FLOAT16
                 ? decode_16<half_to_double>(raw, has_raw, count, tensor.int32_data())
                 : decode_16<bfloat16_to_double>(raw, has_raw, count, tensor.int32_data());
      break;
    case onnx::TensorProto_DataType_BOOL:  // a flag such as Dropout's training_mode: one byte raw, else int32_data
      data = has_raw && raw_fits(sizeof(std::uint8_t)) ? decode_raw<std::uint8_t>(raw, count)
                                                       : decode_typed(fits(tensor.int32_data()));
      break;
    default:
      fail("unsupported data type " + onnx::TensorProto_DataType_Name(tensor.data_type()));
  }
  if (const Index i = first_non_finite(data); i >= 0)
    fail("value " + std::to_string(data(i)) + " at element " + std::to_string(i) + " is not finite");
  Value v = make_constant(shape, std::move(data));
  const auto type = tensor.data_type();
  v.integer = type != onnx::TensorProto_DataType_FLOAT && type != onnx::TensorProto_DataType_DOUBLE &&
              type != onnx::TensorProto_DataType_FLOAT16 && type != onnx::TensorProto_DataType_BFLOAT16;
  return v;
}

// ---- Row operations shared by the operators ----

std::vector<std::int64_t> row_major_strides(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t k = shape.size(); k-- > 1;) strides[k - 1] = strides[k] * shape[k];
  return strides;
}

// The value whose element i (row-major in `shape`) is element sum_k index_k * strides[k] of v: this one
// gather expresses broadcasting (stride 0) and transposition (permuted strides).
Value gather(const NodeContext& ctx, const Value& v, const Shape& shape, const std::vector<std::int64_t>& strides) {
  std::vector<Index> sources(static_cast<std::size_t>(num_elements(shape)));
  std::vector<std::int64_t> counter(shape.size(), 0);
  std::int64_t source = 0;
  for (Index& s : sources) {
    s = source;
    for (std::size_t k = shape.size(); k-- > 0;) {  // odometer over the output index
      source += strides[k];
      if (++counter[k] < shape[k]) break;
      source -= strides[k] * counter[k];
      counter[k] = 0;
    }
  }
  return select_rows(ctx, v, shape, sources, 0.0);
}

Shape broadcast_shape(const NodeContext& ctx, const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (std::size_t k = 0; k < out.size(); ++k) {
    const std::int64_t da = k < a.size() ? a[a.size() - 1 - k] : 1;
    const std::int64_t db = k < b.size() ? b[b.size() - 1 - k] : 1;
    if (da != db && da != 1 && db != 1)
      ctx.fail("inconsistent shapes " + shape_string(a) + " and " + shape_string(b) + " for broadcasting");
    out[out.size() - 1 - k] = da == 1 ? db : da;
  }
  if (num_elements(out) < 0) ctx.fail("broadcast shape " + shape_string(out) + " is too large");
  return out;
}

Value broadcast_to(const NodeContext& ctx, const Value& v, const Shape& shape) {
  if (v.shape == shape) return v;
  const std::vector<std::int64_t> source_strides = row_major_strides(v.shape);
  const std::size_t lead = shape.size() - v.shape.size();
  std::vector<std::int64_t> strides(shape.size(), 0);
  for (std::size_t k = lead; k < shape.size(); ++k)
    strides[k] = v.shape[k - lead] == 1 ? 0 : source_strides[k - lead];
  return gather(ctx, v, shape, strides);
}

// Two non-constant tensors computed after the same layer are affine in the same x, so their sum is too; a
// tensor from before a layer that a later node needs is carried through it (GraphReader::close_layer), so both
// operands of a residual sum are always of the current layer.
// Sparse operands give a sparse sum; a dense one takes the other's entries.
Value add(const NodeContext& ctx, const Value& a, const Value& b) {
  if (a.identity || b.identity) return add(ctx, sparse_rows_of(a), sparse_rows_of(b));
  if (!a.constant && !b.constant && a.stage != b.stage)
    ctx.fail("sum of two non-constant tensors from different layers");
  const Shape shape = broadcast_shape(ctx, a.shape, b.shape);
  if (!a.sparse && !b.sparse) ctx.check_memory(shape, std::max(a.rows.cols(), b.rows.cols()));
  // The dense operand (if any) receives the other: a sum with a dense one is dense.
  const bool a_receives = b.constant || (!a.constant && !a.sparse);
  Value sum = broadcast_to(ctx, a_receives ? a : b, shape);
  const Value other = broadcast_to(ctx, a_receives ? b : a, shape);
  if (other.constant && !sum.sparse) {
    sum.rows.rightCols(1) += other.rows;
  } else if (other.constant) {
    const Index last = sum.sparse_rows.cols() - 1;
    SparseRows column(sum.sparse_rows.rows(), last + 1);
    column.reserve(sum.sparse_rows.rows());
    for (Index i = 0; i < column.rows(); ++i) {
      column.startVec(i);
      if (other.rows(i, 0) != 0.0) column.insertBack(i, last) = other.rows(i, 0);
    }
    column.finalize();
    sum.sparse_rows = SparseRows(sum.sparse_rows + column);
  } else if (!sum.sparse) {
    if (other.sparse) sum.rows += other.sparse_rows;
    else sum.rows += other.rows;
  } else {
    ctx.check_sparse_memory(shape, sum.sparse_rows.nonZeros() + other.sparse_rows.nonZeros());
    return from_sparse(ctx, sum, shape, SparseRows(sum.sparse_rows + other.sparse_rows));
  }
  return sum;
}

Value multiply(const NodeContext& ctx, const Value& a, const Value& b) {
  if (a.identity || b.identity) return multiply(ctx, sparse_rows_of(a), sparse_rows_of(b));
  if (!a.constant && !b.constant) ctx.fail("product of two non-constant tensors is not affine");
  const Shape shape = broadcast_shape(ctx, a.shape, b.shape);
  if (!a.sparse && !b.sparse) ctx.check_memory(shape, std::max(a.rows.cols(), b.rows.cols()));
  Value product = broadcast_to(ctx, a.constant ? b : a, shape);
  const Eigen::VectorXd factor = broadcast_to(ctx, a.constant ? a : b, shape).offset();
  if (product.sparse) {
    product.sparse_rows = SparseRows(factor.asDiagonal() * product.sparse_rows);
    if ((factor.array() == 0.0).any()) product.sparse_rows.prune(0.0);
  } else {
    product.rows = factor.asDiagonal() * product.rows;
  }
  return product;
}

Value scalar(double x) { return make_constant({}, Eigen::VectorXd::Constant(1, x)); }

Value transpose(const NodeContext& ctx, const Value& v, Shape perm) {
  if (v.identity) return transpose(ctx, sparse_rows_of(v), std::move(perm));
  const std::size_t rank = v.shape.size();
  if (perm.empty())
    for (std::size_t k = rank; k-- > 0;) perm.push_back(static_cast<std::int64_t>(k));
  std::vector<bool> seen(rank, false);
  if (perm.size() != rank)
    ctx.fail("perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  const std::vector<std::int64_t> source_strides = row_major_strides(v.shape);
  Shape shape(rank);
  std::vector<std::int64_t> strides(rank);
  for (std::size_t k = 0; k < rank; ++k) {
    const std::int64_t p = normalize_axis(ctx, perm[k], rank);
    if (seen[p]) ctx.fail("perm is not a permutation");
    seen[p] = true;
    shape[k] = v.shape[p];
    strides[k] = source_strides[p];
  }
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  if (v.constant && rank == 2 && normalize_axis(ctx, perm[0], rank) == 1) {  // Gemm's transB: no index per element
    Value out = make_constant(shape, Eigen::VectorXd(v.rows.size()));
    out.integer = v.integer;
    Eigen::Map<RowMajor>(out.rows.data(), shape[0], shape[1]) =
        Eigen::Map<const RowMajor>(v.rows.data(), v.shape[0], v.shape[1]).transpose();
    return out;
  }
  return gather(ctx, v, shape, strides);
}

Value reshape(const NodeContext& ctx, const Value& v, Shape shape) {
  if (num_elements(shape) < 0 || num_elements(shape) != num_elements(v.shape))
    ctx.fail("inconsistent shapes: cannot reshape " + shape_string(v.shape) + " to " + shape_string(shape));
  Value out = v;
  out.shape = std::move(shape);
  return out;
}

// m s for constant weights m and sparse rows s: sparse when at most a quarter of m's entries are nonzero (a
// block-diagonal layer, a pooling written as a Gemm), so that the result follows its nonzeros.
template <typename Matrix>
Value weighted_rows(const NodeContext& ctx, const Value& affine, const Matrix& m, const SparseRows& s, Shape shape) {
  if ((m.array() != 0.0).count() * 4 <= m.size()) {
    const SparseRows weights = m.sparseView();
    Index estimate = 0;  // the product's nonzeros at most
    for (Index j = 0; j < weights.outerSize(); ++j)
      for (SparseRows::InnerIterator it(weights, j); it; ++it) estimate += s.innerVector(it.col()).nonZeros();
    ctx.check_sparse_memory(shape, estimate);
    return from_sparse(ctx, affine, std::move(shape), SparseRows(weights * s));
  }
  ctx.check_memory(shape, s.cols());
  Value out = kind_of(affine, std::move(shape));
  out.rows = m * s;
  return out;
}

// True when a dimension before the last two is not 1: a MatMul operand holding a batch of matrices.
bool has_batch(const Shape& shape) {
  for (std::size_t k = 0; k + 2 < shape.size(); ++k)
    if (shape[k] != 1) return true;
  return false;
}

// numpy matmul, out[i,j] = sum_k a[i,k] b[k,j], where a batch of matrices is a's alone (b's leading dimensions
// are 1). One operand must be constant; the other may be affine, with the weight on either side (x @ W or W @ x).
// A sparse operand of one row (x @ W) or one column (W @ x), the usual Gemm, keeps the product from a dense copy
// of its rows. With
// `b_transposed` (Gemm's transB), a constant 2-D b is read as its transpose, which spares a copy of the weights.
Value matmul(const NodeContext& ctx, const Value& a, const Value& b, bool b_transposed) {
  if (b_transposed && (!b.constant || b.shape.size() != 2)) return matmul(ctx, a, transpose(ctx, b, {}), false);
  if (!a.constant && !b.constant) ctx.fail("product of two non-constant tensors is not affine");
  if (a.shape.empty() || b.shape.empty()) ctx.fail("inconsistent shapes: MatMul of a scalar");
  if (has_batch(a.shape) && !has_batch(b.shape) && b.shape.size() >= 2 && b.shape.size() <= a.shape.size()) {
    // numpy broadcasts b over a's batch (x [2,6,8] @ W [8,128], or W [2,p,q] @ x [q,r]): a's matrices stacked
    // into one [2 p, q] meet the one matrix b, and the rows come out in a's order.
    Shape rows(a.shape.begin(), a.shape.end() - 1);
    const Value stacked = reshape(ctx, a, {num_elements(rows), a.shape.back()});
    const Value matrix = reshape(ctx, b, {b.shape[b.shape.size() - 2], b.shape.back()});
    Value out = matmul(ctx, stacked, matrix, false);
    rows.push_back(out.shape.back());
    return reshape(ctx, out, rows);
  }
  for (const Value* v : {&a, &b})
    for (std::size_t k = 0; k + 2 < v->shape.size(); ++k)
      if (v->shape[k] != 1) ctx.fail("inconsistent shapes: batched MatMul of " + shape_string(v->shape));
  const bool a_vector = a.shape.size() == 1;
  const bool b_vector = b.shape.size() == 1;
  const std::int64_t p = a_vector ? 1 : a.shape[a.shape.size() - 2];
  const std::int64_t q = a.shape.back();
  const std::int64_t q_b = b_vector ? b.shape[0] : b.shape[b.shape.size() - (b_transposed ? 1 : 2)];
  const std::int64_t r = b_vector ? 1 : b.shape[b_transposed ? 0 : b.shape.size() - 1];
  if (q != q_b) ctx.fail("inconsistent shapes " + shape_string(a.shape) + " and " + shape_string(b.shape));
  if (num_elements({p, r}) < 0)
    ctx.fail("MatMul result [" + std::to_string(p) + "," + std::to_string(r) + "] is too large");
  Shape shape(std::max(a.shape.size(), b.shape.size()), 1);
  if (!a_vector && !b_vector) {
    shape[shape.size() - 2] = p;
    shape.back() = r;
  } else if (!a_vector || !b_vector) {
    shape.pop_back();  // numpy drops the dimension that was added to the 1-D operand
    if (!shape.empty()) shape.back() = a_vector ? r : p;
  }
  if (a_vector && b_vector) shape = {};

  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  // b is the weight when constant (a too when both are: constant folding).
  const Value& affine = b.constant ? a : b;
  const double* weights_data = (b.constant ? b : a).rows.data();  // a constant's one column
  // b as W^T (r x q), a view of its data either way.
  const Eigen::Map<const RowMajor> b_rows(weights_data, b_transposed ? r : q, b_transposed ? q : r);
  const auto product = [&](const auto& w_transposed) -> Value {
    if ((affine.sparse || affine.identity) && p == 1)
      return weighted_rows(ctx, affine, w_transposed, to_sparse(affine), shape);
    if (affine.sparse || affine.identity) return matmul(ctx, dense_rows(ctx, a), b, b_transposed);
    ctx.check_memory({p, r}, affine.columns());
    Value out = like(affine, shape);
    for (std::int64_t i = 0; i < p; ++i) out.rows.middleRows(i * r, r) = w_transposed * a.rows.middleRows(i * q, q);
    return out;
  };
  if (b.constant) return b_transposed ? product(b_rows) : product(b_rows.transpose());
  if ((affine.sparse || affine.identity) && r == 1)
    return weighted_rows(ctx, affine, Eigen::Map<const RowMajor>(weights_data, p, q), to_sparse(affine), shape);
  if (affine.sparse || affine.identity) return matmul(ctx, a, dense_rows(ctx, b), false);
  ctx.check_memory({p, r}, affine.columns());
  Value out = like(affine, shape);
  const Eigen::Map<const RowMajor> weights(weights_data, p, q);
  Eigen::MatrixXd column(q, b.rows.cols());
  for (std::int64_t j = 0; j < r; ++j) {
    for (std::int64_t k = 0; k < q; ++k) column.row(k) = b.rows.row(k * r + j);
    const Eigen::MatrixXd rows = weights * column;
    for (std::int64_t i = 0; i < p; ++i) out.rows.row(i * r + j) = rows.row(i);
  }
  return out;
}

}  // namespace detail::onnx_graph

namespace {

using namespace detail::onnx_graph;
using detail::ReadLimits;

// ---- Operators ----

Value gemm_op(const NodeContext& ctx, const Inputs& inputs) {
  const onnx::NodeProto& node = ctx.node();
  const Value& a = input(ctx, inputs, 0);
  const Value& b = input(ctx, inputs, 1);
  if (a.shape.size() != 2 || b.shape.size() != 2)
    ctx.fail("inconsistent shapes: Gemm needs 2-D inputs, got " + shape_string(a.shape) + " and " +
             shape_string(b.shape));
  const bool trans_b = int_attribute(node, "transB", 0) != 0;
  Value ab = int_attribute(node, "transA", 0) ? matmul(ctx, transpose(ctx, a, {}), b, trans_b)
                                               : matmul(ctx, a, b, trans_b);
  // alpha = 1 and a constant C on dense rows touch the product in place: after a VGG's last pooling it is 4096 rows
  // of 25089 columns (822 MB), which a copy per step would double.
  const double alpha = float_attribute(ctx, "alpha", 1.0);
  Value y = alpha == 1.0 ? std::move(ab) : multiply(ctx, ab, scalar(alpha));
  if (inputs.size() < 3 || inputs[2] == nullptr) return y;  // C is optional from opset 11
  const Value c = multiply(ctx, *inputs[2], scalar(float_attribute(ctx, "beta", 1.0)));
  if (broadcast_shape(ctx, y.shape, c.shape) != y.shape)
    ctx.fail("inconsistent shapes: C of shape " + shape_string(c.shape) + " does not broadcast to " +
             shape_string(y.shape));
  if (c.constant && !y.constant && !y.identity && !y.sparse && !y.conv) {
    y.rows.col(y.rows.cols() - 1) += broadcast_to(ctx, c, y.shape).rows.col(0);
    return y;
  }
  return add(ctx, y, c);
}

Value matmul_op(const NodeContext& ctx, const Inputs& inputs) {
  return matmul(ctx, input(ctx, inputs, 0), input(ctx, inputs, 1), false);
}

Value add_op(const NodeContext& ctx, const Inputs& inputs) {
  return add(ctx, input(ctx, inputs, 0), input(ctx, inputs, 1));
}

Value sub_op(const NodeContext& ctx, const Inputs& inputs) {
  return add(ctx, input(ctx, inputs, 0), multiply(ctx, input(ctx, inputs, 1), scalar(-1.0)));
}

Value mul_op(const NodeContext& ctx, const Inputs& inputs) {
  return multiply(ctx, input(ctx, inputs, 0), input(ctx, inputs, 1));
}

Value identity_op(const NodeContext& ctx, const Inputs& inputs) { return input(ctx, inputs, 0); }

Value neg_op(const NodeContext& ctx, const Inputs& inputs) {
  return multiply(ctx, input(ctx, inputs, 0), scalar(-1.0));
}

// The element-wise sum of any number of tensors, broadcast as Add.
Value sum_op(const NodeContext& ctx, const Inputs& inputs) {
  Value total = input(ctx, inputs, 0);
  for (std::size_t k = 1; k < inputs.size(); ++k) total = add(ctx, total, input(ctx, inputs, k));
  return total;
}

// Integer division (a shape computation, x.size(1) // 2 as old PyTorch exports write it) truncates toward zero.
Value div_op(const NodeContext& ctx, const Inputs& inputs) {
  Value divisor = input(ctx, inputs, 1);
  const Value& dividend = input(ctx, inputs, 0);
  if (!divisor.constant) ctx.fail("division by a non-constant tensor is not affine");
  if ((divisor.rows.array() == 0.0).any()) ctx.fail("division by zero");
  if (dividend.constant && dividend.integer && divisor.integer) {
    const Shape shape = broadcast_shape(ctx, dividend.shape, divisor.shape);
    Value quotient = broadcast_to(ctx, dividend, shape);
    quotient.rows = quotient.rows.cwiseQuotient(broadcast_to(ctx, divisor, shape).rows)
                        .unaryExpr([](double q) { return std::trunc(q); });
    return quotient;
  }
  divisor.rows = divisor.rows.cwiseInverse();
  return multiply(ctx, dividend, divisor);
}

Value flatten_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& v = input(ctx, inputs, 0);
  const std::size_t rank = v.shape.size();
  std::int64_t axis = int_attribute(ctx.node(), "axis", 1);
  if (axis != static_cast<std::int64_t>(rank)) axis = normalize_axis(ctx, axis, rank);
  const Shape outer(v.shape.begin(), v.shape.begin() + axis);
  const Shape inner(v.shape.begin() + axis, v.shape.end());
  return reshape(ctx, v, {num_elements(outer), num_elements(inner)});
}

Value reshape_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& v = input(ctx, inputs, 0);
  Shape shape = to_ints(ctx, input(ctx, inputs, 1), "the target shape");
  const bool allow_zero = int_attribute(ctx.node(), "allowzero", 0) != 0;
  std::int64_t known = 1;
  int inferred = -1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0 && !allow_zero) {
      if (k >= v.shape.size())
        ctx.fail("inconsistent shapes: cannot copy dimension " + std::to_string(k) + " of " +
                 shape_string(v.shape));
      shape[k] = v.shape[k];
    }
    if (shape[k] == -1 && inferred < 0) {
      inferred = static_cast<int>(k);
    } else if (shape[k] < 0 || (shape[k] > 0 && known > kMaxElements / shape[k])) {
      ctx.fail("invalid target shape " + shape_string(shape) + " (a negative or too large dimension)");
    } else {
      known *= shape[k];
    }
  }
  if (inferred >= 0) shape[inferred] = known == 0 ? 0 : num_elements(v.shape) / known;
  return reshape(ctx, v, shape);
}

Value squeeze_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& v = input(ctx, inputs, 0);
  std::vector<bool> drop(v.shape.size(), false);
  const Shape axes = axes_of(ctx, inputs);
  for (std::size_t k = 0; k < v.shape.size(); ++k) drop[k] = axes.empty() && v.shape[k] == 1;
  for (std::int64_t axis : axes) {
    const std::int64_t k = normalize_axis(ctx, axis, v.shape.size());
    if (v.shape[k] != 1)
      ctx.fail("inconsistent shapes: cannot squeeze axis " + std::to_string(k) + " of " +
               shape_string(v.shape));
    drop[k] = true;
  }
  Shape shape;
  for (std::size_t k = 0; k < v.shape.size(); ++k)
    if (!drop[k]) shape.push_back(v.shape[k]);
  return reshape(ctx, v, shape);
}

Value unsqueeze_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& v = input(ctx, inputs, 0);
  const Shape axes = axes_of(ctx, inputs);
  const std::size_t rank = v.shape.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (std::int64_t k : distinct_axes(ctx, axes, rank)) inserted[k] = true;
  Shape shape;
  auto source = v.shape.begin();
  for (std::size_t k = 0; k < rank; ++k) shape.push_back(inserted[k] ? 1 : *source++);
  return reshape(ctx, v, shape);
}

Value transpose_op(const NodeContext& ctx, const Inputs& inputs) {
  const onnx::AttributeProto* perm = find_attribute(ctx.node(), "perm");
  return transpose(ctx, input(ctx, inputs, 0),
                   perm ? Shape(perm->ints().begin(), perm->ints().end()) : Shape{});
}

Value constant_op(const NodeContext& ctx, const Inputs&) {
  const onnx::NodeProto& node = ctx.node();
  if (const onnx::AttributeProto* a = find_attribute(node, "value"))
    return tensor_value(a->t(), ctx.where(), ctx.limits());
  if (find_attribute(node, "value_float")) return scalar(float_attribute(ctx, "value_float", 0.0));
  if (const onnx::AttributeProto* a = find_attribute(node, "value_int")) {
    Value v = scalar(static_cast<double>(a->i()));
    v.integer = true;
    return v;
  }
  const onnx::AttributeProto* floats = find_attribute(node, "value_floats");
  const onnx::AttributeProto* ints = find_attribute(node, "value_ints");
  if (!floats && !ints) ctx.fail("unsupported Constant (expected value, value_float(s) or value_int(s))");
  Eigen::MatrixXd data = floats ? decode_typed(floats->floats()) : decode_typed(ints->ints());
  if (!data.allFinite()) ctx.fail("value_floats holds a value that is not finite");
  const Shape shape{static_cast<std::int64_t>(data.size())};
  Value v = make_constant(shape, std::move(data));
  v.integer = ints != nullptr;
  return v;
}

// A constant of the shape given by the input, every element the one element of `value` (default 0).
Value constant_of_shape_op(const NodeContext& ctx, const Inputs& inputs) {
  const Shape shape = to_ints(ctx, input(ctx, inputs, 0), "the shape");
  if (num_elements(shape) < 0) ctx.fail("invalid shape " + shape_string(shape));
  double fill = 0.0;
  bool integer = false;
  if (const onnx::AttributeProto* a = find_attribute(ctx.node(), "value")) {
    const Value v = tensor_value(a->t(), ctx.where(), ctx.limits());
    if (v.rows.size() != 1) ctx.fail("value must hold one element");
    fill = v.rows(0, 0);
    integer = v.integer;
  }
  ctx.check_memory(shape, 1);
  Value out = make_constant(shape, Eigen::VectorXd::Constant(num_elements(shape), fill));
  out.integer = integer;
  return out;
}

const std::unordered_map<std::string, Operator>& affine_operators() {
  static const std::unordered_map<std::string, Operator> operators = [] {
    std::unordered_map<std::string, Operator> ops = {
        {"Gemm", gemm_op},         {"MatMul", matmul_op},       {"Add", add_op},
        {"Sub", sub_op},           {"Mul", mul_op},             {"Div", div_op},
        {"Identity", identity_op}, {"Flatten", flatten_op},     {"Reshape", reshape_op},
        {"Squeeze", squeeze_op},   {"Unsqueeze", unsqueeze_op}, {"Transpose", transpose_op},
        {"Constant", constant_op}, {"ConstantOfShape", constant_of_shape_op}, {"Neg", neg_op},
        {"Sum", sum_op}};
    add_conv_operators(ops);
    add_shape_operators(ops);
    add_linear_operators(ops);
    return ops;
  }();
  return operators;
}

const std::unordered_map<std::string, MultiOperator>& multi_output_operators() {
  static const std::unordered_map<std::string, MultiOperator> operators = [] {
    std::unordered_map<std::string, MultiOperator> ops;
    add_multi_output_operators(ops);
    return ops;
  }();
  return operators;
}

// The operators that take a Value::identity as it is; the others get its rows written out.
bool takes_identity(const std::string& op_type) {
  static const std::unordered_set<std::string> operators = {
      "Flatten", "Reshape", "Squeeze", "Unsqueeze", "Identity", "Dropout", "Shape",
      "Gemm", "MatMul", "Conv", "ConvTranspose", "AveragePool", "GlobalAveragePool"};
  return operators.count(op_type) > 0;
}

const std::unordered_map<std::string, PwlOperator>& pwl_operators() {
  static const std::unordered_map<std::string, PwlOperator> operators = [] {
    std::unordered_map<std::string, PwlOperator> ops;
    add_pwl_operators(ops);
    return ops;
  }();
  return operators;
}

// The operators that only relabel their input's elements: they keep a block of x as it is.
bool relabels(const std::string& op_type) {
  static const std::unordered_set<std::string> operators = {"Flatten", "Reshape",  "Squeeze", "Unsqueeze",
                                                            "Identity", "Dropout", "Shape"};
  return operators.count(op_type) > 0;
}

// Why a common operator that is not piecewise linear is refused, for the error message; "" for any other.
std::string refusal_reason(const std::string& op_type) {
  static const std::unordered_set<std::string> smooth = {"Sigmoid", "Tanh",     "Softmax", "LogSoftmax", "Elu",
                                                         "Selu",    "Softplus", "Gelu",    "HardSwish",  "Mish"};
  static const std::unordered_set<std::string> curved = {"Exp", "Log", "Sqrt", "Pow",
                                                         "Sin", "Cos", "Erf",  "Reciprocal"};
  // Binarized networks (Sign) and the arg-max tails of segmentation models are discontinuous: no network of
  // ReLUs computes them.
  static const std::unordered_set<std::string> step = {"Sign",  "ArgMax", "ArgMin", "Equal",  "Greater",
                                                       "Less",  "Floor",  "Ceil",   "Round",  "Where",
                                                       "OneHot", "Not",   "And",    "Or"};
  // A final Softmax keeps the order of the outputs, so a property that only compares outputs pairwise would hold
  // of the logits alike; but a bound on an output's value, or an objective, would not, and the counterexample's
  // outputs would be the logits: it is refused like any smooth activation, with what the exporter should leave out.
  if (op_type == "Softmax")
    return " (a smooth activation: only piecewise-linear operators are exact in a MIP; a final Softmax, as MATLAB "
           "exports a softmaxLayer, preserves the outputs' order but not their values: export the network without "
           "it)";
  if (smooth.count(op_type)) return " (a smooth activation: only piecewise-linear operators are exact in a MIP)";
  if (curved.count(op_type)) return " (a smooth function: only piecewise-linear operators are exact in a MIP)";
  if (step.count(op_type)) return " (a step function: only continuous piecewise-linear operators are supported)";
  return "";
}

// `result`, computed from x's block [first, first + n) taken as a whole x of its own, as affine in all of x: its
// columns moved to the block's place, sparse (a residual branch beside a ReLU is half of x or less).
Value embed_block(const NodeContext& ctx, Value result, Index first, Index width) {
  if (result.constant) return result;
  if (result.conv) result = conv_rows_of(ctx, result);
  if (result.identity) {
    result.first = first;
    result.width = width;
    return result;
  }
  const Index n = result.columns() - 1;
  const Index rows = result.num_rows();
  Index nonzeros = 0;
  for (Index i = 0; i < rows; ++i) for_each_entry(result, i, [&](Index, double) { ++nonzeros; });
  ctx.check_sparse_memory(result.shape, nonzeros);
  SparseRows embedded(rows, width + 1);
  embedded.reserve(nonzeros);
  for (Index i = 0; i < rows; ++i) {
    embedded.startVec(i);
    for_each_entry(result, i, [&](Index c, double w) { embedded.insertBack(i, c < n ? first + c : width) = w; });
  }
  embedded.finalize();
  return from_sparse(ctx, result, result.shape, std::move(embedded));
}

// ---- The graph ----

class GraphReader {
 public:
  // The input is tracked as an identity held as no rows, so its size alone costs nothing; the operators check the
  // memory of what they build from it. This bound keeps the element counts of every tensor within int range.
  static constexpr std::int64_t kMaxInputSize = std::int64_t{1} << 24;

  // The graph's initializers give up their bytes as they are decoded.
  GraphReader(onnx::GraphProto& graph, const std::string& path, const ReadLimits& limits, std::int64_t opset,
              const std::optional<std::string>& data_folder)
      : graph_(graph), path_(path), limits_(limits), opset_(opset), data_folder_(data_folder) {}

  Network read() {
    // Two initializers of one name would leave it to the order which weights a node reads.
    for (onnx::TensorProto& tensor : *graph_.mutable_initializer()) {
      if (tensor.data_location() == onnx::TensorProto_DataLocation_EXTERNAL)
        load_external_data(tensor, data_folder_, "of '" + path_ + "'", limits_);
      if (!values_.emplace(tensor.name(), tensor_value(tensor, "of '" + path_ + "'", limits_)).second)
        throw Error("'" + path_ + "' has two initializers named '" + tensor.name() + "'");
      std::string().swap(*tensor.mutable_raw_data());  // held as doubles now: the file's bytes are freed
      tensor.clear_float_data();
      tensor.clear_double_data();
    }
    bind_input();
    for (int i = 0; i < graph_.node_size(); ++i)
      for (const std::string& name : graph_.node(i).input()) last_use_[name] = i;
    for (const onnx::ValueInfoProto& output : graph_.output()) last_use_[output.name()] = graph_.node_size();
    for (auto it = values_.begin(); it != values_.end();)  // initializers no node reads
      it = last_use_.count(it->first) ? std::next(it) : values_.erase(it);
    for (int i = 0; i < graph_.node_size(); ++i) {
      // The memory check of every tensor a node builds counts the layers and every tensor still alive.
      double alive = layer_bytes_;
      for (const auto& [name, v] : values_) alive += v.bytes();
      limits_.held_bytes = static_cast<std::uint64_t>(alive);
      run_node(graph_.node(i), i);
      release(graph_.node(i), i);
    }
    layers_.push_back(output_layer());
    try {
      return Network(std::move(layers_));
    } catch (const Error& e) {
      throw Error("'" + path_ + "': " + e.what());
    }
  }

 private:
  // Graph inputs that have an initializer are weights (MATLAB and other opset-8 exports list them there).
  void bind_input() {
    const onnx::ValueInfoProto* input = nullptr;
    std::string names;
    int count = 0;
    for (const onnx::ValueInfoProto& info : graph_.input()) {
      if (values_.count(info.name())) continue;
      input = &info;
      names += (count++ ? ", '" : "'") + info.name() + "'";
    }
    if (count != 1)
      throw Error("'" + path_ + "' has " + std::to_string(count) + " graph inputs besides the weights (" +
                  names + "); expected exactly one");
    const std::string where = "input '" + input->name() + "' of '" + path_ + "'";
    if (!input->type().tensor_type().has_shape()) throw Error(where + " has no shape");
    const onnx::TensorShapeProto& dims = input->type().tensor_type().shape();
    Shape shape;
    for (int k = 0; k < dims.dim_size(); ++k) {
      // A symbolic batch dimension stands for one sample: the network maps one input vector.
      const bool batch = k == 0 && dims.dim_size() >= 2;
      if (dims.dim(k).has_dim_value() && dims.dim(k).dim_value() > 0) {
        shape.push_back(dims.dim(k).dim_value());
      } else if (batch && !dims.dim(k).has_dim_value()) {
        shape.push_back(1);
      } else {
        throw Error(where + " has an unknown or empty dimension " + std::to_string(k) +
                    " (only the batch dimension may be symbolic)");
      }
    }
    // One sample is a vector in any orientation ([n], [1,n], [n,1]) or a tensor behind a batch dimension of 1
    // ([1,1,28,28]). Anything else ([3,6]) has a batch dimension above 1, which flattening would hide.
    const auto long_dims = std::count_if(shape.begin(), shape.end(), [](std::int64_t d) { return d > 1; });
    if (long_dims > 1 && shape[0] != 1)
      throw Error(where + " has shape " + shape_string(shape) + ", a batch of " + std::to_string(shape[0]) +
                  " inputs; the network must take one input, a vector or of shape [1,...]");
    if (num_elements(shape) < 0 || num_elements(shape) > kMaxInputSize)
      throw Error(where + " of shape " + shape_string(shape) + " is too large; at most " +
                  std::to_string(kMaxInputSize) + " elements are supported");
    values_[input->name()] = make_identity(shape, 0);
  }

  void run_node(const onnx::NodeProto& node, int index) {
    const NodeContext ctx(node, index, path_, limits_, opset_);
    const bool standard = node.domain().empty() || node.domain() == "ai.onnx";
    const auto op = affine_operators().find(node.op_type());
    const auto pwl = pwl_operators().find(node.op_type());
    const auto multi = multi_output_operators().find(node.op_type());
    const bool relu = standard && node.op_type() == "Relu";
    const bool piecewise = standard && pwl != pwl_operators().end();
    const bool several = standard && multi != multi_output_operators().end();
    if (!piecewise && !several && (!standard || op == affine_operators().end())) {
      const std::string op_name = standard ? node.op_type() : node.domain() + "." + node.op_type();
      throw Error("unsupported ONNX operator '" + op_name + "' in node " + ctx.label() + " of '" + path_ +
                  "'" + (standard ? refusal_reason(node.op_type()) : ""));
    }
    if (standard) start_layer_before(ctx, index);
    Inputs inputs;
    std::list<Value> written_out;  // identities written out (or taken as a whole x) for this node
    const Value* block = nullptr;  // the block of x an operator takes as a whole x
    for (const std::string& name : node.input()) {
      const auto it = values_.find(name);
      if (!name.empty() && it == values_.end())
        ctx.fail("input '" + name + "' is not computed before it is used");
      const Value* v = name.empty() ? nullptr : &it->second;
      if (v != nullptr && v->conv && !relu) v = &written_out.emplace_back(conv_rows_of(ctx, *v));
      if (v != nullptr && v->identity && !relu && !takes_identity(node.op_type())) {
        v = &written_out.emplace_back(sparse_rows_of(*v));
      } else if (v != nullptr && v->partial_identity() && !relu && !relabels(node.op_type())) {
        block = v;
        Value whole = *v;
        whole.first = 0;
        whole.width = -1;
        v = &written_out.emplace_back(std::move(whole));
      }
      inputs.push_back(v);
    }
    if (node.output_size() == 0) ctx.fail("no output");
    if (piecewise && node.output_size() > 1 && !node.output(1).empty())
      ctx.fail("a second output (such as MaxPool's indices) is not supported");
    const CloseLayer close = [&](std::vector<Block> blocks) { return close_layer(ctx, index, std::move(blocks)); };
    std::vector<Value> results;
    if (several) results = multi->second(ctx, inputs);
    else results.push_back(piecewise ? pwl->second(ctx, inputs, close) : op->second(ctx, inputs));
    // Outputs past the results (Dropout's mask, BatchNormalization's running statistics) stay unset: a node that
    // reads one fails as reading a tensor not computed.
    for (std::size_t k = 0; k < results.size() && k < static_cast<std::size_t>(node.output_size()); ++k) {
      if (node.output(static_cast<int>(k)).empty()) continue;
      if (block != nullptr) results[k] = embed_block(ctx, std::move(results[k]), block->first, block->columns() - 1);
      values_[node.output(static_cast<int>(k))] = std::move(results[k]);
    }
  }

  // Frees the tensors that no node after `index` reads: node's inputs read last here, and outputs nobody reads.
  void release(const onnx::NodeProto& node, int index) {
    const auto produced = [&](const std::string& name) {
      return std::find(node.output().begin(), node.output().end(), name) != node.output().end();
    };
    for (const std::string& name : node.input()) {
      const auto use = last_use_.find(name);
      if (use != last_use_.end() && use->second == index && !produced(name)) values_.erase(name);
    }
    for (const std::string& name : node.output())
      if (!last_use_.count(name)) values_.erase(name);
  }

  // Whether a Conv or Gemm/MatMul node reads its input x better as the outputs of a layer of linear neurons:
  // - a convolution too large to write out stays implicit only over a whole layer input (conv_op), so when x is
  //   another tensor (a max pooling's b + relu(a - b), a normalization) it becomes a layer first; the size is
  //   estimated as in conv_op at stride 1;
  // - a fully connected layer after a max pooling multiplies rows over both halves of the pooling's last layer
  //   (b + relu(a - b): twice as many columns as x has elements); past kLinearLayerBytes of product, x as a layer
  //   halves the product (a VGG16's first Gemm: 4096 x 50177 doubles, 1.6 GB, against 822 MB).
  bool wants_layer(const onnx::NodeProto& node, const Value& x, const Value& w) const {
    if (x.constant || (x.identity && !x.partial_identity())) return false;
    if (node.op_type() == "Conv") {
      if (x.shape.size() != 4 || w.shape.size() != 4) return false;
      const std::int64_t taps = num_elements({num_elements(w.shape), x.shape[2], x.shape[3]});
      return taps < 0 || taps > limits_.implicit_conv_taps;
    }
    if (node.op_type() != "Gemm" && node.op_type() != "MatMul") return false;
    const Index n = num_elements(x.shape);
    if (!w.constant || n <= 0 || x.columns() - 1 <= n) return false;
    const double rows = static_cast<double>(num_elements(w.shape)) / static_cast<double>(n);
    return rows * static_cast<double>(x.columns()) * sizeof(double) > kLinearLayerBytes;
  }

  static constexpr double kLinearLayerBytes = 256e6;

  // Closes a layer of linear neurons on the node's first input when wants_layer says so.
  void start_layer_before(const NodeContext& ctx, int index) {
    const onnx::NodeProto& node = ctx.node();
    if (node.input_size() < 2 || !values_.count(node.input(0)) || !values_.count(node.input(1))) return;
    const Value& x = values_.at(node.input(0));
    if (!wants_layer(node, x, values_.at(node.input(1))) || !chain_problem(x).empty()) return;
    const Value carried = values_.at(node.input(0));
    values_[node.input(0)] = close_layer(ctx, index, {{carried, true}})[0];
  }

  // A tensor computed before the latest ReLU refers to an older layer input: using it again would be a
  // skip connection or a branch, which a feed-forward chain cannot express.
  std::string chain_problem(const Value& v) const {
    if (v.constant) return "does not depend on the network input";
    if (v.stage != layers_.size())
      return "uses a tensor computed before an earlier ReLU (only feed-forward chains are supported)";
    return "";
  }

  // The tensors a node after `index` still uses, by name in sorted order (the layout does not depend on the
  // hash map's), which a layer closed at `index` carries as linear neurons.
  std::vector<std::string> live_after(int index) const {
    std::vector<std::string> names;
    for (const auto& [name, v] : values_) {
      const auto use = last_use_.find(name);
      if (!v.constant && use != last_use_.end() && use->second > index) names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  std::vector<Value> close_layer(const NodeContext& ctx, int index, std::vector<Block> blocks) {
    const std::size_t own = blocks.size();
    const std::vector<std::string> carried = live_after(index);
    for (const std::string& name : carried) blocks.push_back({values_.at(name), true});
    // An implicit convolution is a layer's W only alone: beside other blocks (a residual branch) it is written out.
    if (blocks.size() > 1)
      for (Block& b : blocks) b.pre = conv_rows_of(ctx, b.pre);
    Index width = 0;
    for (const Block& b : blocks) {
      if (b.pre.constant) ctx.fail("a piecewise-linear function of a constant tensor");
      if (const std::string problem = chain_problem(b.pre); !problem.empty()) ctx.fail("the input " + problem);
      width += num_elements(b.pre.shape);
    }
    std::vector<const Value*> pre;
    for (const Block& b : blocks) pre.push_back(&b.pre);
    DenseLayer layer = layer_of(ctx.where(), pre, width);
    std::vector<std::uint8_t> linear(static_cast<std::size_t>(width), 0);
    std::vector<Value> outputs;
    Index row = 0;
    for (const Block& b : blocks) {
      const Index n = num_elements(b.pre.shape);
      if (b.linear) std::fill(linear.begin() + row, linear.begin() + row + n, 1);
      Value out = make_identity(b.pre.shape, layers_.size() + 1);
      out.first = row;
      out.width = width;
      outputs.push_back(std::move(out));
      row += n;
    }
    if (std::find(linear.begin(), linear.end(), 1) != linear.end()) layer.linear = std::move(linear);
    layers_.push_back(std::move(layer));
    // Every later tensor is checked together with the layers already held: a model is refused by the sum.
    const DenseLayer& held = layers_.back();
    const double bytes = held.weights.bytes() + sizeof(double) * static_cast<double>(held.bias.size());
    layer_bytes_ += bytes;
    limits_.held_bytes += static_cast<std::uint64_t>(bytes);
    for (std::size_t k = 0; k < carried.size(); ++k) values_[carried[k]] = outputs[own + k];
    outputs.resize(own);
    return outputs;
  }

  // Bytes of a W with `stored` entries: a sparse entry is a double and an index.
  static double weight_bytes(Index stored, bool sparse) {
    return static_cast<double>(stored) * static_cast<double>(sparse ? sizeof(double) + sizeof(int) : sizeof(double));
  }

  // The nonzero weights of v's rows (over the current x).
  static Index nonzeros(const Value& v) {
    if (v.identity) return num_elements(v.shape);
    if (!v.sparse) return (v.rows.leftCols(v.rows.cols() - 1).array() != 0.0).count();
    const Index last = v.sparse_rows.cols() - 1;
    Index count = 0;
    for (Index j = 0; j < v.sparse_rows.outerSize(); ++j)
      for (SparseRows::InnerIterator it(v.sparse_rows, j); it; ++it) count += it.col() != last && it.value() != 0.0;
    return count;
  }

  // The layer whose rows are the given tensors' rows in turn: an implicit convolution alone is W itself. W is sparse when at most a quarter of its entries
  // are nonzero (a convolution, a pooling, the identity rows that carry a tensor), so that its memory and every
  // product with it follow the nonzeros; a fully connected layer stays dense. The memory check counts what is
  // stored.
  // `where` ends the error message.
  DenseLayer layer_of(const std::string& where, const std::vector<const Value*>& pre, Index width) const {
    if (pre.size() == 1 && pre.front()->conv) return DenseLayer{Weights(*pre.front()->conv), pre.front()->conv_bias};
    const Index columns = pre.front()->columns() - 1;
    Index stored = 0;
    for (const Value* v : pre) stored += nonzeros(*v);
    const bool sparse = stored <= width * columns / 4;
    const double bytes = weight_bytes(sparse ? stored : width * columns, sparse);
    if (const std::string problem = detail::memory_problem(bytes, limits_); !problem.empty())
      throw Error("a layer of " + std::to_string(width) + " neurons with " + std::to_string(stored) +
                  " nonzero weights over " + std::to_string(columns) + " inputs " + problem + " " + where);
    DenseLayer layer{Eigen::MatrixXd(), Eigen::VectorXd::Zero(width)};
    Eigen::MatrixXd dense;
    std::vector<Eigen::Triplet<double, int>> triplets;
    if (sparse) triplets.reserve(static_cast<std::size_t>(stored));
    else dense = Eigen::MatrixXd::Zero(width, columns);
    const auto put = [&](Index j, Index i, double w) {
      if (sparse) triplets.emplace_back(static_cast<int>(j), static_cast<int>(i), w);
      else dense(j, i) = w;
    };
    Index row = 0;
    for (const Value* v : pre) {
      const Index n = num_elements(v->shape);
      if (v->identity) {
        for (Index i = 0; i < n; ++i) put(row + i, v->first + i, 1.0);
      } else if (v->sparse) {
        for (Index j = 0; j < n; ++j)
          for (SparseRows::InnerIterator it(v->sparse_rows, j); it; ++it) {
            if (it.col() == columns) layer.bias[row + j] = it.value();
            else if (it.value() != 0.0) put(row + j, it.col(), it.value());
          }
      } else {
        for (Index i = 0; i < columns; ++i)
          for (Index j = 0; j < n; ++j)
            if (v->rows(j, i) != 0.0) put(row + j, i, v->rows(j, i));
        layer.bias.segment(row, n) = v->rows.col(columns);
      }
      row += n;
    }
    if (sparse) {
      Weights::Sparse w(width, columns);
      w.setFromTriplets(triplets.begin(), triplets.end());
      layer.weights = Weights(std::move(w));
    } else {
      layer.weights = Weights(std::move(dense));
    }
    return layer;
  }

  DenseLayer output_layer() const {
    if (graph_.output_size() != 1)
      throw Error("'" + path_ + "' has " + std::to_string(graph_.output_size()) +
                  " graph outputs; expected exactly one");
    const std::string& name = graph_.output(0).name();
    const std::string where = "output '" + name + "' of '" + path_ + "'";
    const auto it = values_.find(name);
    if (it == values_.end()) throw Error(where + " is not computed by any node");
    if (const std::string problem = chain_problem(it->second); !problem.empty())
      throw Error(where + " " + problem);
    return layer_of("for " + where, {&it->second}, num_elements(it->second.shape));
  }


  onnx::GraphProto& graph_;
  const std::string& path_;
  ReadLimits limits_;
  std::int64_t opset_;
  const std::optional<std::string>& data_folder_;
  std::unordered_map<std::string, Value> values_;
  std::unordered_map<std::string, int> last_use_;  // the last node that reads each tensor (outputs: past the end)
  std::vector<DenseLayer> layers_;
  double layer_bytes_ = 0.0;  // held by layers_
};

// The opset of the default domain, which the accepted operators belong to.
std::int64_t checked_opset(const onnx::ModelProto& model, const std::string& path) {
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    if (!opset.domain().empty() && opset.domain() != "ai.onnx") continue;
    if (opset.version() < kMinOpset || opset.version() > kMaxOpset)
      throw Error("'" + path + "' uses opset " + std::to_string(opset.version()) + "; opsets " +
                  std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + " are supported");
    return opset.version();
  }
  throw Error("'" + path + "' imports no opset of the default ONNX domain");
}

}  // namespace

namespace detail {

Network read_onnx(std::istream& in, const std::string& name, const ReadLimits& limits,
                  const std::optional<std::string>& data_folder) {
  try {
    onnx::ModelProto model;
    // Protobuf accepts many byte strings as a message of unknown fields; a real model has a graph.
    if (!model.ParseFromIstream(&in) || !model.has_graph() || model.ir_version() == 0)
      throw Error("'" + name + "' is not an ONNX model");
    const std::int64_t opset = checked_opset(model, name);
    return GraphReader(*model.mutable_graph(), name, limits, opset, data_folder).read();
  } catch (const Error& e) {
    throw Error(printable(e.what()));  // names from the file may hold any bytes
  }
}

}  // namespace detail

Network read_onnx(const std::string& path) {
  std::ifstream in = detail::open_input(path, "model", std::ios::in | std::ios::binary);
  return detail::read_onnx(in, path, {}, detail::folder_of(path));
}

Network read_onnx_bytes(const std::string& bytes, const std::string& name) {
  std::istringstream in(bytes, std::ios::in | std::ios::binary);
  return detail::read_onnx(in, name);
}

}  // namespace reluopt
