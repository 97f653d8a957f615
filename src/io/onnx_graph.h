#pragma once

// The symbolic tensors of the ONNX reader and the row operations its operators share. The reader
// (onnx_reader.cc) runs the graph; onnx_conv.cc and onnx_shape_ops.cc define the convolutional and the
// shape-computing operators on the same tensors.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <onnx/onnx_pb.h>

#include "io/readers.h"
#include "reluopt/conv2d.h"
#include "reluopt/error.h"

namespace reluopt::detail::onnx_graph {

using Shape = std::vector<std::int64_t>;
using Index = Eigen::Index;

// A tensor has one row per element; this bound turns corrupt or absurd shapes into an Error instead of an overflow
// or a failed allocation.
constexpr std::int64_t kMaxElements = std::int64_t{1} << 31;

using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;

// The element count, or -1 when a dimension is negative or the count exceeds kMaxElements.
std::int64_t num_elements(const Shape& shape);
std::string shape_string(const Shape& shape);
// "" when a tensor of `shape` held as `columns` doubles per element fits within the limits, else why not.
std::string memory_problem(const Shape& shape, Index columns, const ReadLimits& limits);
// Bytes of a sparse tensor of `rows` elements with `nonzeros` entries (a double and an index each).
double sparse_bytes(Index rows, Index nonzeros);

// A graph tensor as a function of the input x of the dense layer under construction: element i, in row-major
// order of `shape`, equals rows.row(i) * [x; 1]. A constant keeps only the last (offset) column, so every
// linear operator is one row operation applied alike to coefficients and offsets.
struct Value {
  Shape shape;
  Eigen::MatrixXd rows;
  // The same rows held sparse (then `rows` is empty): after a ReLU the tensors of a layer are convolutions,
  // poolings, carried residual branches and max-pooling differences of a few taps a row, and held densely they
  // take rows x (inputs + 1) doubles (4.3 GB for one convolution of a 16-channel CIFAR residual block) where
  // their nonzeros take megabytes. A constant is never sparse; an operator that needs dense rows writes them out.
  SparseRows sparse_rows;
  bool sparse = false;
  bool constant = true;
  // A constant of an integer (or boolean) ONNX type: shapes, axes, indices. Integer Div truncates, and CastLike
  // casts to the type of such a target; every tensor that depends on the network input is real.
  bool integer = false;
  // The layer input x itself, rows = [I 0], held as no rows at all: after a ReLU on n neurons the identity
  // takes n (n + 1) doubles (8.6 GB after a 32-channel convolution of a 32 x 32 image), and the operators that
  // usually follow (Flatten, Gemm, Conv) need only the fact. The reader writes it out (sparse_rows_of) for others.
  bool identity = false;
  // An identity may be a block of x: element i is x[first + i] of an x of `width` elements (-1: all of x). A
  // layer that carries several tensors (a residual branch beside a ReLU) leaves each one such a block.
  Index first = 0;
  Index width = -1;
  // A convolution too large to write out (ReadLimits::implicit_conv_taps) of all of x: element i is row i of
  // conv times x plus conv_bias[i], held as the kernel (then `rows` is empty). Only a Relu or the graph output
  // takes it as it is, as its layer's W; the reader writes it out for every other operator (conv_rows_of), memory
  // permitting.
  std::shared_ptr<const Conv2d> conv;
  Eigen::VectorXd conv_bias;
  std::size_t stage = 0;  // dense layers already emitted when this tensor was computed

  Index columns() const {
    if (identity) return (width < 0 ? num_elements(shape) : width) + 1;
    if (conv) return conv->cols() + 1;
    return sparse ? sparse_rows.cols() : rows.cols();
  }
  Index num_rows() const {
    return identity ? num_elements(shape) : conv ? conv->rows() : sparse ? sparse_rows.rows() : rows.rows();
  }
  bool partial_identity() const { return identity && width >= 0 && (first != 0 || width != num_elements(shape)); }
  Eigen::VectorXd offset() const;
  // The bytes its rows take.
  double bytes() const;
};

// Every message names the node, its operator and the file, so a user can find the culprit in a viewer.
class NodeContext {
 public:
  NodeContext(const onnx::NodeProto& node, int index, const std::string& path, const ReadLimits& limits,
              std::int64_t opset)
      : node_(node), index_(index), path_(path), limits_(limits), opset_(opset) {}

  const onnx::NodeProto& node() const { return node_; }
  // The model's opset of the default domain: the version of every operator's definition.
  std::int64_t opset() const { return opset_; }
  // Refuses a form of the operator that its definition at this opset has and the reader does not take.
  [[noreturn]] void fail_at_opset(const std::string& what) const {
    fail(what + " is not supported (opset " + std::to_string(opset_) + ")");
  }
  const ReadLimits& limits() const { return limits_; }
  // Called before a tensor is allocated whose size does not follow from the file's size (broadcasts,
  // products).
  void check_memory(const Shape& shape, Index columns) const {
    if (const std::string problem = memory_problem(shape, columns, limits_); !problem.empty()) fail(problem);
  }
  // Called before a sparse tensor of `shape` with `nonzeros` entries is built.
  void check_sparse_memory(const Shape& shape, Index nonzeros) const;
  std::string label() const {
    if (!node_.name().empty()) return "'" + node_.name() + "'";
    std::string label = std::to_string(index_);
    label.insert(0, 1, '#');
    if (node_.output_size()) label.append(" ('").append(node_.output(0)).append("')");
    return label;
  }
  std::string where() const { return "in node " + label() + " (" + node_.op_type() + ") of '" + path_ + "'"; }
  [[noreturn]] void fail(const std::string& what) const { throw Error(what + " " + where()); }

 private:
  const onnx::NodeProto& node_;
  int index_;
  const std::string& path_;
  const ReadLimits& limits_;
  std::int64_t opset_;
};

using Inputs = std::vector<const Value*>;

using Operator = Value (*)(const NodeContext&, const Inputs&);
// An operator with several outputs (Split): one value per output of the node, in order.
using MultiOperator = std::vector<Value> (*)(const NodeContext&, const Inputs&);

// A neuron block of the hidden layer that a piecewise-linear operator closes: `pre` its pre-activations (affine
// in the layer's input x), passed through a ReLU or, when `linear`, as they are (Network's linear neurons).
struct Block {
  Value pre;
  bool linear = false;
};
// Closes the layer under construction with the given blocks (and whatever later nodes still need, carried as
// linear neurons) and returns each block's outputs, affine in the new layer's output.
using CloseLayer = std::function<std::vector<Value>(std::vector<Block>)>;
using PwlOperator = Value (*)(const NodeContext&, const Inputs&, const CloseLayer&);


Value make_constant(Shape shape, Eigen::MatrixXd data);
Value scalar(double x);
// A value of the given shape with the same kind (constant or affine in the same x) as v, and no rows yet.
Value kind_of(const Value& v, Shape shape);
// An uninitialized dense value of the given shape with the same kind (constant or affine in the same x) as v.
Value like(const Value& v, Shape shape);
// v with its rows written out densely (an identity or sparse rows); memory permitting.
Value dense_rows(const NodeContext& ctx, const Value& v);
// v with an identity written out as sparse rows (n nonzeros); other values as they are.
Value sparse_rows_of(const Value& v);
// v with an implicit convolution written out as sparse rows, memory permitting; other values as they are.
Value conv_rows_of(const NodeContext& ctx, const Value& v);
// v's coefficients and offset as one sparse matrix (a dense v's nonzeros).
SparseRows to_sparse(const Value& v);
// A non-constant value of `shape` (of the same x as `like`) whose rows are `rows`: sparse, or dense when more than a
// quarter of the entries are nonzero (then dense rows take less memory and time), memory permitting.
Value from_sparse(const NodeContext& ctx, const Value& like, Shape shape, SparseRows rows);
// Row i of the result is v's row source[i], or the constant `fill` where source[i] < 0 (sparse rows stay sparse).
Value select_rows(const NodeContext& ctx, const Value& v, Shape shape, const std::vector<Index>& source, double fill);
// The rows of several values of one layer (or constants) one after the other: row i is row parts[i].second of
// parts[i].first, a constant's value going to the offset column. Sparse when any affine part is.
Value join_rows(const NodeContext& ctx, Shape shape, const std::vector<std::pair<const Value*, Index>>& parts);
// Row i of the result is sum_j combination(i, j) row j of v: a fixed linear map of v's elements (sums, means,
// interpolation), sparse or dense as v is, memory permitting; a constant v gives a constant.
Value combine_rows(const NodeContext& ctx, const Value& v, Shape shape, const SparseRows& combination);

const Value& input(const NodeContext& ctx, const Inputs& inputs, std::size_t k);
const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name);
std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback);
std::string string_attribute(const onnx::NodeProto& node, const std::string& name, const std::string& fallback);
double float_attribute(const NodeContext& ctx, const std::string& name, double fallback);
// Integer contents of a constant tensor (shapes, axes); `what` names it in errors.
Shape to_ints(const NodeContext& ctx, const Value& v, const std::string& what);
std::int64_t normalize_axis(const NodeContext& ctx, std::int64_t axis, std::size_t rank);
// The axes normalized, in their order; a repeated axis is refused.
Shape distinct_axes(const NodeContext& ctx, const Shape& axes, std::size_t rank);
std::vector<std::int64_t> row_major_strides(const Shape& shape);

Shape broadcast_shape(const NodeContext& ctx, const Shape& a, const Shape& b);
Value broadcast_to(const NodeContext& ctx, const Value& v, const Shape& shape);
Value add(const NodeContext& ctx, const Value& a, const Value& b);
Value multiply(const NodeContext& ctx, const Value& a, const Value& b);
Value reshape(const NodeContext& ctx, const Value& v, Shape shape);

// Operators are registered by name; each file adds its own.
void add_conv_operators(std::unordered_map<std::string, Operator>& operators);
void add_shape_operators(std::unordered_map<std::string, Operator>& operators);
void add_multi_output_operators(std::unordered_map<std::string, MultiOperator>& operators);
void add_linear_operators(std::unordered_map<std::string, Operator>& operators);
void add_pwl_operators(std::unordered_map<std::string, PwlOperator>& operators);

// Reads an initializer's external data (onnx_external_data.cc) into its raw_data: the file named by its location in
// `folder`, the model's folder (none: the model was given as bytes, and external data is refused). `where` names the
// model in errors.
void load_external_data(onnx::TensorProto& tensor, const std::optional<std::string>& folder, const std::string& where,
                        const ReadLimits& limits);

// The elements that each output element of a reduction node (ReduceSum, ReduceMean, ReduceMax, ReduceMin) takes, in
// row-major order of the result `shape`: its axes as an attribute or input, keepdims, noop_with_empty_axes (`noop`:
// the node is the identity).
struct Reduction {
  std::vector<std::vector<Index>> groups;
  Shape shape;
  bool noop = false;
};
Reduction reduction_of(const NodeContext& ctx, const Value& v, const Inputs& inputs);

// The input elements (row-major in x's shape [1, C, spatial...]) of each window of a MaxPool node, one list per
// output element in row-major order of `out_shape`; padding contributes no element.
std::vector<std::vector<Index>> max_pool_windows(const NodeContext& ctx, const Value& x, Shape& out_shape);

}  // namespace reluopt::detail::onnx_graph
