#pragma once

#include <optional>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "reluopt/run_control.h"

namespace reluopt {

// What one process of a run reports to the lead at its end, and what the lead sums.
struct RunTally {
  long samples = 0;
  long lps = 0;
  long duplicates = 0;
  long lp_failures = 0;
  long nodes = 0;      // bab
  long completed = 0;  // bab: processes whose search ended (1 for each)
  // Sampling: (global sample index, X_i); bab: (rank, the bound of its part). Maximized sense.
  std::vector<std::pair<long, double>> values;
  std::vector<Eigen::VectorXd> best_points;     // each process's best x
};

// The other processes of one run spread over several (the ranks of `mpirun -n K reluopt solve`, implemented in
// src/distributed/). Sampling divides its samples among them by a global thread numbering: thread t of
// process r is thread r T + t of K T, so a run that ends on its sample count finds what the threaded run with
// K T threads finds; bab hands open nodes between processes (algorithms/bab_share.h). Calls come from the thread
// that called solve(), except checkpoint() and decide(), which come from the sampling thread that holds the
// checkpoint gate. The implementation moves messages in the background; only finish(), sum(), checkpoint() on
// the lead and decide() elsewhere wait for other processes, each until its deadline at most (finish() and
// sum() half a second more, for processes that stop at their own deadline).
class Peers {
 public:
  virtual ~Peers() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool lead() const { return rank() == 0; }

  // Sends x to every other process when `value` beats what this process sent before, and returns the points
  // the others sent since the last call (the receiver evaluates them by its own forward pass).
  virtual std::vector<Eigen::VectorXd> exchange_best(const Eigen::VectorXd& x, double value) = 0;
  // Posts this process's counts for the lead's progress line; on the lead, returns the others' last posted.
  virtual RunTally exchange_counts(const RunTally& local) = 0;
  // The stop rule's checkpoint n, where every process's samples below n are finished: `fresh` are this
  // process's values not sent before. On the lead, returns the others' (what arrived by `deadline`); elsewhere
  // sends `fresh` and returns nothing.
  using Values = std::vector<std::pair<long, double>>;
  virtual Values checkpoint(long n, const Values& fresh, const Deadline& deadline) = 0;
  // The decision at checkpoint n: the lead sends `go_on` to the others and returns it; the others return the
  // lead's (false once `deadline` passes without it).
  virtual bool decide(long n, bool go_on, const Deadline& deadline) = 0;
  // The end of sampling: every process sends its tally to the lead. On the lead, returns the sum of all that
  // arrived by `deadline` (every process's values, sorted by index, and best points); elsewhere, `local`.
  virtual RunTally finish(const RunTally& local, const Deadline& deadline) = 0;
  // After finish(): on the lead, `local` summed entry by entry with what every process sent by `deadline`;
  // elsewhere, `local` (sent to the lead).
  virtual std::vector<long> sum(const std::vector<long>& local, const Deadline& deadline) = 0;
  // A view of the same processes whose messages never meet this one's or another channel's: two runs at once
  // over the processes (verify's search and prover) each take one. Every process must use the same id for the
  // same run; channel 0 is the peers start_mpi_peers returned. Ids wrap at the MPI library's tag limit over 16
  // (2047 at the least MPI allows, over 10^8 with Open MPI), where a channel's old messages would meet new ones.
  virtual Peers& channel(int id) = 0;
  // Waits until every other process gets here too, then ends the connection; nothing else is called after.
  virtual void end() = 0;
  // The messages of bab's work sharing (algorithms/bab_share.h), opaque here: send() queues one for a process
  // (this one too), received() returns what arrived since the last call, each sender's in the order it sent.
  struct Message {
    int source = 0;
    std::vector<double> data;
  };
  virtual void send(int destination, std::vector<double> data) = 0;
  virtual std::vector<Message> received() = 0;
  // Seconds this process spent inside MPI calls and, on the lead, waiting for the others' tallies.
  virtual double communication_seconds() const = 0;
  // How many processes the lead heard from at finish() (size() when none was lost).
  virtual int finished() const = 0;
};

}  // namespace reluopt
