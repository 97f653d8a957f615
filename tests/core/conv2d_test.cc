// Conv2d (include/reluopt/conv2d.h) and Weights holding one: every entry, row, column and product against the same
// convolution written out as a sparse matrix by a loop of its own over the ONNX definition, over geometries with
// strides, asymmetric padding, dilations and groups; and the network of a convolution against its sparse twin.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "bounds/bounds.h"
#include "reluopt/conv2d.h"
#include "reluopt/error.h"
#include "reluopt/network.h"

namespace reluopt {
namespace {

using Index = Eigen::Index;

// Y[m, oh, ow] = sum over c of m's group, ki, kj of K[m, c, ki, kj] X[c', oh * s - p + ki * d, ...], written out.
Weights::Sparse reference(const ConvGeometry& g, const Eigen::MatrixXd& kernel) {
  std::vector<Eigen::Triplet<double>> entries;
  const Index cg = g.in_channels / g.groups, mg = g.out_channels / g.groups;
  for (Index m = 0; m < g.out_channels; ++m)
    for (Index oh = 0; oh < g.out_height; ++oh)
      for (Index ow = 0; ow < g.out_width; ++ow)
        for (Index c = 0; c < cg; ++c)
          for (Index ki = 0; ki < g.kernel_height; ++ki)
            for (Index kj = 0; kj < g.kernel_width; ++kj) {
              const Index ih = oh * g.stride_h - g.pad_top + ki * g.dilation_h;
              const Index iw = ow * g.stride_w - g.pad_left + kj * g.dilation_w;
              const double w = kernel(m, (c * g.kernel_height + ki) * g.kernel_width + kj);
              if (ih < 0 || ih >= g.in_height || iw < 0 || iw >= g.in_width || w == 0.0) continue;
              entries.emplace_back((m * g.out_height + oh) * g.out_width + ow,
                                   ((m / mg * cg + c) * g.in_height + ih) * g.in_width + iw, w);
            }
  Weights::Sparse w(g.out_channels * g.out_height * g.out_width, g.in_channels * g.in_height * g.in_width);
  w.setFromTriplets(entries.begin(), entries.end());
  return w;
}

// A geometry from (channels, size, maps, kernel, stride, pad before, pad after, dilation, groups), output sizes
// as ONNX computes them.
ConvGeometry geometry(Index c, Index h, Index w, Index m, Index kh, Index kw, Index s, Index p, Index q, Index d,
                      Index groups) {
  ConvGeometry g;
  g.in_channels = c;
  g.in_height = h;
  g.in_width = w;
  g.out_channels = m;
  g.kernel_height = kh;
  g.kernel_width = kw;
  g.stride_h = s;
  g.stride_w = s;
  g.pad_top = p;
  g.pad_left = q;
  g.dilation_h = d;
  g.dilation_w = d;
  g.groups = groups;
  g.out_height = (h + p + q - ((kh - 1) * d + 1)) / s + 1;
  g.out_width = (w + q + p - ((kw - 1) * d + 1)) / s + 1;
  return g;
}

std::vector<ConvGeometry> geometries() {
  return {geometry(3, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1), geometry(2, 7, 9, 3, 3, 2, 2, 1, 0, 1, 1),
          geometry(4, 6, 6, 6, 2, 3, 1, 0, 2, 2, 2), geometry(1, 5, 5, 2, 5, 5, 1, 2, 2, 1, 1),
          geometry(6, 9, 4, 3, 3, 1, 3, 2, 1, 1, 3)};
}

Eigen::MatrixXd random_matrix(Index rows, Index cols, std::mt19937_64& rng, bool zeros) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd m(rows, cols);
  for (Index i = 0; i < m.size(); ++i) m(i) = zeros && rng() % 4 == 0 ? 0.0 : u(rng);
  return m;
}

TEST(Conv2d, EntriesRowsAndColumnsAreTheWrittenOutMatrix) {
  std::mt19937_64 rng(11);
  for (const ConvGeometry& g : geometries()) {
    const Conv2d conv(g, random_matrix(g.out_channels, g.in_channels / g.groups * g.taps(), rng, true));
    const Eigen::MatrixXd expected(reference(g, conv.kernel()));
    const Weights w(conv);
    ASSERT_EQ(w.rows(), expected.rows());
    ASSERT_EQ(w.cols(), expected.cols());
    EXPECT_EQ(w.stored(), (expected.array() != 0.0).count());
    EXPECT_EQ(w.to_dense(), expected);
    EXPECT_TRUE(w == Weights(reference(g, conv.kernel())));
    for (Index j = 0; j < w.rows(); ++j) {
      EXPECT_EQ(w.row(j), expected.row(j));
      Index last = -1;
      w.for_each_in_row(j, [&](Index i, double v) {
        EXPECT_GT(i, last);
        EXPECT_EQ(v, expected(j, i));
        last = i;
      });
      for (Index i = 0; i < w.cols(); ++i) ASSERT_EQ(w(j, i), expected(j, i)) << j << " " << i;
    }
    for (Index i = 0; i < w.cols(); ++i) EXPECT_EQ(w.col(i), expected.col(i));
    EXPECT_EQ(w.positive_part().to_dense(), expected.cwiseMax(0.0));
    EXPECT_EQ(w.negative_part().to_dense(), expected.cwiseMin(0.0));
    EXPECT_EQ(w.cwiseAbs().to_dense(), expected.cwiseAbs());
  }
}

TEST(Conv2d, ProductsAgreeWithTheWrittenOutMatrix) {
  std::mt19937_64 rng(12);
  for (const ConvGeometry& g : geometries()) {
    const Conv2d conv(g, random_matrix(g.out_channels, g.in_channels / g.groups * g.taps(), rng, true));
    const Weights w(conv);
    const Weights::Sparse s = reference(g, conv.kernel());
    const Eigen::MatrixXd x = random_matrix(w.cols(), 3, rng, false), y = random_matrix(w.rows(), 3, rng, false);
    const double tol = 1e-12;
    EXPECT_LE((w * x - s * x).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE((w.transpose() * y - s.transpose() * y).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE((y.transpose() * w - y.transpose() * s).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE((x.transpose() * w.transpose() - x.transpose() * s.transpose()).cwiseAbs().maxCoeff(), tol);
    const Eigen::VectorXd v = x.col(0).cwiseAbs();
    // A vector with two nonzeros goes by its columns.
    Eigen::VectorXd few = Eigen::VectorXd::Zero(w.cols());
    few[1] = 0.5;
    few[w.cols() - 2] = -2.0;
    EXPECT_LE((w * few - s * few).cwiseAbs().maxCoeff(), tol);
    EXPECT_LE((w.abs_times(v) - s.cwiseAbs() * v).cwiseAbs().maxCoeff(), tol);
    const Eigen::VectorXd r = y.col(1), c = x.col(2);
    EXPECT_LE((w.scaled(r, c).to_dense() - r.asDiagonal() * Eigen::MatrixXd(s) * c.asDiagonal()).cwiseAbs().maxCoeff(),
              tol);
  }
}

TEST(Conv2d, IntervalStepAgreesWithTheSparseForm) {
  std::mt19937_64 rng(13);
  const ConvGeometry g = geometries()[2];
  const Conv2d conv(g, random_matrix(g.out_channels, g.in_channels / g.groups * g.taps(), rng, true));
  const Weights w(conv), s(reference(g, conv.kernel()));
  const Eigen::VectorXd bias = random_matrix(w.rows(), 1, rng, false);
  const Eigen::VectorXd lo = random_matrix(w.cols(), 1, rng, false), hi = lo.array() + 0.5;
  Eigen::VectorXd l1, u1, r1, l2, u2, r2;
  interval_step(w, bias, lo, hi, &l1, &u1, &r1);
  interval_step(s, bias, lo, hi, &l2, &u2, &r2);
  EXPECT_LE((l1 - l2).cwiseAbs().maxCoeff(), 1e-12);
  EXPECT_LE((u1 - u2).cwiseAbs().maxCoeff(), 1e-12);
  // The convolution bounds |W| max(|lo|, |hi|) + |b| from above, by its kernel's magnitudes.
  EXPECT_GE((r1 - r2).minCoeff(), -1e-12);
  EXPECT_GT((r1 - r2).maxCoeff(), 0.0);
}

TEST(Conv2d, WritingOutAVggSizeConvolutionIsRefusedInOneLine) {
  // VGG16's second layer: 64 maps of 224 x 224 from 64 channels, 1.8 G nonzeros written out.
  const ConvGeometry g = geometry(64, 224, 224, 64, 3, 3, 1, 1, 1, 1, 1);
  const Weights w(Conv2d(g, Eigen::MatrixXd::Ones(64, 576)));
  EXPECT_EQ(w.stored(), Index{64} * 64 * (9 * 224 * 224 - 4 * 3 * 224 + 4));
  EXPECT_LT(w.bytes(), 1e6);
  try {
    (void)w.to_sparse();
    FAIL() << "written out";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("a convolution of 3211264 outputs and 3211264 inputs written out as a sparse "
                                         "matrix needs 22.1 GB"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)w.to_dense(), Error);
}

}  // namespace
}  // namespace reluopt
