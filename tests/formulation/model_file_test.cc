// The free MPS and CPLEX LP text of a LinearModel (formulation/model_file.h): sections, ranged rows, integer
// markers, bounds of every column, the objective in the user's sense and its constant as a fixed column.
#include "formulation/model_file.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace reluopt
