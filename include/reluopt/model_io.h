#pragma once

#include <optional>
#include <string>

#include "reluopt/domain.h"
#include "reluopt/model.h"
#include "reluopt/network.h"
#include "reluopt/run_control.h"
#include "reluopt/vnnlib.h"

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

// Reads the subset of VNN-LIB that VNN-COMP uses (docs/VERIFY.md): declare-const X_i / Y_j Real, asserts of
// <=, >=, <, > between constants, variables and linear combinations (+, -, * by a constant), and / or over them.
// Input asserts bound single inputs (<=, >=); output asserts compare outputs only. Throws reluopt::Error in one
// line naming the file and the line of anything else. Time and memory are linear in the file, and a comparison
// repeated within a conjunction, or a conjunction repeated within a disjunction, is kept once. The deadline and
// its stop request are checked every few thousand tokens: ReadStopped when either ends the reading.
VnnlibProperty read_vnnlib(const std::string& path, const Deadline& deadline = {});

// Reads VNN-LIB text held in memory (the Python package's property given as a string); `name` stands for the
// file name in error messages.
VnnlibProperty read_vnnlib_text(const std::string& text, const std::string& name, const Deadline& deadline = {});

// Reads a problem file (docs/PROBLEM.md): {"sense", "variables", "networks", "constraints", "objective"}, model
// paths relative to the file. Throws reluopt::Error naming the file, the entry and the key.
Model read_problem_json(const std::string& path);

// The model as a problem file. A network is written as its `source` path, relative to `directory` when one is
// given (the directory of the file being written); a network without a source throws reluopt::Error.
std::string model_to_json(const Model& model, const std::string& directory = "");

}  // namespace reluopt
