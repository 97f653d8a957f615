// A VGG-shaped network read with its convolutions implicit (Conv2d, as the reader keeps VGG16's), against the same
// file read with sparse layers and against the numpy forward pass that wrote it: tests/fixtures/conv/vgg_small.onnx
// is bench/vgg_models.py --scale 32 --size 32 --classes 10 (13 Conv 3x3, 5 MaxPool 2x2, 3 Gemm, opset 7) and
// vgg_small.json holds its image, label and outputs there. Properties in the form of VNN-COMP's vggnet16: two
// pixels free, the others fixed (lower == upper), so verify folds the fixed ones into the first layer; verify itself
// on the small convolutional fixtures (bench/results/vnncomp_ops.md has VGG16-size runs).
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/network_specialize.h"
#include "io/reader_test_util.h"
#include "reluopt/model_io.h"
#include "reluopt/verify.h"

namespace reluopt {
namespace {

const std::string kDir = std::string(RELUOPT_FIXTURES_DIR) + "/conv/";

struct Vgg {
  Network implicit = testing::read_onnx_implicit_convs(kDir + "vgg_small.onnx");
  Network sparse = read_onnx(kDir + "vgg_small.onnx");
  Eigen::VectorXd image, outputs;
  int label = 0;

  Vgg() {
    std::ifstream in(kDir + "vgg_small.json");
    const nlohmann::json j = nlohmann::json::parse(in);
    image = testing::to_vector(j.at("image"));
    outputs = testing::to_vector(j.at("outputs"));
    label = j.at("label").get<int>();
  }
};

const Vgg& vgg() {
  static const Vgg v;
  return v;
}

// The image with pixels `free` in [x - eps, x + eps] within [0, 1], the others fixed.
Domain pixel_box(const Eigen::VectorXd& image, const std::vector<Eigen::Index>& free, double eps) {
  Domain box = Domain::box(image, image);
  for (Eigen::Index i : free) {
    box.lower[i] = std::max(0.0, image[i] - eps);
    box.upper[i] = std::min(1.0, image[i] + eps);
  }
  return box;
}

TEST(VggSmall, BothReadsMatchTheNumpyForwardPass) {
  const Vgg& v = vgg();
  int convs = 0;
  for (const DenseLayer& layer : v.implicit.layers()) convs += layer.weights.is_conv();
  EXPECT_EQ(convs, 13) << v.implicit.describe();
  EXPECT_TRUE(v.sparse.layers().front().weights.is_sparse());
  for (const Network* n : {&v.implicit, &v.sparse}) {
    const Eigen::VectorXd y = n->forward(v.image);
    EXPECT_LE((y - v.outputs).cwiseAbs().maxCoeff(), 1e-9);
  }
}

TEST(VggSmall, FixedInputsFoldIntoTheFirstLayer) {
  const Vgg& v = vgg();
  const Domain box = pixel_box(v.image, {500, 2000}, 0.3);
  const std::optional<detail::FixedInputs> fixed = detail::fix_inputs(v.implicit, box.lower, box.upper);
  ASSERT_TRUE(fixed.has_value());
  EXPECT_EQ(fixed->network.input_dim(), 2);
  EXPECT_TRUE(fixed->network.layers().front().weights.is_sparse());
  EXPECT_EQ(fixed->network.layers().front().weights.stored(), 2 * 2 * 9);  // 2 maps, a 3x3 window per pixel
  for (const Eigen::Vector2d& u : {Eigen::Vector2d(box.lower[500], box.upper[2000]), Eigen::Vector2d(0.5, 0.25)}) {
    const Eigen::VectorXd x = fixed->expand(u);
    EXPECT_LE((fixed->network.forward(u) - v.implicit.forward(x)).cwiseAbs().maxCoeff(), 1e-12);
  }
  // A sparse first layer (small convolutions) is left as it is.
  EXPECT_FALSE(detail::fix_inputs(v.sparse, box.lower, box.upper).has_value());
}

// On the small convolutional fixtures (one and two convolutions, average and max pooling), verify over a box with
// most pixels fixed gives the same answer on the network with implicit convolutions (its fixed inputs folded into
// the first layer) as on the sparse one, with no time limit: Y_0 >= t at thresholds from below Y_0's value at the
// image (sat) to far above it (unsat).
TEST(ImplicitConv, VerifyAgreesWithTheSparseNetwork) {
  int sat = 0, unsat = 0;
  for (const std::string file : {"conv/avgpool_conv.onnx", "pwl/maxpool.onnx", "conv/conv_stride2.onnx"}) {
    const std::string path = std::string(RELUOPT_FIXTURES_DIR) + "/" + file;
    const Network implicit = testing::read_onnx_implicit_convs(path), sparse = read_onnx(path);
    ASSERT_TRUE(implicit.layers().front().weights.is_conv()) << file;
    const Eigen::VectorXd image = Eigen::VectorXd::LinSpaced(implicit.input_dim(), 0.2, 0.8);
    const Domain box = pixel_box(image, {0, 9, 14, 20}, 0.2);
    const double y0 = sparse.forward(image)[0];
    for (const double t : {y0 - 0.1, y0 + 0.05, y0 + 0.3, y0 + 10.0}) {
      Eigen::VectorXd w = Eigen::VectorXd::Zero(implicit.output_dim());
      w[0] = -1.0;  // -Y_0 + t <= 0
      const VnnlibProperty property{box.dim(), implicit.output_dim(), {VnnlibCase{box, {{OutputConstraint{w, t}}}}}};
      VerifyOptions options;
      options.threads = 1;
      const VerifyResult a = verify(implicit, property, options, RunControl{});
      const VerifyResult b = verify(sparse, property, options, RunControl{});
      EXPECT_EQ(a.status, b.status) << file << " t " << t;
      sat += a.status == VerifyStatus::kSat;
      unsat += a.status == VerifyStatus::kUnsat;
      if (a.status == VerifyStatus::kSat) {
        // The counterexample over the free pixels, expanded and checked by a forward pass of the whole network.
        EXPECT_EQ(box.max_violation(a.x), 0.0);
        EXPECT_EQ(a.y, implicit.forward(a.x));
        EXPECT_GE(a.y[0], t);
      }
    }
  }
  EXPECT_GE(sat, 3);
  EXPECT_GE(unsat, 3);
}

}  // namespace
}  // namespace reluopt
