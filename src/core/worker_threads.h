#pragma once

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
//   pool.run([&](int t) { ... });          // thread t runs work(t); returns at once
//   pool.join();                           // (or the destructor)
// With none started (started() == 0) the calling thread is the only worker left to the run.
class WorkerThreads {
 public:
  explicit WorkerThreads(int wanted);
  ~WorkerThreads();
  WorkerThreads(const WorkerThreads&) = delete;
  WorkerThreads& operator=(const WorkerThreads&) = delete;

  int started() const { return static_cast<int>(threads_.size()); }
  // Thread t runs work(t) for t < started(). Called at most once; a pool never run ends its threads idle.
  void run(std::function<void(int)> work);
  void join();
  // Lets the threads run on by themselves (a solver left behind at a time limit); they hold what they need.
  void detach();

 private:
  struct Gate;
  std::shared_ptr<Gate> gate_;
  std::vector<std::thread> threads_;
};

// The number of worker threads a run asks for: `threads`, or all cores for 0.
int resolve_threads(int threads);

// At most `wanted` threads, as many as an address-space limit leaves room for (see WorkerThreads), for a solver
// that starts its threads itself (CBC); a shortfall is the process's one warning.
int affordable_threads(int wanted);

}  // namespace reluopt
