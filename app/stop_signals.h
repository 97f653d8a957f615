#pragma once

#include <atomic>

namespace reluopt::cli {

// Ctrl-C (SIGINT) and SIGTERM for the whole life of a command. The first asks the run to stop: it returns its
// incumbent, and the command still prints and writes it. Signals within kSignalWindow seconds of the first are
// the same request: GNU timeout sends SIGTERM to the process and then to its process group, so the process gets
// two at once. A later one is a deliberate second request and ends the process at once, unless the command is
// writing its result (output_begins): then it is ignored, and the result is written whole.
inline constexpr double kSignalWindow = 1.0;

// Installs the handlers (sigaction); call once, in main, before the command runs and after MPI has started.
void catch_stop_signals();
// Set by the first signal; a run's RunControl::stop.
std::atomic<bool>& stop_request();
// From now on the command writes its result: no signal ends the process.
void output_begins();

}  // namespace reluopt::cli
