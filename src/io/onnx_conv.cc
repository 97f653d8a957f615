// The convolutional operators of the ONNX reader: Conv, ConvTranspose, AveragePool, GlobalAveragePool and
// BatchNormalization, on tensors of shape [1, C, spatial...] (NCHW with a batch of one).
//
// Each one is affine in its input, so it becomes a sparse matrix A (one row per output element, one column
// per input element) and a bias, applied to the input's rows: out.rows = A * in.rows. The result joins the
// dense layer under construction like any other affine operator, so a Conv followed by BatchNormalization
// and Relu becomes one dense layer. Right after a ReLU or at the network input (normalized or not) the
// input's rows are sparse (diagonal) and so is the product: a convolution's rows hold its taps only.
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Sparse>

#include "io/onnx_graph.h"

namespace reluopt::detail::onnx_graph {
namespace {

using Triplets = std::vector<Eigen::Triplet<double>>;

// The sliding windows of a convolution or pooling over the spatial dimensions of one channel.
struct Window {
  Shape in;         // spatial input dimensions
  Shape kernel;     // spatial kernel dimensions
  Shape strides;
  Shape dilations;
  Shape pads;       // the padding before each dimension, then after each
  Shape out;        // spatial output dimensions

  std::int64_t in_size() const { return num_elements(in); }
  std::int64_t out_size() const { return num_elements(out); }
  std::int64_t kernel_size() const { return num_elements(kernel); }
};

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

Shape ints_attribute(const NodeContext& ctx, const std::string& name, std::size_t size, std::int64_t fallback,
                     std::int64_t least) {
  const onnx::AttributeProto* a = find_attribute(ctx.node(), name);
  if (!a) return Shape(size, fallback);
  Shape values(a->ints().begin(), a->ints().end());
  if (values.size() != size)
    ctx.fail("attribute " + name + " has " + std::to_string(values.size()) + " entries; expected " +
             std::to_string(size));
  for (std::int64_t v : values)
    if (v < least || v > (std::int64_t{1} << 30)) ctx.fail("attribute " + name + " holds " + std::to_string(v));
  return values;
}

// auto_pad SAME_UPPER / SAME_LOWER choose the padding that makes out = ceil(in / stride), with the odd
// pixel after (UPPER) or before (LOWER); VALID means no padding; NOTSET (the default) takes `pads`.
void set_padding(const NodeContext& ctx, Window& w) {
  const std::string mode = string_attribute(ctx.node(), "auto_pad", "NOTSET");
  const std::size_t rank = w.in.size();
  w.pads = Shape(2 * rank, 0);
  if (mode == "NOTSET") {
    w.pads = ints_attribute(ctx, "pads", 2 * rank, 0, 0);
  } else if (mode == "SAME_UPPER" || mode == "SAME_LOWER") {
    for (std::size_t d = 0; d < rank; ++d) {
      const std::int64_t out = ceil_div(w.in[d], w.strides[d]);
      const std::int64_t extent = (w.kernel[d] - 1) * w.dilations[d] + 1;
      const std::int64_t total = std::max<std::int64_t>(0, (out - 1) * w.strides[d] + extent - w.in[d]);
      w.pads[d] = mode == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pads[d + rank] = total - w.pads[d];
    }
  } else if (mode != "VALID") {
    ctx.fail("unsupported auto_pad '" + mode + "'");
  }
}

// The window geometry of a node over an input of spatial dimensions `in` with a kernel of dimensions
// `kernel`. `ceil_mode` (pooling) rounds the output size up: the last window may then be partial, its taps past the
// input ignored. A window that would start in the right padding is dropped from opset 22 (MaxPool-22's and
// AveragePool-22's text, PyTorch's rule, onnx's reference); before, the text's formula keeps it, with no element to
// pool, so it is refused.
Window window_of(const NodeContext& ctx, const Shape& in, const Shape& kernel) {
  Window w;
  w.in = in;
  w.kernel = kernel;
  w.strides = ints_attribute(ctx, "strides", in.size(), 1, 1);
  w.dilations = ints_attribute(ctx, "dilations", in.size(), 1, 1);
  set_padding(ctx, w);
  const bool ceil_mode = int_attribute(ctx.node(), "ceil_mode", 0) != 0;
  for (std::size_t d = 0; d < in.size(); ++d) {
    const std::int64_t span = in[d] + w.pads[d] + w.pads[d + in.size()] - ((kernel[d] - 1) * w.dilations[d] + 1);
    if (span < 0)
      ctx.fail("inconsistent shapes: kernel " + shape_string(kernel) + " does not fit input " + shape_string(in));
    std::int64_t out = span / w.strides[d] + 1;
    if (ceil_mode && span % w.strides[d] != 0) {
      if (out * w.strides[d] < in[d] + w.pads[d]) ++out;  // the partial window starts before the right padding
      else if (ctx.opset() < 22) ctx.fail_at_opset("a ceil_mode window wholly in the right padding (dropped from 22)");
    }
    w.out.push_back(out);
  }
  // Visiting every tap of every window must be feasible: corrupt pads or kernels fail here, not in a loop.
  if (w.out_size() < 0 || w.kernel_size() < 0 || num_elements({w.out_size(), w.kernel_size()}) < 0)
    ctx.fail("kernel " + shape_string(kernel) + " over output " + shape_string(w.out) + " is too large");
  return w;
}

using TapVisit = std::function<void(std::int64_t, std::int64_t, std::int64_t)>;

// Calls visit(p, kernel_position, q) for every position p of `from` and kernel position k whose position
// q = p * stride - pad + k * dilation lies inside `to`. Positions are row-major flat indices.
void for_each_strided_tap(const Window& w, const Shape& from, const Shape& to, const TapVisit& visit) {
  const std::size_t rank = from.size();
  const std::vector<std::int64_t> to_strides = row_major_strides(to);
  Shape p(rank, 0);
  const std::int64_t positions = num_elements(from);
  for (std::int64_t flat = 0; flat < positions; ++flat) {
    Shape k(rank, 0);
    for (std::int64_t tap = 0; tap < w.kernel_size(); ++tap) {
      std::int64_t q = 0;
      bool inside = true;
      for (std::size_t d = 0; d < rank && inside; ++d) {
        const std::int64_t i = p[d] * w.strides[d] - w.pads[d] + k[d] * w.dilations[d];
        inside = i >= 0 && i < to[d];
        q += i * to_strides[d];
      }
      if (inside) visit(flat, tap, q);
      for (std::size_t d = rank; d-- > 0;) {  // odometer over the kernel
        if (++k[d] < w.kernel[d]) break;
        k[d] = 0;
      }
    }
    for (std::size_t d = rank; d-- > 0;) {  // odometer over `from`
      if (++p[d] < from[d]) break;
      p[d] = 0;
    }
  }
}

// visit(out_position, kernel_position, in_position) for every output position of a convolution or pooling and
// kernel position whose input position out * stride - pad + k * dilation lies inside the input (padding
// contributes nothing).
void for_each_tap(const Window& w, const TapVisit& visit) { for_each_strided_tap(w, w.out, w.in, visit); }

// The taps of a transposed convolution, visit(out_position, kernel_position, in_position): every input position
// and kernel position whose output position in * stride - pad + k * dilation lies inside the output (the taps
// in the cropped padding contribute nothing).
void for_each_transposed_tap(const Window& w, const TapVisit& visit) {
  for_each_strided_tap(w, w.in, w.out, [&](std::int64_t in, std::int64_t tap, std::int64_t out) { visit(out, tap, in); });
}

// The input of a convolution or pooling: [1, C, spatial...] with at least one spatial dimension.
const Value& image_input(const NodeContext& ctx, const Inputs& inputs) {
  const Value& x = input(ctx, inputs, 0);
  if (x.shape.size() < 3 || x.shape[0] != 1)
    ctx.fail("inconsistent shapes: expected an input of shape [1,C,...] with spatial dimensions, got " +
             shape_string(x.shape));
  return x;
}

// True when at most one entry in eight is nonzero (one pass over the matrix).
bool mostly_zero(const Eigen::MatrixXd& m) {
  const Index nonzeros = (m.array() != 0.0).count();
  return nonzeros <= m.size() / 8;
}

// Called before the sparse matrix of `taps` entries that gives a result of `shape` is built.
void check_taps(const NodeContext& ctx, const Shape& shape, std::int64_t taps) {
  if (num_elements(shape) < 0 || taps < 0) ctx.fail("result " + shape_string(shape) + " is too large");
  ctx.check_memory({taps}, 2);  // a triplet is about two doubles
}

// out.rows = a * x.rows, plus `bias` on the offsets. Rows of x that are sparse (x itself after a ReLU or at the
// network input, a pooling, a residual sum) give a sparse product that touches only the nonzero pairs and holds
// only its nonzeros; dense rows (after a fully connected layer) a dense one.
Value apply_sparse(const NodeContext& ctx, const Value& x, Index rows, const Triplets& triplets,
                   const Eigen::VectorXd& bias, Shape shape) {
  SparseRows a(rows, num_elements(x.shape));
  a.setFromTriplets(triplets.begin(), triplets.end());
  if (!x.identity && !x.sparse && !mostly_zero(x.rows)) {
    ctx.check_memory(shape, x.columns());
    Value out = like(x, std::move(shape));
    out.rows = a * x.rows;
    out.rows.col(out.rows.cols() - 1) += bias;
    return out;
  }
  const SparseRows in = to_sparse(x);
  Index estimate = rows;  // the product's nonzeros at most, and a bias a row
  for (Index j = 0; j < a.outerSize(); ++j)
    for (SparseRows::InnerIterator it(a, j); it; ++it) estimate += in.innerVector(it.col()).nonZeros();
  ctx.check_sparse_memory(shape, estimate);
  SparseRows offsets(rows, in.cols());
  offsets.reserve(rows);
  for (Index i = 0; i < rows; ++i) {
    offsets.startVec(i);
    if (bias[i] != 0.0) offsets.insertBack(i, in.cols() - 1) = bias[i];
  }
  offsets.finalize();
  SparseRows product = a * in;
  return from_sparse(ctx, x, std::move(shape), SparseRows(product + offsets));
}

Shape with_channels(std::int64_t channels, const Shape& spatial) {
  Shape shape{1, channels};
  shape.insert(shape.end(), spatial.begin(), spatial.end());
  return shape;
}

// The spatial kernel dimensions of a convolution's weights [*, *, kernel...], checked against kernel_shape.
Shape kernel_of(const NodeContext& ctx, const Value& w) {
  const Shape kernel(w.shape.begin() + 2, w.shape.end());
  if (const onnx::AttributeProto* k = find_attribute(ctx.node(), "kernel_shape");
      k && Shape(k->ints().begin(), k->ints().end()) != kernel)
    ctx.fail("kernel_shape does not match the weights " + shape_string(w.shape));
  return kernel;
}

// The optional bias input B of shape [maps], one value per map repeated over its `size` output positions.
Eigen::VectorXd bias_of(const NodeContext& ctx, const Inputs& inputs, std::int64_t maps, std::int64_t size) {
  Eigen::VectorXd bias = Eigen::VectorXd::Zero(maps * size);
  if (inputs.size() <= 2 || inputs[2] == nullptr) return bias;
  const Value& b = *inputs[2];
  if (!b.constant || b.shape != Shape{maps}) ctx.fail("the bias must be a constant of shape [" + std::to_string(maps) + "]");
  for (std::int64_t m = 0; m < maps; ++m) bias.segment(m * size, size).setConstant(b.rows(m, 0));
  return bias;
}

// The convolution of x (a whole layer input, of shape [1, C, H, W]) kept as its kernel (Value::conv).
Value implicit_conv(const Value& x, const Window& win, std::int64_t maps, std::int64_t group,
                    const Eigen::VectorXd& weights, Eigen::VectorXd bias, Shape shape) {
  ConvGeometry g;
  g.in_channels = x.shape[1];
  g.in_height = win.in[0];
  g.in_width = win.in[1];
  g.out_channels = maps;
  g.out_height = win.out[0];
  g.out_width = win.out[1];
  g.kernel_height = win.kernel[0];
  g.kernel_width = win.kernel[1];
  g.stride_h = win.strides[0];
  g.stride_w = win.strides[1];
  g.pad_top = win.pads[0];
  g.pad_left = win.pads[1];
  g.dilation_h = win.dilations[0];
  g.dilation_w = win.dilations[1];
  g.groups = group;
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Index width = static_cast<Index>(weights.size()) / maps;
  Value out = kind_of(x, std::move(shape));
  out.constant = false;
  out.conv = std::make_shared<const Conv2d>(g, Eigen::MatrixXd(Eigen::Map<const RowMajor>(weights.data(), maps, width)));
  out.conv_bias = std::move(bias);
  return out;
}

// Y[m, o] = B[m] + sum over the channels c of m's group and the taps k: W[m, c, k] X[c, o*s - p + k*d]. Past
// ReadLimits::implicit_conv_taps taps, a 2-D convolution of a whole layer input stays implicit.
Value conv_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& x = image_input(ctx, inputs);
  const Value& w = input(ctx, inputs, 1);
  if (!w.constant) ctx.fail("the weights must be constant");
  const std::int64_t channels = x.shape[1];
  const std::int64_t group = int_attribute(ctx.node(), "group", 1);
  if (w.shape.size() != x.shape.size() || group < 1 || channels % group != 0 || w.shape[0] % group != 0 ||
      w.shape[1] * group != channels)
    ctx.fail("inconsistent shapes: weights " + shape_string(w.shape) + " for input " + shape_string(x.shape) +
             " in " + std::to_string(group) + " groups");
  const Shape kernel = kernel_of(ctx, w);
  const Window win = window_of(ctx, Shape(x.shape.begin() + 2, x.shape.end()), kernel);
  const std::int64_t maps = w.shape[0];
  const std::int64_t per_group = w.shape[1];
  const Eigen::VectorXd bias = bias_of(ctx, inputs, maps, win.out_size());
  const Shape shape = with_channels(maps, win.out);
  const std::int64_t taps = num_elements({maps, per_group, win.out_size(), win.kernel_size()});
  const Eigen::VectorXd weights = w.offset();
  if (x.identity && !x.partial_identity() && win.in.size() == 2 && (taps < 0 || taps > ctx.limits().implicit_conv_taps))
    return implicit_conv(x, win, maps, group, weights, bias, shape);
  check_taps(ctx, shape, taps);
  Triplets triplets;
  triplets.reserve(static_cast<std::size_t>(taps));
  for (std::int64_t m = 0; m < maps; ++m) {
    const std::int64_t first_channel = m / (maps / group) * per_group;
    for (std::int64_t c = 0; c < per_group; ++c) {
      const std::int64_t w_base = (m * per_group + c) * win.kernel_size();
      const std::int64_t x_base = (first_channel + c) * win.in_size();
      for_each_tap(win, [&](std::int64_t out, std::int64_t tap, std::int64_t in) {
        if (weights[w_base + tap] != 0.0)
          triplets.emplace_back(m * win.out_size() + out, x_base + in, weights[w_base + tap]);
      });
    }
  }
  return apply_sparse(ctx, x, maps * win.out_size(), triplets, bias, shape);
}

// The geometry of a transposed convolution: out = stride (in - 1) + output_padding + (kernel - 1) dilation + 1
// - pads before - pads after per spatial dimension. auto_pad SAME_* and output_shape (which choose the pads
// from the output) are refused by name; exporters write pads.
Window transposed_window_of(const NodeContext& ctx, const Shape& in, const Shape& kernel) {
  const std::size_t rank = in.size();
  if (find_attribute(ctx.node(), "output_shape")) ctx.fail("output_shape is not supported (give pads)");
  const std::string mode = string_attribute(ctx.node(), "auto_pad", "NOTSET");
  if (mode != "NOTSET" && mode != "VALID") ctx.fail("unsupported auto_pad '" + mode + "' (give pads)");
  Window w;
  w.in = in;
  w.kernel = kernel;
  w.strides = ints_attribute(ctx, "strides", rank, 1, 1);
  w.dilations = ints_attribute(ctx, "dilations", rank, 1, 1);
  w.pads = mode == "VALID" ? Shape(2 * rank, 0) : ints_attribute(ctx, "pads", 2 * rank, 0, 0);
  const Shape extra = ints_attribute(ctx, "output_padding", rank, 0, 0);
  for (std::size_t d = 0; d < rank; ++d) {
    if (extra[d] >= std::max(w.strides[d], w.dilations[d]))
      ctx.fail("output_padding " + std::to_string(extra[d]) + " is not below the stride or the dilation");
    const std::int64_t out = w.strides[d] * (in[d] - 1) + extra[d] + (kernel[d] - 1) * w.dilations[d] + 1 -
                             w.pads[d] - w.pads[d + rank];
    if (out < 1)
      ctx.fail("inconsistent shapes: pads " + shape_string(w.pads) + " leave no output of input " + shape_string(in));
    w.out.push_back(out);
  }
  if (w.out_size() < 0 || num_elements({w.in_size(), w.kernel_size()}) < 0)
    ctx.fail("kernel " + shape_string(kernel) + " over input " + shape_string(in) + " is too large");
  return w;
}

// Y[m, o] = B[m] + sum over the channels c of m's group, the input positions i and the taps k with
// o = i * stride - pad + k * dilation: W[c, m mod (M / group), k] X[c, i]. The weights are [C, M / group, kernel...].
Value conv_transpose_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& x = image_input(ctx, inputs);
  const Value& w = input(ctx, inputs, 1);
  if (!w.constant) ctx.fail("the weights must be constant");
  const std::int64_t channels = x.shape[1];
  const std::int64_t group = int_attribute(ctx.node(), "group", 1);
  if (w.shape.size() != x.shape.size() || group < 1 || channels % group != 0 || w.shape[0] != channels)
    ctx.fail("inconsistent shapes: weights " + shape_string(w.shape) + " for input " + shape_string(x.shape) +
             " in " + std::to_string(group) + " groups");
  const Shape kernel = kernel_of(ctx, w);
  const Window win = transposed_window_of(ctx, Shape(x.shape.begin() + 2, x.shape.end()), kernel);
  const std::int64_t per_group = w.shape[1];  // output maps per group
  const std::int64_t maps = per_group * group;
  const std::int64_t in_per_group = channels / group;
  const Eigen::VectorXd bias = bias_of(ctx, inputs, maps, win.out_size());
  const Shape shape = with_channels(maps, win.out);
  const std::int64_t taps = num_elements({channels, per_group, win.in_size(), win.kernel_size()});
  check_taps(ctx, shape, taps);
  const Eigen::VectorXd weights = w.offset();
  Triplets triplets;
  triplets.reserve(static_cast<std::size_t>(taps));
  for (std::int64_t c = 0; c < channels; ++c)
    for (std::int64_t j = 0; j < per_group; ++j) {
      const std::int64_t m = c / in_per_group * per_group + j;
      const std::int64_t w_base = (c * per_group + j) * win.kernel_size();
      for_each_transposed_tap(win, [&](std::int64_t out, std::int64_t tap, std::int64_t in) {
        if (weights[w_base + tap] != 0.0)
          triplets.emplace_back(m * win.out_size() + out, c * win.in_size() + in, weights[w_base + tap]);
      });
    }
  return apply_sparse(ctx, x, maps * win.out_size(), triplets, bias, shape);
}

// The taps of each window (row-major over w.out) that lie in the padded input, [-pads before, in + pads after) in
// every dimension: all of them but for a partial ceil_mode window, whose overhang past the padding does not count.
std::vector<std::int64_t> padded_taps(const Window& w) {
  const std::size_t rank = w.in.size();
  std::vector<std::vector<std::int64_t>> per_axis(rank);
  for (std::size_t d = 0; d < rank; ++d)
    for (std::int64_t p = 0; p < w.out[d]; ++p) {
      std::int64_t taps = 0;
      for (std::int64_t k = 0; k < w.kernel[d]; ++k) {
        const std::int64_t i = p * w.strides[d] - w.pads[d] + k * w.dilations[d];
        taps += i >= -w.pads[d] && i < w.in[d] + w.pads[d + rank];
      }
      per_axis[d].push_back(taps);
    }
  std::vector<std::int64_t> taps(static_cast<std::size_t>(w.out_size()), 1);
  Shape p(rank, 0);
  for (std::int64_t& t : taps) {
    for (std::size_t d = 0; d < rank; ++d) t *= per_axis[d][static_cast<std::size_t>(p[d])];
    for (std::size_t d = rank; d-- > 0;) {  // odometer over the output
      if (++p[d] < w.out[d]) break;
      p[d] = 0;
    }
  }
  return taps;
}

// The mean over each window, per channel; padded positions count when count_include_pad=1 (those of the padded
// input: a partial ceil_mode window's overhang past the padding never counts, as in PyTorch and onnx's reference).
Value average_pool_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& x = image_input(ctx, inputs);
  const onnx::AttributeProto* k = find_attribute(ctx.node(), "kernel_shape");
  if (!k || static_cast<std::size_t>(k->ints_size()) + 2 != x.shape.size())
    ctx.fail("kernel_shape must give one size per spatial dimension of " + shape_string(x.shape));
  const Shape kernel = ints_attribute(ctx, "kernel_shape", x.shape.size() - 2, 1, 1);
  const Window win = window_of(ctx, Shape(x.shape.begin() + 2, x.shape.end()), kernel);
  const bool include_pad = int_attribute(ctx.node(), "count_include_pad", 0) != 0;
  std::vector<std::int64_t> count(static_cast<std::size_t>(win.out_size()), 0);
  if (include_pad) count = padded_taps(win);
  else for_each_tap(win, [&](std::int64_t out, std::int64_t, std::int64_t) { ++count[out]; });
  const std::int64_t channels = x.shape[1];
  const Shape shape = with_channels(channels, win.out);
  check_taps(ctx, shape, num_elements({channels, win.out_size(), win.kernel_size()}));
  Triplets triplets;
  for (std::int64_t c = 0; c < channels; ++c)
    for_each_tap(win, [&](std::int64_t out, std::int64_t, std::int64_t in) {
      const double n = static_cast<double>(count[out]);
      triplets.emplace_back(c * win.out_size() + out, c * win.in_size() + in, 1.0 / n);
    });
  const Index rows = channels * win.out_size();
  return apply_sparse(ctx, x, rows, triplets, Eigen::VectorXd::Zero(rows), shape);
}

Value global_average_pool_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& x = image_input(ctx, inputs);
  const std::int64_t channels = x.shape[1];
  const std::int64_t size = num_elements(Shape(x.shape.begin() + 2, x.shape.end()));
  const Shape shape = with_channels(channels, Shape(x.shape.size() - 2, 1));
  check_taps(ctx, shape, channels * size);
  Triplets triplets;
  for (std::int64_t c = 0; c < channels; ++c)
    for (std::int64_t i = 0; i < size; ++i) triplets.emplace_back(c, c * size + i, 1.0 / static_cast<double>(size));
  return apply_sparse(ctx, x, channels, triplets, Eigen::VectorXd::Zero(channels), shape);
}

// Inference-mode batch normalization, y = scale (x - mean) / sqrt(var + epsilon) + B per channel: a
// per-channel multiply and add, which fold into the affine map before it.
Value batch_normalization_op(const NodeContext& ctx, const Inputs& inputs) {
  const Value& x = input(ctx, inputs, 0);
  if (int_attribute(ctx.node(), "training_mode", 0) != 0) ctx.fail("training_mode=1 is not supported");
  if (int_attribute(ctx.node(), "spatial", 1) != 1) ctx.fail("spatial=0 is not supported");
  if (x.shape.size() < 2 || x.shape[0] != 1)
    ctx.fail("inconsistent shapes: expected an input of shape [1,C,...], got " + shape_string(x.shape));
  const std::int64_t channels = x.shape[1];
  Eigen::VectorXd parameter[4];  // scale, B, mean, var
  const char* names[4] = {"scale", "B", "mean", "var"};
  for (std::size_t k = 0; k < 4; ++k) {
    const Value& p = input(ctx, inputs, k + 1);
    if (!p.constant || p.shape != Shape{channels})
      ctx.fail(std::string(names[k]) + " must be a constant of shape [" + std::to_string(channels) + "]");
    parameter[k] = p.offset();
  }
  const double epsilon = float_attribute(ctx, "epsilon", 1e-5);
  if (((parameter[3].array() + epsilon) <= 0.0).any()) ctx.fail("var + epsilon is not positive");
  const Eigen::VectorXd factor = parameter[0].array() / (parameter[3].array() + epsilon).sqrt();
  const Eigen::VectorXd shift = parameter[1].array() - parameter[2].array() * factor.array();
  Shape per_channel(x.shape.size() - 1, 1);
  per_channel[0] = channels;
  return add(ctx, multiply(ctx, x, make_constant(per_channel, factor)), make_constant(per_channel, shift));
}

}  // namespace

std::vector<std::vector<Index>> max_pool_windows(const NodeContext& ctx, const Value& x, Shape& out_shape) {
  if (x.shape.size() < 3 || x.shape[0] != 1)
    ctx.fail("inconsistent shapes: expected an input of shape [1,C,...] with spatial dimensions, got " +
             shape_string(x.shape));
  const Shape spatial(x.shape.begin() + 2, x.shape.end());
  Window win;
  if (ctx.node().op_type() == "GlobalMaxPool") {
    win.in = spatial;
    win.kernel = spatial;
    win.strides = win.dilations = Shape(spatial.size(), 1);
    win.pads = Shape(2 * spatial.size(), 0);
    win.out = Shape(spatial.size(), 1);
  } else {
    const onnx::AttributeProto* k = find_attribute(ctx.node(), "kernel_shape");
    if (!k || static_cast<std::size_t>(k->ints_size()) != spatial.size())
      ctx.fail("kernel_shape must give one size per spatial dimension of " + shape_string(x.shape));
    win = window_of(ctx, spatial, ints_attribute(ctx, "kernel_shape", spatial.size(), 1, 1));
  }
  const std::int64_t channels = x.shape[1];
  out_shape = with_channels(channels, win.out);
  if (num_elements(out_shape) < 0 || num_elements({channels, win.out_size(), win.kernel_size()}) < 0)
    ctx.fail("result " + shape_string(out_shape) + " is too large");
  ctx.check_memory({channels, win.out_size(), win.kernel_size()}, 1);
  std::vector<std::vector<Index>> windows(static_cast<std::size_t>(channels * win.out_size()));
  for (std::int64_t c = 0; c < channels; ++c)
    for_each_tap(win, [&](std::int64_t out, std::int64_t, std::int64_t in) {
      windows[static_cast<std::size_t>(c * win.out_size() + out)].push_back(c * win.in_size() + in);
    });
  for (const std::vector<Index>& w : windows)
    if (w.empty()) ctx.fail("a window lies wholly in the padding");
  return windows;
}

void add_conv_operators(std::unordered_map<std::string, Operator>& operators) {
  operators.emplace("Conv", conv_op);
  operators.emplace("ConvTranspose", conv_transpose_op);
  operators.emplace("AveragePool", average_pool_op);
  operators.emplace("GlobalAveragePool", global_average_pool_op);
  operators.emplace("BatchNormalization", batch_normalization_op);
}

}  // namespace reluopt::detail::onnx_graph
