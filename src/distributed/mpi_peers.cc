// The one file that speaks MPI. A background thread owns every MPI call after MPI_Init (MPI_THREAD_SERIALIZED):
// it sends what the run queues, receives whatever arrives (MPI_Iprobe, so nothing ever waits on a process
// that died) and relays stop requests. The run's threads only touch queues under a mutex.
#include "distributed/mpi_peers.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "core/worker_threads.h"  // resolve_threads
#include "reluopt/error.h"

namespace reluopt {

namespace {

enum Tag : int { kBest = 1, kStop = 2, kCounts = 3, kFinal = 4, kSum = 5, kCheckpoint = 6, kDecision = 7, kWork = 8 };
// A message's tag is its kind plus kChannelStride times its channel; channel ids wrap where the tag would pass
// the library's MPI_TAG_UB (at least 32767: 2047 channels; Open MPI's and MPICH's allow millions).
constexpr int kChannelStride = 16;

// How long the lead waits for the other processes' tallies once the run's deadline has passed or a stop came:
// they stop at their own deadline (started within milliseconds of the lead's) or on the relayed stop.
constexpr double kFinishGrace = 0.5;

// A launcher that starts several processes says so in the environment: Open MPI's mpirun, MPICH's Hydra and
// Slurm's srun (PMI or PMIx).
bool under_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "SLURM_STEP_NUM_TASKS"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

struct Outgoing {
  int destination;
  int tag;
  std::vector<double> data;
  MPI_Request request = MPI_REQUEST_NULL;
};

// A tally as one message: counts, values (index, value), best points (size, entries).
constexpr std::size_t kCountFields = 6;
std::vector<double> encode(const RunTally& tally) {
  std::vector<double> out = {double(tally.samples),     double(tally.lps),   double(tally.duplicates),
                             double(tally.lp_failures), double(tally.nodes), double(tally.completed),
                             double(tally.values.size())};
  for (const auto& [index, value] : tally.values) out.insert(out.end(), {double(index), value});
  for (const Eigen::VectorXd& x : tally.best_points) {
    out.push_back(double(x.size()));
    out.insert(out.end(), x.data(), x.data() + x.size());
  }
  return out;
}

RunTally decode(const std::vector<double>& in) {
  RunTally tally;
  if (in.size() < kCountFields + 1) return tally;
  tally.samples = long(in[0]);
  tally.lps = long(in[1]);
  tally.duplicates = long(in[2]);
  tally.lp_failures = long(in[3]);
  tally.nodes = long(in[4]);
  tally.completed = long(in[5]);
  std::size_t at = kCountFields + 1;
  for (long i = 0; i < long(in[kCountFields]) && at + 1 < in.size(); ++i, at += 2)
    tally.values.emplace_back(long(in[at]), in[at + 1]);
  while (at < in.size()) {
    const std::size_t n = std::size_t(in[at++]);
    if (at + n > in.size()) break;
    tally.best_points.emplace_back(Eigen::Map<const Eigen::VectorXd>(in.data() + at, Eigen::Index(n)));
    at += n;
  }
  return tally;
}

void add_counts(RunTally& sum, const RunTally& part) {
  sum.samples += part.samples;
  sum.lps += part.lps;
  sum.duplicates += part.duplicates;
  sum.lp_failures += part.lp_failures;
  sum.nodes += part.nodes;
  sum.completed += part.completed;
}

class MpiChannel;

// The connection: the comm thread, the send queue, the stop relay, and the channels that messages go to
// (a message's tag is its kind plus kChannelStride times its channel).
class MpiLink {
 public:
  MpiLink(MPI_Comm comm, int rank, int size, int lead_cores, int channels, std::atomic<bool>& stop)
      : comm_(comm), rank_(rank), size_(size), lead_cores_(lead_cores), channels_count_(channels), stop_(stop) {}
  void start(MpiChannel& first) {
    channels_[0] = &first;
    thread_ = std::thread([this] { loop(); });
  }
  void end();
  void queue(int destination, int tag, std::vector<double> data);
  MpiChannel& channel(int id);
  double busy_seconds() const { return busy_seconds_.load(); }

  const MPI_Comm comm_;
  const int rank_;
  const int size_;
  const int lead_cores_;
  const int channels_count_;  // channel ids wrap here
  mutable std::mutex mutex_;  // guards outbox_, channels_ and every channel's messages

 private:
  void loop();
  void pump();
  void receive(int source, int tag, std::vector<double> data);
  void close();

  std::atomic<bool>& stop_;
  bool stop_relayed_ = false;  // the comm thread's: this process's stop went out, or came from another
  std::atomic<bool> closing_{false};
  std::atomic<double> busy_seconds_{0.0};  // in pump()
  std::list<Outgoing> in_flight_;  // the comm thread's
  std::vector<Outgoing> outbox_;
  std::map<int, MpiChannel*> channels_;
  std::map<int, std::unique_ptr<MpiChannel>> views_;  // the channels other than 0
  std::thread thread_;
};

// One run's messages over the link (Peers), kept apart from the other channels'.
class MpiChannel : public Peers {
 public:
  MpiChannel(MpiLink& link, int id) : link_(link), id_(id) {}

  int rank() const override { return link_.rank_; }
  int size() const override { return link_.size_; }
  int lead_cores() const { return link_.lead_cores_; }
  Peers& channel(int id) override { return link_.channel(id); }
  std::vector<Eigen::VectorXd> exchange_best(const Eigen::VectorXd& x, double value) override;
  RunTally exchange_counts(const RunTally& local) override;
  Values checkpoint(long n, const Values& fresh, const Deadline& deadline) override;
  bool decide(long n, bool go_on, const Deadline& deadline) override;
  RunTally finish(const RunTally& local, const Deadline& deadline) override;
  std::vector<long> sum(const std::vector<long>& local, const Deadline& deadline) override;
  int finished() const override;
  void send(int destination, std::vector<double> data) override;
  std::vector<Message> received() override;
  void end() override {}
  double communication_seconds() const override { return link_.busy_seconds() + wait_seconds_.load(); }
  // The link's, with its mutex held.
  void receive(int source, int kind, std::vector<double> data);

 private:
  template <class Box>
  void wait_for_all(const Box& box, const Deadline& deadline);
  template <class Ready>
  bool wait_until(Ready ready, const Deadline& deadline, double grace);
  void queue(int destination, int kind, std::vector<double> data) { link_.queue(destination, tag(kind), std::move(data)); }
  int tag(int kind) const { return kind + kChannelStride * id_; }

  MpiLink& link_;
  const int id_;
  std::atomic<double> wait_seconds_{0.0};  // the lead's, in wait_for_all()
  // Guarded by the link's mutex:
  std::vector<Eigen::VectorXd> received_points_;
  std::map<int, RunTally> counts_;  // the lead's: each process's last posted counts
  std::map<int, RunTally> finals_;  // the lead's: each process's tally at finish
  std::map<int, std::vector<long>> sums_;  // the lead's: each process's part of sum()
  std::map<int, std::pair<long, Values>> checkpoints_;  // the lead's: each process's checkpoint and values
  std::map<long, bool> decisions_;                      // the others': the lead's decision at each checkpoint
  std::vector<Message> work_;                           // bab's work-sharing messages not yet taken
  double sent_value_ = -std::numeric_limits<double>::infinity();
};

// The peers start_mpi_peers returns: channel 0, owning the link. Ending it ends the connection.
class MpiPeers : public MpiChannel {
 public:
  MpiPeers(std::unique_ptr<MpiLink> link) : MpiChannel(*link, 0), link_(std::move(link)) { link_->start(*this); }
  ~MpiPeers() override { end(); }
  void end() override { link_->end(); }

 private:
  std::unique_ptr<MpiLink> link_;
};

MpiChannel& MpiLink::channel(int id) {
  id %= channels_count_;
  std::lock_guard<std::mutex> lock(mutex_);
  MpiChannel*& channel = channels_[id];
  if (channel == nullptr) channel = (views_[id] = std::make_unique<MpiChannel>(*this, id)).get();
  return *channel;
}

void MpiLink::end() {
  if (closing_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
  MPI_Comm comm = comm_;
  MPI_Comm_free(&comm);
  MPI_Finalize();
}

void MpiLink::queue(int destination, int tag, std::vector<double> data) {
  std::lock_guard<std::mutex> lock(mutex_);
  outbox_.push_back({destination, tag, std::move(data)});
}

void MpiLink::loop() {
  while (!closing_.load()) {
    pump();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  close();
}

// One round of the comm thread: relay a stop, start queued sends, receive what arrived, retire finished sends.
void MpiLink::pump() {
  const Deadline clock;
  if (stop_.load() && !stop_relayed_) {
    stop_relayed_ = true;
    for (int r = 0; r < size_; ++r)
      if (r != rank_) queue(r, kStop, {});
  }
  std::vector<Outgoing> outbox;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    outbox.swap(outbox_);
  }
  for (Outgoing& message : outbox) {
    Outgoing& sent = in_flight_.emplace_back(std::move(message));
    MPI_Isend(sent.data.data(), int(sent.data.size()), MPI_DOUBLE, sent.destination, sent.tag, comm_, &sent.request);
  }
  int flag = 0;
  MPI_Status status;
  while (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status) == MPI_SUCCESS && flag) {
    int count = 0;
    MPI_Get_count(&status, MPI_DOUBLE, &count);
    std::vector<double> data(std::size_t(std::max(count, 0)));
    MPI_Recv(data.data(), count, MPI_DOUBLE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE);
    receive(status.MPI_SOURCE, status.MPI_TAG, std::move(data));
  }
  in_flight_.remove_if([](Outgoing& message) {
    int done = 0;
    MPI_Test(&message.request, &done, MPI_STATUS_IGNORE);
    return done != 0;
  });
  busy_seconds_.store(busy_seconds_.load() + clock.elapsed());
}

void MpiLink::receive(int source, int tag, std::vector<double> data) {
  if (tag == kStop) {
    stop_relayed_ = true;
    stop_.store(true);
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  const int id = tag / kChannelStride;
  MpiChannel*& channel = channels_[id];
  if (channel == nullptr) channel = (views_[id] = std::make_unique<MpiChannel>(*this, id)).get();
  channel->receive(source, tag % kChannelStride, std::move(data));
}

void MpiChannel::receive(int source, int tag, std::vector<double> data) {
  if (tag == kBest) {
    received_points_.emplace_back(Eigen::Map<const Eigen::VectorXd>(data.data(), Eigen::Index(data.size())));
  } else if (tag == kCounts && data.size() >= 2) {
    counts_[source].samples = long(data[0]);
    counts_[source].lps = long(data[1]);
  } else if (tag == kFinal) {
    finals_[source] = decode(data);
  } else if (tag == kSum) {
    sums_[source] = std::vector<long>(data.begin(), data.end());
  } else if (tag == kCheckpoint && !data.empty()) {
    Values values;
    for (std::size_t at = 1; at + 1 < data.size(); at += 2) values.emplace_back(long(data[at]), data[at + 1]);
    checkpoints_[source] = {long(data[0]), std::move(values)};
  } else if (tag == kWork) {
    work_.push_back({source, std::move(data)});
  } else if (tag == kDecision && data.size() == 2) {
    decisions_[long(data[0])] = data[1] != 0.0;
  }
}

// Every process waits here for all the others (a nonblocking barrier, receiving meanwhile so that no send to
// this process is left waiting), then its own sends finish. A process that died ends the job through mpirun.
void MpiLink::close() {
  MPI_Request barrier;
  MPI_Ibarrier(comm_, &barrier);
  for (int done = 0; !done; MPI_Test(&barrier, &done, MPI_STATUS_IGNORE)) {
    pump();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const Deadline drain(1.0, nullptr);
  while (!in_flight_.empty() && !drain.expired()) {
    pump();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  for (Outgoing& message : in_flight_) {
    MPI_Cancel(&message.request);
    MPI_Request_free(&message.request);
  }
  in_flight_.clear();
}

std::vector<Eigen::VectorXd> MpiChannel::exchange_best(const Eigen::VectorXd& x, double value) {
  std::vector<Eigen::VectorXd> points;
  bool better = false;
  {
    std::lock_guard<std::mutex> lock(link_.mutex_);
    better = value > sent_value_ && x.size() > 0;
    if (better) sent_value_ = value;
    points.swap(received_points_);
  }
  if (better)
    for (int r = 0; r < size(); ++r)
      if (r != rank()) queue(r, kBest, std::vector<double>(x.data(), x.data() + x.size()));
  return points;
}

RunTally MpiChannel::exchange_counts(const RunTally& local) {
  if (!lead()) {
    queue(0, kCounts, {double(local.samples), double(local.lps), 0.0, 0.0, 0.0});
    return {};
  }
  RunTally others;
  std::lock_guard<std::mutex> lock(link_.mutex_);
  for (const auto& [rank, counts] : counts_) add_counts(others, counts);
  return others;
}

RunTally MpiChannel::finish(const RunTally& local, const Deadline& deadline) {
  if (!lead()) {
    queue(0, kFinal, encode(local));
    return local;
  }
  wait_for_all(finals_, deadline);
  RunTally sum = local;
  std::lock_guard<std::mutex> lock(link_.mutex_);
  for (const auto& [rank, tally] : finals_) {
    add_counts(sum, tally);
    sum.values.insert(sum.values.end(), tally.values.begin(), tally.values.end());
    sum.best_points.insert(sum.best_points.end(), tally.best_points.begin(), tally.best_points.end());
  }
  std::sort(sum.values.begin(), sum.values.end());
  return sum;
}

std::vector<long> MpiChannel::sum(const std::vector<long>& local, const Deadline& deadline) {
  if (!lead()) {
    queue(0, kSum, std::vector<double>(local.begin(), local.end()));
    return local;
  }
  wait_for_all(sums_, deadline);
  std::vector<long> total = local;
  std::lock_guard<std::mutex> lock(link_.mutex_);
  for (const auto& [rank, part] : sums_)
    for (std::size_t i = 0; i < std::min(total.size(), part.size()); ++i) total[i] += part[i];
  return total;
}

// Waits until ready() holds (called with the mutex held), or `grace` seconds after the deadline or a stop;
// returns ready().
template <class Ready>
bool MpiChannel::wait_until(Ready ready, const Deadline& deadline, double grace) {
  const Deadline clock;
  std::optional<Deadline> late;
  bool done = false;
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(link_.mutex_);
      done = ready();
    }
    if (done) break;
    if (!late && deadline.expired()) late.emplace(grace, nullptr);
    if (late && late->expired()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  wait_seconds_.store(wait_seconds_.load() + clock.elapsed());
  return done;
}

// Waits until every other process's message is in `box`, or kFinishGrace seconds after the deadline or a stop.
template <class Box>
void MpiChannel::wait_for_all(const Box& box, const Deadline& deadline) {
  wait_until([&] { return int(box.size()) == size() - 1; }, deadline, kFinishGrace);
}

Peers::Values MpiChannel::checkpoint(long n, const Values& fresh, const Deadline& deadline) {
  if (!lead()) {
    std::vector<double> data = {double(n)};
    for (const auto& [index, value] : fresh) data.insert(data.end(), {double(index), value});
    queue(0, kCheckpoint, std::move(data));
    return {};
  }
  const auto everyone_at_n = [&] {
    return int(checkpoints_.size()) == size() - 1 &&
           std::all_of(checkpoints_.begin(), checkpoints_.end(), [n](const auto& at) { return at.second.first == n; });
  };
  wait_until(everyone_at_n, deadline, 0.0);
  Values others;
  std::lock_guard<std::mutex> lock(link_.mutex_);
  for (const auto& [rank, at] : checkpoints_) others.insert(others.end(), at.second.begin(), at.second.end());
  checkpoints_.clear();
  return others;
}

bool MpiChannel::decide(long n, bool go_on, const Deadline& deadline) {
  if (lead()) {
    for (int r = 1; r < size(); ++r) queue(r, kDecision, {double(n), go_on ? 1.0 : 0.0});
    return go_on;
  }
  if (!wait_until([&] { return decisions_.count(n) > 0; }, deadline, 0.0)) return false;
  std::lock_guard<std::mutex> lock(link_.mutex_);
  return decisions_.at(n);
}

void MpiChannel::send(int destination, std::vector<double> data) {
  if (destination != rank()) return queue(destination, kWork, std::move(data));
  std::lock_guard<std::mutex> lock(link_.mutex_);
  work_.push_back({rank(), std::move(data)});
}

std::vector<Peers::Message> MpiChannel::received() {
  std::vector<Message> messages;
  std::lock_guard<std::mutex> lock(link_.mutex_);
  messages.swap(work_);
  return messages;
}

int MpiChannel::finished() const {
  std::lock_guard<std::mutex> lock(link_.mutex_);
  return 1 + int(finals_.size());
}

}  // namespace

std::unique_ptr<Peers> start_mpi_peers(std::atomic<bool>& stop) {
  if (!under_launcher()) return nullptr;
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1 || provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    if (size > 1) throw Error("the MPI library does not allow calls from a second thread (MPI_THREAD_SERIALIZED)");
    return nullptr;
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int cores = resolve_threads(0);
  MPI_Bcast(&cores, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int* tag_ub = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &tag_ub, &found);
  const int channels = std::max(1, (found && tag_ub != nullptr ? *tag_ub : 32767) / kChannelStride);
  return std::make_unique<MpiPeers>(std::make_unique<MpiLink>(comm, rank, size, cores, channels, stop));
}

int agreed_threads(const Peers& peers, int requested) {
  if (requested > 0) return requested;
  const auto* mpi = dynamic_cast<const MpiChannel*>(&peers);
  return mpi != nullptr ? mpi->lead_cores() : resolve_threads(0);
}

}  // namespace reluopt
