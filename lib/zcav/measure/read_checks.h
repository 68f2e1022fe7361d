// Read checks: what the short measurements of a device (access, burst and
// the start-rate estimate) check before their first read, and the stop
// request they poll between reads. One home, so that the three say a bad
// option the same way.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "zcav/device/device_info.h"

namespace zcav {

// Throws Error(kBadInput) "invalid <what> 0: must be at least one sector"
// when `bytes` is 0; returns otherwise. `what` names the option, e.g.
// "access read size".
void RequireSomeBytes(std::uint64_t bytes, const std::string& what);

// Throws Error(kBadInput) "<what> <bytes> is larger than <path> (<size>)"
// (sizes as FormatBytes writes them) when `bytes` exceeds the device's
// size_bytes; returns otherwise. `what` names the option, e.g. "burst region".
void RequireFitsDevice(std::uint64_t bytes, const DeviceInfo& info, const std::string& what);

// True when `stop` is set (a stop was requested); false when it is null.
inline bool StopRequested(const std::atomic<bool>* stop) {
  return stop != nullptr && stop->load(std::memory_order_relaxed);
}

}  // namespace zcav
