// The checkpoint barrier of the stopping rule: a decision at checkpoint n sees exactly samples 0..n-1 finished
// and none above started, whatever the threads' timing.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "algorithms/checkpoint_gate.h"

namespace reluopt {
namespace {

// `workers` threads take indices t, t + T, ... below `cap` as the sampling workers do, each sample taking a few
// random microseconds. decide(n) checks that samples 0..n-1 are finished and no other sample started.
struct GateRun {
  std::vector<long> decisions;
  long started = 0;
  bool consistent = true;
};

GateRun run_gate(int workers, long cap, long stop_at) {
  GateRun run;
  std::atomic<long> started{0}, finished{0};
  CheckpointGate gate(workers, 10, 1.5, [&](long n) {
    run.consistent = run.consistent && started.load() == n && finished.load() == n;
    run.decisions.push_back(n);
    return n < stop_at;
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < workers; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 rng(static_cast<unsigned>(t));
      for (long i = t; i < cap; i += workers) {
        if (!gate.admit(i)) break;
        started.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 50));
        finished.fetch_add(1);
      }
      gate.leave();
    });
  for (std::thread& thread : threads) thread.join();
  run.started = started.load();
  return run;
}

TEST(CheckpointGate, DecidesOnExactlyTheSamplesBelowEachCheckpoint) {
  for (int workers : {1, 2, 3, 5}) {
    const GateRun run = run_gate(workers, 100000, 50);
    EXPECT_TRUE(run.consistent) << workers << " workers";
    // Checkpoints 10, then max(n + 1, ceil(1.5 n)): the first at or above 50 stops the run.
    EXPECT_EQ(run.decisions, (std::vector<long>{10, 15, 23, 35, 53})) << workers << " workers";
    EXPECT_EQ(run.started, 53) << workers << " workers";
  }
}

TEST(CheckpointGate, TheCapEndsTheRunBetweenCheckpoints) {
  for (int workers : {1, 3}) {
    const GateRun run = run_gate(workers, 30, 1000);
    EXPECT_TRUE(run.consistent);
    EXPECT_EQ(run.decisions, (std::vector<long>{10, 15, 23})) << workers << " workers";
    EXPECT_EQ(run.started, 30);
  }
}

// Over several processes a process may finish its share first (here: its one worker takes samples 0 and 5 of
// a cap of 40, the others' the rest); its gate still decides every checkpoint below the cap, in order, until
// one says stop, since the other processes' gates wait for the same decisions.
TEST(CheckpointGate, WithAnEndDecidesTheCheckpointsLeftAfterItsWorkersLeave) {
  std::vector<long> decisions;
  CheckpointGate gate(1, 10, 1.5, [&](long n) {
    decisions.push_back(n);
    return n < 30;
  }, 40);
  for (long i : {0L, 5L}) ASSERT_TRUE(gate.admit(i));
  gate.leave();
  EXPECT_EQ(decisions, (std::vector<long>{10, 15, 23, 35}));

  std::vector<long> plain;
  CheckpointGate alone(1, 10, 1.5, [&](long n) {
    plain.push_back(n);
    return true;
  });
  ASSERT_TRUE(alone.admit(0));
  alone.leave();
  EXPECT_TRUE(plain.empty());
}

}  // namespace
}  // namespace reluopt
