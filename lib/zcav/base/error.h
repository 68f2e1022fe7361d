// zcav::Error: the one exception type of the library.
//
// Thrown for setup and configuration failures (cannot open a device, bad option
// value, malformed data file) with a message a user can act on. The read loop
// never throws: a failed read is data (std::error_code), see device.h.
// Only zcav/main.cc catches.
#pragma once

#include <stdexcept>
#include <string>

namespace zcav {

// What kind of failure, so the CLI can pick the exit code without parsing text.
enum class ErrorKind {
  kBadInput,  // the user's input is wrong (path, option, value, data file): exit 2
  kRuntime,   // the environment failed (out of memory, write error): exit 1
};

// Every throw site in lib/ names its kind. The default argument is going away
// (zcav/ still relies on it): a new site passes ErrorKind explicitly.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::kBadInput)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace zcav
