#include "zcav/measure/sample.h"

#include <string>

namespace zcav {

std::string SweepResult::StatusText() const {
  // A stop at an error: what stopped it, where, and the error's text.
  const auto stopped_at = [this](const char* what) {
    return std::string("partial: ") + what + " at offset " + std::to_string(error_offset_bytes) +
           " bytes: " + error.message();
  };
  switch (status) {
    case SweepStatus::kComplete:
      return "complete";
    case SweepStatus::kInterrupted:
      return "partial: interrupted";
    case SweepStatus::kReadError:
      return stopped_at("read error");
    case SweepStatus::kWriteError:
      return stopped_at("write error");
    case SweepStatus::kDeviceGone:
      return stopped_at("device gone");
  }
  return "unknown";
}

std::uint64_t SweepResult::UnreadableBytes() const {
  std::uint64_t bytes = 0;
  for (const UnreadableRange& r : unreadable) bytes += r.length_bytes;
  return bytes;
}

}  // namespace zcav
