#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

namespace reluopt {

// The worker threads of a run, joined when it ends. Fewer threads than asked for do not end a run, which goes on
// with those it has, and the first shortfall in the process says so in one line on stderr ("reluopt: warning:
// started 37 of 100 threads: Resource temporarily unavailable; the run goes on with 19"):
//  - under an address-space limit (`ulimit -v`, common on clusters) the stacks of all the threads started here
//    get at most a quarter of what the rest of the process leaves and malloc's per-thread arenas another
//    quarter (mallopt M_ARENA_MAX), the rest being the runs' memory (stacks and arenas that take more leave the
//    runs' allocations to fail);
//  - a thread the system refuses (std::system_error: its thread limit, or no room for a stack) ends the starting,
//    and half of those started end at once, their stacks left to the run's memory.
//
// The threads start parked, so that a run learns how many it has before it divides the work among them:
//   WorkerThreads pool(wanted);            // up to `wanted` threads, pool.started() of them
//   pool.run([&](int t) { ... }, &stop);   // thread t runs work(t); returns at once
//   pool.join();                           // rethrows a worker's exception (the destructor joins quietly)
// With none started (started() == 0) the calling thread is the only worker left to the run.
//
// An exception out of work(t) (std::bad_alloc on a large model) would end the process from a thread (std::terminate);
// the pool keeps the first one instead, failed() turns true and the run's `stop` flag is set, so that the other
// workers and the run's driver, which would wait for the failed thread's work, end; join() rethrows it to the caller.
class WorkerThreads {
 public:
  explicit WorkerThreads(int wanted);
  ~WorkerThreads();
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;

  int started() const { return static_cast<int>(threads_.size()); }
  // Thread t runs work(t) for t < started(). Called at most once; a pool never run ends its threads idle. `stop`
  // (may be null) is set when a worker throws.
  void run(std::function<void(int)> work, std::atomic<bool>* stop = nullptr);
  // Whether a worker threw (its exception waits for join()).
  bool failed() const;
  // Joins every thread, then rethrows the first exception of a worker, if any.
  void join();
  // Lets the threads run on by themselves (a solver left behind at a time limit); they hold what they need.
  void detach();

 private:
  struct Gate;
  std::shared_ptr<Gate> gate_;
  std::vector<std::thread> threads_;
  void join_threads();
};

// The number of worker threads a run asks for: `threads`, or all cores for 0.
int resolve_threads(int threads);

// At most `wanted` threads, as many as an address-space limit leaves room for (see WorkerThreads), for a solver
// that starts its threads itself (CBC); a shortfall is the process's one warning.
int affordable_threads(int wanted);

}  // namespace reluopt
