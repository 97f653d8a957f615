#pragma once

#include <mutex>
#include <optional>

#include "algorithms/problem.h"
#include "lp/linear_model.h"
#include "reluopt/options.h"
#include "reluopt/result.h"
#include "reluopt/run_control.h"

namespace reluopt {

class Peers;  // core/peers.h

// The best point found so far, shared by threads. Ties in value are broken by the lexicographic order of x,
// so the answer does not depend on which thread found a point first.
class Incumbent {
 public:
  // With a clock, every strict improvement of the value is recorded with its time (the anytime profile).
  explicit Incumbent(const Deadline* clock = nullptr) : clock_(clock) {}

  void offer(EvaluatedPoint point);
  std::optional<double> best_value() const;  // maximized sense
  std::optional<EvaluatedPoint> best() const;
  // Writes status, objective (user sense), x, outputs and the domain violation into the result.
  // Also writes the trajectory, in the user's sense.
  void fill(const Problem& problem, SolveResult& result) const;

 private:
  const Deadline* clock_;
  mutable std::mutex mutex_;
  std::optional<EvaluatedPoint> best_;
  std::vector<std::pair<double, double>> trajectory_;  // maximized sense
};

// Two searches of one process trading their best points while they run (the default's walk beside
// Algorithm 2, docs/MATH.md §17). Thread-safe.
class PointExchange {
 public:
  // Posts x for `side` (0 or 1) when `value` (maximized sense) beats every point posted so far, and returns the
  // other side's latest post when `side` has not received it yet.
  std::optional<Eigen::VectorXd> trade(int side, const Eigen::VectorXd& x, double value);

 private:
  std::mutex mutex_;
  Eigen::VectorXd posted_[2];
  double best_ = -kInfinity;
  long posts_[2] = {0, 0};
  long received_[2] = {0, 0};
};

// A run's seat at an exchange (RunContext::exchange).
struct ExchangeSeat {
  PointExchange* exchange;
  int side;
};

// What a search of the library runs under: the caller's RunControl and what a run inside the library adds to it
// (the command line's processes of an mpirun, a seat at the exchange of the searches the default method runs side
// by side). A caller's RunControl is a context of one process without a seat.
struct RunContext : RunControl {
  RunContext() = default;
  RunContext(const RunControl& control) : RunControl(control) {}  // NOLINT(google-explicit-constructor)
  Peers* peers = nullptr;                  // the other processes of a run over several (core/peers.h)
  const ExchangeSeat* exchange = nullptr;  // best points traded every 20 ms with the search beside this one
};

// Trades the incumbent's best through `seat` and offers what comes back, by its own forward pass.
void trade_points(const Problem& problem, const ExchangeSeat& seat, Incumbent& incumbent);

// Offers the points the other processes of the run found and posts this process's best (core/peers.h).
// The points are of the whole P and are evaluated by a forward pass as they are.
void trade_points(const Problem& problem, Peers& peers, Incumbent& incumbent);

// Offers the interior point and, until the deadline, `samples` uniform samples of P (from options.seed and the
// sampling options' thinning) to the incumbent: points for the price of forward passes.
void offer_forward_passes(const Problem& problem, const SolveOptions& options, int samples, Incumbent& incumbent,
                          const Deadline& deadline);

}  // namespace reluopt
