#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>

namespace reluopt {

// The longest time limit that a clock holds: steady_clock counts 64-bit nanoseconds from an unspecified start
// (292 years in all), so a limit converted to a clock's duration or time point must stay well inside that. A
// finite limit longer than this century is no limit at all.
inline constexpr double kLongestTimeLimit = 100.0 * 365.25 * 24 * 3600;

// `seconds` of a time limit as the library uses it: infinite when longer than kLongestTimeLimit.
inline double clock_seconds(double seconds) {
  return seconds > kLongestTimeLimit ? std::numeric_limits<double>::infinity() : seconds;
}

// The steady_clock time point `seconds` after `now` (time_point::max() for no limit): the one conversion of a
// limit in seconds to a clock's time.
inline std::chrono::steady_clock::time_point clock_deadline(std::chrono::steady_clock::time_point now, double seconds) {
  seconds = clock_seconds(seconds);
  if (!(seconds < std::numeric_limits<double>::infinity())) return std::chrono::steady_clock::time_point::max();
  return now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                   std::chrono::duration<double>(std::max(seconds, 0.0)));
}

// The wall-clock budget of a run and an external stop request (Ctrl-C), passed down explicitly.
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  Deadline() : start_(Clock::now()) {}
  // seconds may be infinite (and a finite limit beyond kLongestTimeLimit is); stop may be null.
  Deadline(double seconds, const std::atomic<bool>* stop)
      : start_(Clock::now()), seconds_(clock_seconds(seconds)), stop_(stop) {}

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
};

// `control` for what is left of a run after `clock` (started with the run) ran: the time spent before the run
// proper (rewriting a network's linear neurons or a max-min objective, passes that grow with the model) comes
// off its limit. A limit the options refuse (negative, NaN) passes unchanged, for the run to refuse it.
template <class Control>
Control remaining_after(Control control, const Deadline& clock) {
  if (control.time_limit >= 0.0) control.time_limit = std::max(0.0, clock.remaining());
  return control;
}

}  // namespace reluopt
