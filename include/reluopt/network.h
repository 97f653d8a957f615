#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "reluopt/conv2d.h"

namespace reluopt {

// The W of an affine map, one row per output neuron: a dense matrix, a row-major sparse one for a layer that is
// mostly zeros (a convolution, a pooling, the identity rows that carry a residual branch), whose memory and time
// then follow its nonzeros rather than rows x cols, or an implicit 2-D convolution (Conv2d) for a convolution too
// large to write out, whose memory is its kernel and whose products are im2col matrix products. It offers the
// products the methods need, so that each reads the same for all three; loops over one neuron's row go through
// for_each_in_row, which visits only nonzeros when sparse or a convolution (and every entry, zeros too, when
// dense). A method that needs the matrix itself (an LP's rows) asks to_sparse(), which refuses with an Error a
// convolution whose nonzeros would pass kMaxWrittenOutBytes.
class Weights {
 public:
  using Sparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;
  // The most memory to_sparse() and to_dense() give a convolution written out: past it they throw.
  static constexpr double kMaxWrittenOutBytes = 2e9;

  Weights() = default;
  Weights(Eigen::MatrixXd dense) : dense_(std::move(dense)) {}  // NOLINT: a dense matrix is a Weights
  template <typename Derived>
  Weights(const Eigen::MatrixBase<Derived>& dense) : dense_(dense) {}  // NOLINT
  Weights(Sparse sparse) : sparse_(std::move(sparse)), is_sparse_(true) { sparse_.makeCompressed(); }  // NOLINT
  Weights(Conv2d conv) : conv_(std::make_shared<const Conv2d>(std::move(conv))) {}  // NOLINT

  bool is_sparse() const { return is_sparse_; }
  bool is_conv() const { return conv_ != nullptr; }
  bool is_dense() const { return !is_sparse_ && !conv_; }
  Eigen::Index rows() const { return conv_ ? conv_->rows() : is_sparse_ ? sparse_.rows() : dense_.rows(); }
  Eigen::Index cols() const { return conv_ ? conv_->cols() : is_sparse_ ? sparse_.cols() : dense_.cols(); }
  // Entries held: the nonzeros when sparse, rows x cols when dense, the nonzeros of the matrix written out (one
  // per multiply-add of a product) for a convolution. The work of a product follows it.
  Eigen::Index stored() const {
    return conv_ ? conv_->nonzeros() : is_sparse_ ? sparse_.nonZeros() : dense_.size();
  }
  // The bytes held (a convolution's: its kernel).
  double bytes() const;
  double operator()(Eigen::Index i, Eigen::Index j) const {
    return conv_ ? conv_->coeff(i, j) : is_sparse_ ? sparse_.coeff(i, j) : dense_(i, j);
  }

  // The dense matrix of a dense W (throws std::logic_error for another).
  const Eigen::MatrixXd& dense() const;
  Eigen::MatrixXd& dense();
  const Sparse& sparse() const;  // throws std::logic_error for a W that is not sparse
  const Conv2d& conv() const;    // throws std::logic_error for a W that is not a convolution
  // W written out; for a convolution past kMaxWrittenOutBytes, an Error naming the size.
  Eigen::MatrixXd to_dense() const;
  Sparse to_sparse() const;

  // Copies (const: an assignment to one is a mistake the compiler catches).
  const Eigen::RowVectorXd row(Eigen::Index j) const;
  const Eigen::VectorXd col(Eigen::Index i) const;
  // f(i, w_ji) for the entries of row j: nonzeros only when sparse or a convolution.
  template <typename F>
  void for_each_in_row(Eigen::Index j, F&& f) const {
    if (conv_) {
      conv_->for_each_in_row(j, f);
    } else if (is_sparse_) {
      for (Sparse::InnerIterator it(sparse_, j); it; ++it) f(it.col(), it.value());
    } else {
      for (Eigen::Index i = 0; i < dense_.cols(); ++i) f(i, dense_(j, i));
    }
  }

  // |W| v, without forming |W|.
  Eigen::VectorXd abs_times(const Eigen::VectorXd& v) const;
  // An upper bound on |W| m for m >= 0, the reach that round-off margins are built on: |W| m itself for a dense or
  // sparse W; for a convolution each row's kernel magnitude times max m (a product fewer through a VGG's layers).
  Eigen::VectorXd abs_reach(const Eigen::VectorXd& m) const;
  // |W|, max(W, 0), min(W, 0) (a convolution's with the kernel's entries mapped) and diag(r) W diag(c), sparse when
  // W is or is a convolution (written out: an Error past kMaxWrittenOutBytes).
  Weights cwiseAbs() const;
  Weights positive_part() const;
  Weights negative_part() const;
  Weights scaled(const Eigen::VectorXd& r, const Eigen::VectorXd& c) const;
  bool allFinite() const;
  // Whether every entry lies in [-limit, limit] (false with a NaN).
  bool within(double limit) const;
  // The same shape and entries, however each is stored (a sparse W or a convolution is not written out, except
  // a convolution against another form).
  bool operator==(const Weights& other) const;

  // W X
  template <typename Derived>
  Eigen::Matrix<double, Eigen::Dynamic, Derived::ColsAtCompileTime> operator*(
      const Eigen::MatrixBase<Derived>& x) const {
    if (conv_) return conv_->times(Eigen::MatrixXd(x.derived()));
    if (is_sparse_) return sparse_ * x.derived();
    return dense_ * x.derived();
  }
  // X W
  template <typename Derived>
  friend Eigen::Matrix<double, Derived::RowsAtCompileTime, Eigen::Dynamic> operator*(
      const Eigen::MatrixBase<Derived>& x, const Weights& w) {
    if (w.conv_) return w.conv_->transpose_times(Eigen::MatrixXd(x.derived().transpose())).transpose();
    if (w.is_sparse_) return x.derived() * w.sparse_;
    return x.derived() * w.dense_;
  }

  // W^T, for the products W^T X and X W^T.
  struct Transposed {
    const Weights& w;
    template <typename Derived>
    Eigen::Matrix<double, Eigen::Dynamic, Derived::ColsAtCompileTime> operator*(
        const Eigen::MatrixBase<Derived>& x) const {
      if (w.is_conv()) return w.conv().transpose_times(Eigen::MatrixXd(x.derived()));
      if (w.is_sparse_) return w.sparse_.transpose() * x.derived();
      return w.dense_.transpose() * x.derived();
    }
    template <typename Derived>
    friend Eigen::Matrix<double, Derived::RowsAtCompileTime, Eigen::Dynamic> operator*(
        const Eigen::MatrixBase<Derived>& x, const Transposed& t) {
      if (t.w.is_conv()) return t.w.conv().times(Eigen::MatrixXd(x.derived().transpose())).transpose();
      if (t.w.is_sparse()) return x.derived() * t.w.sparse().transpose();
      return x.derived() * t.w.dense().transpose();
    }
  };
  Transposed transpose() const { return Transposed{*this}; }

 private:
  Eigen::MatrixXd dense_;
  Sparse sparse_;
  bool is_sparse_ = false;
  // Shared: copies of a network (specialized, scaled) share the kernel, which nothing changes in place.
  std::shared_ptr<const Conv2d> conv_;
};

// One affine map h = W x + b. W has one row per output neuron; it may be sparse (Weights).
struct DenseLayer {
  Weights weights;
  Eigen::VectorXd bias;
  // In a hidden layer, linear[j] = 1 marks a neuron that passes h_j on as it is, without a ReLU (a value that
  // a later layer needs again: a residual branch, or b in max(a, b) = b + relu(a - b)). Empty: all are ReLUs.
  std::vector<std::uint8_t> linear = {};

  bool is_linear(Eigen::Index j) const { return !linear.empty() && linear[static_cast<std::size_t>(j)] != 0; }
};

// Which hidden neurons are active (pre-activation > 0), layer by layer. Two samples with the same
// pattern lie in the same linear region of the network.
struct ActivationPattern {
  std::vector<std::vector<std::uint8_t>> active;  // active[k][j] in {0, 1}

  bool operator==(const ActivationPattern& other) const = default;
  std::size_t hash() const;
  int num_neurons() const;
};

// The pre-activations of every hidden layer at one input, from a forward pass.
struct ForwardTrace {
  std::vector<Eigen::VectorXd> pre_activation;  // h_k = W_k x_k + b_k for hidden layer k
  Eigen::VectorXd output;
};

// A feed-forward ReLU network: x_1 = x, h_k = W_k x_k + b_k, x_{k+1} = max(h_k, 0) for the hidden layers
// k = 1..K-1, and a linear output layer y = W_K x_K + b_K with m >= 1 outputs (no ReLU). A hidden neuron marked
// linear passes h_kj on as it is; the methods take the network with those rewritten as relu(h - L) + L over the
// domain (core/network_specialize.h), so that every one of them sees ReLUs only.
// Pure data: it knows no file format and no solver. The constructor validates shapes and finiteness.
class Network {
 public:
  explicit Network(std::vector<DenseLayer> layers);

  int input_dim() const { return static_cast<int>(layers_.front().weights.cols()); }
  int output_dim() const { return static_cast<int>(layers_.back().weights.rows()); }
  // Hidden (ReLU) layers; the last affine layer is the linear output layer.
  int num_hidden_layers() const { return static_cast<int>(layers_.size()) - 1; }
  int num_hidden_neurons() const;
  int hidden_width(int k) const { return static_cast<int>(layers_[k].weights.rows()); }
  // Whether some hidden neuron is linear (DenseLayer::linear).
  bool has_linear_neurons() const;

  const std::vector<DenseLayer>& layers() const { return layers_; }
  const DenseLayer& hidden_layer(int k) const { return layers_[k]; }
  const DenseLayer& output_layer() const { return layers_.back(); }

  Eigen::VectorXd forward(const Eigen::VectorXd& x) const;
  // Batched forward pass: one input per column, one output per column.
  Eigen::MatrixXd forward_batch(const Eigen::MatrixXd& inputs) const;
  ForwardTrace trace(const Eigen::VectorXd& x) const;
  ActivationPattern activation_pattern(const Eigen::VectorXd& x) const;

  // One line such as "10 -> 100 -> 100 -> 1".
  std::string describe() const;

 private:
  std::vector<DenseLayer> layers_;
};

}  // namespace reluopt
