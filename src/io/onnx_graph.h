#pragma once

// The symbolic tensors of the ONNX reader and the row operations its operators share. The reader
// (onnx_reader.cc) runs the graph; onnx_conv.cc and onnx_shape_ops.cc define the convolutional and the
// shape-computing operators on the same tensors.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include <Eigen/Dense>
#include <onnx/onnx_pb.h>

#include "io/readers.h"
#include "reluopt/error.h"

namespace reluopt::detail::onnx_graph {

using Shape = std::vector<std::int64_t>;
using Index = Eigen::Index;

// Tensors are held densely, one row per element; this bound turns corrupt or absurd shapes into an Error
// instead of an overflow or a failed allocation.
constexpr std::int64_t kMaxElements = std::int64_t{1} << 31;

// The element count, or -1 when a dimension is negative or the count exceeds kMaxElements.
std::int64_t num_elements(const Shape& shape);
std::string shape_string(const Shape& shape);
// "" when a tensor of `shape` held as `columns` doubles per element fits within the limits, else why not.
std::string memory_problem(const Shape& shape, Index columns, const ReadLimits& limits);

// A graph tensor as a function of the input x of the dense layer under construction: element i, in row-major
// order of `shape`, equals rows.row(i) * [x; 1]. A constant keeps only the last (offset) column, so every
// linear operator is one row operation applied alike to coefficients and offsets.
struct Value {
  Shape shape;
  Eigen::MatrixXd rows;
  bool constant = true;
  // The layer input x itself, rows = [I 0], held as no rows at all: after a ReLU on n neurons the identity
  // takes n (n + 1) doubles (8.6 GB after a 32-channel convolution of a 32 x 32 image), and the operators that
  // usually follow (Flatten, Gemm, Conv) need only the fact. The reader writes it out (dense_rows) for any other.
  bool identity = false;
  // An identity may be a block of x: element i is x[first + i] of an x of `width` elements (-1: all of x). A
  // layer that carries several tensors (a residual branch beside a ReLU) leaves each one such a block.
  Index first = 0;
  Index width = -1;
  std::size_t stage = 0;  // dense layers already emitted when this tensor was computed

  Index columns() const { return identity ? (width < 0 ? num_elements(shape) : width) + 1 : rows.cols(); }
  bool partial_identity() const { return identity && width >= 0 && (first != 0 || width != num_elements(shape)); }
  Eigen::VectorXd offset() const {
    return identity ? Eigen::VectorXd::Zero(num_elements(shape)) : Eigen::VectorXd(rows.col(rows.cols() - 1));
  }
};

// Every message names the node, its operator and the file, so a user can find the culprit in a viewer.
class NodeContext {
 public:
  NodeContext(const onnx::NodeProto& node, int index, const std::string& path, const ReadLimits& limits)
      : node_(node), index_(index), path_(path), limits_(limits) {}

  const onnx::NodeProto& node() const { return node_; }
  const ReadLimits& limits() const { return limits_; }
  // Called before a tensor is allocated whose size does not follow from the file's size (broadcasts,
  // products).
  void check_memory(const Shape& shape, Index columns) const {
    if (const std::string problem = memory_problem(shape, columns, limits_); !problem.empty()) fail(problem);
  }
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
};

using Inputs = std::vector<const Value*>;

using Operator = Value (*)(const NodeContext&, const Inputs&);

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


Value make_constant(Shape shape, Eigen::VectorXd data);
Value scalar(double x);
// An uninitialized value of the given shape with the same kind (constant or affine in the same x) as v.
Value like(const Value& v, Shape shape);
// v with an identity written out as rows; memory permitting.
Value dense_rows(const NodeContext& ctx, const Value& v);

const Value& input(const NodeContext& ctx, const Inputs& inputs, std::size_t k);
const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name);
std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback);
double float_attribute(const NodeContext& ctx, const std::string& name, double fallback);
// Integer contents of a constant tensor (shapes, axes); `what` names it in errors.
Shape to_ints(const NodeContext& ctx, const Value& v, const std::string& what);
std::int64_t normalize_axis(const NodeContext& ctx, std::int64_t axis, std::size_t rank);
std::vector<std::int64_t> row_major_strides(const Shape& shape);

Shape broadcast_shape(const NodeContext& ctx, const Shape& a, const Shape& b);
Value broadcast_to(const Value& v, const Shape& shape);
Value add(const NodeContext& ctx, const Value& a, const Value& b);
Value multiply(const NodeContext& ctx, const Value& a, const Value& b);
Value reshape(const NodeContext& ctx, const Value& v, Shape shape);

// Operators are registered by name; each file adds its own.
void add_conv_operators(std::unordered_map<std::string, Operator>& operators);
void add_shape_operators(std::unordered_map<std::string, Operator>& operators);
void add_pwl_operators(std::unordered_map<std::string, PwlOperator>& operators);

// The input elements (row-major in x's shape [1, C, spatial...]) of each window of a MaxPool node, one list per
// output element in row-major order of `out_shape`; padding contributes no element.
std::vector<std::vector<Index>> max_pool_windows(const NodeContext& ctx, const Value& x, Shape& out_shape);

}  // namespace reluopt::detail::onnx_graph
