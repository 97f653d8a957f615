#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/readers.h"
#include "reluopt/error.h"
#include "reluopt/model_io.h"

namespace reluopt {

LoadedModel read_model(const std::string& path) {
  // Opened here so that a typo in the path is reported as such rather than as a format problem.
  std::ifstream in = detail::open_input(path, "model", std::ios::in | std::ios::binary);
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".nnet") return detail::read_nnet(in, path);
  // Exporters use .onnx, .pb or no extension at all; the ONNX reader rejects anything else by content.
  return LoadedModel{detail::read_onnx(in, path, {}, detail::folder_of(path)), "onnx", std::nullopt};
}

namespace detail {

std::string folder_of(const std::string& path) {
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  return folder.empty() ? "." : folder.string();
}

}  // namespace detail

}  // namespace reluopt
