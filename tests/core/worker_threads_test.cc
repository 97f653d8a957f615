// WorkerThreads: threads parked until they are given their work, and a system that refuses threads (an
// address-space limit, as `ulimit -v` sets on clusters) leaves a run with fewer threads and one warning, never an
// abort.
#include <gtest/gtest.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/worker_threads.h"
#include "reluopt/solve.h"
#include "test_networks.h"

namespace reluopt {
namespace {

TEST(WorkerThreads, EveryStartedThreadRunsItsIndexOnce) {
  std::vector<std::atomic<int>> runs(8);
  {
    WorkerThreads pool(8);
    ASSERT_EQ(pool.started(), 8);
    pool.run([&](int t) { runs[t].fetch_add(1); });
  }
  for (const std::atomic<int>& count : runs) EXPECT_EQ(count.load(), 1);
}

TEST(WorkerThreads, APoolNeverRunEndsIdle) {
  WorkerThreads pool(3);
  EXPECT_EQ(pool.started(), 3);
  WorkerThreads none(0);
  EXPECT_EQ(none.started(), 0);
  none.run([](int) { ADD_FAILURE() << "no thread to run it"; });
}

// Thread 0 throws; threads 1 and 2 run until the run's stop flag, which only the pool sets: join() then rethrows
// the exception, once. Without the flag the test would hang.
TEST(WorkerThreads, AWorkersExceptionSetsTheStopFlagAndJoinRethrowsIt) {
  std::atomic<bool> stop{false};
  std::atomic<int> stopped{0};
  WorkerThreads pool(3);
  ASSERT_EQ(pool.started(), 3);
  pool.run(
      [&](int t) {
        if (t == 0) throw std::bad_alloc();
        while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        stopped.fetch_add(1);
      },
      &stop);
  EXPECT_THROW(pool.join(), std::bad_alloc);
  EXPECT_TRUE(pool.failed());
  EXPECT_EQ(stopped.load(), 2);
  EXPECT_NO_THROW(pool.join());
}

// A pool destroyed with an exception nobody joined for drops it (a destructor must not throw).
TEST(WorkerThreads, TheDestructorDropsAnExceptionNotJoinedFor) {
  WorkerThreads pool(2);
  pool.run([](int t) {
    if (t == 1) throw std::runtime_error("dropped");
  });
}

TEST(WorkerThreads, ResolveThreadsReadsZeroAsAllCores) {
  EXPECT_EQ(resolve_threads(3), 3);
  EXPECT_GE(resolve_threads(0), 1);
}

// The process's address space now, in bytes (VmSize of /proc/self/status).
long address_space_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmSize:", 0) == 0) return std::stol(line.substr(7)) * 1024;
  return 0;
}

// In a child process: room for a few dozen thread stacks (8 MB each) beyond what the process holds, then bab,
// sampling and walk runs that ask for 1000 threads. Each ends with its answer, and the process warns once.
void solve_with_little_address_space() {
  const Network net = testing::random_network(4, {12, 12}, 1, 7);
  const Domain box = Domain::unit_box(4);
  const Objective objective = Objective::output(1);
  const rlim_t room = static_cast<rlim_t>(address_space_bytes()) + (400L << 20);
  const rlimit limit{room, room};
  if (setrlimit(RLIMIT_AS, &limit) != 0) std::exit(3);
  bool proven = true;
  for (Method method : {Method::kBab, Method::kSampling, Method::kWalk}) {
    SolveOptions options;
    options.method = method;
    options.threads = 1000;
    options.sampling.samples = 1000;
    const SolveResult r = solve(net, box, objective, options);
    if (r.status == SolveStatus::kNoSolution || r.run.threads < 1 || r.run.threads >= 1000) std::exit(4);
    if (method == Method::kBab) proven = r.status == SolveStatus::kOptimal;
  }
  std::exit(proven ? 0 : 5);
}

TEST(WorkerThreadsDeathTest, AnAddressSpaceLimitLeavesFewerThreadsAndAWarning) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(solve_with_little_address_space(), ::testing::ExitedWithCode(0),
              "reluopt: warning: started [0-9]+ of 1000 threads: the address-space limit");
}

}  // namespace
}  // namespace reluopt
