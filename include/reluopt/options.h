#pragma once

#include <cstdint>
#include <string>

#include "reluopt/bounds.h"

namespace reluopt {

enum class Method {
  kSampling,   // Algorithm 1: sampled activation patterns, one LP each
  kMip,        // big-M MIP (Fischetti & Jo) on CBC
  kMipCuts,    // big-M plus Anderson et al. cuts
  kPartition,  // Tsay et al. partition formulation with N sets
};

// "sampling", "mip", "mip-cuts", "partition"; throws reluopt::Error naming an unknown method.
Method parse_method(const std::string& name);
std::string method_name(Method method);

struct SamplingOptions {
  long samples = 1000;            // the paper's warm-start setting
  int hit_and_run_thinning = 0;   // 0: max(10, d) steps between samples (polyhedral domains only)
};

struct MipMethodOptions {
  int partitions = 2;             // N for Method::kPartition
  BoundOptions bounds;            // how the big-M / partition bounds are computed
  bool warm_start = false;        // run Algorithm 1 first and give its best point to CBC as a MIP start
  long warm_start_samples = 1000; // the paper's setting
  int cut_frequency = -99;        // Anderson cuts: CBC's howOften (-99 root only, k > 0 every k nodes)
  bool verbose = false;           // CBC's log on stdout
};

struct SolveOptions {
  Method method = Method::kSampling;
  int threads = 0;                // worker threads for every method; 0: all cores
  std::uint64_t seed = 0;         // every random choice derives from it
  SamplingOptions sampling;
  MipMethodOptions mip;
};

}  // namespace reluopt
