// The products of an implicit convolution (include/reluopt/conv2d.h) by im2col: for a block of output positions
// P and one group, the patch matrix X_P (positions x channels * taps, zero where a tap falls in the padding) gives
// the outputs X_P K_g^T, and the transposed product scatters Y_P K_g back onto the input positions (col2im).
#include "reluopt/conv2d.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace reluopt {
namespace {

// Entries of one patch matrix: 2^20 doubles (8 MB) whatever the image, so a block is many rows of a large image.
constexpr Eigen::Index kPatchEntries = Eigen::Index{1} << 20;

// The output positions oh in [0, out) whose tap k reads a row inside [0, in).
Eigen::Index inside_count(Eigen::Index out, Eigen::Index in, Eigen::Index stride, Eigen::Index pad, Eigen::Index k,
                          Eigen::Index dilation) {
  Eigen::Index count = 0;
  for (Eigen::Index o = 0; o < out; ++o) {
    const Eigen::Index i = o * stride - pad + k * dilation;
    count += i >= 0 && i < in;
  }
  return count;
}

}  // namespace

Conv2d::Conv2d(const ConvGeometry& geometry, Eigen::MatrixXd kernel) : g_(geometry), kernel_(std::move(kernel)) {
  const bool positive = g_.in_channels > 0 && g_.in_height > 0 && g_.in_width > 0 && g_.out_channels > 0 &&
                        g_.out_height > 0 && g_.out_width > 0 && g_.kernel_height > 0 && g_.kernel_width > 0 &&
                        g_.stride_h > 0 && g_.stride_w > 0 && g_.dilation_h > 0 && g_.dilation_w > 0 &&
                        g_.groups > 0 && g_.pad_top >= 0 && g_.pad_left >= 0;
  if (!positive || g_.in_channels % g_.groups != 0 || g_.out_channels % g_.groups != 0 ||
      kernel_.rows() != g_.out_channels || kernel_.cols() != g_.channels_per_group() * g_.taps())
    throw std::invalid_argument("Conv2d: a kernel of " + std::to_string(kernel_.rows()) + " x " +
                                std::to_string(kernel_.cols()) + " does not fit the geometry");
  for (Index ki = 0; ki < g_.kernel_height; ++ki) {
    const Index rows_in = inside_count(g_.out_height, g_.in_height, g_.stride_h, g_.pad_top, ki, g_.dilation_h);
    for (Index kj = 0; kj < g_.kernel_width; ++kj) {
      const Index cols_in = inside_count(g_.out_width, g_.in_width, g_.stride_w, g_.pad_left, kj, g_.dilation_w);
      Index taps = 0;
      for (Index m = 0; m < g_.out_channels; ++m)
        for (Index c = 0; c < g_.channels_per_group(); ++c)
          taps += kernel_(m, (c * g_.kernel_height + ki) * g_.kernel_width + kj) != 0.0;
      nonzeros_ += taps * rows_in * cols_in;
    }
  }
}

double Conv2d::coeff(Index j, Index i) const {
  const Index m = j / g_.out_size(), oh = j % g_.out_size() / g_.out_width, ow = j % g_.out_width;
  const Index c = i / g_.in_size(), ih = i % g_.in_size() / g_.in_width, iw = i % g_.in_width;
  const Index cg = g_.channels_per_group();
  if (c / cg != m / g_.maps_per_group()) return 0.0;
  const Index dh = ih - oh * g_.stride_h + g_.pad_top, dw = iw - ow * g_.stride_w + g_.pad_left;
  if (dh < 0 || dw < 0 || dh % g_.dilation_h != 0 || dw % g_.dilation_w != 0) return 0.0;
  const Index ki = dh / g_.dilation_h, kj = dw / g_.dilation_w;
  if (ki >= g_.kernel_height || kj >= g_.kernel_width) return 0.0;
  return kernel_(m, (c % cg * g_.kernel_height + ki) * g_.kernel_width + kj);
}

// f(j, w_ji) for the nonzero entries of column i: the outputs whose receptive field holds input i.
template <typename F>
void Conv2d::for_each_in_col(Index i, F&& f) const {
  const Index c = i / g_.in_size(), ih = i % g_.in_size() / g_.in_width, iw = i % g_.in_width;
  const Index cg = g_.channels_per_group(), first_map = c / cg * g_.maps_per_group();
  for (Index ki = 0; ki < g_.kernel_height; ++ki) {
    const Index th = ih + g_.pad_top - ki * g_.dilation_h;
    if (th < 0 || th % g_.stride_h != 0 || th / g_.stride_h >= g_.out_height) continue;
    for (Index kj = 0; kj < g_.kernel_width; ++kj) {
      const Index tw = iw + g_.pad_left - kj * g_.dilation_w;
      if (tw < 0 || tw % g_.stride_w != 0 || tw / g_.stride_w >= g_.out_width) continue;
      const Index o = th / g_.stride_h * g_.out_width + tw / g_.stride_w;
      const Index e = (c % cg * g_.kernel_height + ki) * g_.kernel_width + kj;
      for (Index m = first_map; m < first_map + g_.maps_per_group(); ++m) f(m * g_.out_size() + o, kernel_(m, e));
    }
  }
}

Eigen::VectorXd Conv2d::col(Index i) const {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(rows());
  for_each_in_col(i, [&](Index j, double w) { out[j] = w; });
  return out;
}

// visit(r, e, i) for every entry of the patch matrix of output positions [first, first + positions) in `group`
// that reads an input inside the image: row r (position first + r), column e (channel and tap), input element i.
template <typename Visit>
void Conv2d::for_each_patch_entry(Index first, Index positions, Index group, Visit&& visit) const {
  const Index cg = g_.channels_per_group();
  for (Index c = 0; c < cg; ++c) {
    const Index base = (group * cg + c) * g_.in_size();
    for (Index ki = 0; ki < g_.kernel_height; ++ki)
      for (Index kj = 0; kj < g_.kernel_width; ++kj) {
        const Index e = (c * g_.kernel_height + ki) * g_.kernel_width + kj;
        Index oh = first / g_.out_width, ow = first % g_.out_width;
        for (Index r = 0; r < positions; ++r) {
          const Index ih = oh * g_.stride_h - g_.pad_top + ki * g_.dilation_h;
          const Index iw = ow * g_.stride_w - g_.pad_left + kj * g_.dilation_w;
          if (ih >= 0 && ih < g_.in_height && iw >= 0 && iw < g_.in_width) visit(r, e, base + ih * g_.in_width + iw);
          if (++ow == g_.out_width) {
            ow = 0;
            ++oh;
          }
        }
      }
  }
}

Eigen::VectorXd Conv2d::row_abs_bound() const {
  Eigen::VectorXd out(rows());
  for (Index m = 0; m < g_.out_channels; ++m)
    out.segment(m * g_.out_size(), g_.out_size()).setConstant(kernel_.row(m).cwiseAbs().sum());
  return out;
}

// W x as the sum of x_i times column i over the nonzeros of x: the same sums in another order.
Eigen::VectorXd Conv2d::times_by_columns(const Eigen::VectorXd& x) const {
  Eigen::VectorXd out = Eigen::VectorXd::Zero(rows());
  for (Index i = 0; i < x.size(); ++i)
    if (x[i] != 0.0) for_each_in_col(i, [&](Index j, double w) { out[j] += w * x[i]; });
  return out;
}

Eigen::MatrixXd Conv2d::times(const Eigen::MatrixXd& x) const {
  if (x.rows() != cols()) throw std::invalid_argument("Conv2d::times: operand of the wrong size");
  // By columns when the nonzeros of x reach fewer than a quarter of the multiply-adds of the whole product.
  if (x.cols() == 1 && static_cast<double>((x.array() != 0.0).count()) * static_cast<double>(g_.maps_per_group()) *
                               static_cast<double>(g_.taps()) <
                           0.25 * static_cast<double>(rows()) * static_cast<double>(g_.channels_per_group() * g_.taps()))
    return times_by_columns(x.col(0));
  Eigen::MatrixXd out(rows(), x.cols());
  const Index width = g_.channels_per_group() * g_.taps(), mg = g_.maps_per_group();
  const Index block = std::clamp<Index>(kPatchEntries / width, 1, g_.out_size());
  Eigen::MatrixXd patches(block, width);
  for (Index s = 0; s < x.cols(); ++s) {
    const double* in = x.col(s).data();
    Eigen::Map<Eigen::MatrixXd> y(out.col(s).data(), g_.out_size(), g_.out_channels);
    for (Index group = 0; group < g_.groups; ++group)
      for (Index first = 0; first < g_.out_size(); first += block) {
        const Index n = std::min(block, g_.out_size() - first);
        patches.topRows(n).setZero();
        for_each_patch_entry(first, n, group, [&](Index r, Index e, Index i) { patches(r, e) = in[i]; });
        y.block(first, group * mg, n, mg).noalias() =
            patches.topRows(n) * kernel_.middleRows(group * mg, mg).transpose();
      }
  }
  return out;
}

Eigen::MatrixXd Conv2d::transpose_times(const Eigen::MatrixXd& y) const {
  if (y.rows() != rows()) throw std::invalid_argument("Conv2d::transpose_times: operand of the wrong size");
  Eigen::MatrixXd out = Eigen::MatrixXd::Zero(cols(), y.cols());
  const Index width = g_.channels_per_group() * g_.taps(), mg = g_.maps_per_group();
  const Index block = std::clamp<Index>(kPatchEntries / width, 1, g_.out_size());
  Eigen::MatrixXd patches(block, width);
  for (Index s = 0; s < y.cols(); ++s) {
    double* in = out.col(s).data();
    const Eigen::Map<const Eigen::MatrixXd> outputs(y.col(s).data(), g_.out_size(), g_.out_channels);
    for (Index group = 0; group < g_.groups; ++group)
      for (Index first = 0; first < g_.out_size(); first += block) {
        const Index n = std::min(block, g_.out_size() - first);
        patches.topRows(n).noalias() = outputs.block(first, group * mg, n, mg) * kernel_.middleRows(group * mg, mg);
        for_each_patch_entry(first, n, group, [&](Index r, Index e, Index i) { in[i] += patches(r, e); });
      }
  }
  return out;
}

Conv2d::Sparse Conv2d::to_sparse() const {
  Sparse w(rows(), cols());
  w.reserve(nonzeros_);
  for (Index j = 0; j < rows(); ++j) {
    w.startVec(j);
    for_each_in_row(j, [&](Index i, double v) { w.insertBack(j, i) = v; });
  }
  w.finalize();
  return w;
}

}  // namespace reluopt
