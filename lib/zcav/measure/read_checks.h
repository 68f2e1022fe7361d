// Read checks: what the short measurements of a device (access, burst and
// the start-rate estimate) check before their first read, and the stop
// request they poll between reads. One home, so that the three say a bad
// option the same way.
#pragma once

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <system_error>

#include "zcav/device/device_info.h"

namespace zcav {

// A size option: its value and its name in a message, e.g. "chunk size".
struct NamedSize {
  std::uint64_t bytes;
  const char* what;
};

// Throws Error(kBadInput) "invalid <what> 0: must be at least one sector"
// for the first of `sizes` whose bytes are 0; returns when none is.
void RequireSomeBytes(std::initializer_list<NamedSize> sizes);

// Throws Error(kBadInput) "<what> <bytes> is larger than <path> (<size>)"
// (sizes as FormatBytes writes them) when `bytes` exceeds the device's
// size_bytes; returns otherwise. `what` names the option, e.g. "burst region".
void RequireFitsDevice(std::uint64_t bytes, const DeviceInfo& info, const std::string& what);

// True when `stop` is set (a stop was requested); false when it is null.
inline bool StopRequested(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

// True for a read error that means the device is gone, not a bad sector:
// ENODEV, ENXIO (it went away or shrank), ENOMEDIUM, ENOTCONN (a FUSE
// server gone), ESTALE: nothing more can be read.
inline bool IsDeviceGone(const std::error_code& ec) {
  return ec && ec.category() == std::system_category() &&
         (ec.value() == ENODEV || ec.value() == ENXIO || ec.value() == ENOMEDIUM ||
          ec.value() == ENOTCONN || ec.value() == ESTALE);
}

}  // namespace zcav
