#pragma once

#include <optional>
#include <string>

#include "reluopt/domain.h"
#include "reluopt/network.h"

namespace reluopt {

// A network read from a file, with what the file says about its inputs.
struct LoadedModel {
  Network network;
  std::string format;                   // "onnx" or "nnet"
  std::optional<Domain> input_bounds;   // NNet files carry input ranges; ONNX files do not
};

// Reads an ONNX model of a feed-forward ReLU network (see src/io/onnx_reader.cc for what is accepted).
// Throws reluopt::Error naming the file, the operator and the node when the model is not supported.
Network read_onnx(const std::string& path);

// Reads a serialized ONNX model held in memory (the Python package's onnx.ModelProto); `name` stands for the
// file name in error messages.
Network read_onnx_bytes(const std::string& bytes, const std::string& name);

// Reads the NNet text format (ACAS Xu). The input normalization (x - mean) / range and the output
// de-normalization are folded into the first and last layers, so the network works in raw units.
// The input clipping to [min, max] cannot be folded; the ranges are returned as input_bounds.
LoadedModel read_nnet(const std::string& path);

// Picks the reader by extension (.nnet) or content (ONNX otherwise).
LoadedModel read_model(const std::string& path);

}  // namespace reluopt
