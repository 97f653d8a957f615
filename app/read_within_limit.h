#pragma once

// Reading a model looks at no clock and takes seconds for a large one (6-18 s for 48 MB of ONNX, minutes for a
// convolutional network whose layers compose into wide dense maps), so `read` runs on a thread of its own while
// the calling thread watches the time limit and the stop request (Ctrl-C, SIGTERM). Returns what was read, or
// why the command stopped first; then the reader is still running, and the command must end by std::_Exit once
// its output is out (returning would run the static destructors under the reader's feet). `read` owns what it
// reads from: the thread may outlive this call.
#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <system_error>
#include <thread>
#include <variant>

#include "reluopt/result.h"

namespace reluopt::cli {

// `remaining()` gives the seconds left of the command's limit (infinite: none), never negative.
template <class Read, class Remaining>
auto read_within_limit(Read read, Remaining remaining, const std::atomic<bool>& stop)
    -> std::variant<decltype(read()), StopReason> {
  using Loaded = decltype(read());
  auto loaded = std::make_shared<std::promise<Loaded>>();
  std::future<Loaded> result = loaded->get_future();
  const auto run = [loaded, read] {
    try {
      loaded->set_value(read());
    } catch (...) {
      loaded->set_exception(std::current_exception());
    }
  };
  try {
    std::thread(run).detach();
  } catch (const std::system_error&) {
    run();  // no thread to spare: read here, the limit looked at once it is read
  }
  // The first look comes after 0.1 s, so that a small model is read even at a limit of 0 (and the run answers from
  // it, e.g. with a property that could not be read in time); later looks come every 20 ms.
  auto wait = std::chrono::milliseconds(100);
  while (result.wait_for(wait) != std::future_status::ready) {
    wait = std::chrono::milliseconds(20);
    if (stop.load()) return StopReason::kInterrupted;
    if (remaining() <= 0.0) return StopReason::kTimeLimit;
  }
  return result.get();
}

}  // namespace reluopt::cli
