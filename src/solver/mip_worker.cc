// solve_in_worker: a MIP backend in a worker thread that can be left behind, so that a time limit and a stop
// request hold within a second whatever the solver is doing (docs/SOLVER-NOTES.md, "Time limits").
//
// CBC, for one, checks its clock and its event handler between nodes, but not inside its root LP or its root
// strong branching, which take tens of seconds on networks of thousands of neurons. The caller therefore waits
// for the worker only until kGraceSeconds past the deadline (or past a stop request); then it cuts the worker's
// hooks off (on_solution, on_progress and the cut separator reach the caller's objects, which are about to go
// away), asks the worker to stop, and returns what the worker reported: its points went to on_solution as the
// solver found them, and its bound is the last one the solver reported (a valid bound on every feasible point
// when it was reported). Everything the worker reads is owned by the worker's shared state, never by the
// caller's stack.

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "core/worker_threads.h"
#include "solver/mip_worker.h"

namespace reluopt {

namespace {

// Models of at most this many nonzeros run in the caller's thread. CBC's root LP and root strong branching on
// them take milliseconds, so its own clock checks between nodes hold the time limit; and on a loaded machine a
// worker thread costs more than such a whole solve: with 8 runnable processes on 2 cores, the model MIPs of
// examples/models took, median of 9 interleaved runs, pricing_s1 0.040 s in a worker against 0.026 s in the
// caller's thread, pricing_s2 0.116 against 0.085, design_s1 0.046 against 0.036 (the same CPU time).
constexpr std::size_t kCallerThreadNonzeros = 5000;

// How long past the deadline, or after a stop request, the caller waits for the solver to return by itself.
constexpr double kGraceSeconds = 0.4;

std::atomic<int> g_abandoned{0};

// The state that the caller and the worker share; it lives as long as either of them holds it.
struct MipRun {
  LinearModel model;
  std::vector<double> start;
  MipParameters options;              // with hooks that go through this state
  std::atomic<bool> stop{false};      // the worker's stop request
  std::mutex hooks;                   // held while a hook runs, and to cut the hooks off
  bool cut_off = false;
  double last_bound = kInfinity;      // the last bound the solver reported above its incumbent
  std::mutex done_mutex;
  std::condition_variable done_signal;
  bool done = false;
  MipResult solution;
  std::exception_ptr error;  // what the solve threw, for the caller that still waits
};

// Forwards to the caller's separator until the hooks are cut off.
class HookedSeparator : public CutSeparator {
 public:
  HookedSeparator(const CutSeparator* inner, MipRun* run) : inner_(inner), run_(run) {}
  std::vector<LinearCut> separate(const double* solution) const override {
    std::lock_guard<std::mutex> lock(run_->hooks);
    if (run_->cut_off) return {};
    return inner_->separate(solution);
  }

 private:
  const CutSeparator* inner_;
  MipRun* run_;
};

// The caller's hooks, each called under the hooks mutex and only while the caller still waits.
void hook_up(MipRun& run, const MipParameters& caller) {
  run.options = caller;
  if (caller.start != nullptr) {
    run.start = *caller.start;
    run.options.start = &run.start;
  }
  run.options.on_solution = [&run, hook = caller.on_solution](const double* values) {
    std::lock_guard<std::mutex> lock(run.hooks);
    if (!run.cut_off && hook) hook(values);
  };
  run.options.on_progress = [&run, hook = caller.on_progress](std::optional<double> incumbent, double bound,
                                                               long nodes) {
    std::lock_guard<std::mutex> lock(run.hooks);
    if (run.cut_off) return;
    // Before CBC has bounded anything, its "bound" is its incumbent's value: no bound at all.
    const bool bounded = std::isfinite(bound) && std::abs(bound) < 1e40 &&
                         (!incumbent || bound > *incumbent + 1e-12 * (1.0 + std::abs(*incumbent)));
    if (bounded) run.last_bound = std::min(run.last_bound, bound);
    if (hook) hook(incumbent, bound, nodes);
  };
}

// Waits until the worker is done or has had kGraceSeconds past the deadline or past a stop request; forwards
// the stop request. Returns whether the worker is done.
bool wait_for(MipRun& run, const Deadline& deadline) {
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> stopped_at;
  std::unique_lock<std::mutex> lock(run.done_mutex);
  while (!run.done_signal.wait_for(lock, std::chrono::milliseconds(10), [&] { return run.done; })) {
    if (deadline.interrupted() || deadline.remaining() <= 0.0) {
      run.stop.store(true);
      if (!stopped_at) stopped_at = Clock::now();
      if (std::chrono::duration<double>(Clock::now() - *stopped_at).count() >= kGraceSeconds) return false;
    }
  }
  return true;
}

}  // namespace

MipResult solve_in_worker(MipSolveFunction solve, const LinearModel& model, const Deadline& deadline,
                          const MipParameters& options) {
  if (model.row_index().size() <= kCallerThreadNonzeros) return solve(model, deadline, options);
  auto run = std::make_shared<MipRun>();
  run->model = model;
  hook_up(*run, options);
  std::unique_ptr<HookedSeparator> separator;
  if (options.separator != nullptr) {
    separator = std::make_unique<HookedSeparator>(options.separator, run.get());
    run->options.separator = separator.get();
  }
  const auto work = [solve, run, separator = std::shared_ptr<HookedSeparator>(std::move(separator)),
                      worker_deadline = Deadline(deadline.remaining(), &run->stop)](int) {
    // An exception (std::bad_alloc on a large model) is the caller's: it ends the wait, and a worker left behind
    // drops it.
    MipResult solution;
    std::exception_ptr error;
    try {
      solution = solve(run->model, worker_deadline, run->options);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(run->done_mutex);
    run->solution = std::move(solution);
    run->error = std::move(error);
    run->done = true;
    run->done_signal.notify_all();
  };
  WorkerThreads worker(1);
  worker.run(work);
  // With no thread to spare, the solver runs here, and its own clock checks are all the time limit has.
  if (worker.started() == 0) work(0);
  if (wait_for(*run, deadline)) {
    worker.join();
    if (run->error) std::rethrow_exception(run->error);
    return std::move(run->solution);
  }
  // Left behind: cut the hooks off (waiting for one that runs now), then report what the hooks saw.
  MipResult left;
  {
    std::lock_guard<std::mutex> lock(run->hooks);
    run->cut_off = true;
    left.bound = run->last_bound;
  }
  worker.detach();
  g_abandoned.fetch_add(1);
  left.status = MipStatus::kNoSolution;  // the caller holds the points on_solution gave it
  return left;
}

int abandoned_mip_solves() { return g_abandoned.load(); }

}  // namespace reluopt
