#include "zcav/estimate.h"

#include <algorithm>

#include "zcav/aligned_buffer.h"
#include "zcav/error.h"

namespace zcav {

StartRate MeasureStartRate(Device& device, Clock& clock, const StartRateOptions& options,
                           const std::atomic<bool>* stop) {
  const DeviceInfo& info = device.info();
  const std::uint32_t sector = info.sector_bytes;
  if (options.chunk_bytes == 0) throw Error("invalid chunk size 0: must be at least one sector");
  if (options.max_bytes == 0) throw Error("invalid estimate size 0: must be at least one sector");
  if (options.start_bytes >= info.size_bytes) {
    throw Error("estimate start " + FormatBytes(options.start_bytes) +
                " is at or beyond the end of " + info.path);
  }
  const std::uint64_t chunk = RoundUp(options.chunk_bytes, sector);
  const std::uint64_t start = RoundDown(options.start_bytes, sector);
  AlignedBuffer buffer(chunk, std::max<std::size_t>(4096, sector));
  StartRate result;
  const auto stopping = [&] { return stop != nullptr && stop->load(std::memory_order_relaxed); };

  // Untimed first chunk: the first seek and a spin-up are not the rate.
  std::uint64_t pos = start;
  const std::uint64_t first = std::min(chunk, info.size_bytes - pos);
  if (auto ec = device.ReadAt(pos, buffer.span(first))) {
    result.error = ec;
    result.error_offset_bytes = pos;
    return result;
  }
  pos += first;
  const auto t0 = clock.Now();
  while (pos < info.size_bytes && result.bytes < options.max_bytes) {
    if (stopping()) {
      result.interrupted = true;
      break;
    }
    const std::uint64_t n = std::min(chunk, info.size_bytes - pos);
    if (auto ec = device.ReadAt(pos, buffer.span(n))) {
      result.error = ec;
      result.error_offset_bytes = pos;
      break;
    }
    pos += n;
    result.bytes += n;
    result.time = clock.Now() - t0;
    if (result.time >= options.max_time) break;
  }
  result.mb_per_s =
      result.bytes > 0 && result.time.count() > 0 ? MbPerS(result.bytes, result.time) : 0;
  return result;
}

std::uint64_t PlanBytesPerPass(const SweepPlan& plan) {
  if (plan.block_count == 0) return 0;
  return (plan.block_count - 1) * plan.block_bytes + plan.BlockLength(plan.block_count - 1);
}

double EstimateSweepSeconds(const SweepPlan& plan, double mb_per_s) {
  if (!(mb_per_s > 0)) return 0;
  return static_cast<double>(plan.passes) * static_cast<double>(PlanBytesPerPass(plan)) /
         (mb_per_s * kMB);
}

}  // namespace zcav
