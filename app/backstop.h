#pragma once

// The last guard of a command's time limit. The library looks at its deadline between the steps of every phase,
// but a step that does not poll (a forward pass or a copy of a layer of 150 M weights, a solver's presolve) can
// run past it when the machine is loaded. A Backstop answers for the command at a given time if the command
// has not begun to write its own answer by then: `answer` writes what the command can say without the
// run (e.g. verify's `timeout`) and ends the process by std::_Exit. The command calls claim() before it writes
// its answer; once the backstop has answered, claim() never returns (the process is ending).
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>

namespace reluopt::cli {

class Backstop {
 public:
  using Clock = std::chrono::steady_clock;

  // `answer` runs on the backstop's thread and must not return (it ends the process).
  Backstop(Clock::time_point when, std::function<void()> answer) : answer_(std::move(answer)) {
    try {
      thread_ = std::thread([this, when] { watch(when); });
    } catch (const std::system_error&) {
      // No thread to spare: the command ends when the library does.
    }
  }
  Backstop(const Backstop&) = delete;
  Backstop& operator=(const Backstop&) = delete;
  ~Backstop() {
    claim();
    if (thread_.joinable()) thread_.join();
  }

  // Returns once the output is the command's: the backstop will not answer. Blocks for ever when it already has.
  void claim() {
    std::lock_guard<std::mutex> lock(mutex_);
    claimed_ = true;
    woken_.notify_all();
  }

 private:
  void watch(Clock::time_point when) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (woken_.wait_until(lock, when, [this] { return claimed_; })) return;
    // The mutex stays held: the command's claim() waits while `answer` ends the process.
    answer_();
  }

  std::function<void()> answer_;
  std::mutex mutex_;
  std::condition_variable woken_;
  bool claimed_ = false;
  std::thread thread_;
};

}  // namespace reluopt::cli
