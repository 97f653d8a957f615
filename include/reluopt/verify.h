#pragma once

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

// unsat needs a proven bound on the margin below -kUnsatMargin on every case (docs/VERIFY.md).
inline constexpr double kUnsatMargin = 1e-4;

struct VerifyOptions {
  int threads = 0;         // 0: all cores; the search and the prover share them
  std::uint64_t seed = 0;
};

// What one case (input box) of the property gave.
struct VerifyCaseReport {
  double best_margin = -std::numeric_limits<double>::infinity();  // the largest margin at a point found
  std::optional<double> bound;  // a proven upper bound on the margin over the box
  bool decided = false;         // a counterexample (margin >= 0, re-checked) or bound < -kUnsatMargin
  double seconds = 0.0;
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

// Decides whether some input of a case's box satisfies every constraint of one of its conjunctions: a search
// (enhanced sampling) and the prover (bab) run at once on the margin, on the cases in turn, each case getting
// an equal share of the time left. sat only with a point whose forward pass satisfies a conjunction as written;
// unsat only when every case has a proven bound below -kUnsatMargin. With control.peers, every process of the
// run calls this: each case's search and prover run over all of them (points traded, open nodes handed between
// them) and the lead's result is the answer (the others' is their own part's). Throws reluopt::Error when the
// property does not match the network.
VerifyResult verify(const Network& network, const VnnlibProperty& property, const VerifyOptions& options,
                    const RunControl& control = {});

}  // namespace reluopt
