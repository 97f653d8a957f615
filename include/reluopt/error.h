#pragma once

#include <stdexcept>
#include <string>

namespace reluopt {

// Raised at the library boundary for bad input: unreadable or malformed files, unsupported operators,
// inconsistent shapes, invalid domains or options. The message is one line and names the culprit.
// Outcomes of an optimization (infeasible, time limit...) are never exceptions; see result.h.
class Error : public std::runtime_error {
 public:
  // A NUL byte (a name read from a file may hold one) is written "\x00": what() is a C string, and would end
  // the message there, before the file and the line it names.
  explicit Error(const std::string& message) : std::runtime_error(without_nul(message)) {}
  explicit Error(const char* message) : std::runtime_error(message) {}

 private:
  static std::string without_nul(const std::string& message) {
    if (message.find('\0') == std::string::npos) return message;
    std::string out;
    for (const char c : message) out += c == '\0' ? std::string("\\x00") : std::string(1, c);
    return out;
  }
};

}  // namespace reluopt
