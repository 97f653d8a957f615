// Checks every reader shares: the memory a model may take, printable names, opening a file.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "io/readers.h"
#include "reluopt/error.h"

namespace reluopt::detail {

std::uint64_t ReadLimits::default_max_model_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return std::uint64_t{4} << 30;  // unknown: assume a small machine
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size) / 2;
}

namespace {

std::string gigabytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB", bytes / 1e9);
  return text;
}

// The length of the valid UTF-8 sequence (not overlong, no surrogate, at most U+10FFFF) that starts at
// text[i], or 0 when there is none.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3, low = lead == 0xE0 ? 0xA0 : 0x80, high = lead == 0xED ? 0x9F : 0xBF;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4, low = lead == 0xF0 ? 0x90 : 0x80, high = lead == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return length;
}

}  // namespace

std::string memory_problem(double bytes, const ReadLimits& limits) {
  const auto held = static_cast<double>(limits.held_bytes);
  if (bytes + held <= static_cast<double>(limits.max_bytes)) return "";
  const std::string besides = held > 0 ? " besides the " + gigabytes(held) + " its layers and live tensors hold" : "";
  return "needs " + gigabytes(bytes) + besides + ", more than the " +
         gigabytes(static_cast<double>(limits.max_bytes)) + " a model may take (half the physical memory)";
}

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F) {
      out += text[i++];
    } else if (const std::size_t length = c >= 0x80 ? utf8_length(text, i) : 0; length > 0) {
      out.append(text.substr(i, length));
      i += length;
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
      ++i;
    }
  }
  return out;
}

namespace {

// Whether the stream starts with the gzip magic bytes 1f 8b; it is left at its start.
bool gzip_compressed(std::istream& in) {
  char magic[2] = {};
  in.read(magic, 2);
  const bool gzip = in.gcount() == 2 && magic[0] == '\x1f' && magic[1] == '\x8b';
  in.clear();
  in.seekg(0);
  return gzip;
}

// gunzip replaces F.gz by F; it refuses other names, which are decompressed to a new file instead.
std::string gunzip_command(const std::string& path) {
  const std::string shown = printable(path);
  return path.ends_with(".gz") ? "gunzip " + shown : "gunzip -c " + shown + " > NEW_FILE";
}

}  // namespace

std::ifstream open_input(const std::string& path, const std::string& what, std::ios::openmode mode) {
  const std::string file = what + " file '" + printable(path) + "'";
  const auto fail = [&](const std::string& reason) { throw Error("cannot open " + file + " (" + reason + ")"); };
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec == std::errc::too_many_symbolic_link_levels) fail("a symbolic link loop: " + ec.message());
  if (!std::filesystem::exists(status)) fail("no such file");
  if (std::filesystem::is_directory(status)) fail("it is a directory");
  if (!std::filesystem::is_regular_file(status)) fail("not a regular file");
  std::ifstream in(path, mode);
  if (!in) fail(std::strerror(errno));
  // Every format read here starts otherwise: text, or an ONNX protobuf, whose first byte is never 0x1f.
  if (gzip_compressed(in))
    throw Error(file + " is gzip-compressed; decompress it first (" + gunzip_command(path) + ")");
  return in;
}

}  // namespace reluopt::detail
