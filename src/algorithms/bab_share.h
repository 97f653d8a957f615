#pragma once

#include <functional>
#include <limits>
#include <map>
#include <utility>
#include <vector>

#include "core/peers.h"

namespace reluopt {

// What one process's branch-and-bound holds, as its work sharing sees it.
struct FrontierState {
  double bound = -std::numeric_limits<double>::infinity();  // the largest bound of its open, running, pruned and unconfirmed sent nodes
  long open = 0;          // nodes waiting in its queue
  bool idle = false;      // nothing open, running or unconfirmed
  bool stuck = false;     // a node was left with nothing to split
  long nodes = 0;
  long lps = 0;
};

// The branch-and-bound's open nodes handed between the processes of a run (docs/MATH.md §11, "Over several
// processes"), the nodes themselves opaque (serialized by bab.cc). The lead coordinates: every process posts its
// FrontierState each round; a process with nothing open gets an order sent to the process with the most open
// nodes, which sends it a batch of about half of them. A batch stays in its sender's bound until the lead has
// the receiver's state with the batch in it and confirms to the sender, so that the largest bound over the
// lead's latest states is always a valid bound for P, whether or not some process later dies. The search is over
// when every latest state is idle: a batch in transit keeps its sender from being idle until it is confirmed.
class WorkSharing {
 public:
  struct Hooks {
    std::function<FrontierState()> state;
    // Takes up to `count` open nodes out of the queue as batch `id` (kept in the bound until delivered(id)).
    std::function<std::vector<double>(long count, long id)> give;
    std::function<void(const double* data, std::size_t size)> take;  // a batch that arrived
    std::function<void(long id)> delivered;
  };

  WorkSharing(Peers& peers, Hooks hooks) : peers_(peers), hooks_(std::move(hooks)) {}

  // Reads what arrived, posts this process's state and, on the lead, orders batches and detects the end.
  void round();
  // The lead said the search is over: every process idle (complete()), or the lead's end().
  bool over() const { return over_; }
  bool complete() const { return complete_; }
  // On the lead: ends every process's search (a node limit).
  void end();
  // On the lead: the largest bound over every process's latest state (-inf before any).
  double bound() const;
  bool stuck() const;
  long nodes() const;
  long lps() const;
  // On the lead after the run: process `rank`'s bound at its end (from its tally), which supersedes its last post.
  void final_bound(int rank, double bound) { states_[rank].bound = bound; }

 private:
  void read(const Peers::Message& message);
  void post(const FrontierState& state);
  void update(int rank, const FrontierState& state, const std::vector<std::pair<int, long>>& receipts);
  void order();

  Peers& peers_;
  Hooks hooks_;
  bool over_ = false;
  bool complete_ = false;  // the lead's: it saw every process idle
  long next_id_ = 0;
  std::vector<std::pair<int, long>> receipts_;  // (sender, id) of the batches taken since the last post
  std::map<int, FrontierState> states_;         // the lead's: each process's latest state
  std::map<int, int> waiting_;                  // the lead's: process -> the process ordered to feed it
};

}  // namespace reluopt
