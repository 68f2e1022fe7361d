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
  kBadInput,     // the user's input is wrong (path, option, value, data file): exit 2
  kRuntime,      // the environment failed (out of memory, write error): exit 1
  kInterrupted,  // SIGINT, SIGTERM or SIGHUP stopped the work: exit 130
};

// Every throw site names its kind: there is no default, so a new site must
// decide whether the user or the system is at fault.
class Error : public std::runtime_error {
 public:
  Error(const std::string& message, ErrorKind kind) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

// The kind of a failure to create or open a file or directory at a path the
// user chose, from its errno: the path's fault (no such directory, not a
// directory, permission, read-only file system, a directory in the way, name
// too long, a symlink loop) is kBadInput; anything else (no space, I/O
// error, too many open files, out of memory) is kRuntime.
ErrorKind KindOfPathError(int error_number);

}  // namespace zcav
