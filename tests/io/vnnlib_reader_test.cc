// The VNN-LIB reader: every supported form, and each refusal naming its line.
#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <sstream>
#include <streambuf>
#include <string>
#include <utility>

#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/run_control.h"
#include "reluopt/vnnlib.h"

namespace reluopt {
namespace {

VnnlibProperty read_text(const std::string& text) {
  std::istringstream in(text);
  return detail::read_vnnlib(in, "p.vnnlib");
}

const std::string kDeclarations =
    "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n(declare-const Y_1 Real)\n";
const std::string kBox = "(assert (>= X_0 -1))\n(assert (<= X_0 1))\n(assert (>= X_1 0))\n(assert (<= X_1 0.5))\n";

TEST(VnnlibReader, BoxAndOneOutputConstraint) {
  const VnnlibProperty p = read_text("; a comment\n" + kDeclarations + kBox + "(assert (<= Y_0 Y_1)) ; Y_0 - Y_1 <= 0\n");
  EXPECT_EQ(p.num_inputs, 2);
  EXPECT_EQ(p.num_outputs, 2);
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].box.lower, Eigen::Vector2d(-1.0, 0.0));
  EXPECT_EQ(p.cases[0].box.upper, Eigen::Vector2d(1.0, 0.5));
  ASSERT_EQ(p.cases[0].unsafe.size(), 1u);
  ASSERT_EQ(p.cases[0].unsafe[0].size(), 1u);
  const OutputConstraint& c = p.cases[0].unsafe[0][0];
  EXPECT_EQ(c.weights, Eigen::Vector2d(1.0, -1.0));
  EXPECT_EQ(c.constant, 0.0);
  EXPECT_FALSE(c.strict);
  EXPECT_EQ(c.line, 10);
}

TEST(VnnlibReader, LinearCombinationsAndStrictComparisons) {
  const VnnlibProperty p = read_text(kDeclarations + kBox +
                                     "(assert (> (+ (* 2 Y_0) (- Y_1) 1.5) (* Y_1 -0.5)))\n(assert (< 3 (- Y_0 Y_1 1)))\n");
  ASSERT_EQ(p.cases.size(), 1u);
  ASSERT_EQ(p.cases[0].unsafe.size(), 1u);
  const std::vector<OutputConstraint>& conj = p.cases[0].unsafe[0];
  ASSERT_EQ(conj.size(), 2u);
  // 2 Y_0 - Y_1 + 1.5 > -0.5 Y_1  <=>  -2 Y_0 + 0.5 Y_1 - 1.5 < 0
  EXPECT_EQ(conj[0].weights, Eigen::Vector2d(-2.0, 0.5));
  EXPECT_EQ(conj[0].constant, -1.5);
  EXPECT_TRUE(conj[0].strict);
  // 3 < Y_0 - Y_1 - 1  <=>  -Y_0 + Y_1 + 4 < 0
  EXPECT_EQ(conj[1].weights, Eigen::Vector2d(-1.0, 1.0));
  EXPECT_EQ(conj[1].constant, 4.0);
}

TEST(VnnlibReader, DisjunctionOfConjunctionsOnOutputs) {
  const VnnlibProperty p = read_text(kDeclarations + kBox +
                                     "(assert (or (and (>= Y_0 Y_1) (<= Y_0 2)) (and (<= Y_1 -1))))\n");
  ASSERT_EQ(p.cases.size(), 1u);
  ASSERT_EQ(p.cases[0].unsafe.size(), 2u);
  EXPECT_EQ(p.cases[0].unsafe[0].size(), 2u);
  EXPECT_EQ(p.cases[0].unsafe[1].size(), 1u);
  EXPECT_TRUE(p.cases[0].unsafe[0][0].holds(Eigen::Vector2d(1.0, 0.0)));
  EXPECT_FALSE(p.cases[0].unsafe[0][1].holds(Eigen::Vector2d(3.0, 0.0)));
}

TEST(VnnlibReader, UnionOfInputBoxes) {
  const VnnlibProperty p = read_text(
      kDeclarations +
      "(assert (or (and (>= X_0 0) (<= X_0 1) (>= X_1 0) (<= X_1 1))\n"
      "            (and (>= X_0 2) (<= X_0 3) (>= X_1 0) (<= X_1 1))\n"
      "            (and (>= X_0 5) (<= X_0 4) (>= X_1 0) (<= X_1 1))))\n"
      "(assert (<= Y_0 0))\n");
  ASSERT_EQ(p.cases.size(), 2u);  // the third box is empty
  EXPECT_EQ(p.cases[1].box.lower, Eigen::Vector2d(2.0, 0.0));
  EXPECT_EQ(p.cases[1].unsafe.size(), 1u);
}

// The boxes of a product of two unions come in the order written: the first factor's outer.
TEST(VnnlibReader, ProductOfUnionsKeepsTheOrderWritten) {
  const VnnlibProperty p = read_text(kDeclarations +
                                     "(assert (or (and (>= X_0 0) (<= X_0 1)) (and (>= X_0 2) (<= X_0 3))))\n"
                                     "(assert (or (and (>= X_1 0) (<= X_1 1)) (and (>= X_1 2) (<= X_1 3))))\n"
                                     "(assert (<= Y_0 0))\n");
  ASSERT_EQ(p.cases.size(), 4u);
  EXPECT_EQ(p.cases[0].box.lower, Eigen::Vector2d(0.0, 0.0));
  EXPECT_EQ(p.cases[1].box.lower, Eigen::Vector2d(0.0, 2.0));
  EXPECT_EQ(p.cases[2].box.lower, Eigen::Vector2d(2.0, 0.0));
  EXPECT_EQ(p.cases[3].box.lower, Eigen::Vector2d(2.0, 2.0));
}

TEST(VnnlibReader, BoxesAndOutputsInOneDisjunction) {
  const VnnlibProperty p = read_text(kDeclarations +
                                     "(assert (or (and (>= X_0 0) (<= X_0 1) (>= X_1 0) (<= X_1 1) (<= Y_0 0))\n"
                                     "            (and (>= X_0 0) (<= X_0 1) (>= X_1 0) (<= X_1 1) (<= Y_1 0))))\n");
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].unsafe.size(), 2u);
}

TEST(VnnlibReader, ChainsConstantsAndSmtCommands) {
  const VnnlibProperty p = read_text("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n"
                                     "(assert (<= -1 X_0 +1))\n(assert (<= 0 1))\n(assert (<= Y_0 1e-3))\n(check-sat)\n");
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].box.lower[0], -1.0);
  EXPECT_EQ(p.cases[0].box.upper[0], 1.0);
  EXPECT_EQ(p.cases[0].unsafe[0].size(), 1u);
}

TEST(VnnlibReader, FalseConstantLeavesNoCase) {
  const VnnlibProperty p = read_text("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n"
                                     "(assert (<= 0 X_0 1))\n(assert (> 0 1))\n");
  EXPECT_TRUE(p.cases.empty());
}

TEST(VnnlibReader, NoOutputAssertMeansEveryOutputIsUnsafe) {
  const VnnlibProperty p = read_text("(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= 0 X_0 1))\n");
  ASSERT_EQ(p.cases.size(), 1u);
  ASSERT_EQ(p.cases[0].unsafe.size(), 1u);
  EXPECT_TRUE(p.cases[0].unsafe[0].empty());
}

TEST(VnnlibReader, ByteOrderMarkIsSkipped) {
  const VnnlibProperty p = read_text("\xEF\xBB\xBF" + kDeclarations + kBox + "(assert (<= Y_0 Y_1))\n");
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].box.upper, Eigen::Vector2d(1.0, 0.5));
  EXPECT_EQ(p.cases[0].unsafe[0].size(), 1u);
}

TEST(VnnlibReader, NumbersBelowTheSmallestDoubleAreZero) {
  const VnnlibProperty p = read_text(kDeclarations + kBox + "(assert (<= Y_0 1e-400))\n");
  EXPECT_EQ(p.cases[0].unsafe[0][0].constant, 0.0);
}

// 200,000 asserts: an input bound written 100,000 times, and 100 output constraints written 1,000 times each.
// Each is kept once, on the line it is first written; reading takes time linear in the file.
TEST(VnnlibReader, RepeatedAssertsAreKeptOnce) {
  std::string text = kDeclarations + kBox;  // 8 lines
  for (int k = 0; k < 200000; ++k)
    text += k % 2 == 1 ? "(assert (<= X_0 0.75))\n" : "(assert (<= Y_0 " + std::to_string(k % 200) + "))\n";
  const VnnlibProperty p = read_text(text);
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].box.upper, Eigen::Vector2d(0.75, 0.5));
  ASSERT_EQ(p.cases[0].unsafe.size(), 1u);
  const std::vector<OutputConstraint>& conj = p.cases[0].unsafe[0];
  ASSERT_EQ(conj.size(), 100u);
  for (int c = 0; c < 100; ++c) {
    EXPECT_EQ(conj[c].weights, Eigen::Vector2d(1.0, 0.0));
    EXPECT_EQ(conj[c].constant, -2.0 * c);
    EXPECT_EQ(conj[c].line, 9 + 2 * c);
  }
}

// 200,000 distinct output constraints, each kept, in the order written.
TEST(VnnlibReader, ManyDistinctAssertsAreRead) {
  std::string text = kDeclarations + kBox;
  for (int k = 0; k < 200000; ++k) text += "(assert (<= Y_1 " + std::to_string(k) + "))\n";
  const VnnlibProperty p = read_text(text);
  ASSERT_EQ(p.cases.size(), 1u);
  ASSERT_EQ(p.cases[0].unsafe.size(), 1u);
  const std::vector<OutputConstraint>& conj = p.cases[0].unsafe[0];
  ASSERT_EQ(conj.size(), 200000u);
  for (int k = 0; k < 200000; k += 997) {
    EXPECT_EQ(conj[k].constant, -k);
    EXPECT_EQ(conj[k].line, 9 + k);
  }
}

// An image property: every input bounded (here 1500, past the size from which the reader shares them), then a
// disjunction over the other classes, and a box of its own in one disjunct: the shared bounds give one case of the
// plain disjuncts, the box-cutting one a case of its own, each constraint where it was written.
TEST(VnnlibReader, SharedInputBoundsUnderADisjunction) {
  std::string text;
  for (int i = 0; i < 1500; ++i) text += "(declare-const X_" + std::to_string(i) + " Real)\n";
  for (int j = 0; j < 4; ++j) text += "(declare-const Y_" + std::to_string(j) + " Real)\n";
  for (int i = 0; i < 1500; ++i) {
    const std::string v = std::to_string(i % 7 == 0 ? 0.25 : 0.5);
    text += "(assert (<= X_" + std::to_string(i) + " " + v + "))\n(assert (>= X_" + std::to_string(i) + " " +
            (i % 7 == 0 ? "0" : v) + "))\n";
  }
  text += "(assert (or (and (>= Y_1 Y_0)) (and (>= Y_2 Y_0)) (and (>= Y_3 Y_0) (<= X_0 0.1)) (and (>= Y_2 Y_0))))\n";
  const VnnlibProperty p = read_text(text);
  ASSERT_EQ(p.cases.size(), 2u);
  const Domain& box = p.cases[0].box;
  EXPECT_EQ(box.lower[0], 0.0);
  EXPECT_EQ(box.upper[0], 0.25);
  EXPECT_EQ(box.lower[1], 0.5);
  EXPECT_EQ(box.upper[1], 0.5);
  ASSERT_EQ(p.cases[0].unsafe.size(), 2u);  // the repeated (>= Y_2 Y_0) kept once
  EXPECT_EQ(p.cases[0].unsafe[0][0].weights, Eigen::Vector4d(1, -1, 0, 0));
  EXPECT_EQ(p.cases[0].unsafe[1][0].weights, Eigen::Vector4d(1, 0, -1, 0));
  // X_0 <= 0.1 cuts the shared box: a case of its own.
  EXPECT_EQ(p.cases[1].box.upper[0], 0.1);
  EXPECT_EQ(p.cases[1].box.upper[1], 0.5);
  ASSERT_EQ(p.cases[1].unsafe.size(), 1u);
  EXPECT_EQ(p.cases[1].unsafe[0][0].weights, Eigen::Vector4d(1, 0, 0, -1));
}

TEST(VnnlibReader, RepeatedDisjunctsAreKeptOnce) {
  std::string disjuncts;
  for (int k = 0; k < 1000; ++k) disjuncts += " (<= Y_0 Y_1) (and (>= Y_0 1) (<= Y_0 Y_1) (>= Y_0 1))";
  const VnnlibProperty p = read_text(kDeclarations + kBox + "(assert (or" + disjuncts + "))\n");
  ASSERT_EQ(p.cases.size(), 1u);
  ASSERT_EQ(p.cases[0].unsafe.size(), 2u);
  EXPECT_EQ(p.cases[0].unsafe[0].size(), 1u);
  EXPECT_EQ(p.cases[0].unsafe[1].size(), 2u);
}

// Two conjunctions whose input bounds differ but make the same box, with the same output constraints: one.
TEST(VnnlibReader, SameOutputsOnTheSameBoxAreKeptOnce) {
  const VnnlibProperty p = read_text(kDeclarations + kBox +
                                     "(assert (or (and (<= X_0 2) (<= Y_0 0)) (and (<= X_0 3) (<= Y_0 0))))\n");
  ASSERT_EQ(p.cases.size(), 1u);
  EXPECT_EQ(p.cases[0].unsafe.size(), 1u);
}

// A constraint coupling inputs is a row of A x <= b; the box comes from the bounds on single inputs.
TEST(VnnlibReader, CoupledInputsAreARow) {
  const VnnlibProperty p = read_text(kDeclarations + kBox + "(assert (<= (+ X_0 (* -1.0 X_1)) 0.5))\n(assert (<= Y_0 0))\n");
  ASSERT_EQ(p.cases.size(), 1u);
  const Domain& d = p.cases[0].box;
  EXPECT_EQ(d.lower, Eigen::Vector2d(-1.0, 0.0));
  EXPECT_EQ(d.upper, Eigen::Vector2d(1.0, 0.5));
  ASSERT_EQ(d.num_rows(), 1);
  EXPECT_EQ(Eigen::RowVector2d(d.A.row(0)), Eigen::RowVector2d(1.0, -1.0));
  EXPECT_EQ(d.b, Eigen::VectorXd::Constant(1, 0.5));
  EXPECT_EQ(d.description, "a box cut by 1 row A x <= b (line 9)");
  EXPECT_NO_THROW(d.validate(2));
  ASSERT_EQ(p.cases[0].unsafe.size(), 1u);
  EXPECT_EQ(p.cases[0].unsafe[0].size(), 1u);
}

// >= and a chain give rows a^T x <= b too: 2 X_0 + X_1 >= 0.5 is -2 X_0 - X_1 <= -0.5.
TEST(VnnlibReader, RowsFromGreaterEqualAndChains) {
  const VnnlibProperty p =
      read_text(kDeclarations + kBox + "(assert (>= (+ (* 2 X_0) X_1) 0.5))\n(assert (<= -2 (- X_0 X_1) 0.25))\n");
  ASSERT_EQ(p.cases.size(), 1u);
  const Domain& d = p.cases[0].box;
  ASSERT_EQ(d.num_rows(), 2);  // -2 <= X_0 - X_1 holds on the whole box: no row
  EXPECT_EQ(Eigen::RowVector2d(d.A.row(0)), Eigen::RowVector2d(-2.0, -1.0));
  EXPECT_EQ(d.b[0], -0.5);
  EXPECT_EQ(Eigen::RowVector2d(d.A.row(1)), Eigen::RowVector2d(1.0, -1.0));
  EXPECT_EQ(d.b[1], 0.25);
  EXPECT_EQ(d.description, "a box cut by 2 rows A x <= b (lines 9, 10)");
}

// On the box [-1, 1] x [0, 0.5], X_0 + X_1 ranges over [-1, 1.5]: <= 10 holds everywhere (no row), >= 10 nowhere
// (no case: the property holds).
TEST(VnnlibReader, RowsDecidedByTheBox) {
  const VnnlibProperty always = read_text(kDeclarations + kBox + "(assert (<= (+ X_0 X_1) 10))\n");
  ASSERT_EQ(always.cases.size(), 1u);
  EXPECT_FALSE(always.cases[0].box.has_rows());
  EXPECT_EQ(always.cases[0].box.description, "");
  EXPECT_TRUE(read_text(kDeclarations + kBox + "(assert (>= (+ X_0 X_1) 10))\n").cases.empty());
  // Exactly at the box's corner: the row stays (the polyhedron is the corner, not empty).
  const VnnlibProperty corner = read_text(kDeclarations + kBox + "(assert (>= (+ X_0 X_1) 1.5))\n");
  ASSERT_EQ(corner.cases.size(), 1u);
  EXPECT_EQ(corner.cases[0].box.num_rows(), 1);
}

// The VNN-COMP form (or (and input-constraints output-constraints) ...): disjuncts on one box with different
// rows are different cases; the same box and rows, one case.
TEST(VnnlibReader, DisjunctsWithRowsAreCases) {
  const std::string box = "(>= X_0 0) (<= X_0 1) (>= X_1 0) (<= X_1 1)";
  const VnnlibProperty p = read_text(kDeclarations + "(assert (or\n"
                                     "  (and " + box + " (<= (- X_0 X_1) 0.5) (<= Y_0 0))\n"
                                     "  (and " + box + " (<= (- X_0 X_1) 0.5) (<= Y_1 0))\n"
                                     "  (and " + box + " (>= (- X_0 X_1) 0.5) (<= Y_0 0))\n"
                                     "  (and " + box + " (<= (+ X_0 X_1) 9) (<= Y_0 0))))\n");
  ASSERT_EQ(p.cases.size(), 3u);
  EXPECT_EQ(p.cases[0].box.num_rows(), 1);
  EXPECT_EQ(p.cases[0].unsafe.size(), 2u);
  EXPECT_EQ(p.cases[0].box.b[0], 0.5);
  EXPECT_EQ(p.cases[1].box.num_rows(), 1);
  EXPECT_EQ(p.cases[1].box.b[0], -0.5);
  EXPECT_EQ(p.cases[1].unsafe.size(), 1u);
  EXPECT_FALSE(p.cases[2].box.has_rows());  // X_0 + X_1 <= 9 holds on the whole box
}

// The full message of each refusal of input constraints.
std::string error_of(const std::string& text) {
  try {
    read_text(text);
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(VnnlibReader, InputConstraintRefusalsNameTheLineAndTheInput) {
  EXPECT_EQ(error_of(kDeclarations + kBox + "(assert (< (- X_0 X_1) 0))\n"),
            "VNN-LIB file 'p.vnnlib' line 9: a strict constraint on inputs: use <= or >=");
  EXPECT_EQ(error_of(kDeclarations + "(assert (<= -1 X_0 1))\n(assert (<= X_1 1))\n(assert (>= (+ X_0 X_1) 0))\n"),
            "VNN-LIB file 'p.vnnlib' line 8: X_1 has no lower bound (every input needs both, each a comparison of "
            "X_1 alone: a constraint coupling inputs does not bound the box)");
  EXPECT_EQ(error_of(kDeclarations + kBox + "(assert (<= (+ (* 1.5e308 X_0) (* 1e308 X_1)) 0))\n"),
            "VNN-LIB file 'p.vnnlib' line 9: a constraint on inputs overflows a double over the box");
}

std::string many_asserts(int count) {
  std::string text = kDeclarations + kBox;
  for (int k = 0; k < count; ++k) text += "(assert (<= Y_0 " + std::to_string(k) + "))\n";
  return text;
}

// The message of the ReadStopped that reading `in` by `deadline` throws.
std::string stop_message(std::istream& in, const Deadline& deadline) {
  try {
    detail::read_vnnlib(in, "p.vnnlib", deadline);
  } catch (const ReadStopped& e) {
    return e.what();
  }
  ADD_FAILURE() << "not stopped";
  return "";
}

TEST(VnnlibReader, StopRequestOrExpiredDeadlineEndsReading) {
  std::istringstream requested(many_asserts(1000));
  const std::atomic<bool> stop{true};
  EXPECT_EQ(stop_message(requested, Deadline(std::numeric_limits<double>::infinity(), &stop)),
            "VNN-LIB file 'p.vnnlib' line 1: reading stopped: a stop was requested");
  std::istringstream expired(many_asserts(1000));
  EXPECT_EQ(stop_message(expired, Deadline(0.0, nullptr)),
            "VNN-LIB file 'p.vnnlib' line 1: reading stopped: the time limit ran out");
}

// Serves `text` and sets `stop` once half of it has been read: a Ctrl-C in the middle of a file.
class StopHalfway : public std::streambuf {
 public:
  StopHalfway(std::string text, std::atomic<bool>& stop) : text_(std::move(text)), stop_(stop) {
    setg(text_.data(), text_.data(), text_.data() + text_.size());
  }

 protected:
  std::streamsize xsgetn(char* s, std::streamsize n) override {
    const std::streamsize got = std::streambuf::xsgetn(s, n);
    if (static_cast<std::size_t>(gptr() - eback()) >= text_.size() / 2) stop_.store(true);
    return got;
  }

 private:
  std::string text_;
  std::atomic<bool>& stop_;
};

TEST(VnnlibReader, StopRequestedWhileReadingIsSeenWithinTheFile) {
  constexpr int kAsserts = 100000;
  std::atomic<bool> stop{false};
  StopHalfway buffer(many_asserts(kAsserts), stop);
  std::istream in(&buffer);
  const std::string message = stop_message(in, Deadline(std::numeric_limits<double>::infinity(), &stop));
  const std::string prefix = "VNN-LIB file 'p.vnnlib' line ";
  ASSERT_EQ(message.rfind(prefix, 0), 0u) << message;
  const int line = std::stoi(message.substr(prefix.size()));
  EXPECT_GT(line, kAsserts / 4) << message;
  EXPECT_LT(line, 3 * kAsserts / 4) << message;
  EXPECT_NE(message.find(": reading stopped: a stop was requested"), std::string::npos) << message;
}

struct Malformed {
  std::string name;
  std::string text;
  std::string message;  // a part of the error, which names the line
};

class VnnlibMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(VnnlibMalformed, RefusedInOneLineNamingTheLine) {
  try {
    read_text(GetParam().text);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(GetParam().message), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    EXPECT_NE(message.find("VNN-LIB file 'p.vnnlib' line "), std::string::npos) << message;
  }
}

const std::string kOne = "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= 0 X_0 1))\n";

INSTANTIATE_TEST_SUITE_P(
    Files, VnnlibMalformed,
    ::testing::Values(
        Malformed{"unclosed", kOne + "(assert (<= Y_0 1)\n", "line 4: the '(' opened here is never closed"},
        Malformed{"extra_paren", kOne + "(assert (<= Y_0 1)))\n", "line 4: a ')' without its '('"},
        Malformed{"unknown_command", kOne + "(define-fun f () Real 1)\n", "line 4: unsupported command 'define-fun'"},
        Malformed{"int_type", "(declare-const X_0 Int)\n", "line 1: expected (declare-const NAME Real)"},
        Malformed{"bad_name", "(declare-const Z_0 Real)\n", "line 1: declares 'Z_0'"},
        Malformed{"declared_twice", kOne + "(declare-const Y_0 Real)\n", "line 4: 'Y_0' is declared twice"},
        Malformed{"undeclared", kOne + "(assert (<= Y_1 1))\n", "line 4: 'Y_1' is used before its declare-const"},
        Malformed{"unknown_symbol", kOne + "(assert (<= Y_0 one))\n", "line 4: unknown symbol 'one'"},
        Malformed{"bad_number", kOne + "\n(assert (<= Y_0 1.2.3))\n", "line 5: unknown symbol '1.2.3'"},
        Malformed{"nonlinear", kOne + "(assert (<= (* Y_0 X_0) 1))\n", "line 4: a product of two variables"},
        Malformed{"division", kOne + "(assert (<= (/ Y_0 2) 1))\n", "line 4: unsupported expression '/'"},
        Malformed{"not", kOne + "(assert (not (<= Y_0 1)))\n", "line 4: unsupported formula 'not'"},
        Malformed{"one_argument", kOne + "(assert (<= Y_0))\n", "line 4: '<=' needs two arguments"},
        Malformed{"mixed", kOne + "(assert (<= Y_0 X_0))\n", "line 4: a constraint mixes inputs and outputs"},
        Malformed{"strict_coupled_inputs",
                  "(declare-const X_0 Real)\n(declare-const X_1 Real)\n(declare-const Y_0 Real)\n"
                  "(assert (<= 0 X_0 1))\n(assert (<= 0 X_1 1))\n(assert (> (- X_0 X_1) 0))\n",
                  "line 6: a strict constraint on inputs"},
        Malformed{"strict_input", kOne + "(assert (< X_0 0.5))\n", "line 4: a strict bound on an input"},
        Malformed{"unbounded_input", "(declare-const X_0 Real)\n(declare-const Y_0 Real)\n(assert (<= X_0 1))\n",
                  "X_0 has no lower bound"},
        Malformed{"gap_in_inputs", "(declare-const X_0 Real)\n(declare-const X_2 Real)\n(declare-const Y_0 Real)\n",
                  "declares X_2 but not every X_i below it"},
        Malformed{"no_outputs", "(declare-const X_0 Real)\n(assert (<= 0 X_0 1))\n", "declares no Y_0"},
        Malformed{"symbol_outside", kOne + "assert\n", "line 4: a symbol 'assert' outside parentheses"},
        Malformed{"nul_bytes", kOne + std::string("\0\0", 2), "line 4: a symbol '\\x00\\x00' outside parentheses"},
        Malformed{"nul_in_symbol", kOne + "(assert (<= Y_0 1" + std::string(1, '\0') + "))\n",
                  "line 4: unknown symbol '1\\x00' (expected a number, X_i or Y_j)"},
        Malformed{"assert_arity", kOne + "(assert (<= Y_0 1) (<= Y_0 2))\n", "line 4: expected (assert FORMULA)"},
        Malformed{"deep", kOne + "(assert " + std::string(300, '(') + "\n", "nesting deeper than 200 levels"},
        Malformed{"coefficient_overflow", kOne + "(assert (<= (+ (* 1e308 Y_0) (* 1e308 Y_0)) 0))\n",
                  "line 4: the coefficient of Y_0, 1e+308 + 1e+308, overflows a double"},
        Malformed{"product_overflow", kOne + "(assert (<= (* 1e200 1e200 Y_0) 0))\n",
                  "line 4: the constant term, 1e+200 * 1e+200, overflows a double"},
        Malformed{"constant_overflow", kOne + "(assert (<= Y_0 (+ 1e308 1e308)))\n",
                  "line 4: the constant term, 1e+308 + 1e+308, overflows a double"},
        Malformed{"comparison_overflow", kOne + "(assert (<= 1e308 (- Y_0 1e308)))\n",
                  "line 4: the constant term, 1e+308 + 1e+308, overflows a double"},
        Malformed{"number_overflow", kOne + "(assert (<= Y_0 -1e400))\n",
                  "line 4: the number '-1e400' overflows a double"},
        Malformed{"bound_overflow", kOne + "\n(assert (<= (* 1e-300 X_0) 1e300))\n",
                  "line 5: the bound on X_0, 1e+300 / 1e-300, overflows a double"}),
    [](const ::testing::TestParamInfo<Malformed>& info) { return info.param.name; });

TEST(VnnlibReader, MissingFileIsNamed) {
  try {
    read_vnnlib("/nonexistent/p.vnnlib");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open VNN-LIB file '/nonexistent/p.vnnlib'"), std::string::npos);
  }
}

}  // namespace
}  // namespace reluopt
