#include "zcav/measure/estimate.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"
#include "zcav/measure/read_checks.h"

namespace zcav {

namespace {

void TimeOneAtATime(Device& device, Clock& clock, const StartRateOptions& options,
                    std::uint64_t chunk, AlignedBuffer& buffer, std::uint64_t pos,
                    const std::function<bool()>& stopping, StartRate& result) {
  const DeviceInfo& info = device.info();
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
}

// Keeps options.queue_depth reads in flight; the time runs from the first
// submission to the last completion. After a failure, a stop or the limits,
// no more reads are submitted and the ones in flight are waited for.
void TimeQueued(Device& device, Clock& clock, const StartRateOptions& options, std::uint64_t chunk,
                std::uint64_t pos, const std::function<bool()>& stopping, StartRate& result) {
  const DeviceInfo& info = device.info();
  const std::unique_ptr<ReadQueue> queue = device.OpenReadQueue(options.queue_depth, chunk);
  const std::uint32_t depth = queue->depth();
  std::vector<std::uint64_t> slot_offset(depth), slot_length(depth);
  std::vector<std::uint32_t> free_slots;
  for (std::uint32_t i = depth; i-- > 0;) free_slots.push_back(i);
  std::vector<ReadQueue::Completion> batch(depth);
  std::uint64_t submitted = 0;
  std::uint32_t in_flight = 0;
  bool halt = false;
  const auto t0 = clock.Now();
  for (;;) {
    while (!halt && !free_slots.empty() && pos < info.size_bytes && submitted < options.max_bytes) {
      if (stopping()) {
        result.interrupted = true;
        halt = true;
        break;
      }
      const std::uint64_t n = std::min(chunk, info.size_bytes - pos);
      const std::uint32_t slot = free_slots.back();
      free_slots.pop_back();
      slot_offset[slot] = pos;
      slot_length[slot] = n;
      queue->Submit(slot, pos, n);
      ++in_flight;
      pos += n;
      submitted += n;
    }
    if (in_flight == 0) break;
    const std::size_t got = queue->Wait(batch);
    const auto now = clock.Now() - t0;
    const bool clean_before = !result.error;
    for (std::size_t i = 0; i < got; ++i) {
      const ReadQueue::Completion& done = batch[i];
      --in_flight;
      free_slots.push_back(done.slot);
      if (done.error) {
        if (!result.error || slot_offset[done.slot] < result.error_offset_bytes) {
          result.error = done.error;
          result.error_offset_bytes = slot_offset[done.slot];
        }
        halt = true;
        continue;
      }
      if (!result.error) result.bytes += slot_length[done.slot];
    }
    // The time of what was read cleanly (not of the failing read).
    if (clean_before && !result.error) result.time = now;
    if (now >= options.max_time) halt = true;
  }
}

}  // namespace

StartRate MeasureStartRate(Device& device, Clock& clock, const StartRateOptions& options,
                           const std::atomic<bool>* stop) {
  const DeviceInfo& info = device.info();
  RequireSomeBytes({{options.chunk_bytes, "chunk size"}, {options.max_bytes, "estimate size"}});
  if (options.start_bytes >= info.size_bytes) {
    throw Error("estimate start " + FormatBytes(options.start_bytes) +
                    " is at or beyond the end of " + info.path,
                ErrorKind::kBadInput);
  }
  const std::uint32_t sector = info.sector_bytes;
  const std::uint64_t chunk = RoundUp(options.chunk_bytes, sector);
  const std::uint64_t start = RoundDown(options.start_bytes, sector);
  AlignedBuffer buffer(chunk, DirectIoAlignment(sector));
  StartRate result;
  const auto stopping = [stop] { return StopRequested(stop); };

  // Untimed first chunk: the first seek and a spin-up are not the rate.
  std::uint64_t pos = start;
  const std::uint64_t first = std::min(chunk, info.size_bytes - pos);
  if (auto ec = device.ReadAt(pos, buffer.span(first))) {
    result.error = ec;
    result.error_offset_bytes = pos;
    return result;
  }
  pos += first;
  if (options.queue_depth > 1) {
    TimeQueued(device, clock, options, chunk, pos, stopping, result);
  } else {
    TimeOneAtATime(device, clock, options, chunk, buffer, pos, stopping, result);
  }
  result.mb_per_s =
      result.bytes > 0 && result.time.count() > 0 ? MbPerS(result.bytes, result.time) : 0;
  return result;
}

StartRateOptions BlockEstimateOptions(const SweepPlan& plan) {
  StartRateOptions o;
  o.start_bytes = plan.start_bytes;
  const std::uint64_t range = plan.end_bytes - plan.start_bytes;
  o.max_bytes = std::max<std::uint64_t>(plan.chunk_bytes, std::min(256 * kMiB, range / 16));
  o.max_time = kBlockEstimateTime;
  o.chunk_bytes = plan.chunk_bytes;
  o.queue_depth = plan.queue_depth;
  return o;
}

SweepOptions WithStartRate(Device& device, Clock& clock, SweepOptions options,
                           const std::atomic<bool>* stop) {
  if (options.block_bytes != 0 || options.write || device.info().read_engine == "sim") {
    return options;
  }
  options.expected_mb_per_s = 0;
  const SweepPlan plan = PlanSweep(device.info(), options);
  const StartRate rate = MeasureStartRate(device, clock, BlockEstimateOptions(plan), stop);
  if (!rate.error && !rate.interrupted) options.expected_mb_per_s = rate.mb_per_s;
  return options;
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
