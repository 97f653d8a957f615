// Worker threads that a system short of threads or address space may refuse without ending the run.
#include "core/worker_threads.h"

#include <malloc.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <limits>
#include <mutex>
#include <string>
#include <system_error>

namespace reluopt {

// What a parked thread waits for: the work, or the word that there is none for it; and what a worker threw.
struct WorkerThreads::Gate {
  std::mutex mutex;
  std::condition_variable opened;
  bool open = false;
  int kept = std::numeric_limits<int>::max();  // threads t >= kept end without work
  std::function<void(int)> work;
  std::atomic<bool>* stop = nullptr;  // the run's, set when a worker throws
  std::exception_ptr error;           // the first exception of a worker, under `mutex`
  std::atomic<bool> failed{false};

  void wait_and_run(int t) {
    std::unique_lock<std::mutex> lock(mutex);
    opened.wait(lock, [&] { return open || t >= kept; });
    if (t >= kept) return;
    lock.unlock();
    if (!work) return;
    try {
      work(t);
    } catch (...) {
      fail(std::current_exception());
    }
  }
  void fail(std::exception_ptr thrown) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      if (!error) error = std::move(thrown);
    }
    failed.store(true);
    if (stop != nullptr) stop->store(true);
  }
  void release(std::function<void(int)> given, std::atomic<bool>* run_stop) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      if (open) return;
      work = std::move(given);
      stop = run_stop;
      open = true;
    }
    opened.notify_all();
  }
  void keep(int threads) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      kept = threads;
    }
    opened.notify_all();
  }
};

namespace {

// Threads started here and not yet joined: their stacks are part of the address space in use.
std::atomic<long> g_live_threads{0};

// glibc's malloc gives threads arenas of their own, each reserving 64 MB of address space (up to 8 per core):
// under an address-space limit they alone can take all of it, and an allocation then fails. Once per process,
// they get at most `bytes`.
void limit_malloc_arenas(double bytes) {
  static std::once_flag once;
  std::call_once(once, [bytes] {
    constexpr double kArenaBytes = 64 << 20;
    mallopt(M_ARENA_MAX, static_cast<int>(std::clamp(bytes / kArenaBytes, 1.0, 8.0 * resolve_threads(0))));
  });
}

// How many more thread stacks an address-space limit (setrlimit RLIMIT_AS, `ulimit -v`) leaves room for: the
// stacks of all the runs' threads together get a quarter of what the rest of the process leaves, malloc's arenas
// another quarter, and the rest is the runs' memory (stacks that took half of a 2 GB limit left a verify run's
// allocations to fail).
int room_for_threads() {
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return std::numeric_limits<int>::max();
  std::size_t stack_size = 8 << 20;
  pthread_attr_t defaults;
  if (pthread_getattr_default_np(&defaults) == 0) {
    pthread_attr_getstacksize(&defaults, &stack_size);
    pthread_attr_destroy(&defaults);
  }
  long pages = 0;
  if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
    std::fclose(statm);
  }
  const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
  const double stack = static_cast<double>(stack_size) + 2.0 * page;  // and its guard page
  const double live = static_cast<double>(g_live_threads.load());
  const double others = static_cast<double>(pages) * page - live * stack;
  const double quarter = (static_cast<double>(limit.rlim_cur) - others) / 4.0;
  limit_malloc_arenas(quarter);
  return static_cast<int>(std::clamp(quarter / stack - live, 0.0, 1e6));
}

// Once per process: a run that starts fewer threads each time (bounds, layer by layer) says so once.
void warn_fewer(int started, int wanted, int kept, const std::string& why) {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  const std::string left = kept == started ? "" : kept > 0 ? "; the run goes on with " + std::to_string(kept)
                                                            : "; the run goes on in the calling thread alone";
  std::fprintf(stderr, "reluopt: warning: started %d of %d threads: %s%s\n", started, wanted, why.c_str(),
               left.c_str());
  std::fflush(stderr);
}

}  // namespace

// A refusal for want of address space comes when the thread stacks have taken all of it, and the run would then
// fail to allocate its memory: half of the threads that started end at once, and their stacks are the run's room.
WorkerThreads::WorkerThreads(int wanted) : gate_(std::make_shared<Gate>()) {
  const int tried = affordable_threads(wanted);
  threads_.reserve(static_cast<std::size_t>(std::max(tried, 0)));
  for (int t = 0; t < tried; ++t) {
    try {
      threads_.emplace_back([gate = gate_, t] { gate->wait_and_run(t); });
      g_live_threads.fetch_add(1);
    } catch (const std::system_error& e) {
      const int kept = (t + 1) / 2;
      gate_->keep(kept);
      for (int u = kept; u < t; ++u) threads_[u].join();
      g_live_threads.fetch_sub(t - kept);
      threads_.resize(kept);
      warn_fewer(t, wanted, kept, e.what());
      return;
    }
  }
}

// A destructor must not throw: an exception a worker left is dropped here (the caller that wants it joins first).
WorkerThreads::~WorkerThreads() { join_threads(); }

void WorkerThreads::run(std::function<void(int)> work, std::atomic<bool>* stop) {
  gate_->release(std::move(work), stop);
}

bool WorkerThreads::failed() const { return gate_->failed.load(); }

void WorkerThreads::join() {
  join_threads();
  std::exception_ptr error;
  {
    const std::lock_guard<std::mutex> lock(gate_->mutex);
    std::swap(error, gate_->error);
  }
  if (error) std::rethrow_exception(error);
}

void WorkerThreads::join_threads() {
  gate_->release(nullptr, nullptr);
  for (std::thread& thread : threads_) {
    if (!thread.joinable()) continue;
    thread.join();
    g_live_threads.fetch_sub(1);
  }
}

void WorkerThreads::detach() {
  for (std::thread& thread : threads_)
    if (thread.joinable()) thread.detach();
}

int affordable_threads(int wanted) {
  const int room = wanted > 0 ? room_for_threads() : 0;
  if (wanted <= room) return wanted;
  warn_fewer(room, wanted, room, "the address-space limit (ulimit -v) leaves room for no more");
  return room;
}

int resolve_threads(int threads) {
  if (threads > 0) return threads;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

}  // namespace reluopt
