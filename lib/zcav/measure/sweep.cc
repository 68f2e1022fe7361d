#include "zcav/measure/sweep.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include <cassert>
#include <optional>

#include "zcav/base/aligned_buffer.h"
#include "zcav/measure/resume.h"
#include "zcav/base/error.h"
#include "zcav/base/stats.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

// Default number of blocks over the range: enough points for a useful curve
// on a 700 MB CD and on a 20 TB disk alike.
constexpr std::uint64_t kDefaultBlocks = 1000;
// Quick mode reads every kQuickSkip-th of kDefaultBlocks*kQuickSkip slots.
constexpr std::uint32_t kQuickSkip = 10;
constexpr std::uint64_t kDefaultChunkBytes = kMiB;

std::string Bytes(std::uint64_t v) { return std::to_string(v) + " bytes"; }
// "64 MiB", "512 KiB" or "1000 bytes": the shortest exact binary spelling.
std::string Binary(std::uint64_t v) {
  if (v != 0 && v % kMiB == 0) return std::to_string(v / kMiB) + " MiB";
  if (v != 0 && v % 1024 == 0) return std::to_string(v / 1024) + " KiB";
  return Bytes(v);
}


// Bisection budget per failing chunk: a failing read can take a real drive
// seconds (its own retries), so a chunk that is unreadable throughout must
// not cost minutes. The two ends of the bad range in a 1 MiB chunk of 512 B
// sectors take at most 2 x 12 reads.
constexpr int kBisectReads = 72;
// Of which at most this many look for readable runs inside a bad range
// whose two ends are already known (a long bad region would use them all).
constexpr int kInteriorReads = 48;
constexpr std::chrono::seconds kBisectTime{60};

// A chunk slower than this is never "slow" by itself: blk-throttle holds
// reads for up to ~100 ms, a seek plus a rotation take tens of ms, and
// a reallocating disk takes 0.5 s and more.
constexpr std::chrono::milliseconds kSlowFloor{250};
// Chunks remembered for the local median.
constexpr std::size_t kSlowWindow = 32;
// Chunks needed before a median is trusted.
constexpr std::size_t kSlowWarmup = 8;
// The median is recomputed after this many new chunks, not after every one
// (it was 70 % of a simulated sweep's time); a quarter of the window moves
// it little.
constexpr std::size_t kSlowRefresh = 8;

bool IsGone(const std::error_code& ec) {
  return ec && ec.category() == std::system_category() &&
         (ec.value() == ENODEV || ec.value() == ENXIO || ec.value() == ENOMEDIUM ||
          ec.value() == ENOTCONN || ec.value() == ESTALE);
}

// Bytes of [offset, offset+length) inside the (sorted, disjoint) ranges.
std::uint64_t OverlapBytes(const std::vector<UnreadableRange>& ranges, std::uint64_t offset,
                           std::uint64_t length) {
  std::uint64_t bytes = 0;
  for (const UnreadableRange& r : ranges) {
    const std::uint64_t lo = std::max(offset, r.offset_bytes);
    const std::uint64_t hi = std::min(offset + length, r.offset_bytes + r.length_bytes);
    if (hi > lo) bytes += hi - lo;
  }
  return bytes;
}

// Merges `range` into the sorted, disjoint `ranges` (adjacent ones join).
// Returns false when it was already wholly inside them (nothing new).
bool AddUnreadable(std::vector<UnreadableRange>& ranges, const UnreadableRange& range) {
  if (OverlapBytes(ranges, range.offset_bytes, range.length_bytes) == range.length_bytes) return false;
  ranges.push_back(range);
  std::sort(ranges.begin(), ranges.end(),
            [](const auto& a, const auto& b) { return a.offset_bytes < b.offset_bytes; });
  std::vector<UnreadableRange> merged;
  for (const UnreadableRange& r : ranges) {
    if (!merged.empty() &&
        r.offset_bytes <= merged.back().offset_bytes + merged.back().length_bytes) {
      UnreadableRange& m = merged.back();
      const std::uint64_t end = std::max(m.offset_bytes + m.length_bytes, r.offset_bytes + r.length_bytes);
      m.length_bytes = end - m.offset_bytes;
      m.bounded_by_budget = m.bounded_by_budget || r.bounded_by_budget;
    } else {
      merged.push_back(r);
    }
  }
  ranges = std::move(merged);
  return true;
}

// Bounds the unreadable sectors of a chunk that failed twice. First the
// ends, exact to one sector: the first unreadable sector by a binary search
// over prefixes ("does [lo, lo + k sectors) read?" is monotone in k) and the
// last by one over suffixes, each trying the single edge sector first (a
// chunk inside a long bad region costs 2 reads). Then, with what is left of
// the budget (at most kInteriorReads reads), the interior is halved
// recursively to find readable runs inside it (unless the chunk is bad at
// both edges: see below): a piece that reads is good,
// a failing piece is halved again down to one sector. Pieces left unresolved
// count as unreadable and set bounded_by_budget (readable sectors may lie
// among them); the two ends stay exact unless the budget ran out before
// them, in which case the bound is taken on the safe side.
struct Bisector {
  Device& device;
  AlignedBuffer& buffer;
  Clock& clock;
  std::uint32_t sector;
  std::uint32_t pass;
  int reads_left;
  std::chrono::nanoseconds deadline;
  std::vector<UnreadableRange> found;
  std::error_code gone;   // set when the device went away meanwhile
  std::error_code last;   // the last failure, for its errno

  bool Budget() const { return reads_left > 0 && clock.Now() < deadline && !gone; }

  // Reads [offset, offset+length); true when it read.
  bool Reads(std::uint64_t offset, std::uint64_t length) {
    --reads_left;
    const std::error_code ec = device.ReadAt(offset, buffer.span(length));
    if (!ec) return true;
    if (IsGone(ec)) gone = ec;
    last = ec;
    return false;
  }

  // [lo, lo+length) failed with `ec`. Returns an error only when the device
  // went away meanwhile.
  std::error_code Run(std::uint64_t lo, std::uint64_t length, std::error_code ec) {
    last = ec;
    const std::uint64_t n = length / sector;  // sectors
    const std::uint64_t hi = lo + length;
    // First unreadable sector: prefix of `good` sectors reads, of `bad` fails.
    std::uint64_t good = 0, bad = n;
    bool exact = true;
    if (n > 1 && Budget()) {
      if (Reads(lo, sector)) {
        good = 1;
        while (bad - good > 1 && Budget()) {
          const std::uint64_t mid = good + (bad - good) / 2;
          (Reads(lo, mid * sector) ? good : bad) = mid;
        }
      } else {
        bad = 1;
      }
    }
    if (gone) return gone;
    if (bad - good > 1) exact = false;
    const std::uint64_t first_bad = lo + good * sector;
    // Last unreadable sector, in [first_bad, hi): a suffix of `good` sectors
    // reads, one of `bad` sectors fails (the one from first_bad on is known
    // to fail when the search above finished).
    std::uint64_t sgood = 0, sbad = (hi - first_bad) / sector;
    if (sbad > 1 && Budget()) {
      if (Reads(hi - sector, sector)) {
        sgood = 1;
        while (sbad - sgood > 1 && Budget()) {
          const std::uint64_t mid = sgood + (sbad - sgood) / 2;
          (Reads(hi - mid * sector, mid * sector) ? sgood : sbad) = mid;
        }
      } else {
        sbad = 1;
      }
    }
    if (gone) return gone;
    if (sbad - sgood > 1) exact = false;
    const std::uint64_t last_end = hi - sgood * sector;
    // The interior between the two edge sectors.
    const std::uint64_t inner_lo = first_bad + sector;
    const std::uint64_t inner_hi = last_end > inner_lo + sector ? last_end - sector : inner_lo;
    Bad(first_bad, std::min<std::uint64_t>(sector, last_end - first_bad), !exact);
    // A chunk unreadable at both of its edges is most likely inside a long
    // bad region: its interior is not probed (that would cost up to
    // kInteriorReads failing reads per chunk); it counts as unreadable,
    // flagged as bounded.
    const bool whole = first_bad == lo && last_end == hi;
    if (inner_hi > inner_lo && whole) {
      Bad(inner_lo, inner_hi - inner_lo, true);
    } else if (inner_hi > inner_lo) {
      int interior_budget = std::min(reads_left, kInteriorReads);
      Interior(inner_lo, inner_hi - inner_lo, interior_budget);
      if (gone) return gone;
    }
    if (last_end > first_bad + sector) Bad(last_end - sector, sector, !exact);
    return {};
  }

  void Interior(std::uint64_t lo, std::uint64_t length, int& budget) {
    if (length <= sector) {
      Bad(lo, length, false);
      return;
    }
    const std::uint64_t half = std::max<std::uint64_t>(sector, RoundDown(length / 2, sector));
    const std::uint64_t pieces[2][2] = {{lo, half}, {lo + half, length - half}};
    for (const auto& piece : pieces) {
      if (budget <= 0 || clock.Now() >= deadline || gone) {
        Bad(piece[0], piece[1], true);
        continue;
      }
      --budget;
      if (Reads(piece[0], piece[1])) continue;
      if (gone) return;
      Interior(piece[0], piece[1], budget);
    }
  }

  void Bad(std::uint64_t offset, std::uint64_t length, bool budget) {
    if (length == 0) return;
    if (!found.empty() && found.back().offset_bytes + found.back().length_bytes == offset) {
      found.back().length_bytes += length;
      found.back().bounded_by_budget = found.back().bounded_by_budget || budget;
      return;
    }
    found.push_back({offset, length, last.value(), pass, budget});
  }
};

// Finds slow chunks: slower than slow_factor times the local median rate
// (of the last kSlowWindow chunks that were not slow), and slower than
// kSlowFloor. Adjacent slow chunks make one region.
class SlowDetector {
 public:
  explicit SlowDetector(double factor) : factor_(factor) {}

  void Restart() {
    count_ = 0;
    median_at_ = 0;
  }

  // A chunk read cleanly in `elapsed`. Returns a region that ended.
  // `elapsed` is the chunk's time; `wait` the interval it was found in
  // (longer when it finished together with others: the floor applies to
  // the wait, as a stall delays every read in flight).
  std::optional<SlowRegion> Add(std::uint64_t offset, std::uint64_t length,
                                std::chrono::nanoseconds elapsed, std::chrono::nanoseconds wait,
                                std::uint32_t pass) {
    if (factor_ <= 0 || length == 0) return std::nullopt;
    const double ns = static_cast<double>(elapsed.count());
    const double ns_per_byte = ns / static_cast<double>(length);
    if (count_ >= kSlowWarmup) {
      if (median_at_ == 0 || count_ - median_at_ >= kSlowRefresh) {
        std::array<double, kSlowWindow> sorted{};
        const std::size_t k = std::min(count_, kSlowWindow);
        std::copy_n(window_.begin(), k, sorted.begin());
        std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(k / 2),
                         sorted.begin() + static_cast<std::ptrdiff_t>(k));
        median_ns_per_byte_ = sorted[k / 2];
        median_at_ = count_;
      }
      const double expected_ns = median_ns_per_byte_ * static_cast<double>(length);
      if (ns > factor_ * expected_ns && wait >= kSlowFloor) {
        std::optional<SlowRegion> ended;
        if (open_ && open_->offset_bytes + open_->length_bytes != offset) ended = Close();
        if (!open_) open_ = SlowRegion{offset, 0, pass, 0, 0};
        open_->length_bytes += length;
        open_->ms += ns / 1e6;
        open_->expected_ms += expected_ns / 1e6;
        return ended;
      }
    }
    window_[count_ % kSlowWindow] = ns_per_byte;
    ++count_;
    return Close();
  }

  std::optional<SlowRegion> Close() {
    std::optional<SlowRegion> ended = open_;
    open_.reset();
    return ended;
  }

 private:
  double factor_;
  std::array<double, kSlowWindow> window_{};
  std::size_t count_ = 0;
  // The window's median, as of count_ == median_at_ (0: none yet).
  double median_ns_per_byte_ = 0;
  std::size_t median_at_ = 0;
  std::optional<SlowRegion> open_;
};

std::uint64_t RoundToSector(std::uint64_t value, std::uint32_t sector, const char* what,
                            std::vector<std::string>& notes) {
  const std::uint64_t rounded = std::max<std::uint64_t>(sector, RoundUp(value, sector));
  if (rounded != value) {
    notes.push_back(std::string(what) + " " + Bytes(value) + " rounded up to " + Bytes(rounded) +
                    " (a multiple of the " + std::to_string(sector) + "-byte sector)");
  }
  return rounded;
}

// The engine and depth of `plan` (see PlanSweep).
void ChooseEngine(const DeviceInfo& device, const SweepOptions& options, SweepPlan& plan) {
  const std::uint32_t asked = options.queue_depth;
  if (options.queue_depth > kMaxQueueDepth) {
    throw Error("invalid queue depth " + std::to_string(asked) + ": at most " +
                std::to_string(kMaxQueueDepth));
  }
  const auto one_at_a_time = [&](std::string engine, const std::string& why) {
    plan.engine = std::move(engine);
    plan.queue_depth = 1;
    if (asked > 1) {
      plan.notes.push_back("queue depth " + std::to_string(asked) + " ignored: " + why);
    }
  };
  if (options.write) {
    if (options.engine == ReadEngineChoice::kIoUring) {
      throw Error("--engine io_uring is for reading; a write sweep writes with pwrite");
    }
    return one_at_a_time("pwrite", "a write sweep writes one chunk at a time");
  }
  if (device.read_engine == "sim") {
    if (options.engine == ReadEngineChoice::kIoUring) {
      throw Error("--engine io_uring needs a real device; " + device.path + " is simulated");
    }
    return one_at_a_time("sim", "a simulated device reads one chunk at a time");
  }
  if (options.engine == ReadEngineChoice::kPread) {
    if (asked > 1) {
      throw Error("--engine pread reads one chunk at a time: --queue-depth " +
                  std::to_string(asked) + " needs io_uring");
    }
    return one_at_a_time("pread", "");
  }
  if (device.read_engine != "io_uring") {
    if (options.engine == ReadEngineChoice::kIoUring) {
      throw Error("--engine io_uring: io_uring is not available for " + device.path +
                  " (see the note on the device)");
    }
    return one_at_a_time("pread", "io_uring is unavailable");
  }
  plan.engine = "io_uring";
  plan.queue_depth = asked != 0 ? asked : std::max<std::uint32_t>(1, device.default_queue_depth);
}

std::string FormatFixed1(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", v);
  return text;
}

// The device's preferred read, a power of two of at least 1 MiB.
std::uint64_t PreferredChunk(const DeviceInfo& device) {
  return std::bit_floor(std::max(device.default_chunk_bytes, kDefaultChunkBytes));
}

// The default block size of `plan` over `range` bytes (engine, depth and any
// given chunk already set). The largest of:
//  - range / kDefaultBlocks: about 1000 points, enough for a 700 MB CD and a
//    20 TB disk alike (the figure classic zcav users know);
//  - the bytes in flight (depth x chunk, with more than one read in flight):
//    the queue is drained per block (BlockTimingOf), so a block's time is
//    its own, never shared with the next block's reads;
//  - kTargetBlockTime at options.expected_mb_per_s: a block read in a few ms
//    is timed to the jitter of its few reads and of the host (a FUSE server,
//    a virtual disk's host, a blkio throttle's slices), not to the media;
// but never more than range / kMinDefaultBlocks, so that a small or very
// fast device still gives a curve (the depth then gives way: PlanSweep).
// In quick mode each of these counts slots (every kQuickSkip-th is read).
// Rounded down to whole chunks (the device's preferred read, or the given
// chunk) or, below that, to whole MiB or sectors.
std::uint64_t DefaultBlockBytes(const DeviceInfo& device, const SweepOptions& options,
                                const SweepPlan& plan, std::uint64_t range) {
  const std::uint64_t per = options.quick ? kQuickSkip : 1;
  const std::uint64_t chunk = plan.chunk_bytes != 0 ? plan.chunk_bytes : PreferredChunk(device);
  std::uint64_t block = range / (kDefaultBlocks * per);
  if (plan.queue_depth > 1) block = std::max(block, std::uint64_t{plan.queue_depth} * chunk);
  if (options.expected_mb_per_s > 0) {
    const double seconds = std::chrono::duration<double>(kTargetBlockTime).count();
    const double bytes = options.expected_mb_per_s * kMB * seconds;
    block = std::max(block, static_cast<std::uint64_t>(std::min(bytes, static_cast<double>(range))));
  }
  block = std::min(block, range / (kMinDefaultBlocks * per));
  const std::uint32_t sector = device.sector_bytes;
  const std::uint64_t step = block >= chunk ? chunk : block >= kMiB ? kMiB : sector;
  block = std::max<std::uint64_t>(sector, RoundDown(block, step));
  return std::min(block, range);  // range is a whole number of sectors
}

}  // namespace

BlockTiming BlockTimingOf(const SweepPlan& plan) {
  BlockTiming t;
  t.bytes_in_flight = std::uint64_t{std::max<std::uint32_t>(1, plan.queue_depth)} * plan.chunk_bytes;
  t.blocks_spanned = plan.block_bytes > 0 ? static_cast<double>(t.bytes_in_flight) /
                                                static_cast<double>(plan.block_bytes)
                                          : 0;
  t.drained_per_block = t.bytes_in_flight <= plan.block_bytes;
  return t;
}

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
  plan.passes = options.passes;
  plan.skip = options.quick ? kQuickSkip : options.skip;
  plan.quick = options.quick;
  plan.warmup = options.warmup;
  if (!(options.slow_factor == 0 || options.slow_factor > 1) || !std::isfinite(options.slow_factor)) {
    throw Error("invalid slow factor: must be above 1 (or 0 to turn slow-region detection off)");
  }
  if (!(options.expected_mb_per_s >= 0) || !std::isfinite(options.expected_mb_per_s)) {
    throw Error("invalid expected rate: must be 0 (not known) or above");
  }
  plan.stop_on_error = options.stop_on_error;
  plan.write = options.write;
  plan.slow_factor = options.slow_factor;
  ChooseEngine(device, options, plan);
  if (options.block_bytes != 0) {
    plan.block_bytes = RoundToSector(options.block_bytes, sector, "block size", plan.notes);
    if (plan.block_bytes > range) {
      throw Error("block size " + FormatBytes(plan.block_bytes) + " is larger than " +
                  (range == size ? "the device (" : "the range (") + FormatBytes(range) + ")");
    }
  } else {
    plan.block_bytes = DefaultBlockBytes(device, options, plan, range);
    const std::uint64_t per = options.quick ? kQuickSkip : 1;
    const std::uint64_t blocks = (range + plan.block_bytes - 1) / plan.block_bytes / per;
    if (blocks < kDefaultBlocks * 9 / 10) {
      const std::string each =
          options.expected_mb_per_s > 0
              ? ", about " +
                    std::to_string(std::llround(static_cast<double>(plan.block_bytes) /
                                                (options.expected_mb_per_s * 1e3))) +
                    " ms each at the start's " + FormatFixed1(options.expected_mb_per_s) + " MB/s"
              : "";
      plan.notes.push_back("default block size " + Binary(plan.block_bytes) + " (" +
                           std::to_string(blocks) + " blocks" + each +
                           "): each block is timed on its own, the reads in flight drained at "
                           "its end; --block-size for more, shorter blocks");
    }
  }
  if (plan.chunk_bytes == 0) {
    // The device's preferred read if it divides the block (so no block ends
    // in a short read), else the largest power of two below it that does;
    // blocks of at least 1 MiB are whole MiB, so 1 MiB always does.
    plan.chunk_bytes = std::min(kDefaultChunkBytes, plan.block_bytes);
    for (std::uint64_t c = PreferredChunk(device); c > kDefaultChunkBytes; c /= 2) {
      if (plan.block_bytes % c == 0) {
        plan.chunk_bytes = c;
        break;
      }
    }
  }
  if (plan.chunk_bytes > plan.block_bytes) {
    throw Error("chunk size " + FormatBytes(plan.chunk_bytes) + " is larger than the block size " +
                FormatBytes(plan.block_bytes));
  }
  // A default block is never smaller than the default bytes in flight
  // (DefaultBlockBytes), except on a range too small for kMinDefaultBlocks
  // such blocks: there the default depth gives way, so that the default shape
  // always drains per block.
  if (options.block_bytes == 0 && options.queue_depth == 0 &&
      std::uint64_t{plan.queue_depth} * plan.chunk_bytes > plan.block_bytes) {
    plan.queue_depth = static_cast<std::uint32_t>(
        std::max<std::uint64_t>(1, plan.block_bytes / plan.chunk_bytes));
  }
  // Completions of reads in flight can come in bursts (a virtual disk's
  // host, FUSE, a controller's cache, a blkio throttle's time slices): when
  // more than a block is in flight the queue is not drained per block
  // (BlockTimingOf), a burst's time is shared by its bytes, and a block's
  // rate is only as fine as the bytes completed together, up to the bytes in
  // flight (the average stays exact). Seen: on a virtio disk at 64 MiB in
  // flight, 4 MiB blocks spread 0.3x-1.6x of their median (1st-99th
  // percentile), 64 MiB blocks 0.8x-1.2x; on the zoned FUSE fixture at 64
  // reads of 1 MiB, zone edges blurred over 13 blocks of 4 MiB; on a loop
  // behind a 40 MB/s blkio throttle, 8 reads of 1 MiB in 1 MiB blocks read
  // 9.7-3519 MB/s.
  const BlockTiming timing = BlockTimingOf(plan);
  if (!plan.write && !timing.drained_per_block) {
    const std::uint64_t in_flight = timing.bytes_in_flight;
    plan.notes.push_back(std::to_string(plan.queue_depth) + " reads of " + Binary(plan.chunk_bytes) +
                         " in flight (" + Binary(in_flight) + ") span " +
                         std::to_string((in_flight + plan.block_bytes - 1) / plan.block_bytes) +
                         " blocks of " + Binary(plan.block_bytes) +
                         ": a device that completes reads in bursts blurs the per-block rates "
                         "over up to " + Binary(in_flight) + " (the average is exact); --block-size " +
                         std::to_string((in_flight + kMiB - 1) / kMiB) +
                         "M or more, or --queue-depth 1, for a sharp curve");
  }
  const std::uint64_t slots = (range + plan.block_bytes - 1) / plan.block_bytes;
  plan.block_count = (slots + plan.skip - 1) / plan.skip;
  return plan;
}

SweepResult RunSweep(Device& device, const RunInfo& run, Clock& clock, SampleSink& sink,
                     const std::atomic<bool>* stop_requested, const ResumePoint* resume) {
  const SweepPlan& plan = run.plan;
  const std::uint32_t passes = plan.passes;
  const std::uint32_t sector = device.info().sector_bytes;
  const std::size_t alignment = std::max<std::size_t>(4096, sector);
  // For the warm-up, retries and bisection (one read at a time).
  AlignedBuffer buffer(plan.chunk_bytes, alignment);
  if (plan.write) FillWritePattern(buffer.span(plan.chunk_bytes));  // write mode never reads into it
  const std::unique_ptr<ReadQueue> queue =
      plan.write ? MakeSyncQueue(device, plan.chunk_bytes, true)
                 : plan.engine == "io_uring" ? device.OpenReadQueue(plan.queue_depth, plan.chunk_bytes)
                                             : MakeSyncQueue(device, plan.chunk_bytes, false);
  if (plan.write) FillWritePattern(queue->Buffer(0));
  // Per-block rates of every pass (MB/s; NaN = no clean read in that pass),
  // block-major: the only per-block history kept. Float (7 significant
  // digits, far finer than any timing): 20 M blocks x 1 pass is 80 MB.
  std::vector<float> rates(plan.block_count * passes, std::numeric_limits<float>::quiet_NaN());

  SweepResult result;
  const auto stopping = [&] {
    return stop_requested != nullptr && stop_requested->load(std::memory_order_relaxed);
  };
  const auto fail = [&](SweepStatus status, std::uint64_t offset, std::error_code ec) {
    result.status = status;
    result.error_offset_bytes = offset;
    result.error = ec;
  };
  SlowDetector slow(plan.slow_factor);
  const auto report_slow = [&](const std::optional<SlowRegion>& region) {
    if (!region) return;
    result.slow_regions.push_back(*region);
    sink.OnSlowRegion(*region);
  };

  sink.OnStart(run);
  const auto wall_start = clock.Now();
  const auto cpu_start = clock.ProcessCpuTime();
  const auto storage_start = clock.StorageReadBytes();
  const auto system_start = clock.SystemCpuTicks();

  // Where reading starts: the beginning, or where a partial run stopped.
  const std::uint32_t start_pass = resume != nullptr ? resume->pass : 0;
  const std::uint64_t start_block = resume != nullptr ? resume->block : 0;
  assert(start_pass < passes && start_block < plan.block_count);

  if (plan.warmup) {
    // Untimed: lets a disk spin up and seek, an optical drive reach speed. A
    // failure here is left for the timed read of the same chunk to handle.
    const std::uint64_t at = plan.BlockOffset(start_block);
    const std::uint64_t n = std::min(plan.chunk_bytes, plan.BlockLength(start_block));
    (void)(plan.write ? device.WriteAt(at, buffer.span(n)) : device.ReadAt(at, buffer.span(n)));
  }

  // The partial run's findings and samples, replayed.
  std::vector<PassSummary> prior(passes);
  if (resume != nullptr) {
    for (const UnreadableRange& u : resume->unreadable) {
      if (AddUnreadable(result.unreadable, u)) sink.OnUnreadable(u);
    }
    for (const SlowRegion& r : resume->slow_regions) {
      result.slow_regions.push_back(r);
      sink.OnSlowRegion(r);
    }
    for (const Sample& x : resume->samples) {
      rates[x.block_index * passes + x.pass] = static_cast<float>(MbPerS(x.length_bytes, x.elapsed));
      prior[x.pass].bytes += x.length_bytes;
      prior[x.pass].read_time += x.elapsed;
      sink.OnSample(x);
    }
  }

  std::uint32_t pass = start_pass;
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
    std::size_t clean = 0;
    for (std::uint32_t p = 0; p < count; ++p) {
      const double r = rates[i * passes + p];
      if (!std::isnan(r)) values[clean++] = r;
    }
    BlockResult b;
    b.index = i;
    b.offset_bytes = plan.BlockOffset(i);
    b.length_bytes = plan.BlockLength(i);
    b.unreadable_bytes = OverlapBytes(result.unreadable, b.offset_bytes, b.length_bytes);
    if (clean > 0) {
      const RateStats s = Summarize(values.first(clean));
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
    } else if (b.unreadable_bytes == 0) {
      return;  // never read (cannot happen for a block that was attempted)
    }
    sink.OnBlock(b);
  };

  // A chunk whose read failed with `ec`: checks the device, retries once and
  // maps the unreadable sectors. Returns false when the sweep must end
  // (status set). `clean` becomes false when the chunk held unreadable data.
  const auto recover_chunk = [&](std::uint64_t pos, std::uint64_t n, std::error_code ec,
                                 bool& clean) {
    if (plan.write) {  // write mode: the first failing write ends the sweep
      fail(IsGone(ec) ? SweepStatus::kDeviceGone : SweepStatus::kWriteError, pos, ec);
      return false;
    }
    if (!IsGone(ec)) {
      if (const std::error_code gone = device.CheckPresent()) ec = gone;
    }
    if (IsGone(ec)) {
      fail(SweepStatus::kDeviceGone, pos, ec);
      return false;
    }
    if (plan.stop_on_error) {
      fail(SweepStatus::kReadError, pos, ec);
      return false;
    }
    ec = device.ReadAt(pos, buffer.span(n));  // one retry
    if (!ec) return true;
    if (IsGone(ec)) {
      fail(SweepStatus::kDeviceGone, pos, ec);
      return false;
    }
    clean = false;
    Bisector bisect{device, buffer, clock, sector, pass, kBisectReads,
                    clock.Now() + kBisectTime, {}, {}, {}};
    if (const std::error_code gone = bisect.Run(pos, n, ec)) {
      fail(SweepStatus::kDeviceGone, pos, gone);
      return false;
    }
    for (const UnreadableRange& range : bisect.found) {
      if (AddUnreadable(result.unreadable, range)) sink.OnUnreadable(range);
    }
    return true;
  };

  // Passes the partial run completed.
  for (std::uint32_t p = 0; p < start_pass; ++p) {
    PassSummary summary = prior[p];
    summary.pass = p;
    summary.complete = true;
    summary.mb_per_s = MbPerS(summary.bytes, summary.read_time);
    result.bytes_read += summary.bytes;
    result.read_time += summary.read_time;
    result.passes.push_back(summary);
    sink.OnPassDone(summary);
  }
  // In the last pass, the blocks the partial run finished are final.
  if (start_pass + 1 == passes) {
    for (std::uint64_t i = 0; i < start_block; ++i) emit_block(i, passes);
  }

  // The read pipeline. Chunks are submitted in offset order while a slot is
  // free; completions come back in any order, in batches (reads the queue
  // reports finished together). When the bytes in flight fit in a block
  // (timing.drained_per_block), a block's chunks are only submitted once the
  // block before it is finished, and its time is its first submission to
  // its last completion: exact whatever the device's bursts. Otherwise
  // (a forced shape) chunks are submitted across block boundaries and time
  // is attributed per batch: the interval since the previous batch (or
  // since the earliest submission in the batch, when the device was idle) is
  // shared among the batch's chunks by their bytes, and a block's time is
  // the sum of its chunks' shares: consecutive blocks' times add up to the
  // pass's busy time. Blocks are finished (timed, reported) in order once
  // all their chunks are in. A failed chunk stops submission
  // until the queue has drained; it is then retried and mapped
  // (recover_chunk), its time going to its block. Everything is sized once:
  // nothing is allocated per chunk.
  using Nanos = std::chrono::nanoseconds;
  struct ChunkInFlight {
    std::uint64_t block = 0;
    std::uint64_t offset_bytes = 0;
    std::uint64_t length_bytes = 0;
    Nanos submitted{0};
    std::error_code error;
  };
  struct BlockInFlight {
    std::uint64_t chunks_left = 0;
    Nanos first_submit{0};
    Nanos busy{0};       // the shares of its chunks
    Nanos last_done{0};  // its last chunk's completion
    bool clean = true;
  };
  const bool drain = BlockTimingOf(plan).drained_per_block;
  const std::uint32_t depth = queue->depth();
  // Unfinished blocks at most: a slow front block holds back the others.
  const std::uint64_t window = depth + 2;
  std::vector<ChunkInFlight> slots(depth);
  std::vector<std::uint32_t> free_slots;
  free_slots.reserve(depth);
  std::vector<ChunkInFlight> failures;
  failures.reserve(depth);
  std::vector<BlockInFlight> blocks(window);
  std::vector<ReadQueue::Completion> batch(depth);

  for (; pass < passes && result.status == SweepStatus::kComplete; ++pass) {
    const bool resuming = pass == start_pass && start_block > 0;
    // Also before a resumed pass: the warm-up moved the head, as between passes.
    (void)device.PreparePass();  // advisory (page-cache drop); a failure is not a read error
    slow.Restart();
    PassSummary summary = prior[pass];
    summary.pass = pass;
    free_slots.clear();
    for (std::uint32_t i = depth; i-- > 0;) free_slots.push_back(i);
    std::uint64_t next_block = resuming ? start_block : 0;  // being submitted
    std::uint64_t next_pos = next_block < plan.block_count ? plan.BlockOffset(next_block) : 0;
    block = next_block;  // the first unfinished block
    std::uint32_t in_flight = 0;
    bool halt = false;         // no more submissions this pass
    Nanos last_completion{0};  // when the previous batch came in

    const auto finish_blocks = [&] {
      while (block < next_block || (block == next_block && next_pos > plan.BlockOffset(block))) {
        const BlockInFlight& b = blocks[block % window];
        if (b.chunks_left != 0) return;
        const std::uint64_t offset = plan.BlockOffset(block);
        const std::uint64_t length = plan.BlockLength(block);
        if (b.clean) {
          const Nanos elapsed = drain ? b.last_done - b.first_submit : b.busy;
          rates[block * passes + pass] = static_cast<float>(MbPerS(length, elapsed));
          summary.bytes += length;
          summary.read_time += elapsed;
          sink.OnSample({pass, block, offset, length, elapsed, b.first_submit});
        }
        if (pass + 1 == passes) emit_block(block, passes);
        ++block;
      }
    };
    // A chunk read (or recovered) cleanly in `share`, found at `at` in an
    // interval of `wait` (the floor of the slow test applies to the wait).
    const auto chunk_done = [&](const ChunkInFlight& c, Nanos share, Nanos wait, Nanos at) {
      BlockInFlight& b = blocks[c.block % window];
      --b.chunks_left;
      b.busy += share;
      b.last_done = std::max(b.last_done, at);
      report_slow(slow.Add(c.offset_bytes, c.length_bytes, share, wait, pass));
    };

    for (;;) {
      while (!halt && failures.empty() && in_flight < depth && next_block < plan.block_count &&
             next_block < block + window - 1 && (!drain || next_block == block)) {
        if (stopping()) {
          result.status = SweepStatus::kInterrupted;
          halt = true;
          break;
        }
        const std::uint64_t offset = plan.BlockOffset(next_block);
        const std::uint64_t end = offset + plan.BlockLength(next_block);
        const Nanos now = clock.Now();
        if (next_pos == offset) {
          blocks[next_block % window] = {(end - offset + plan.chunk_bytes - 1) / plan.chunk_bytes,
                                         now, Nanos{0}, now, true};
        }
        const std::uint64_t n = std::min(plan.chunk_bytes, end - next_pos);
        const std::uint32_t slot = free_slots.back();
        free_slots.pop_back();
        slots[slot] = {next_block, next_pos, n, now, {}};
        queue->Submit(slot, next_pos, n);
        ++in_flight;
        next_pos += n;
        if (next_pos == end && ++next_block < plan.block_count) next_pos = plan.BlockOffset(next_block);
      }
      if (in_flight == 0) {
        if (failures.empty()) break;  // the pass is read, or it stopped
        // The queue is empty: recover the failed chunks in offset order.
        std::sort(failures.begin(), failures.end(),
                  [](const auto& a, const auto& b) { return a.offset_bytes < b.offset_bytes; });
        for (const ChunkInFlight& f : failures) {
          const Nanos t0 = clock.Now();
          bool chunk_clean = true;
          if (!recover_chunk(f.offset_bytes, f.length_bytes, f.error, chunk_clean)) {
            halt = true;
            break;
          }
          const Nanos t = clock.Now();
          // Its failed read's time was its share of that batch.
          BlockInFlight& b = blocks[f.block % window];
          if (chunk_clean) {
            chunk_done(f, t - t0, t - t0, t);
          } else {
            --b.chunks_left;
            b.last_done = std::max(b.last_done, t);
            b.clean = false;
            report_slow(slow.Close());
          }
          last_completion = t;
        }
        failures.clear();
        if (halt) break;
        finish_blocks();
        if (stopping() && result.status == SweepStatus::kComplete) {
          result.status = SweepStatus::kInterrupted;
          halt = true;
        }
        continue;
      }
      const std::size_t got = queue->Wait(batch);
      const Nanos t = clock.Now();
      Nanos interval_start = t;
      std::uint64_t batch_bytes = 0;
      for (std::size_t i = 0; i < got; ++i) {
        const ChunkInFlight& c = slots[batch[i].slot];
        interval_start = std::min(interval_start, c.submitted);
        batch_bytes += c.length_bytes;
      }
      interval_start = std::max(interval_start, last_completion);
      last_completion = t;
      const Nanos wait = t - interval_start;
      for (std::size_t i = 0; i < got; ++i) {
        const ReadQueue::Completion& done = batch[i];
        --in_flight;
        free_slots.push_back(done.slot);
        ChunkInFlight& chunk = slots[done.slot];
        const Nanos share{static_cast<std::int64_t>(
            static_cast<double>(wait.count()) * static_cast<double>(chunk.length_bytes) /
            static_cast<double>(batch_bytes))};
        if (!done.error) {
          chunk_done(chunk, share, wait, t);
          continue;
        }
        // Handled once the queue is empty, lowest offset first: a device
        // that went away, or a failed write, ends the sweep there.
        chunk.error = done.error;
        failures.push_back(chunk);
        blocks[chunk.block % window].busy += share;
        blocks[chunk.block % window].last_done = t;
      }
      finish_blocks();
    }
    report_slow(slow.Close());
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
