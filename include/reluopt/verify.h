#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/run_control.h"
#include "reluopt/vnnlib.h"

namespace reluopt {

enum class VerifyStatus { kSat, kUnsat, kUnknown, kTimeout };
std::string verify_status_name(VerifyStatus status);  // "sat", "unsat", "unknown", "timeout"

// unsat needs a proven bound on the margin below -kUnsatMargin on every case (docs/VERIFY.md). The margin is in
// the outputs' units: each constraint is scaled by the power of two that brings its largest coefficient into
// [1, 2) (fold_case).
inline constexpr double kUnsatMargin = 1e-4;

// The compiled max-min layers (core/max_min_network.h) of one run of verify may take at most this many bytes:
// more disjuncts are verified in several runs, and a single conjunction beyond it runs on its
// kMostBindingConstraints most binding constraints. The layers grow as
// the square of the constraints (about 1600 single-constraint terms fit over a last hidden layer of 32); the
// search and the prover hold a few copies of them and their bounds: a run near the budget (1600 terms on
// cls5.onnx) peaks at 140-170 MB, and its compile and set-up take well under a second, so that the time limit
// holds (bench/results/verify_big_property.md).
inline constexpr double kMaxMinBudgetBytes = 64e6;
// The constraints a conjunction too big for one run keeps in its run: the prover's bound through a min tree
// loosens with its depth, and a proof that the conjunction cannot hold rests on its most binding few.
inline constexpr std::size_t kMostBindingConstraints = 64;

struct VerifyOptions {
  int threads = 0;         // 0: all cores; the search and the prover share them
  std::uint64_t seed = 0;
  std::string property_file;  // named in errors ("VNN-LIB file 'p.vnnlib' line 4: ...")
};

// What one case (input box) of the property gave.
struct VerifyCaseReport {
  double best_margin = -std::numeric_limits<double>::infinity();  // the largest margin at a point found
  std::optional<double> bound;  // a proven upper bound on the margin over the box
  bool decided = false;         // a counterexample (margin >= 0, re-checked) or bound < -kUnsatMargin
  double seconds = 0.0;
  // Output disjuncts and constraints in the file, those left after folding (fold_case), and the runs that
  // verified them. A conjunction too big for one run runs on its most binding constraints: the others are
  // left out of the runs (a proof still holds; a point still has to satisfy them all to be sat).
  std::size_t disjuncts_read = 0, constraints_read = 0, disjuncts = 0, constraints = 0, runs = 0;
  std::size_t constraints_left_out = 0;
};

struct VerifyResult {
  VerifyStatus status = VerifyStatus::kUnknown;
  Eigen::VectorXd x;  // with sat: the counterexample, inside its box
  Eigen::VectorXd y;  // with sat: the network's outputs at x, by a double-precision forward pass
  std::vector<VerifyCaseReport> cases;  // in the property's order; cases after a sat one are not run
  double seconds = 0.0;
};

// The margin of a case: max_k min_l (-g_kl(y)) over its conjunctions k and their constraints g_kl(y) <= 0, as a
// max-min objective to maximize. It is >= 0 exactly where some conjunction holds (> 0 where a strict one does).
Objective margin_objective(const VnnlibCase& property_case, int num_outputs);

// A case folded over its box (docs/VERIFY.md, "Folding"). Each constraint is scaled by the power of two that
// brings its largest coefficient into [1, 2), which is exact; then, with sound bounds on the outputs over the
// box, a constraint that always holds leaves its conjunction, a conjunction with a constraint that never holds
// (its lower bound above kUnsatMargin) leaves the disjunction, a conjunction keeps the tightest constraint of
// each direction, and a conjunction that implies another (each of the other's constraints is implied by one of
// its own of the same direction) leaves the disjunction. The unsafe set over the box is unchanged; a
// conjunction left empty makes the whole box unsafe ({{}}).
struct FoldedCase {
  VnnlibCase folded;
  // With conjunctions dropped as never holding: a proven upper bound on their margin (below -kUnsatMargin).
  std::optional<double> dropped_bound;
  bool complete = true;  // false when `deadline` passed before the end (`folded` is then not to be used)
  Eigen::VectorXd output_lower, output_upper;  // the sound bounds on the outputs over the box that folding used
};

// The bounds on the outputs are symbolic (docs/MATH.md section 10) for at most `bounds_seconds`, interval
// bounds after (0: interval bounds only, which take one pass over the network and are the same on every
// process). `deadline` may be null.
FoldedCase fold_case(const Network& network, const VnnlibCase& property_case, const Deadline* deadline = nullptr,
                     double bounds_seconds = std::numeric_limits<double>::infinity());

// Decides whether some input of a case's box satisfies every constraint of one of its conjunctions: a search
// (enhanced sampling) and the prover (bab) run at once on the margin, on the cases in turn, each case getting
// an equal share of the time left. sat only with a point whose forward pass satisfies a conjunction as written;
// unsat only when every case has a proven bound below -kUnsatMargin. Each case is folded first (fold_case), and
// its disjuncts are verified in as many runs as kMaxMinBudgetBytes needs (sat when one run finds a
// counterexample, unsat only when every run has a proof). Over several processes (the command line under
// mpirun) every process of the run calls this: each case's search and prover run over all of them (points
// traded, open nodes handed between them) and the lead's result is the answer (the others' is their own
// part's). control.on_progress, when set, receives the search's and the prover's snapshots (incumbent: the best
// margin found, bound: the proven bound on the margin of the run) from their own threads, about every 50 ms.
// Throws reluopt::Error when the property does not match the network, when a conjunction is too big
// to compile even alone, or when a constraint that binds on its box has a constant beyond kMaxMagnitude (naming
// the file and line).
VerifyResult verify(const Network& network, const VnnlibProperty& property, const VerifyOptions& options,
                    const RunControl& control = {});

}  // namespace reluopt
