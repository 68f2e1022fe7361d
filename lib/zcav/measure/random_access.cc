#include "zcav/measure/random_access.h"

#include <memory>
#include <random>

#include "zcav/base/error.h"
#include "zcav/base/stats.h"
#include "zcav/base/units.h"
#include "zcav/device/write_stamp.h"
#include "zcav/measure/access.h"
#include "zcav/measure/read_checks.h"

namespace zcav {
namespace {

// One cell: `depth` requests of `length` bytes in flight for options.cell_time.
RandomAccessCell RunCell(Device& device, Clock& clock, const RandomAccessOptions& options,
                         std::uint64_t length, std::uint32_t depth, std::mt19937_64& rng,
                         const std::atomic<bool>* stop, RandomAccessResult& result) {
  const std::unique_ptr<ReadQueue> queue =
      options.write ? device.OpenWriteQueue(depth, length) : device.OpenReadQueue(depth, length);
  const std::uint32_t slots = queue->depth();
  result.engine = queue->engine();
  const std::uint64_t run_id = options.write ? NewStampRunId() : 0;
  std::vector<StampMemo> stamps(slots);
  // Offsets are multiples of the request size (as fio aligns to its block
  // size), every request inside the device.
  std::uniform_int_distribution<std::uint64_t> pick(0,
                                                    (device.info().size_bytes - length) / length);
  std::vector<std::chrono::nanoseconds> started(slots);
  std::vector<std::uint64_t> offsets(slots);
  std::vector<double> ms;
  ms.reserve(4096);  // the requests of a short cell without a reallocation
  const auto t0 = clock.Now();
  const auto deadline = t0 + options.cell_time;
  std::uint32_t in_flight = 0;
  const auto submit = [&](std::uint32_t slot) {
    offsets[slot] = pick(rng) * length;
    if (options.write) {
      StampWrite(queue->Buffer(slot).first(length), offsets[slot], run_id, stamps[slot]);
    }
    started[slot] = clock.Now();
    queue->Submit(slot, offsets[slot], length);
    ++in_flight;
  };
  for (std::uint32_t s = 0; s < slots; ++s) submit(s);
  std::vector<ReadQueue::Completion> done(slots);
  auto last = t0;
  bool ending = false;
  while (in_flight > 0) {
    const std::size_t n = queue->Wait(done);
    const auto now = clock.Now();
    for (std::size_t i = 0; i < n; ++i) {
      --in_flight;
      const ReadQueue::Completion& c = done[i];
      if (c.error) {
        if (!result.error) {
          result.error = c.error;
          result.error_offset_bytes = offsets[c.slot];
        }
        ending = true;
        continue;
      }
      ms.push_back(Millis(now - started[c.slot]));
      last = now;
      if (StopRequested(stop)) {
        result.interrupted = true;
        ending = true;
      }
      if (!ending && now < deadline) submit(c.slot);
    }
  }
  RandomAccessCell cell;
  cell.size_bytes = length;
  cell.queue_depth = depth;
  cell.engine_depth = slots;
  cell.ops = ms.size();
  cell.seconds = std::chrono::duration<double>(last - t0).count();
  if (cell.ops == 0 || cell.seconds <= 0) return cell;
  cell.iops = static_cast<double>(cell.ops) / cell.seconds;
  cell.mb_per_s = cell.iops * static_cast<double>(length) / kMB;
  const RateStats latency = Summarize(ms);
  cell.mean_ms = latency.mean;
  cell.max_ms = latency.max;
  cell.p50_ms = NearestRankPercentile(ms, 50);
  cell.p99_ms = NearestRankPercentile(std::move(ms), 99);
  return cell;
}

}  // namespace

RandomAccessResult MeasureRandomAccess(Device& device, Clock& clock,
                                       const RandomAccessOptions& options,
                                       const std::atomic<bool>* stop) {
  const DeviceInfo& info = device.info();
  for (const std::uint64_t size : options.sizes) {
    RequireSomeBytes({{size, "random access size"}});
    RequireFitsDevice(RoundUp(size, info.sector_bytes), info, "random access size");
  }
  for (const std::uint32_t depth : options.depths) {
    if (depth == 0) throw Error("invalid queue depth 0: must be at least 1", ErrorKind::kBadInput);
  }
  RandomAccessResult result;
  result.engine = info.read_engine;  // until a queue says how it issues requests
  std::mt19937_64 rng(options.seed);
  for (const std::uint64_t size : options.sizes) {
    for (const std::uint32_t depth : options.depths) {
      if (result.error || result.interrupted || StopRequested(stop)) {
        result.interrupted = result.interrupted || (!result.error && StopRequested(stop));
        return result;
      }
      RandomAccessCell cell = RunCell(device, clock, options, RoundUp(size, info.sector_bytes),
                                      depth, rng, stop, result);
      if (!result.error && !result.interrupted) result.cells.push_back(cell);
    }
  }
  return result;
}

}  // namespace zcav
