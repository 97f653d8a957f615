// Time limits as the library reads them: a finite limit beyond what a clock holds is no limit, so that no
// conversion to a clock's time overflows and cuts every LP short (a bab run at --time-limit 1e10 never ended).
#include <gtest/gtest.h>

#include <chrono>
#include <limits>

#include "reluopt/run_control.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The public control holds what a caller sets and nothing of the library's own runs (the processes of an mpirun,
// the exchange of searches side by side): a member added to it fails this binding.
TEST(RunControl, HoldsOnlyWhatACallerSets) {
  const auto [time_limit, stop, on_progress, progress_interval] = RunControl{};
  EXPECT_EQ(time_limit, kInf);
  EXPECT_EQ(stop, nullptr);
  EXPECT_FALSE(on_progress);
  EXPECT_EQ(progress_interval, 0.5);
}

TEST(RunControl, LimitsBeyondTheClockAreNone) {
  EXPECT_EQ(clock_seconds(60.0), 60.0);
  EXPECT_EQ(clock_seconds(kLongestTimeLimit), kLongestTimeLimit);
  for (double seconds : {1e10, 1e300, std::numeric_limits<double>::max(), kInf}) {
    EXPECT_EQ(clock_seconds(seconds), kInf) << seconds;
    EXPECT_EQ(Deadline(seconds, nullptr).remaining(), kInf) << seconds;
    const auto now = std::chrono::steady_clock::now();
    EXPECT_EQ(clock_deadline(now, seconds), std::chrono::steady_clock::time_point::max()) << seconds;
  }
}

TEST(RunControl, ClockDeadlinesLieAheadAndNeverOverflow) {
  const auto now = std::chrono::steady_clock::now();
  EXPECT_EQ(clock_deadline(now, 0.0), now);
  EXPECT_EQ(clock_deadline(now, -5.0), now);
  EXPECT_EQ(clock_deadline(now, 1.5) - now, std::chrono::milliseconds(1500));
  EXPECT_GT(clock_deadline(now, 1e9), now + std::chrono::hours(24 * 365 * 30));
  EXPECT_GT(clock_deadline(now, kLongestTimeLimit), now);
}

// bab proves the optimum of a small network with no limit; with a limit of 1e10 s or 1e300 s it must do the same
// search (one thread: the node count is the seed's).
TEST(RunControl, HugeTimeLimitsSearchAsNoLimit) {
  const Network net = testing::random_network(4, {12, 12}, 1, 7);
  const Domain box = Domain::unit_box(4);
  const Objective objective = Objective::output(1);
  SolveOptions options;
  options.method = Method::kBab;
  options.threads = 1;
  const SolveResult unlimited = solve(net, box, objective, options);
  ASSERT_EQ(unlimited.status, SolveStatus::kOptimal);
  for (double seconds : {1e10, 1e300}) {
    RunControl control;
    control.time_limit = seconds;
    const SolveResult r = solve(net, box, objective, options, control);
    EXPECT_EQ(r.status, SolveStatus::kOptimal) << seconds;
    EXPECT_EQ(r.stopped_by, StopReason::kCompleted) << seconds;
    EXPECT_EQ(r.run.nodes, unlimited.run.nodes) << seconds;
    EXPECT_EQ(r.run.lps, unlimited.run.lps) << seconds;
    EXPECT_EQ(r.objective, unlimited.objective) << seconds;
  }
}

}  // namespace
}  // namespace reluopt
