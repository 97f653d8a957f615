// The branch-and-bound's work sharing between processes (bab_share.h): a coordinator on the lead, messages as
// rows of doubles through Peers::send.
#include "algorithms/bab_share.h"

#include <algorithm>
#include <limits>

namespace reluopt {

namespace {

// The first entry of every message.
enum Kind : int { kState = 1, kOrder = 2, kBatch = 3, kConfirm = 4, kOver = 5 };

// A batch carries at most this many nodes: half of a large queue would move more than the receiver needs soon.
constexpr long kMaxBatch = 64;

constexpr double kNone = -std::numeric_limits<double>::infinity();

}  // namespace

void WorkSharing::round() {
  for (const Peers::Message& message : peers_.received()) read(message);
  post(hooks_.state());
  if (peers_.lead() && !over_) order();
}

void WorkSharing::read(const Peers::Message& message) {
  const std::vector<double>& m = message.data;
  if (m.empty()) return;
  switch (static_cast<int>(m[0])) {
    case kState: {
      if (m.size() < 8) return;
      FrontierState state{m[1], long(m[2]), m[3] != 0.0, m[4] != 0.0, long(m[5]), long(m[6])};
      std::vector<std::pair<int, long>> receipts;
      for (std::size_t at = 8; at + 1 < m.size(); at += 2) receipts.emplace_back(int(m[at]), long(m[at + 1]));
      update(message.source, state, receipts);
      return;
    }
    case kOrder:
      if (m.size() == 3) {
        const long id = next_id_++;
        std::vector<double> batch = {double(kBatch), double(id)};
        const std::vector<double> nodes = hooks_.give(long(m[2]), id);
        batch.insert(batch.end(), nodes.begin(), nodes.end());
        peers_.send(int(m[1]), std::move(batch));
      }
      return;
    case kBatch:
      if (m.size() >= 2) {
        hooks_.take(m.data() + 2, m.size() - 2);
        receipts_.emplace_back(message.source, long(m[1]));
      }
      return;
    case kConfirm:
      if (m.size() == 2) hooks_.delivered(long(m[1]));
      return;
    case kOver: over_ = true; return;
  }
}

// The state goes out after every batch that arrived is in the queue, so that it counts them.
void WorkSharing::post(const FrontierState& state) {
  if (peers_.lead()) {
    update(0, state, receipts_);
  } else {
    std::vector<double> m = {double(kState), state.bound, double(state.open), state.idle ? 1.0 : 0.0,
                             state.stuck ? 1.0 : 0.0, double(state.nodes), double(state.lps), double(receipts_.size())};
    for (const auto& [sender, id] : receipts_) m.insert(m.end(), {double(sender), double(id)});
    peers_.send(0, std::move(m));
  }
  receipts_.clear();
}

// The lead's: a process's state, then the confirmations of the batches it holds now.
void WorkSharing::update(int rank, const FrontierState& state, const std::vector<std::pair<int, long>>& receipts) {
  states_[rank] = state;
  for (const auto& [sender, id] : receipts) {
    peers_.send(sender, {double(kConfirm), double(id)});
    const auto waiting = waiting_.find(rank);
    if (waiting != waiting_.end() && waiting->second == sender) waiting_.erase(waiting);
  }
}

// The lead's: the end when every process is idle, else an order for each process with nothing open.
void WorkSharing::order() {
  const int size = peers_.size();
  if (static_cast<int>(states_.size()) == size &&
      std::all_of(states_.begin(), states_.end(), [](const auto& s) { return s.second.idle; })) {
    complete_ = true;
    return end();
  }
  for (auto& [rank, state] : states_) {
    if (state.open > 0 || waiting_.count(rank) > 0) continue;
    int donor = -1;
    for (const auto& [other, candidate] : states_)
      if (other != rank && candidate.open >= 2 && (donor < 0 || candidate.open > states_[donor].open)) donor = other;
    if (donor < 0) return;
    const long count = std::min(states_[donor].open / 2, kMaxBatch);
    states_[donor].open -= count;
    waiting_[rank] = donor;
    peers_.send(donor, {double(kOrder), double(rank), double(count)});
  }
}

void WorkSharing::end() {
  over_ = true;
  for (int r = 1; r < peers_.size(); ++r) peers_.send(r, {double(kOver)});
}

double WorkSharing::bound() const {
  double bound = kNone;
  for (const auto& [rank, state] : states_) bound = std::max(bound, state.bound);
  return bound;
}

bool WorkSharing::stuck() const {
  return std::any_of(states_.begin(), states_.end(), [](const auto& s) { return s.second.stuck; });
}

long WorkSharing::nodes() const {
  long sum = 0;
  for (const auto& [rank, state] : states_) sum += state.nodes;
  return sum;
}

long WorkSharing::lps() const {
  long sum = 0;
  for (const auto& [rank, state] : states_) sum += state.lps;
  return sum;
}

}  // namespace reluopt
