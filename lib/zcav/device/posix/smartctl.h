// Running smartmontools' smartctl on a device and capturing its JSON output.
//
// The smartctl executable is the first one on PATH (kDefaultPath when PATH
// is unset; when euid is 0, only PATH's absolute directories), run directly
// (no shell) with `--json=c -a DEVICE_PATH`, so a test can put a fake
// smartctl first on PATH. Its output is not interpreted here: measure/smart.h parses it.
// smartctl's exit status is a bitmask (smartctl(8), "RETURN VALUES"): bit 0
// the command line did not parse, bit 1 the device could not be opened, bit 2
// a SMART command failed, bit 3 SMART status "failing", bits 4-7 attributes
// at or below their thresholds (now or in the past), errors in the drive's
// error or self-test log. A nonzero status therefore is data, not a failure
// of the run.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace zcav {

// What one run of smartctl gave.
struct SmartctlRun {
  // A smartctl executable was found on PATH (false: smartmontools is not
  // installed, or PATH does not reach it; nothing was run).
  bool found = false;
  // smartctl's exit status (the bitmask above) when it exited by itself; -1
  // when it did not run, was killed (timeout) or died of a signal.
  int exit_status = -1;
  // Everything smartctl wrote to stdout (its JSON), at most kMaxStdoutBytes.
  std::string stdout_text;
  // Empty when smartctl ran and exited by itself (whatever its status);
  // otherwise one line saying what went wrong: "smartctl not found on PATH",
  // "smartctl (/usr/sbin/smartctl) timed out after 60 s and was killed",
  // "smartctl (PATH) killed by signal 9", "cannot run smartctl (PATH): ...",
  // "smartctl (PATH): its exit status is lost (SIGCHLD ignored)".
  std::string error;
};

// Largest stdout kept from smartctl, 4 MiB (its `-a` JSON is 1-40 kB; `-x` up to
// a few hundred kB). More is read and dropped so smartctl never blocks.
inline constexpr std::size_t kMaxStdoutBytes = 4 << 20;

// Runs `smartctl --json=c -a DEVICE_PATH` (the first executable regular file
// named smartctl in a PATH directory, as the header says; stdin /dev/null, stderr discarded) and
// waits for it, at most `timeout`; then that child (by its PID) is killed
// with SIGKILL and reaped. Blocks the calling thread for as long as smartctl
// runs (seconds when it must spin a sleeping drive up). Never throws for "not
// installed" or a failed run: those are in the result (std::bad_alloc
// aside).
SmartctlRun RunSmartctl(const std::string& device_path,
                        std::chrono::milliseconds timeout = std::chrono::seconds(60));

// The path of the first executable regular file `name` in the directories of
// `path_variable` (PATH's syntax: ':'-separated, an empty entry is the
// current directory), or "" when there is none. `absolute_only`: empty and
// relative entries are skipped (RunSmartctl's choice when euid is 0).
std::string FindOnPath(const std::string& name, const std::string& path_variable,
                       bool absolute_only = false);

// The directories searched when PATH is not set (not the current directory,
// as an unset PATH would otherwise mean).
inline constexpr const char* kDefaultPath =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

}  // namespace zcav
