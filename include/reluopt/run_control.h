#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>

namespace reluopt {

class Peers;  // reluopt/peers.h
struct ExchangeSeat;  // algorithms/incumbent.h: set by the default for the searches it runs side by side

// The wall-clock budget of a run and an external stop request (Ctrl-C), passed down explicitly.
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  Deadline() : start_(Clock::now()) {}
  // seconds may be infinite; stop may be null.
  Deadline(double seconds, const std::atomic<bool>* stop) : start_(Clock::now()), seconds_(seconds), stop_(stop) {}

  // A deadline for one phase of a run: `fraction` of the time that remains, same stop request.
  Deadline share(double fraction) const { return Deadline(fraction * remaining(), stop_); }
  // A deadline `seconds` from now, never later than this one, stopped by the same request.
  Deadline limited(double seconds) const { return Deadline(std::min(seconds, remaining()), stop_); }

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  double remaining() const { return seconds_ - elapsed(); }
  bool interrupted() const { return stop_ != nullptr && stop_->load(std::memory_order_relaxed); }
  // The stop request itself (may be null), for solvers that look at it between iterations.
  const std::atomic<bool>* stop_request() const { return stop_; }
  bool expired() const { return interrupted() || remaining() <= 0.0; }

 private:
  Clock::time_point start_;
  double seconds_ = std::numeric_limits<double>::infinity();
  const std::atomic<bool>* stop_ = nullptr;
};

// A snapshot for a progress line. Values are in the user's sense.
struct Progress {
  double seconds = 0.0;
  long samples = 0;
  long lps = 0;
  long nodes = 0;  // branch-and-bound nodes (bab)
  std::optional<double> incumbent;
  std::optional<double> bound;
};

struct RunControl {
  double time_limit = std::numeric_limits<double>::infinity();
  const std::atomic<bool>* stop = nullptr;   // set to true to stop the run; the incumbent is still returned
  std::function<void(const Progress&)> on_progress;  // called from the calling thread, throttled
  double progress_interval = 0.5;            // seconds between progress calls
  Peers* peers = nullptr;                    // the other processes of a run over several (sampling, enhanced)
  const ExchangeSeat* exchange = nullptr;     // best points traded every 20 ms with a search beside this one
};

}  // namespace reluopt
