// The free MPS and CPLEX LP text of a LinearModel (formulation/model_file.h): sections, ranged rows, integer
// markers, bounds of every column, the objective in the user's sense and its constant as a fixed column.
#include "formulation/model_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "algorithms/model_mip.h"
#include "reluopt/model_io.h"
#include "reluopt/solve.h"
#include "solver/mip_solver.h"
#include "solver/mps_reader.h"

namespace reluopt {
namespace {

// maximize 2 a - b + 3 (a maximized model); 1 <= a + b <= 4, a - b == 0.5, a integer in [0, 5], b free.
LinearModel small_model() {
  LinearModel m;
  const int a = m.add_column(0.0, 5.0, 2.0, true, "a");
  const int b = m.add_column(-kInfinity, kInfinity, -1.0, false, "b");
  m.add_row({a, b}, {1.0, 1.0}, 1.0, 4.0, "range");
  m.add_row({a, b}, {1.0, -1.0}, 0.5, 0.5, "equal");
  m.set_objective_constant(3.0);
  return m;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ModelFile, FreeMpsOfAMaximization) {
  const std::string mps = to_free_mps(small_model(), Sense::kMaximize);
  EXPECT_TRUE(has(mps, "OBJSENSE\n    MAX\nROWS\n N  obj\n G  range\n E  equal\n")) << mps;
  EXPECT_TRUE(has(mps, "    MARKER  'MARKER'  'INTORG'\n    a  obj  2\n    a  range  1\n    a  equal  1\n"
                       "    MARKER  'MARKER'  'INTEND'\n    b  obj  -1\n")) << mps;
  EXPECT_TRUE(has(mps, "    objective_constant  obj  3\n")) << mps;
  EXPECT_TRUE(has(mps, "RHS\n    RHS  range  1\n    RHS  equal  0.5\nRANGES\n    RNG  range  3\n")) << mps;
  EXPECT_TRUE(has(mps, "BOUNDS\n LO BND  a  0\n UP BND  a  5\n FR BND  b\n FX BND  objective_constant  1\nENDATA\n"))
      << mps;
}

TEST(ModelFile, AMinimizationIsWrittenInTheUsersSense) {
  // The model maximizes -g: the file minimizes g, with no OBJSENSE section.
  const std::string mps = to_free_mps(small_model(), Sense::kMinimize);
  EXPECT_FALSE(has(mps, "OBJSENSE"));
  EXPECT_TRUE(has(mps, "    a  obj  -2\n")) << mps;
  EXPECT_TRUE(has(mps, "    objective_constant  obj  -3\n")) << mps;
  const std::string lp = to_lp_format(small_model(), Sense::kMinimize);
  EXPECT_TRUE(has(lp, "Minimize\n obj: - 2 a + 1 b - 3 objective_constant\n")) << lp;
}

TEST(ModelFile, LpFormatSplitsARangedRow) {
  const std::string lp = to_lp_format(small_model(), Sense::kMaximize);
  EXPECT_TRUE(has(lp, "Maximize\n obj: + 2 a - 1 b + 3 objective_constant\n")) << lp;
  EXPECT_TRUE(has(lp, " range_lo: + 1 a + 1 b >= 1\n range_hi: + 1 a + 1 b <= 4\n equal: + 1 a - 1 b = 0.5\n")) << lp;
  EXPECT_TRUE(has(lp, "Bounds\n 0 <= a <= 5\n b free\n objective_constant = 1\nGeneral\n a\nEnd\n")) << lp;
}

double cbc_optimum(const LinearModel& model) {
  const MipResult result = make_mip_solver()->solve(model, Deadline(60.0, nullptr), MipParameters{});
  EXPECT_EQ(result.status, MipStatus::kOptimal);
  return result.objective.value_or(0.0);
}

// The pricing fixture's big-M formulation, written as free MPS and read back by CBC's own reader (CoinMpsIO):
// CBC finds the same optimum in the file as in the model, and it is the optimum solve(model) proves.
TEST(ModelFile, CbcReadsTheWrittenFormulationBack) {
  const Model model = read_problem_json(std::string(RELUOPT_FIXTURES_DIR) + "/problem/pricing.json");
  SolveOptions options;
  options.method = Method::kMip;
  options.relax_concave = false;
  options.threads = 1;
  const MipFormulation f = model_formulation(reduce(model), options, Deadline(60.0, nullptr));
  const std::string path = ::testing::TempDir() + "reluopt_pricing_min.mps";
  std::ofstream(path) << to_free_mps(f.model, Sense::kMinimize);  // CoinMpsIO reads no OBJSENSE: minimize -g
  const LinearModel read = read_free_mps_minimization(path);
  std::remove(path.c_str());
  ASSERT_EQ(read.num_cols(), f.model.num_cols() + 1);  // and objective_constant
  EXPECT_EQ(read.num_rows(), f.model.num_rows());
  EXPECT_EQ(read.num_integer(), f.model.num_integer());
  const double in_file = cbc_optimum(read);
  EXPECT_NEAR(in_file, cbc_optimum(f.model), 1e-7);
  const ModelResult proven = solve(model, options);
  ASSERT_EQ(proven.result.status, SolveStatus::kOptimal);
  EXPECT_NEAR(in_file, proven.result.objective, 1e-6);
}

}  // namespace
}  // namespace reluopt
