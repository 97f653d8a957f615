#pragma once

#include <Eigen/Dense>
#include <Eigen/SparseCore>

namespace reluopt {

// The shape of a 2-D convolution over one image of in_channels x in_height x in_width (row-major, channel first,
// as ONNX's NCHW with a batch of one): output map m at (oh, ow) reads input channel c of m's group at
// (oh * stride_h - pad_top + ki * dilation_h, ow * stride_w - pad_left + kj * dilation_w), positions outside the
// image reading zero. The padding after the image only sets out_height and out_width.
struct ConvGeometry {
  Eigen::Index in_channels = 0, in_height = 0, in_width = 0;
  Eigen::Index out_channels = 0, out_height = 0, out_width = 0;
  Eigen::Index kernel_height = 1, kernel_width = 1;
  Eigen::Index stride_h = 1, stride_w = 1, pad_top = 0, pad_left = 0, dilation_h = 1, dilation_w = 1;
  Eigen::Index groups = 1;

  bool operator==(const ConvGeometry&) const = default;
  Eigen::Index taps() const { return kernel_height * kernel_width; }
  Eigen::Index channels_per_group() const { return in_channels / groups; }
  Eigen::Index maps_per_group() const { return out_channels / groups; }
  Eigen::Index out_size() const { return out_height * out_width; }
  Eigen::Index in_size() const { return in_height * in_width; }
};

// The matrix W of a convolution (one row per output element, one column per input element) kept as its kernel:
// a VGG-size convolution written out has one nonzero per multiply-add (1.85 G for one 64-channel layer of a
// 224 x 224 image), its kernel 36864 numbers. Products go through im2col and a dense matrix product over blocks
// of output positions, so that their memory stays a few megabytes besides the operands.
class Conv2d {
 public:
  using Index = Eigen::Index;
  using Sparse = Eigen::SparseMatrix<double, Eigen::RowMajor>;

  // kernel: out_channels rows of channels_per_group * kernel_height * kernel_width entries, row m the weights of
  // map m in ONNX's [M, C / group, kh, kw] order. Throws std::invalid_argument on inconsistent shapes.
  Conv2d(const ConvGeometry& geometry, Eigen::MatrixXd kernel);

  const ConvGeometry& geometry() const { return g_; }
  const Eigen::MatrixXd& kernel() const { return kernel_; }
  Index rows() const { return g_.out_channels * g_.out_size(); }
  Index cols() const { return g_.in_channels * g_.in_size(); }
  // The nonzeros of W written out (a kernel entry counts once per output position whose window it reaches
  // inside the image).
  Index nonzeros() const { return nonzeros_; }
  double coeff(Index j, Index i) const;
  Eigen::VectorXd col(Index i) const;
  // f(i, w_ji) for the nonzeros of row j (output j's receptive field), in increasing i.
  template <typename F>
  void for_each_in_row(Index j, F&& f) const {
    const Index m = j / g_.out_size(), oh = j % g_.out_size() / g_.out_width, ow = j % g_.out_width;
    const Index cg = g_.channels_per_group(), first = m / g_.maps_per_group() * cg;
    for (Index c = 0; c < cg; ++c)
      for (Index ki = 0; ki < g_.kernel_height; ++ki) {
        const Index ih = oh * g_.stride_h - g_.pad_top + ki * g_.dilation_h;
        if (ih < 0 || ih >= g_.in_height) continue;
        for (Index kj = 0; kj < g_.kernel_width; ++kj) {
          const Index iw = ow * g_.stride_w - g_.pad_left + kj * g_.dilation_w;
          if (iw < 0 || iw >= g_.in_width) continue;
          const double w = kernel_(m, (c * g_.kernel_height + ki) * g_.kernel_width + kj);
          if (w != 0.0) f((first + c) * g_.in_size() + ih * g_.in_width + iw, w);
        }
      }
  }

  // W X and W^T Y, one column of X (of Y) an input (an output) image. A vector x with few nonzeros (a radius that
  // is zero outside the receptive fields of a few free pixels) goes by the columns of its nonzeros instead.
  Eigen::MatrixXd times(const Eigen::MatrixXd& x) const;
  Eigen::MatrixXd transpose_times(const Eigen::MatrixXd& y) const;
  // Per row, an upper bound on the sum of its entries' magnitudes: its map's kernel's (the row holds those of its
  // taps that fall inside the image).
  Eigen::VectorXd row_abs_bound() const;
  // The same geometry with another kernel (|K|, max(K, 0), ...).
  Conv2d with_kernel(Eigen::MatrixXd kernel) const { return Conv2d(g_, std::move(kernel)); }
  Sparse to_sparse() const;

 private:
  Eigen::VectorXd times_by_columns(const Eigen::VectorXd& x) const;
  template <typename F>
  void for_each_in_col(Index i, F&& f) const;
  template <typename Visit>
  void for_each_patch_entry(Index first_position, Index positions, Index group, Visit&& visit) const;

  ConvGeometry g_;
  Eigen::MatrixXd kernel_;
  Index nonzeros_ = 0;
};

}  // namespace reluopt
