// bab's work sharing (algorithms/bab_share.h) over simulated processes: messages delayed at random (each sender's
// to each receiver in order, as MPI keeps them), a search that splits nodes into children of smaller bound. At
// every step the lead's bound covers every node that exists anywhere (queued, or inside a batch in transit), and
// the lead sees the end only when none is left.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "algorithms/bab_share.h"

namespace reluopt {
namespace {

constexpr double kNone = -std::numeric_limits<double>::infinity();

struct Wire {
  long due = 0;  // the step from which it may arrive
  Peers::Message message;
};

// The messages of all simulated processes: a queue per (sender, receiver).
struct Network {
  std::map<std::pair<int, int>, std::deque<Wire>> queues;
  std::mt19937 rng{7};
  long step = 0;
};

class FakePeers : public Peers {
 public:
  FakePeers(Network& network, int rank, int size) : network_(network), rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void send(int destination, std::vector<double> data) override {
    const long delay = std::uniform_int_distribution<long>(0, 3)(network_.rng);
    network_.queues[{rank_, destination}].push_back({network_.step + delay, {rank_, std::move(data)}});
  }
  std::vector<Message> received() override {
    std::vector<Message> arrived;
    for (int source = 0; source < size_; ++source) {
      std::deque<Wire>& queue = network_.queues[{source, rank_}];
      while (!queue.empty() && queue.front().due <= network_.step) {
        arrived.push_back(std::move(queue.front().message));
        queue.pop_front();
      }
    }
    return arrived;
  }
  // Not used by the work sharing.
  Peers& channel(int) override { return *this; }
  std::vector<Eigen::VectorXd> exchange_best(const Eigen::VectorXd&, double) override { return {}; }
  RunTally exchange_counts(const RunTally&) override { return {}; }
  Values checkpoint(long, const Values&, const Deadline&) override { return {}; }
  bool decide(long, bool go_on, const Deadline&) override { return go_on; }
  RunTally finish(const RunTally& local, const Deadline&) override { return local; }
  std::vector<long> sum(const std::vector<long>& local, const Deadline&) override { return local; }
  void end() override {}
  double communication_seconds() const override { return 0.0; }
  int finished() const override { return size_; }

 private:
  Network& network_;
  const int rank_;
  const int size_;
};

// One process's search: nodes are their bounds; a node of bound b >= 1 splits into two of bound b - 1.
struct Process {
  std::multiset<double> open;
  std::map<long, double> sent;
  long nodes = 0;

  FrontierState state() const {
    FrontierState s;
    if (!open.empty()) s.bound = *open.rbegin();
    for (const auto& [id, bound] : sent) s.bound = std::max(s.bound, bound);
    s.open = static_cast<long>(open.size());
    s.idle = open.empty() && sent.empty();
    s.nodes = nodes;
    return s;
  }
  WorkSharing::Hooks hooks() {
    WorkSharing::Hooks h;
    h.state = [this] { return state(); };
    h.give = [this](long count, long id) {
      std::vector<double> batch;
      while (static_cast<long>(batch.size()) < count && open.size() > 1) {
        batch.push_back(*open.begin());  // the worst: the test only needs some nodes to move
        open.erase(open.begin());
      }
      if (!batch.empty()) sent[id] = *std::max_element(batch.begin(), batch.end());
      return batch;
    };
    h.take = [this](const double* data, std::size_t size) { open.insert(data, data + size); };
    h.delivered = [this](long id) { sent.erase(id); };
    return h;
  }
  void work() {
    if (open.empty()) return;
    const double bound = *open.rbegin();
    open.erase(std::prev(open.end()));
    ++nodes;
    if (bound >= 1.0) open.insert({bound - 1.0, bound - 1.0});
  }
};

// The largest bound of any node that exists: queued somewhere, or in a batch on the wire.
double true_bound(const std::vector<Process>& processes, const Network& network) {
  double bound = kNone;
  for (const Process& p : processes)
    if (!p.open.empty()) bound = std::max(bound, *p.open.rbegin());
  for (const auto& [route, queue] : network.queues)
    for (const Wire& wire : queue)
      if (wire.message.data.size() > 2 && wire.message.data[0] == 3.0)  // a batch: kind, id, bounds
        bound = std::max(bound, *std::max_element(wire.message.data.begin() + 2, wire.message.data.end()));
  return bound;
}

void run(int size, unsigned seed) {
  Network network;
  network.rng.seed(seed);
  std::vector<FakePeers> peers;
  peers.reserve(static_cast<std::size_t>(size));
  std::vector<Process> processes(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) peers.emplace_back(network, r, size);
  std::vector<WorkSharing> sharing;
  sharing.reserve(static_cast<std::size_t>(size));
  for (int r = 0; r < size; ++r) sharing.emplace_back(peers[r], processes[r].hooks());
  processes[0].open.insert(9.0);  // 2^10 - 1 nodes in all
  sharing[0].round();
  std::bernoulli_distribution busy(0.7);
  for (network.step = 1; !sharing[0].over(); ++network.step) {
    ASSERT_LT(network.step, 100000) << "the search never ended";
    for (int r = 0; r < size; ++r) {
      if (busy(network.rng)) processes[r].work();
      if (busy(network.rng)) sharing[r].round();
    }
    ASSERT_GE(sharing[0].bound(), true_bound(processes, network)) << "step " << network.step;
  }
  EXPECT_TRUE(sharing[0].complete());
  long nodes = 0;
  for (const Process& p : processes) {
    EXPECT_TRUE(p.open.empty());
    nodes += p.nodes;
  }
  EXPECT_EQ(nodes, 1023);
  // Every process did some of the work.
  for (const Process& p : processes) EXPECT_GT(p.nodes, 0);
}

TEST(BabShare, TheLeadsBoundCoversEveryNodeAndTheEndComesWhenNoneIsLeft) {
  for (int size : {2, 3, 5})
    for (unsigned seed : {1u, 2u, 3u}) {
      SCOPED_TRACE("size " + std::to_string(size) + ", seed " + std::to_string(seed));
      run(size, seed);
    }
}

}  // namespace
}  // namespace reluopt
