#include "zcav/measure/sweep.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <vector>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"
#include "zcav/base/stats.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/device/write_stamp.h"
#include "zcav/measure/read_checks.h"
#include "zcav/measure/resume_point.h"

namespace zcav {
namespace {

// Default number of blocks over the range: enough points for a useful curve
// on a 700 MB CD and on a 20 TB disk alike.
constexpr std::uint64_t kDefaultBlocks = 1000;
// Quick mode reads every kQuickSkip-th of kDefaultBlocks*kQuickSkip slots.
constexpr std::uint32_t kQuickSkip = 10;
constexpr std::uint64_t kDefaultChunkBytes = kMiB;

std::string Bytes(std::uint64_t v) { return std::to_string(v) + " bytes"; }

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
// A write sweep's first pass is kept in at most this many parts for the
// sustained rate (RequestTimeline::StartPart): the write cache's end is
// found to 1/4096 of the range at worst, and a part takes under 100 bytes.
constexpr std::uint64_t kMaxParts = 4096;

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
  if (OverlapBytes(ranges, range.offset_bytes, range.length_bytes) == range.length_bytes)
    return false;
  ranges.push_back(range);
  std::sort(ranges.begin(), ranges.end(),
            [](const auto& a, const auto& b) { return a.offset_bytes < b.offset_bytes; });
  std::vector<UnreadableRange> merged;
  for (const UnreadableRange& r : ranges) {
    if (!merged.empty() &&
        r.offset_bytes <= merged.back().offset_bytes + merged.back().length_bytes) {
      UnreadableRange& m = merged.back();
      const std::uint64_t end =
          std::max(m.offset_bytes + m.length_bytes, r.offset_bytes + r.length_bytes);
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
  std::error_code gone;  // set when the device went away meanwhile
  std::error_code last;  // the last failure, for its errno

  bool Budget() const { return reads_left > 0 && clock.Now() < deadline && !gone; }

  // Reads [offset, offset+length); true when it read.
  bool Reads(std::uint64_t offset, std::uint64_t length) {
    --reads_left;
    const std::error_code ec = device.ReadAt(offset, buffer.span(length));
    if (!ec) return true;
    if (IsDeviceGone(ec)) gone = ec;
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
                    std::to_string(kMaxQueueDepth),
                ErrorKind::kBadInput);
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
      throw Error("--engine io_uring is for reading; a write sweep writes with pwrite",
                  ErrorKind::kBadInput);
    }
    return one_at_a_time("pwrite", "a write sweep writes one chunk at a time");
  }
  if (device.read_engine == "sim") {
    if (options.engine == ReadEngineChoice::kIoUring) {
      throw Error("--engine io_uring needs a real device; " + device.path + " is simulated",
                  ErrorKind::kBadInput);
    }
    return one_at_a_time("sim", "a simulated device reads one chunk at a time");
  }
  if (options.engine == ReadEngineChoice::kPread) {
    if (asked > 1) {
      throw Error("--engine pread reads one chunk at a time: --queue-depth " +
                      std::to_string(asked) + " needs io_uring",
                  ErrorKind::kBadInput);
    }
    return one_at_a_time("pread", "");
  }
  if (device.read_engine != "io_uring") {
    if (options.engine == ReadEngineChoice::kIoUring) {
      throw Error("--engine io_uring: io_uring is not available for " + device.path +
                      " (see the note on the device)",
                  ErrorKind::kBadInput);
    }
    return one_at_a_time("pread", "io_uring is unavailable");
  }
  plan.engine = "io_uring";
  plan.queue_depth = asked != 0 ? asked : std::max<std::uint32_t>(1, device.default_queue_depth);
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
    block =
        std::max(block, static_cast<std::uint64_t>(std::min(bytes, static_cast<double>(range))));
  }
  block = std::min(block, range / (kMinDefaultBlocks * per));
  const std::uint32_t sector = device.sector_bytes;
  const std::uint64_t step = block >= chunk ? chunk : block >= kMiB ? kMiB : sector;
  block = std::max<std::uint64_t>(sector, RoundDown(block, step));
  return std::min(block, range);  // range is a whole number of sectors
}

// The range of `options` on `device`, checked, into `plan`: the start rounded
// down and the end rounded up to the sector (with notes). Returns its bytes.
std::uint64_t PlanRange(const DeviceInfo& device, const SweepOptions& options, SweepPlan& plan) {
  const std::uint32_t sector = device.sector_bytes;
  const std::uint64_t size = device.size_bytes;
  const std::uint64_t end = options.end_bytes.value_or(size);
  if (end > size) {
    throw Error("range end " + Bytes(end) + " is beyond the end of " + device.path + " (" +
                    FormatBytes(size) + ")",
                ErrorKind::kBadInput);
  }
  if (options.start_bytes >= end) {
    throw Error(
        options.start_bytes > end
            ? "range start " + Bytes(options.start_bytes) + " is after its end " + Bytes(end)
            : "range is empty: start and end are both at " + Bytes(end),
        ErrorKind::kBadInput);
  }
  plan.start_bytes = RoundDown(options.start_bytes, sector);
  plan.end_bytes = end == size ? size : RoundUp(end, sector);
  if (plan.start_bytes != options.start_bytes) {
    plan.notes.push_back("range start rounded down to " + Bytes(plan.start_bytes) +
                         " (a multiple of the " + std::to_string(sector) + "-byte sector)");
  }
  if (plan.end_bytes != end) {
    plan.notes.push_back("range end rounded up to " + Bytes(plan.end_bytes) +
                         " (a multiple of the " + std::to_string(sector) + "-byte sector)");
  }
  return plan.end_bytes - plan.start_bytes;
}

// A note on the default block size of `plan` over `range` bytes when it
// gives noticeably fewer than kDefaultBlocks blocks.
void NoteDefaultBlock(const SweepOptions& options, std::uint64_t range, SweepPlan& plan) {
  const std::uint64_t per = options.quick ? kQuickSkip : 1;
  const std::uint64_t blocks = (range + plan.block_bytes - 1) / plan.block_bytes / per;
  if (blocks < kDefaultBlocks * 9 / 10) {
    const std::string each =
        options.expected_mb_per_s > 0
            ? ", about " +
                  std::to_string(std::llround(static_cast<double>(plan.block_bytes) /
                                              (options.expected_mb_per_s * 1e3))) +
                  " ms each at the start's " + FormatFixed(options.expected_mb_per_s, 1) + " MB/s"
            : "";
    plan.notes.push_back("default block size " + ExactBinarySize(plan.block_bytes) + " (" +
                         std::to_string(blocks) + " blocks" + each +
                         "): each block is timed on its own, the reads in flight drained at "
                         "its end; --block-size for more, shorter blocks");
  }
}

// The default chunk size for blocks of `block_bytes`: the device's preferred
// read if it divides the block (so no block ends in a short read), else the
// largest power of two below it that does; blocks of at least 1 MiB are
// whole MiB, so 1 MiB always does.
std::uint64_t DefaultChunkBytes(const DeviceInfo& device, std::uint64_t block_bytes) {
  for (std::uint64_t c = PreferredChunk(device); c > kDefaultChunkBytes; c /= 2) {
    if (block_bytes % c == 0) return c;
  }
  return std::min(kDefaultChunkBytes, block_bytes);
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
// 9.7-3519 MB/s. So a read plan that is not drained per block gets a note.
void NoteBlur(SweepPlan& plan) {
  const BlockTiming timing = BlockTimingOf(plan);
  if (!plan.write && !timing.drained_per_block) {
    const std::uint64_t in_flight = timing.bytes_in_flight;
    plan.notes.push_back(std::to_string(plan.queue_depth) + " reads of " +
                         ExactBinarySize(plan.chunk_bytes) + " in flight (" +
                         ExactBinarySize(in_flight) + ") span " +
                         std::to_string((in_flight + plan.block_bytes - 1) / plan.block_bytes) +
                         " blocks of " + ExactBinarySize(plan.block_bytes) +
                         ": a device that completes reads in bursts blurs the per-block rates "
                         "over up to " +
                         ExactBinarySize(in_flight) + " (the average is exact); --block-size " +
                         std::to_string((in_flight + kMiB - 1) / kMiB) +
                         "M or more, or --queue-depth 1, for a sharp curve");
  }
}

}  // namespace

BlockTiming BlockTimingOf(const SweepPlan& plan) {
  BlockTiming t;
  t.bytes_in_flight =
      std::uint64_t{std::max<std::uint32_t>(1, plan.queue_depth)} * plan.chunk_bytes;
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
  if (options.passes == 0) {
    throw Error("invalid pass count 0: must be at least 1", ErrorKind::kBadInput);
  }
  if (options.skip == 0) throw Error("invalid skip 0: must be at least 1", ErrorKind::kBadInput);
  if (options.quick && options.skip > 1) {
    throw Error("--quick and --skip both choose which blocks to read: give only one",
                ErrorKind::kBadInput);
  }
  const std::uint64_t range = PlanRange(device, options, plan);

  if (options.chunk_bytes != 0) {
    plan.chunk_bytes = RoundToSector(options.chunk_bytes, sector, "chunk size", plan.notes);
  }
  plan.passes = options.passes;
  plan.skip = options.quick ? kQuickSkip : options.skip;
  plan.quick = options.quick;
  plan.warmup = options.warmup;
  if (!(options.slow_factor == 0 || options.slow_factor > 1) ||
      !std::isfinite(options.slow_factor)) {
    throw Error("invalid slow factor: must be above 1 (or 0 to turn slow-region detection off)",
                ErrorKind::kBadInput);
  }
  if (!(options.expected_mb_per_s >= 0) || !std::isfinite(options.expected_mb_per_s)) {
    throw Error("invalid expected rate: must be 0 (not known) or above", ErrorKind::kBadInput);
  }
  plan.stop_on_error = options.stop_on_error;
  if (options.max_time.count() < 0) {
    throw Error("invalid time limit: must be above 0 (or 0 for none)", ErrorKind::kBadInput);
  }
  if (options.sustained_window.count() <= 0) {
    throw Error("invalid sustained-rate window: must be above 0", ErrorKind::kBadInput);
  }
  plan.max_errors = options.max_errors;
  plan.max_time = options.max_time;
  plan.sustained_window = options.sustained_window;
  plan.write = options.write;
  plan.slow_factor = options.slow_factor;
  ChooseEngine(device, options, plan);
  if (options.block_bytes != 0) {
    plan.block_bytes = RoundToSector(options.block_bytes, sector, "block size", plan.notes);
    if (plan.block_bytes > range) {
      throw Error("block size " + FormatBytes(plan.block_bytes) + " is larger than " +
                      (range == size ? "the device (" : "the range (") + FormatBytes(range) + ")",
                  ErrorKind::kBadInput);
    }
  } else {
    plan.block_bytes = DefaultBlockBytes(device, options, plan, range);
    NoteDefaultBlock(options, range, plan);
  }
  if (plan.chunk_bytes == 0) plan.chunk_bytes = DefaultChunkBytes(device, plan.block_bytes);
  if (plan.chunk_bytes > plan.block_bytes) {
    throw Error("chunk size " + FormatBytes(plan.chunk_bytes) + " is larger than the block size " +
                    FormatBytes(plan.block_bytes),
                ErrorKind::kBadInput);
  }
  // A default block is never smaller than the default bytes in flight
  // (DefaultBlockBytes), except on a range too small for kMinDefaultBlocks
  // such blocks: there the default depth gives way, so that the default shape
  // always drains per block.
  if (options.block_bytes == 0 && options.queue_depth == 0 &&
      std::uint64_t{plan.queue_depth} * plan.chunk_bytes > plan.block_bytes) {
    plan.queue_depth =
        static_cast<std::uint32_t>(std::max<std::uint64_t>(1, plan.block_bytes / plan.chunk_bytes));
  }
  NoteBlur(plan);
  const std::uint64_t slots = (range + plan.block_bytes - 1) / plan.block_bytes;
  plan.block_count = (slots + plan.skip - 1) / plan.skip;
  return plan;
}

namespace {

// One RunSweep: the sweep's state, shared by its steps (the member
// functions), from the buffers to the result. Run() it once.
//
// The read pipeline (ReadPass). Chunks are submitted in offset order while a
// slot is free; completions come back in any order, in batches (reads the
// queue reports finished together). When the bytes in flight fit in a block
// (drain_: BlockTimingOf(plan).drained_per_block), a block's chunks are only
// submitted once the block before it is finished, and its time is its first
// submission to its last completion: exact whatever the device's bursts.
// Otherwise (a forced shape) chunks are submitted across block boundaries and
// time is attributed per batch: the interval since the previous batch (or
// since the earliest submission in the batch, when the device was idle) is
// shared among the batch's chunks by their bytes, and a block's time is
// the sum of its chunks' shares: consecutive blocks' times add up to the
// pass's busy time. Blocks are finished (timed, reported) in order once
// all their chunks are in. A failed chunk stops submission
// until the queue has drained; it is then retried and mapped
// (RecoverChunk), its time going to its block. Everything is sized once
// (in the constructor): nothing is allocated per chunk.
class SweepRunner {
 public:
  SweepRunner(Device& device, const RunInfo& run, Clock& clock, SampleSink& sink,
              const std::atomic<bool>* stop_requested, const ResumePoint* resume);
  SweepRunner(const SweepRunner&) = delete;
  SweepRunner& operator=(const SweepRunner&) = delete;

  // The whole sweep (see RunSweep in sweep.h).
  SweepResult Run();

 private:
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
    Nanos worst{0};      // its slowest clean chunk
    bool clean = true;
  };

  bool Stopping() const {
    return stop_requested_ != nullptr && stop_requested_->load(std::memory_order_relaxed);
  }
  // plan.max_time has passed since the sweep started.
  bool TimeUp() const {
    return plan_.max_time.count() > 0 && clock_.Now() - wall_start_ >= plan_.max_time;
  }
  // Ends the pass (halt_) when the user asked to stop, or when the time is
  // up and the next chunk starts a block (a block begun is read to its end).
  bool StopBeforeNextChunk() {
    if (result_.status != SweepStatus::kComplete) return halt_;
    const bool block_start =
        next_block_ < plan_.block_count && next_pos_ == plan_.BlockOffset(next_block_);
    if (Stopping()) {
      result_.status = SweepStatus::kInterrupted;
    } else if (block_start && TimeUp()) {
      result_.status = SweepStatus::kTimeLimit;
      result_.max_time = plan_.max_time;
    } else {
      return false;
    }
    halt_ = true;
    return true;
  }
  void Fail(SweepStatus status, std::uint64_t offset, std::error_code ec) {
    result_.status = status;
    result_.error_offset_bytes = offset;
    result_.error = ec;
  }
  void ReportSlow(const std::optional<SlowRegion>& region) {
    if (!region) return;
    result_.slow_regions.push_back(*region);
    sink_.OnSlowRegion(*region);
  }

  void WarmUp();
  void ReplayPartialRun();
  void ReportResumedPasses();
  void EmitBlock(std::uint64_t i, std::uint32_t count);
  bool RecoverChunk(std::uint64_t pos, std::uint64_t n, std::error_code ec, bool& clean);
  bool ReadPass();
  void StartPass();
  void SubmitChunks();
  void CompleteBatch();
  bool RecoverFailures();
  // A chunk read (or recovered) cleanly in `share`, found at `at` in an
  // interval of `wait` (the floor of the slow test applies to the wait; it
  // is the request's stall: at queue depth 1 its own time). Defined here,
  // inline: it runs for every chunk.
  void ChunkDone(const ChunkInFlight& c, Nanos share, Nanos wait, Nanos at) {
    BlockInFlight& b = blocks_[c.block % window_];
    --b.chunks_left;
    b.busy += share;
    b.last_done = std::max(b.last_done, at);
    b.worst = std::max(b.worst, share);
    summary_.latency.Add(Millis(share));
    if (part_blocks_ != 0 && pass_ == 0 && c.block % part_blocks_ == 0 &&
        c.offset_bytes == plan_.BlockOffset(c.block)) {
      requests_.StartPart();
    }
    requests_.Add({c.offset_bytes, c.length_bytes, pass_, at - share - wall_start_, share}, wait);
    ReportSlow(slow_.Add(c.offset_bytes, c.length_bytes, share, wait, pass_));
  }
  void FinishBlocks();
  bool EndPass();
  void EmitStoppedBlocks();
  void Finish();

  Device& device_;
  const RunInfo& run_;
  const SweepPlan& plan_;
  Clock& clock_;
  SampleSink& sink_;
  const std::atomic<bool>* const stop_requested_;
  const ResumePoint* const resume_;
  const std::uint32_t passes_;
  const std::uint32_t sector_;
  // For the warm-up, retries and bisection (one read at a time).
  AlignedBuffer buffer_;
  const std::unique_ptr<ReadQueue> queue_;
  // Per-block rates of every pass (MB/s; NaN = no clean read in that pass),
  // block-major: the only per-block history kept. Float (7 significant
  // digits, far finer than any timing): 20 M blocks x 1 pass is 80 MB.
  std::vector<float> rates_;
  // Per block, its slowest clean chunk over the passes so far (ms).
  std::vector<float> worst_ms_;
  // Every clean chunk's call, in completion order (SweepResult::requests);
  // a write sweep's first pass in parts of part_blocks_ blocks (0: one part).
  RequestTimeline requests_;
  const std::uint64_t part_blocks_;
  SweepResult result_;
  SlowDetector slow_;

  // Taken at the start, for the result's totals.
  Nanos wall_start_{0};
  Nanos cpu_start_{0};
  std::optional<std::uint64_t> storage_start_;
  std::optional<Clock::SystemCpu> system_start_;

  // Where reading starts: the beginning, or where a partial run stopped.
  const std::uint32_t start_pass_;
  const std::uint64_t start_block_;
  // The partial run's bytes and time per pass.
  std::vector<PassSummary> prior_;
  std::uint32_t pass_;
  std::uint64_t block_ = 0;  // the first block without a sample in `pass_`
  std::uint64_t emitted_ = 0;

  // The read pipeline, sized once.
  const bool drain_;
  const std::uint32_t depth_;
  // Unfinished blocks at most: a slow front block holds back the others.
  const std::uint64_t window_;
  std::vector<ChunkInFlight> slots_;
  std::vector<std::uint32_t> free_slots_;
  // Write mode: the run's stamp (write_stamp.h) and what each slot holds.
  std::uint64_t run_id_ = 0;
  std::vector<StampMemo> stamps_;
  std::vector<ChunkInFlight> failures_;
  std::vector<BlockInFlight> blocks_;
  std::vector<ReadQueue::Completion> batch_;

  // The pass being read.
  PassSummary summary_;
  std::uint64_t next_block_ = 0;  // being submitted
  std::uint64_t next_pos_ = 0;
  std::uint32_t in_flight_ = 0;
  bool halt_ = false;         // no more submissions this pass
  Nanos last_completion_{0};  // when the previous batch came in
};

SweepRunner::SweepRunner(Device& device, const RunInfo& run, Clock& clock, SampleSink& sink,
                         const std::atomic<bool>* stop_requested, const ResumePoint* resume)
    : device_(device),
      run_(run),
      plan_(run.plan),
      clock_(clock),
      sink_(sink),
      stop_requested_(stop_requested),
      resume_(resume),
      passes_(plan_.passes),
      sector_(device.info().sector_bytes),
      buffer_(plan_.chunk_bytes, DirectIoAlignment(sector_)),
      queue_(plan_.write ? MakeSyncQueue(device, plan_.chunk_bytes, true)
             : plan_.engine == "io_uring"
                 ? device.OpenReadQueue(plan_.queue_depth, plan_.chunk_bytes)
                 : MakeSyncQueue(device, plan_.chunk_bytes, false)),
      rates_(plan_.block_count * passes_, std::numeric_limits<float>::quiet_NaN()),
      worst_ms_(plan_.block_count, 0.0F),
      requests_(plan_.sustained_window),
      part_blocks_(plan_.write ? (plan_.block_count + kMaxParts - 1) / kMaxParts : 0),
      slow_(plan_.slow_factor),
      start_pass_(resume != nullptr ? resume->pass : 0),
      start_block_(resume != nullptr ? resume->block : 0),
      prior_(passes_),
      pass_(start_pass_),
      drain_(BlockTimingOf(plan_).drained_per_block),
      depth_(queue_->depth()),
      window_(depth_ + 2),
      slots_(depth_),
      blocks_(window_),
      batch_(depth_) {
  assert(start_pass_ < passes_ && start_block_ < plan_.block_count);
  if (plan_.write) {
    run_id_ = NewStampRunId();
    stamps_.resize(depth_);
  }
  free_slots_.reserve(depth_);
  failures_.reserve(depth_);
}

SweepResult SweepRunner::Run() {
  sink_.OnStart(run_);
  wall_start_ = clock_.Now();
  cpu_start_ = clock_.ProcessCpuTime();
  storage_start_ = clock_.StorageReadBytes();
  system_start_ = clock_.SystemCpuTicks();
  WarmUp();
  ReplayPartialRun();
  ReportResumedPasses();
  for (; pass_ < passes_ && result_.status == SweepStatus::kComplete; ++pass_) {
    if (!ReadPass()) break;
  }
  if (result_.status != SweepStatus::kComplete) EmitStoppedBlocks();
  Finish();
  return std::move(result_);
}

// Untimed: lets a disk spin up and seek, an optical drive reach speed. A
// failure here is left for the timed read of the same chunk to handle.
void SweepRunner::WarmUp() {
  if (!plan_.warmup) return;
  const std::uint64_t at = plan_.BlockOffset(start_block_);
  const std::uint64_t n = std::min(plan_.chunk_bytes, plan_.BlockLength(start_block_));
  if (!plan_.write) {
    (void)device_.ReadAt(at, buffer_.span(n));
    return;
  }
  StampWrite(buffer_.span(n), at, run_id_);
  (void)device_.WriteAt(at, buffer_.span(n));
}

// The partial run's findings and samples, replayed.
void SweepRunner::ReplayPartialRun() {
  if (resume_ == nullptr) return;
  for (const UnreadableRange& u : resume_->unreadable) {
    if (AddUnreadable(result_.unreadable, u)) sink_.OnUnreadable(u);
  }
  for (const SlowRegion& r : resume_->slow_regions) {
    result_.slow_regions.push_back(r);
    sink_.OnSlowRegion(r);
  }
  for (const Sample& x : resume_->samples) {
    rates_[x.block_index * passes_ + x.pass] =
        static_cast<float>(MbPerS(x.length_bytes, x.elapsed));
    prior_[x.pass].bytes += x.length_bytes;
    prior_[x.pass].read_time += x.elapsed;
    sink_.OnSample(x);
  }
}

// The passes the partial run completed and, in the last pass, the blocks it
// finished (final).
void SweepRunner::ReportResumedPasses() {
  for (std::uint32_t p = 0; p < start_pass_; ++p) {
    PassSummary summary = prior_[p];
    summary.pass = p;
    summary.complete = true;
    summary.mb_per_s = MbPerS(summary.bytes, summary.read_time);
    result_.bytes_read += summary.bytes;
    result_.read_time += summary.read_time;
    result_.passes.push_back(summary);
    sink_.OnPassDone(summary);
  }
  if (start_pass_ + 1 == passes_) {
    for (std::uint64_t i = 0; i < start_block_; ++i) EmitBlock(i, passes_);
  }
}

// Reports block `i` from the rates of its first `count` passes.
void SweepRunner::EmitBlock(std::uint64_t i, std::uint32_t count) {
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
    const double r = static_cast<double>(rates_[i * passes_ + p]);
    if (!std::isnan(r)) values[clean++] = r;
  }
  BlockResult b;
  b.index = i;
  b.offset_bytes = plan_.BlockOffset(i);
  b.length_bytes = plan_.BlockLength(i);
  b.unreadable_bytes = OverlapBytes(result_.unreadable, b.offset_bytes, b.length_bytes);
  b.worst_chunk_ms = static_cast<double>(worst_ms_[i]);
  if (clean > 0) {
    const RateStats s = Summarize(values.first(clean));
    b.passes = s.count;
    CopyRates(s, b);
    b.seconds = s.median > 0 ? static_cast<double>(b.length_bytes) / (s.median * kMB) : 0;
    if (result_.blocks_measured == 0 || b.mb_per_s < result_.min_mb_per_s) {
      result_.min_mb_per_s = b.mb_per_s;
    }
    if (result_.blocks_measured == 0 || b.mb_per_s > result_.max_mb_per_s) {
      result_.max_mb_per_s = b.mb_per_s;
    }
    ++result_.blocks_measured;
  } else if (b.unreadable_bytes == 0) {
    return;  // never read (cannot happen for a block that was attempted)
  }
  sink_.OnBlock(b);
}

// A chunk whose read failed with `ec`: checks the device, retries once and
// maps the unreadable sectors. Returns false when the sweep must end
// (status set). `clean` becomes false when the chunk held unreadable data.
bool SweepRunner::RecoverChunk(std::uint64_t pos, std::uint64_t n, std::error_code ec,
                               bool& clean) {
  if (plan_.write) {  // write mode: the first failing write ends the sweep
    Fail(IsDeviceGone(ec) ? SweepStatus::kDeviceGone : SweepStatus::kWriteError, pos, ec);
    return false;
  }
  if (!IsDeviceGone(ec)) {
    if (const std::error_code gone = device_.CheckPresent()) ec = gone;
  }
  if (IsDeviceGone(ec)) {
    Fail(SweepStatus::kDeviceGone, pos, ec);
    return false;
  }
  if (plan_.stop_on_error) {
    Fail(SweepStatus::kReadError, pos, ec);
    return false;
  }
  ec = device_.ReadAt(pos, buffer_.span(n));  // one retry
  if (!ec) return true;
  if (IsDeviceGone(ec)) {
    Fail(SweepStatus::kDeviceGone, pos, ec);
    return false;
  }
  clean = false;
  Bisector bisect{
      device_, buffer_, clock_, sector_, pass_, kBisectReads, clock_.Now() + kBisectTime,
      {},      {},      {}};
  if (const std::error_code gone = bisect.Run(pos, n, ec)) {
    Fail(SweepStatus::kDeviceGone, pos, gone);
    return false;
  }
  for (const UnreadableRange& range : bisect.found) {
    if (AddUnreadable(result_.unreadable, range)) sink_.OnUnreadable(range);
  }
  if (plan_.max_errors > 0 && result_.unreadable.size() >= plan_.max_errors) {
    Fail(SweepStatus::kTooManyErrors, pos, {});  // a dying disk: give up (--max-errors)
    result_.max_errors = plan_.max_errors;
    return false;
  }
  return true;
}

// Reads pass `pass_` through the pipeline (see the class comment) from
// where it starts. Returns false when the pass did not complete (the sweep
// ends).
bool SweepRunner::ReadPass() {
  StartPass();
  for (;;) {
    SubmitChunks();
    if (in_flight_ == 0) {
      if (failures_.empty()) break;  // the pass is read, or it stopped
      if (!RecoverFailures()) break;
      continue;
    }
    CompleteBatch();
  }
  return EndPass();
}

void SweepRunner::StartPass() {
  const bool resuming = pass_ == start_pass_ && start_block_ > 0;
  // Also before a resumed pass: the warm-up moved the head, as between passes.
  (void)device_.PreparePass();  // advisory (page-cache drop); a failure is not a read error
  slow_.Restart();
  summary_ = prior_[pass_];
  summary_.pass = pass_;
  summary_.cached_share = device_.CachedShare();
  summary_.latency.chunk_bytes = plan_.chunk_bytes;
  free_slots_.clear();
  for (std::uint32_t i = depth_; i-- > 0;) free_slots_.push_back(i);
  next_block_ = resuming ? start_block_ : 0;
  next_pos_ = next_block_ < plan_.block_count ? plan_.BlockOffset(next_block_) : 0;
  block_ = next_block_;  // the first unfinished block
  in_flight_ = 0;
  halt_ = false;
  last_completion_ = Nanos{0};
}

// Submits chunks in offset order while a slot is free, no failure waits, and
// the block is inside the window (drained: only the first unfinished one).
void SweepRunner::SubmitChunks() {
  while (!halt_ && failures_.empty() && in_flight_ < depth_ && next_block_ < plan_.block_count &&
         next_block_ < block_ + window_ - 1 && (!drain_ || next_block_ == block_)) {
    if (StopBeforeNextChunk()) break;
    const std::uint64_t offset = plan_.BlockOffset(next_block_);
    const std::uint64_t end = offset + plan_.BlockLength(next_block_);
    const std::uint64_t n = std::min(plan_.chunk_bytes, end - next_pos_);
    const std::uint32_t slot = free_slots_.back();
    // Stamped before the clock is read: the write's time is the device's.
    if (plan_.write) StampWrite(queue_->Buffer(slot).first(n), next_pos_, run_id_, stamps_[slot]);
    const Nanos now = clock_.Now();
    if (next_pos_ == offset) {
      blocks_[next_block_ % window_] = {(end - offset + plan_.chunk_bytes - 1) / plan_.chunk_bytes,
                                        now,
                                        Nanos{0},
                                        now,
                                        Nanos{0},
                                        true};
    }
    free_slots_.pop_back();
    slots_[slot] = {next_block_, next_pos_, n, now, {}};
    queue_->Submit(slot, next_pos_, n);
    ++in_flight_;
    next_pos_ += n;
    if (next_pos_ == end && ++next_block_ < plan_.block_count) {
      next_pos_ = plan_.BlockOffset(next_block_);
    }
  }
}

// Waits for a batch of completions and shares its interval among its chunks
// by their bytes; failed chunks wait in failures_.
void SweepRunner::CompleteBatch() {
  const std::size_t got = queue_->Wait(batch_);
  const Nanos t = clock_.Now();
  Nanos interval_start = t;
  std::uint64_t batch_bytes = 0;
  for (std::size_t i = 0; i < got; ++i) {
    const ChunkInFlight& c = slots_[batch_[i].slot];
    interval_start = std::min(interval_start, c.submitted);
    batch_bytes += c.length_bytes;
  }
  interval_start = std::max(interval_start, last_completion_);
  last_completion_ = t;
  const Nanos wait = t - interval_start;
  for (std::size_t i = 0; i < got; ++i) {
    const ReadQueue::Completion& done = batch_[i];
    --in_flight_;
    free_slots_.push_back(done.slot);
    ChunkInFlight& chunk = slots_[done.slot];
    const Nanos share{static_cast<std::int64_t>(static_cast<double>(wait.count()) *
                                                static_cast<double>(chunk.length_bytes) /
                                                static_cast<double>(batch_bytes))};
    if (!done.error) {
      ChunkDone(chunk, share, wait, t);
      continue;
    }
    // Handled once the queue is empty, lowest offset first: a device
    // that went away, or a failed write, ends the sweep there.
    chunk.error = done.error;
    failures_.push_back(chunk);
    blocks_[chunk.block % window_].busy += share;
    blocks_[chunk.block % window_].last_done = t;
  }
  FinishBlocks();
}

// The queue is empty: recovers the failed chunks in offset order. Returns
// false when the pass must end (the sweep stops, or it had stopped already).
bool SweepRunner::RecoverFailures() {
  std::sort(failures_.begin(), failures_.end(),
            [](const auto& a, const auto& b) { return a.offset_bytes < b.offset_bytes; });
  for (const ChunkInFlight& f : failures_) {
    const Nanos t0 = clock_.Now();
    bool chunk_clean = true;
    if (!RecoverChunk(f.offset_bytes, f.length_bytes, f.error, chunk_clean)) {
      halt_ = true;
      break;
    }
    const Nanos t = clock_.Now();
    // Its failed read's time was its share of that batch.
    BlockInFlight& b = blocks_[f.block % window_];
    if (chunk_clean) {
      ChunkDone(f, t - t0, t - t0, t);
    } else {
      --b.chunks_left;
      b.last_done = std::max(b.last_done, t);
      b.clean = false;
      ++summary_.latency.unreadable_chunks;
      ReportSlow(slow_.Close());
    }
    last_completion_ = t;
  }
  failures_.clear();
  if (halt_) return false;
  FinishBlocks();
  (void)StopBeforeNextChunk();
  return true;
}

// Finishes (times, reports) the blocks whose chunks are all in, in order.
void SweepRunner::FinishBlocks() {
  while (block_ < next_block_ || (block_ == next_block_ && next_pos_ > plan_.BlockOffset(block_))) {
    const BlockInFlight& b = blocks_[block_ % window_];
    if (b.chunks_left != 0) return;
    const std::uint64_t offset = plan_.BlockOffset(block_);
    const std::uint64_t length = plan_.BlockLength(block_);
    worst_ms_[block_] = std::max(worst_ms_[block_], static_cast<float>(Millis(b.worst)));
    if (b.clean) {
      const Nanos elapsed = drain_ ? b.last_done - b.first_submit : b.busy;
      rates_[block_ * passes_ + pass_] = static_cast<float>(MbPerS(length, elapsed));
      summary_.bytes += length;
      summary_.read_time += elapsed;
      sink_.OnSample({pass_, block_, offset, length, elapsed, b.first_submit});
    }
    if (pass_ + 1 == passes_) EmitBlock(block_, passes_);
    ++block_;
  }
}

// Reports the pass. Returns whether it was complete.
bool SweepRunner::EndPass() {
  ReportSlow(slow_.Close());
  summary_.complete = block_ == plan_.block_count;
  summary_.mb_per_s = MbPerS(summary_.bytes, summary_.read_time);
  result_.bytes_read += summary_.bytes;
  result_.read_time += summary_.read_time;
  if (summary_.bytes > 0 || summary_.complete) {
    result_.passes.push_back(summary_);
    sink_.OnPassDone(summary_);
  }
  emitted_ = pass_ + 1 == passes_ ? block_ : 0;
  return summary_.complete;
}

// Stopped early in `pass_` at `block_`: blocks before it have pass_+1
// samples, the rest have pass_ samples. Reports every block measured at
// least once, in order, each once.
void SweepRunner::EmitStoppedBlocks() {
  for (std::uint64_t i = emitted_; i < plan_.block_count; ++i) {
    const std::uint32_t count = i < block_ ? pass_ + 1 : pass_;
    if (count > 0) EmitBlock(i, count);
  }
}

// The result's totals, then sink.OnFinish().
void SweepRunner::Finish() {
  const auto wall = clock_.Now() - wall_start_;
  result_.wall_seconds = static_cast<double>(wall.count()) * 1e-9;
  result_.avg_mb_per_s = MbPerS(result_.bytes_read, result_.read_time);
  result_.cpu_percent = CpuPercent(clock_.ProcessCpuTime() - cpu_start_, wall);
  result_.system_busy_percent = SystemBusyPercent(system_start_, clock_.SystemCpuTicks());
  const auto storage_end = clock_.StorageReadBytes();
  if (storage_start_ && storage_end) result_.storage_read_bytes = *storage_end - *storage_start_;
  result_.cached_share_at_end = device_.CachedShare();
  result_.requests = requests_.Summary();
  sink_.OnFinish(result_);
}

}  // namespace

SweepResult RunSweep(Device& device, const RunInfo& run, Clock& clock, SampleSink& sink,
                     const std::atomic<bool>* stop_requested, const ResumePoint* resume) {
  SweepRunner sweep(device, run, clock, sink, stop_requested, resume);
  return sweep.Run();
}

}  // namespace zcav
