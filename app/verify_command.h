#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

namespace reluopt {
class Peers;  // core/peers.h
}  // namespace reluopt

namespace reluopt::cli {

// `reluopt verify MODEL PROP.vnnlib [--time-limit S] [--result-file F] [--json F] [--threads T] [--seed K]
// [--quiet]`, given the arguments after "verify" and the command's start (the time limit counts from it).
// Prints the answer in the VNN-COMP format on stdout and returns the exit code (0 for any answer). Throws
// UsageError (cli_options.h) for a bad command line and reluopt::Error for bad input. With `peers` (mpirun), every
// process runs it and only the lead prints and writes.
int run_verify_command(const std::vector<std::string>& args, std::chrono::steady_clock::time_point start,
                       const std::atomic<bool>* stop, Peers* peers = nullptr);

std::string verify_help_text();

}  // namespace reluopt::cli
