#include "zcav/sweep.h"

#include <algorithm>
#include <array>
#include <vector>

#include "zcav/aligned_buffer.h"
#include "zcav/error.h"
#include "zcav/stats.h"
#include "zcav/units.h"

namespace zcav {
namespace {

// Default number of blocks over the range: enough points for a useful curve
// on a 700 MB CD and on a 20 TB disk alike.
constexpr std::uint64_t kDefaultBlocks = 1000;
// Quick mode reads every kQuickSkip-th of kDefaultBlocks*kQuickSkip slots.
constexpr std::uint32_t kQuickSkip = 10;
constexpr std::uint64_t kDefaultChunkBytes = kMiB;

std::string Bytes(std::uint64_t v) { return std::to_string(v) + " bytes"; }

std::uint64_t RoundToSector(std::uint64_t value, std::uint32_t sector, const char* what,
                            std::vector<std::string>& notes) {
  const std::uint64_t rounded = std::max<std::uint64_t>(sector, RoundUp(value, sector));
  if (rounded != value) {
    notes.push_back(std::string(what) + " " + Bytes(value) + " rounded up to " + Bytes(rounded) +
                    " (a multiple of the " + std::to_string(sector) + "-byte sector)");
  }
  return rounded;
}

}  // namespace

SweepPlan PlanSweep(const DeviceInfo& device, const SweepOptions& options) {
  SweepPlan plan;
  const std::uint32_t sector = device.sector_bytes;
  const std::uint64_t size = device.size_bytes;
  if (options.passes == 0) throw Error("invalid pass count 0: must be at least 1");
  if (options.skip == 0) throw Error("invalid skip 0: must be at least 1");
  if (options.quick && options.skip > 1) {
    throw Error("--quick and --skip both choose which blocks to read: give only one");
  }
  const std::uint64_t end = options.end_bytes.value_or(size);
  if (end > size) {
    throw Error("range end " + Bytes(end) + " is beyond the end of " + device.path + " (" +
                FormatBytes(size) + ")");
  }
  if (options.start_bytes >= end) {
    throw Error(options.start_bytes > end
                    ? "range start " + Bytes(options.start_bytes) + " is after its end " + Bytes(end)
                    : "range is empty: start and end are both at " + Bytes(end));
  }
  plan.start_bytes = RoundDown(options.start_bytes, sector);
  plan.end_bytes = end == size ? size : RoundUp(end, sector);
  if (plan.start_bytes != options.start_bytes) {
    plan.notes.push_back("range start rounded down to " + Bytes(plan.start_bytes) +
                         " (a multiple of the " + std::to_string(sector) + "-byte sector)");
  }
  if (plan.end_bytes != end) {
    plan.notes.push_back("range end rounded up to " + Bytes(plan.end_bytes) + " (a multiple of the " +
                         std::to_string(sector) + "-byte sector)");
  }
  const std::uint64_t range = plan.end_bytes - plan.start_bytes;

  if (options.chunk_bytes != 0) {
    plan.chunk_bytes = RoundToSector(options.chunk_bytes, sector, "chunk size", plan.notes);
  }
  if (options.block_bytes != 0) {
    plan.block_bytes = RoundToSector(options.block_bytes, sector, "block size", plan.notes);
    if (plan.block_bytes > range) {
      throw Error("block size " + FormatBytes(plan.block_bytes) + " is larger than " +
                  (range == size ? "the device (" : "the range (") + FormatBytes(range) + ")");
    }
  } else {
    const std::uint64_t slots = kDefaultBlocks * (options.quick ? kQuickSkip : 1);
    const std::uint64_t step = plan.chunk_bytes != 0 ? plan.chunk_bytes : kDefaultChunkBytes;
    // Rounded down to whole chunks (or sectors), so there are at least
    // `slots` blocks and at most ~25 % more (a 4.7 GB DVD: 4 MiB blocks, 1121).
    std::uint64_t block = range / slots;
    block = block >= step ? RoundDown(block, step) : std::max<std::uint64_t>(sector, RoundDown(block, sector));
    plan.block_bytes = std::min(block, range);  // range is a whole number of sectors
  }
  if (plan.chunk_bytes == 0) plan.chunk_bytes = std::min(kDefaultChunkBytes, plan.block_bytes);
  if (plan.chunk_bytes > plan.block_bytes) {
    throw Error("chunk size " + FormatBytes(plan.chunk_bytes) + " is larger than the block size " +
                FormatBytes(plan.block_bytes));
  }
  plan.passes = options.passes;
  plan.skip = options.quick ? kQuickSkip : options.skip;
  plan.quick = options.quick;
  plan.warmup = options.warmup;
  const std::uint64_t slots = (range + plan.block_bytes - 1) / plan.block_bytes;
  plan.block_count = (slots + plan.skip - 1) / plan.skip;
  return plan;
}

SweepResult RunSweep(Device& device, const RunInfo& run, Clock& clock, SampleSink& sink,
                     const std::atomic<bool>* stop_requested) {
  const SweepPlan& plan = run.plan;
  const std::uint32_t passes = plan.passes;
  const std::size_t alignment = std::max<std::size_t>(4096, device.info().sector_bytes);
  AlignedBuffer buffer(plan.chunk_bytes, alignment);
  // Per-block rates of every pass (MB/s), block-major: the only per-block
  // history kept: 20 M blocks x 1 pass is 160 MB.
  std::vector<double> rates(plan.block_count * passes, 0.0);

  SweepResult result;
  const auto stopping = [&] {
    return stop_requested != nullptr && stop_requested->load(std::memory_order_relaxed);
  };
  const auto fail = [&](std::uint64_t offset, std::error_code ec) {
    result.status = SweepStatus::kReadError;
    result.error_offset_bytes = offset;
    result.error = ec;
  };

  sink.OnStart(run);
  const auto wall_start = clock.Now();
  const auto cpu_start = clock.ProcessCpuTime();
  const auto storage_start = clock.StorageReadBytes();
  const auto system_start = clock.SystemCpuTicks();

  if (plan.warmup) {
    // Untimed: lets a disk spin up and seek, an optical drive reach speed.
    const std::uint64_t n = std::min(plan.chunk_bytes, plan.BlockLength(0));
    if (auto ec = device.ReadAt(plan.BlockOffset(0), buffer.span(n))) fail(plan.BlockOffset(0), ec);
  }

  std::uint32_t pass = 0;
  std::uint64_t block = 0;  // the first block without a sample in `pass`
  std::uint64_t emitted = 0;
  const auto emit_block = [&](std::uint64_t i, std::uint32_t count) {
    std::array<double, 64> small{};
    std::vector<double> large;
    std::span<double> values;
    if (count <= small.size()) {
      values = std::span<double>(small.data(), count);
    } else {
      large.resize(count);
      values = large;
    }
    for (std::uint32_t p = 0; p < count; ++p) values[p] = rates[i * passes + p];
    const RateStats s = Summarize(values);
    BlockResult b;
    b.index = i;
    b.offset_bytes = plan.BlockOffset(i);
    b.length_bytes = plan.BlockLength(i);
    b.passes = s.count;
    b.mb_per_s = s.median;
    b.mean_mb_per_s = s.mean;
    b.min_mb_per_s = s.min;
    b.max_mb_per_s = s.max;
    b.stddev_mb_per_s = s.stddev;
    b.seconds = s.median > 0 ? static_cast<double>(b.length_bytes) / (s.median * kMB) : 0;
    if (result.blocks_measured == 0 || b.mb_per_s < result.min_mb_per_s) result.min_mb_per_s = b.mb_per_s;
    if (result.blocks_measured == 0 || b.mb_per_s > result.max_mb_per_s) result.max_mb_per_s = b.mb_per_s;
    ++result.blocks_measured;
    sink.OnBlock(b);
  };

  for (; pass < passes && result.status == SweepStatus::kComplete; ++pass) {
    (void)device.PreparePass();  // advisory (page-cache drop); a failure is not a read error
    PassSummary summary;
    summary.pass = pass;
    for (block = 0; block < plan.block_count; ++block) {
      if (stopping()) {
        result.status = SweepStatus::kInterrupted;
        break;
      }
      const std::uint64_t offset = plan.BlockOffset(block);
      const std::uint64_t length = plan.BlockLength(block);
      const auto t0 = clock.Now();
      bool whole = true;
      for (std::uint64_t pos = offset; pos < offset + length; pos += plan.chunk_bytes) {
        const std::uint64_t n = std::min(plan.chunk_bytes, offset + length - pos);
        if (auto ec = device.ReadAt(pos, buffer.span(n))) {
          fail(pos, ec);
          whole = false;
          break;
        }
        if (stopping()) {
          result.status = SweepStatus::kInterrupted;
          whole = false;
          break;
        }
      }
      if (!whole) break;  // a block cut short is no sample
      const auto elapsed = clock.Now() - t0;
      rates[block * passes + pass] = MbPerS(length, elapsed);
      summary.bytes += length;
      summary.read_time += elapsed;
      sink.OnSample({pass, block, offset, length, elapsed, t0});
      if (pass + 1 == passes) emit_block(block, passes);
    }
    summary.complete = block == plan.block_count;
    summary.mb_per_s = MbPerS(summary.bytes, summary.read_time);
    result.bytes_read += summary.bytes;
    result.read_time += summary.read_time;
    if (summary.bytes > 0 || summary.complete) {
      result.passes.push_back(summary);
      sink.OnPassDone(summary);
    }
    emitted = pass + 1 == passes ? block : 0;
    if (!summary.complete) break;
  }
  if (result.status != SweepStatus::kComplete) {
    // Stopped early in `pass` at `block`: blocks before it have pass+1
    // samples, the rest have pass samples. Report every block measured at
    // least once, in order, each once.
    for (std::uint64_t i = emitted; i < plan.block_count; ++i) {
      const std::uint32_t count = i < block ? pass + 1 : pass;
      if (count > 0) emit_block(i, count);
    }
  }

  const auto wall = clock.Now() - wall_start;
  result.wall_seconds = static_cast<double>(wall.count()) * 1e-9;
  result.avg_mb_per_s = MbPerS(result.bytes_read, result.read_time);
  const auto cpu = clock.ProcessCpuTime() - cpu_start;
  result.cpu_percent = wall.count() > 0 ? 100.0 * static_cast<double>(cpu.count()) /
                                              static_cast<double>(wall.count())
                                        : 0;
  result.system_busy_percent = SystemBusyPercent(system_start, clock.SystemCpuTicks());
  const auto storage_end = clock.StorageReadBytes();
  if (storage_start && storage_end) result.storage_read_bytes = *storage_end - *storage_start;
  sink.OnFinish(result);
  return result;
}

}  // namespace zcav
