#pragma once

// The readers behind model_io.h and json_io.h, on an open stream. `name` is the file name every error message
// carries. The public functions open the file and call these; the fuzz targets (fuzz/) call them on bytes.
#include <cstdint>
#include <fstream>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "reluopt/domain.h"
#include "reluopt/error.h"
#include "reluopt/model_io.h"
#include "reluopt/network.h"
#include "reluopt/objective.h"
#include "reluopt/vnnlib.h"

namespace reluopt::detail {

// The most memory a model may take: the layers it holds, the tensors still needed and the tensor being built. By default half the
// physical memory, since the solvers need the rest: a model that could not fit is refused before it is
// allocated.
struct ReadLimits {
  std::uint64_t max_bytes = default_max_model_bytes();
  std::uint64_t held_bytes = 0;  // held by the layers read so far and the tensors still needed
  // A 2-D convolution whose matrix written out would have more nonzeros than this stays an implicit convolution
  // (Conv2d) in its layer; smaller ones are sparse matrices, which later operators fold into. Tests set 0 to read
  // every convolution both ways.
  std::int64_t implicit_conv_taps = kImplicitConvTaps;
  static constexpr std::int64_t kImplicitConvTaps = 20000000;

  static std::uint64_t default_max_model_bytes();
};

// "" when `bytes` more fit within the limits, else why not, e.g. "needs 17.2 GB, more than the 3.9 GB a
// model may take (half the physical memory)", or "needs 2.1 GB besides the 3 GB its layers and live tensors
// hold, ...".
std::string memory_problem(double bytes, const ReadLimits& limits);

// `text` with control characters and bytes that are not valid UTF-8 written as \xNN, so that a name read
// from a file can go into a one-line error message.
std::string printable(std::string_view text);

// The result of read(), whose reluopt::Error is rethrown with its message made printable: names and tokens
// from a file may hold any bytes. An error already printable is rethrown as it is, keeping its type.
template <typename Read>
auto with_printable_errors(Read read) -> decltype(read()) {
  try {
    return read();
  } catch (const Error& e) {
    std::string message = printable(e.what());
    if (message == e.what()) throw;
    throw Error(std::move(message));
  }
}

// Opens `path` for reading, or throws "cannot open <what> file '<path>' (<reason>)": no such file, a
// symbolic link loop, a directory, another kind of file, or not readable. A gzip-compressed file is refused
// with the command that decompresses it: no reader reads one.
std::ifstream open_input(const std::string& path, const std::string& what, std::ios::openmode mode = std::ios::in);

// `data_folder` is the folder of the model's file, where its external tensor data lies (none: read from bytes).
Network read_onnx(std::istream& in, const std::string& name, const ReadLimits& limits = {},
                  const std::optional<std::string>& data_folder = std::nullopt);
// The folder that holds the file `path` ("." for a bare file name).
std::string folder_of(const std::string& path);
LoadedModel read_nnet(std::istream& in, const std::string& name, const ReadLimits& limits = {});
Domain read_domain_json(std::istream& in, const std::string& name);
Objective read_objective_json(std::istream& in, const std::string& name);
VnnlibProperty read_vnnlib(std::istream& in, const std::string& name, const Deadline& deadline = {});

}  // namespace reluopt::detail
