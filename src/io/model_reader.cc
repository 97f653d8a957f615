#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <system_error>

#include "reluopt/error.h"
#include "reluopt/model_io.h"

namespace reluopt {

LoadedModel read_model(const std::string& path) {
  // Checked here so that a typo in the path is reported as such rather than as a format problem.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error("cannot open model file '" + path + "'");
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".nnet") return read_nnet(path);
  // Exporters use .onnx, .pb or no extension at all; the ONNX reader rejects anything else by content.
  return LoadedModel{read_onnx(path), "onnx", std::nullopt};
}

}  // namespace reluopt
