#pragma once

#include <atomic>
#include <memory>

#include "core/peers.h"

namespace reluopt {

// The processes of `mpirun -n K reluopt solve ...` (or `srun`) as Peers. Under a launcher with more than one
// process this starts MPI and returns the peers; otherwise (no launcher, or one process) it returns null and
// MPI is not used. A stop request (`stop`: Ctrl-C, SIGTERM) on any process is sent to all, and one from another
// process sets `stop` here. Destroying the peers waits for every process to get there, then ends MPI.
std::unique_ptr<Peers> start_mpi_peers(std::atomic<bool>& stop);

// The thread count every process uses for --threads `requested` (0: the first process's cores), so that the
// global thread numbering of core/peers.h has no gaps on machines of different sizes.
int agreed_threads(const Peers& peers, int requested);

}  // namespace reluopt
