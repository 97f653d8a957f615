#include "solver/coin_convert.h"

#include <coin/ClpEventHandler.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "reluopt/run_control.h"

namespace reluopt {

namespace {

// Ends a simplex solve after the iteration in which the stop request is seen or the wall clock passes `end`
// (CLP's problem status 5, "stopped by the event handler", which lp_status() reports as no optimum). CLP itself
// looks at its time limit only between refactorizations, and on a loaded machine that let a relaxation LP run
// seconds past it; a clock read per iteration costs nothing next to a pivot.
class StopEvents : public ClpEventHandler {
 public:
  using Clock = std::chrono::steady_clock;
  StopEvents(const std::atomic<bool>* stop, Clock::time_point end) : stop_(stop), end_(end) {}
  ClpEventHandler* clone() const override { return new StopEvents(*this); }
  int event(Event which) override {
    if (which != endOfIteration) return -1;
    const bool stop = (stop_ != nullptr && stop_->load(std::memory_order_relaxed)) || Clock::now() >= end_;
    return stop ? 0 : -1;
  }

 private:
  const std::atomic<bool>* stop_;
  Clock::time_point end_;
};

}  // namespace

void set_clp_limits(ClpSimplex& lp, const std::atomic<bool>* stop, double seconds) {
  seconds = clock_seconds(seconds);
  const bool timed = std::isfinite(seconds);
  StopEvents events(stop, clock_deadline(StopEvents::Clock::now(), seconds));
  lp.passInEventHandler(&events);  // CLP keeps a clone
  lp.setMaximumWallSeconds(timed ? std::max(seconds, 0.01) : -1.0);
}

double coin_bound(double value) {
  return std::isinf(value) ? (value > 0 ? COIN_DBL_MAX : -COIN_DBL_MAX) : value;
}

CoinModel to_coin(const LinearModel& model) {
  const int rows = model.num_rows(), cols = model.num_cols();
  std::vector<int> lengths(rows);
  for (int r = 0; r < rows; ++r) lengths[r] = model.row_start()[r + 1] - model.row_start()[r];
  CoinModel coin{CoinPackedMatrix(false, cols, rows, static_cast<CoinBigIndex>(model.row_index().size()),
                                  model.row_value().data(), model.row_index().data(), model.row_start().data(),
                                  lengths.data()),
                 std::vector<double>(cols), std::vector<double>(cols), std::vector<double>(rows),
                 std::vector<double>(rows)};
  for (int c = 0; c < cols; ++c) {
    coin.col_lower[c] = coin_bound(model.col_lower()[c]);
    coin.col_upper[c] = coin_bound(model.col_upper()[c]);
  }
  for (int r = 0; r < rows; ++r) {
    coin.row_lower[r] = coin_bound(model.row_lower()[r]);
    coin.row_upper[r] = coin_bound(model.row_upper()[r]);
  }
  return coin;
}

void load_maximization(ClpSimplex& lp, const LinearModel& model) {
  const CoinModel coin = to_coin(model);
  lp.setLogLevel(0);
  lp.loadProblem(coin.matrix, coin.col_lower.data(), coin.col_upper.data(), model.objective().data(),
                 coin.row_lower.data(), coin.row_upper.data());
  lp.setOptimizationDirection(-1.0);
}

LpStatus lp_status(const ClpSimplex& lp) {
  switch (lp.status()) {
    case 0: return LpStatus::kOptimal;
    case 1: return LpStatus::kInfeasible;
    case 2: return LpStatus::kUnbounded;
    case 3: return LpStatus::kTimeLimit;
    case 5: return LpStatus::kTimeLimit;  // stopped by the stop request (LpSolver::set_stop_request)
    default: return LpStatus::kError;
  }
}

}  // namespace reluopt
