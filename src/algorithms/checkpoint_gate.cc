#include "algorithms/checkpoint_gate.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace reluopt {

CheckpointGate::CheckpointGate(int workers, long first, double growth, Decide decide, long end)
    : checkpoint_(first), growth_(growth), decide_(std::move(decide)), end_(end), active_(workers) {}

bool CheckpointGate::admit(long index) {
  if (index < checkpoint_.load(std::memory_order_acquire)) return true;
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_ && index >= checkpoint_.load(std::memory_order_relaxed)) {
    if (++waiting_ == active_) {
      release();
    } else {
      const long generation = generation_;
      released_.wait(lock, [&] { return generation_ != generation; });
    }
  }
  return !stop_;
}

void CheckpointGate::leave() {
  std::lock_guard<std::mutex> lock(mutex_);
  --active_;
  if (waiting_ > 0 && waiting_ == active_) release();
  if (active_ == 0)
    while (!stop_ && checkpoint_.load(std::memory_order_relaxed) < end_) release();
}

void CheckpointGate::release() {
  const long n = checkpoint_.load(std::memory_order_relaxed);
  if (decide_(n)) {
    const double grown = std::ceil(growth_ * static_cast<double>(n));
    const long next = grown >= static_cast<double>(std::numeric_limits<long>::max())
                          ? std::numeric_limits<long>::max()
                          : std::max(n + 1, static_cast<long>(grown));
    checkpoint_.store(next, std::memory_order_release);
  } else {
    stop_ = true;
  }
  waiting_ = 0;
  ++generation_;
  released_.notify_all();
}

}  // namespace reluopt
