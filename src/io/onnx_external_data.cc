// Initializers stored outside the model file. torch.onnx.export's dynamo exporter writes a model's weights to a file
// beside it (model.onnx.data) by default, as onnx.save does for models past protobuf's 2 GB: the tensor keeps its
// name, type and dimensions, and external_data says where its bytes are, `length` bytes at `offset` of the file
// `location`, relative to the model's folder (onnx's external data format, docs/ExternalData.md of onnx).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/onnx_graph.h"

namespace reluopt::detail::onnx_graph {
namespace {

// Bytes an element of the types the reader reads takes in raw data, 0 for any other type.
std::int64_t element_bytes(std::int32_t type) {
  switch (type) {
    case onnx::TensorProto_DataType_FLOAT:
    case onnx::TensorProto_DataType_INT32:
      return 4;
    case onnx::TensorProto_DataType_DOUBLE:
    case onnx::TensorProto_DataType_INT64:
      return 8;
    case onnx::TensorProto_DataType_FLOAT16:
    case onnx::TensorProto_DataType_BFLOAT16:
      return 2;
    case onnx::TensorProto_DataType_BOOL:
      return 1;
    default:
      return 0;
  }
}

// A non-negative integer written as a decimal string, or -1.
std::int64_t parse_count(const std::string& text) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(text);
}

}  // namespace

void load_external_data(onnx::TensorProto& tensor, const std::optional<std::string>& folder, const std::string& where,
                        const ReadLimits& limits) {
  const auto fail = [&](const std::string& what) {
    throw Error("tensor '" + tensor.name() + "' " + where + ": external data " + what);
  };
  if (!folder) fail("is read only with the model's file (not from bytes in memory)");
  std::string location;
  std::int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto& entry : tensor.external_data()) {
    if (entry.key() == "location") location = entry.value();
    if (entry.key() == "offset" && (offset = parse_count(entry.value())) < 0) fail("has an invalid offset");
    if (entry.key() == "length" && (length = parse_count(entry.value())) < 0) fail("has an invalid length");
  }
  // As onnx's checker: the file lies in the model's folder or below it, never elsewhere on the machine.
  const std::filesystem::path relative(location);
  if (location.empty() || relative.is_absolute() || relative.has_root_name())
    fail("location '" + location + "' is not a path relative to the model's folder");
  for (const std::filesystem::path& part : relative)
    if (part == "..") fail("location '" + location + "' leaves the model's folder");
  const Shape shape(tensor.dims().begin(), tensor.dims().end());
  const std::int64_t count = num_elements(shape), size = element_bytes(tensor.data_type());
  if (count < 0) fail("has invalid dimensions " + shape_string(shape));
  if (size == 0) fail("of type " + onnx::TensorProto_DataType_Name(tensor.data_type()) + " is not supported");
  if (const std::string problem = memory_problem(shape, 1, limits); !problem.empty()) fail(problem);
  const std::int64_t bytes = count * size;
  if (length >= 0 && length != bytes)
    fail("has " + std::to_string(length) + " bytes for shape " + shape_string(shape));
  const std::filesystem::path file = std::filesystem::path(*folder) / relative;
  std::error_code ec;
  const std::uintmax_t file_size = std::filesystem::file_size(file, ec);
  if (ec) fail("file '" + file.string() + "' cannot be read (" + ec.message() + ")");
  if (static_cast<std::uintmax_t>(offset) > file_size || file_size - static_cast<std::uintmax_t>(offset) <
                                                               static_cast<std::uintmax_t>(bytes))
    fail("file '" + file.string() + "' holds no " + std::to_string(bytes) + " bytes at offset " +
         std::to_string(offset));
  std::ifstream in(file, std::ios::in | std::ios::binary);
  std::string raw(static_cast<std::size_t>(bytes), '\0');
  if (!in.seekg(offset) || !in.read(raw.data(), bytes)) fail("file '" + file.string() + "' cannot be read");
  tensor.set_raw_data(std::move(raw));
  tensor.clear_external_data();
  tensor.set_data_location(onnx::TensorProto_DataLocation_DEFAULT);
}

}  // namespace reluopt::detail::onnx_graph
