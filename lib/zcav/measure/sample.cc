#include "zcav/measure/sample.h"

#include <string>

namespace zcav {

std::string SweepResult::StatusText() const {
  switch (status) {
    case SweepStatus::kComplete:
      return "complete";
    case SweepStatus::kInterrupted:
      return "partial: interrupted";
    case SweepStatus::kReadError:
      return "partial: read error at offset " + std::to_string(error_offset_bytes) +
             " bytes: " + error.message();
    case SweepStatus::kWriteError:
      return "partial: write error at offset " + std::to_string(error_offset_bytes) +
             " bytes: " + error.message();
    case SweepStatus::kDeviceGone:
      return "partial: device gone at offset " + std::to_string(error_offset_bytes) +
             " bytes: " + error.message();
  }
  return "unknown";
}

std::uint64_t SweepResult::UnreadableBytes() const {
  std::uint64_t bytes = 0;
  for (const UnreadableRange& r : unreadable) bytes += r.length_bytes;
  return bytes;
}

}  // namespace zcav
