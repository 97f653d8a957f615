#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace reluopt {

// A barrier at checkpoint sample indices, so that a decision taken at checkpoint n sees exactly the samples
// 0..n-1 whatever the threads' timing. Each worker takes its sample indices in increasing order and calls
// admit(i) before starting sample i. Below the current checkpoint admit returns at once. At or above it the
// worker waits until every worker has arrived there or left (so every sample below n is finished); the last one
// calls decide(n) with the gate locked. decide returns false to end the run (then admit returns false to every
// worker), true to go on to the next checkpoint max(n + 1, ceil(growth n)).
// With `end` (a run over several processes, whose checkpoints every process decides together), a gate whose
// workers have all left goes on deciding each checkpoint below `end`, the sample cap, until one says stop: its
// samples are all finished, but the others' may not be.
class CheckpointGate {
 public:
  using Decide = std::function<bool(long checkpoint)>;

  CheckpointGate(int workers, long first, double growth, Decide decide, long end = 0);

  bool admit(long index);
  // A worker ends its loop (sample cap, deadline, or admit returned false).
  void leave();

 private:
  void release();  // with mutex_ held, by the last worker to arrive

  std::mutex mutex_;
  std::condition_variable released_;
  std::atomic<long> checkpoint_;
  const double growth_;
  const Decide decide_;
  const long end_;
  int active_;        // workers that have not left
  int waiting_ = 0;   // workers waiting at the checkpoint
  long generation_ = 0;
  bool stop_ = false;
};

}  // namespace reluopt
