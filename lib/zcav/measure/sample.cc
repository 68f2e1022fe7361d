#include "zcav/measure/sample.h"

#include <string>

#include "zcav/base/units.h"

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
    case SweepStatus::kTooManyErrors:
      return "partial: gave up after " + std::to_string(max_errors) + " unreadable range" +
             (max_errors == 1 ? "" : "s") + " (--max-errors)";
    case SweepStatus::kTimeLimit:
      return "partial: time limit of " + DurationText(max_time) + " reached (--max-time)";
  }
  return "unknown";
}

LatencyClass LatencyClassOf(double ms) {
  for (std::size_t i = 0; i < kLatencyBoundsMs.size(); ++i) {
    if (ms < kLatencyBoundsMs[i]) return static_cast<LatencyClass>(i);
  }
  return LatencyClass::kAtLeast500;
}

const char* LatencyClassLabel(LatencyClass c) {
  switch (c) {
    case LatencyClass::kBelow5:
      return "< 5 ms";
    case LatencyClass::kBelow20:
      return "< 20 ms";
    case LatencyClass::kBelow50:
      return "< 50 ms";
    case LatencyClass::kBelow150:
      return "< 150 ms";
    case LatencyClass::kBelow500:
      return "< 500 ms";
    case LatencyClass::kAtLeast500:
      return ">= 500 ms";
    case LatencyClass::kUnreadable:
      return "unreadable";
  }
  return "unknown";
}

const char* LatencyClassKey(LatencyClass c) {
  switch (c) {
    case LatencyClass::kBelow5:
      return "below_5ms";
    case LatencyClass::kBelow20:
      return "below_20ms";
    case LatencyClass::kBelow50:
      return "below_50ms";
    case LatencyClass::kBelow150:
      return "below_150ms";
    case LatencyClass::kBelow500:
      return "below_500ms";
    case LatencyClass::kAtLeast500:
      return "at_least_500ms";
    case LatencyClass::kUnreadable:
      return "unreadable";
  }
  return "unknown";
}

void LatencyClasses::Add(const LatencyClasses& other) {
  if (chunk_bytes == 0) chunk_bytes = other.chunk_bytes;
  for (std::size_t i = 0; i < chunks.size(); ++i) chunks[i] += other.chunks[i];
  unreadable_chunks += other.unreadable_chunks;
}

std::uint64_t LatencyClasses::Total() const {
  std::uint64_t n = unreadable_chunks;
  for (const std::uint64_t c : chunks) n += c;
  return n;
}

LatencyClasses SweepResult::LatencyTotals() const {
  LatencyClasses total;
  for (const PassSummary& p : passes) total.Add(p.latency);
  return total;
}

std::uint64_t SweepResult::UnreadableBytes() const {
  std::uint64_t bytes = 0;
  for (const UnreadableRange& r : unreadable) bytes += r.length_bytes;
  return bytes;
}

}  // namespace zcav
