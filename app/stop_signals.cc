// SIGINT and SIGTERM: one stop request however many copies arrive at once (see stop_signals.h).
#include "stop_signals.h"

#include <time.h>
#include <unistd.h>

#include <csignal>

namespace reluopt::cli {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<long long> g_first_signal_ns{0};  // monotonic time of the first signal; 0: none yet
std::atomic<bool> g_writing{false};

// Only async-signal-safe calls below: clock_gettime, write, signal, raise.
long long monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec + 1;  // + 1: never 0
}

extern "C" void on_stop_signal(int signal) {
  const long long now = monotonic_ns();
  long long first = 0;
  if (g_first_signal_ns.compare_exchange_strong(first, now)) {
    g_stop.store(true);
    return;
  }
  if (now - first < static_cast<long long>(kSignalWindow * 1e9) || g_writing.load()) return;
  static const char message[] = "reluopt: stopped by a second signal before the run returned; no result written\n";
  [[maybe_unused]] const ssize_t written = write(STDERR_FILENO, message, sizeof message - 1);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

}  // namespace

void catch_stop_signals() {
  static_assert(std::atomic<long long>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
                "a signal handler may touch only lock-free atomics");
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a write(2) of the result is not cut short by a signal
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

std::atomic<bool>& stop_request() { return g_stop; }

void output_begins() { g_writing.store(true); }

}  // namespace reluopt::cli
