#pragma once

// What every reader fuzz target checks: a reader given any bytes either returns or throws reluopt::Error
// with a one-line printable message. Any other exception, a crash, a sanitizer report, a timeout or an
// allocation beyond libFuzzer's limit is a finding (docs/FUZZING.md).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "io/readers.h"
#include "reluopt/error.h"

namespace reluopt::fuzz {

// Far below libFuzzer's default malloc limit (2 GB), so that the readers' own memory check is what refuses
// a huge declared tensor, which is the behaviour under test; and small enough that a file of a few bytes that
// declares a large image (a Pad of 10^5 rows) is refused before its work passes the 10 s timeout under the
// sanitizers: the readers' work grows with the tensors they hold.
inline const detail::ReadLimits kLimits{std::uint64_t{64} << 20};

// A message is one line of printable text (UTF-8 allowed).
inline bool one_printable_line(const std::string& message) {
  if (message.empty()) return false;
  for (const char c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) return false;
  return detail::printable(message) == message;
}

template <typename Read>
int run(const std::uint8_t* data, std::size_t size, Read read) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    read(in);
  } catch (const Error& e) {
    if (!one_printable_line(e.what())) {
      std::cerr << "error message is not one printable line: " << e.what() << '\n';
      std::abort();
    }
  }
  return 0;
}

}  // namespace reluopt::fuzz
