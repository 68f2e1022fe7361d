// RunVerify, JudgeVerify: see verify.h.
#include "zcav/measure/verify.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <map>
#include <memory>
#include <span>

#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/measure/estimate.h"
#include "zcav/measure/read_checks.h"
#include "zcav/measure/sweep.h"

namespace zcav {
namespace {

constexpr std::uint64_t kDefaultBlocks = 1000;
// The read pass's buffers: reads in flight hold at most this many bytes.
constexpr std::uint64_t kMaxInFlightBytes = 256 * kMiB;

// Collects what came back, sector by sector, into ranges.
class RangeBuilder {
 public:
  explicit RangeBuilder(std::vector<VerifyRange>& ranges) : ranges_(ranges) {}

  void Add(std::uint64_t at, std::uint64_t bytes, VerifyState state, std::uint64_t source,
           SectorState lost_as) {
    if (!ranges_.empty()) {
      VerifyRange& last = ranges_.back();
      const bool continues = last.end_bytes == at && last.state == state &&
                             (state != VerifyState::kWrapped ||
                              last.source_bytes + (last.end_bytes - last.start_bytes) == source);
      if (continues) {
        last.end_bytes += bytes;
        return;
      }
    }
    ranges_.push_back({at, at + bytes, state, source, lost_as});
  }

 private:
  std::vector<VerifyRange>& ranges_;
};

// The state of a sector read back at `at`.
void AddSector(RangeBuilder& out, std::span<const std::byte> sector, std::uint64_t at,
               std::uint64_t run_id) {
  const SectorCheck c = CheckSector(sector, at, run_id);
  switch (c.state) {
    case SectorState::kGood:
      out.Add(at, sector.size(), VerifyState::kGood, at, c.state);
      return;
    case SectorState::kMoved:
      out.Add(at, sector.size(), VerifyState::kWrapped, c.source_bytes, c.state);
      return;
    default:
      out.Add(at, sector.size(), VerifyState::kLost, 0, c.state);
      return;
  }
}

// Reads a block may have in flight: as asked, else as many bytes as the
// device's default (a read sweep's: its default depth of its default chunk)
// in chunks of the options'; at most kMaxQueueDepth and kMaxInFlightBytes
// (one read at least).
std::uint32_t AskedDepth(const VerifyOptions& o, const DeviceInfo& info) {
  std::uint64_t depth = o.queue_depth;
  if (depth == 0) {
    const std::uint64_t bytes = std::uint64_t{info.default_queue_depth} * info.default_chunk_bytes;
    depth = (bytes + o.chunk_bytes - 1) / o.chunk_bytes;
  }
  depth = std::min<std::uint64_t>(depth, kMaxInFlightBytes / o.chunk_bytes);
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(depth, 1, kMaxQueueDepth));
}

// Whole chunks (a chunk's time goes to one block): as given, else a read
// sweep's default block at the options' chunk and depth (about 1000 blocks,
// but at least the reads in flight and kTargetBlockTime of reading at the
// start's rate, and at least kMinDefaultBlocks: WithStartRate, PlanSweep).
std::uint64_t BlockBytes(Device& device, Clock& clock, const VerifyOptions& o,
                         const std::atomic<bool>* stop) {
  std::uint64_t want = o.block_bytes;
  if (want == 0) {
    SweepOptions read;
    read.chunk_bytes = o.chunk_bytes;
    read.queue_depth = AskedDepth(o, device.info());
    try {
      want = PlanSweep(device.info(), WithStartRate(device, clock, read, stop)).block_bytes;
    } catch (const Error&) {  // a device of few chunks, or no read queue: the size alone
      want = device.info().size_bytes / kDefaultBlocks;
    }
  }
  const std::uint64_t chunks = (want + o.chunk_bytes - 1) / o.chunk_bytes;
  return std::max<std::uint64_t>(chunks, 1) * o.chunk_bytes;
}

// The ranges of `r` cut where its read pass stopped: a block read in part
// is read again.
void CutRangesAtReadDone(VerifyResult& r) {
  while (!r.ranges.empty() && r.ranges.back().start_bytes >= r.read_done_bytes) r.ranges.pop_back();
  if (!r.ranges.empty()) {
    VerifyRange& last = r.ranges.back();
    last.end_bytes = std::min(last.end_bytes, r.read_done_bytes);
  }
}

class Verifier {
 public:
  Verifier(Device& device, Clock& clock, const VerifyOptions& o, const std::atomic<bool>* stop)
      : device_(device),
        clock_(clock),
        options_(o),
        stop_(stop),
        size_(device.info().size_bytes),
        block_bytes_(o.resume != nullptr ? o.resume->block_bytes
                                         : BlockBytes(device, clock, o, stop)),
        timeline_(o.sustained_window),
        run_start_(clock.Now()) {
    if (o.resume != nullptr) {
      CheckVerifyResume(*o.resume, size_, o.chunk_bytes);
      result_ = *o.resume;
      result_.interrupted = false;
      result_.device_gone = false;
      CutRangesAtReadDone(result_);  // a pass goes on at the start of its block
      return;
    }
    result_.run_id = o.run_id != 0 ? o.run_id : NewStampRunId();
    result_.claimed_bytes = size_;
    result_.chunk_bytes = o.chunk_bytes;
    result_.block_bytes = block_bytes_;
    for (std::uint64_t at = 0; at < size_; at += block_bytes_) {
      result_.blocks.push_back({at, std::min(block_bytes_, size_ - at), 0, 0});
    }
  }

  VerifyResult Run() {
    if (result_.write_done_bytes == size_ || Pass(true)) Pass(false);
    result_.write_requests = timeline_.Summary();
    JudgeVerify(result_);
    return std::move(result_);
  }

 private:
  using Nanos = std::chrono::nanoseconds;
  // A request in flight: where, how long, when it was submitted.
  struct InFlight {
    std::uint64_t at = 0;
    std::uint64_t n = 0;
    Nanos submitted{0};
  };
  // How a block went: a stop or a device gone ends the pass before it.
  enum class BlockEnd { kDone, kStopped, kGone };

  // Writes go one at a time, as a write sweep's; reads through the device's
  // read queue at the read sweep's depth, but never more than a block holds.
  std::unique_ptr<ReadQueue> OpenQueue(bool write) {
    if (write) return MakeSyncQueue(device_, options_.chunk_bytes, true);
    const std::uint64_t chunks = (block_bytes_ + options_.chunk_bytes - 1) / options_.chunk_bytes;
    const auto depth = static_cast<std::uint32_t>(
        std::min<std::uint64_t>(AskedDepth(options_, device_.info()), chunks));
    try {
      return device_.OpenReadQueue(depth, options_.chunk_bytes);
    } catch (const Error& e) {
      result_.notes.push_back(std::string("reading back one chunk at a time: ") + e.what());
      return MakeSyncQueue(device_, options_.chunk_bytes, false);
    }
  }

  // One pass, block by block from where it stopped; false when it ended
  // early (a stop, a device gone).
  bool Pass(bool write) {
    if (!write) (void)device_.PreparePass();  // advisory: a buffered device's cached pages
    const std::unique_ptr<ReadQueue> queue = OpenQueue(write);
    slots_.assign(queue->depth(), {});
    memos_.assign(queue->depth(), {});
    batch_.resize(queue->depth());
    std::uint64_t& done = write ? result_.write_done_bytes : result_.read_done_bytes;
    while (done < size_) {
      const BlockEnd end = Block(*queue, write, done);
      if (end != BlockEnd::kDone) {
        result_.interrupted = true;  // stopped, or the device gone
        return false;
      }
      done = std::min(done + block_bytes_, size_);
      if (options_.progress) options_.progress(write, done);
    }
    return true;
  }

  // The block at `start`: its chunks submitted in order while a slot is
  // free, each read checked as it completes (before its slot is used
  // again); its rate from its first submission to its last completion.
  BlockEnd Block(ReadQueue& queue, bool write, std::uint64_t start) {
    const std::uint64_t end = std::min(start + block_bytes_, size_);
    const std::uint64_t chunk = options_.chunk_bytes;
    if (write) timeline_.StartPart();
    early_.clear();
    merged_to_ = start;
    free_.clear();
    for (std::uint32_t i = queue.depth(); i-- > 0;) free_.push_back(i);
    std::uint64_t next = start;
    std::uint32_t in_flight = 0;
    bool failed = false, gone = false, stopped = false;
    Nanos first{0}, last{0};
    while (in_flight > 0 || (next < end && !gone && !stopped)) {
      while (next < end && !gone && !free_.empty()) {
        if (StopRequested(stop_)) {
          stopped = true;
          break;
        }
        const std::uint32_t slot = free_.back();
        free_.pop_back();
        const std::uint64_t n = std::min(chunk, end - next);
        // Stamped before the clock is read, as a write sweep does.
        if (write) StampWrite(queue.Buffer(slot).first(n), next, result_.run_id, memos_[slot]);
        const Nanos now = clock_.Now();
        if (next == start) first = now;
        slots_[slot] = {next, n, now};
        queue.Submit(slot, next, n);
        ++in_flight;
        next += n;
      }
      if (in_flight == 0) break;
      const std::size_t got = queue.Wait(batch_);
      last = clock_.Now();
      for (std::size_t i = 0; i < got; ++i) {
        const ReadQueue::Completion& c = batch_[i];
        const InFlight& s = slots_[c.slot];
        --in_flight;
        free_.push_back(c.slot);
        failed = failed || static_cast<bool>(c.error);
        std::error_code error = c.error;
        // A failed read: the device's, or the device pulled (EIO from a
        // USB stick taken out): asked as a sweep asks.
        if (error && !write && !IsDeviceGone(error)) {
          if (const std::error_code absent = device_.CheckPresent()) error = absent;
        }
        if (error && IsDeviceGone(error)) {
          if (!gone) {
            result_.notes.push_back(std::string(write ? "writing" : "reading") + " at " +
                                    FormatBytes(s.at) + ": " + error.message() +
                                    ": the device is gone, the run ends there");
          }
          gone = true;
          continue;
        }
        if (!c.error) {
          (write ? result_.written_bytes : result_.read_bytes) += s.n;
          if (write) timeline_.Add({s.at, s.n, 0, s.submitted - run_start_, last - s.submitted});
        } else if (write) {
          result_.notes.push_back("writing at " + FormatBytes(s.at) +
                                  " failed: " + c.error.message());
        }
        if (!write) Check(queue.Buffer(c.slot).first(s.n), s.at, c.error);
      }
    }
    if (gone) {
      result_.device_gone = true;
      return BlockEnd::kGone;
    }
    if (stopped) return BlockEnd::kStopped;
    VerifyBlock& b = result_.blocks[start / block_bytes_];
    (write ? b.write_mb_per_s : b.read_mb_per_s) =
        !failed && last > first ? MbPerS(end - start, last - first) : 0;
    return BlockEnd::kDone;
  }

  // What came back of the chunk at `at`, sector by sector: into the ranges
  // when the chunks before it are in, else kept in early_ until they are
  // (reads complete in any order; early_ holds fewer chunks than are in
  // flight). A block left in part (a stop) keeps the chunks in order so far.
  void Check(std::span<const std::byte> chunk, std::uint64_t at, const std::error_code& ec) {
    if (at != merged_to_) {
      CheckInto(early_[at], chunk, at, ec);
      return;
    }
    CheckInto(result_.ranges, chunk, at, ec);
    merged_to_ = at + chunk.size();
    for (auto e = early_.begin(); e != early_.end() && e->first == merged_to_;
         e = early_.erase(e)) {
      RangeBuilder ranges(result_.ranges);
      for (const VerifyRange& x : e->second) {
        ranges.Add(x.start_bytes, x.end_bytes - x.start_bytes, x.state, x.source_bytes, x.lost_as);
      }
      merged_to_ = e->second.back().end_bytes;
    }
  }

  void CheckInto(std::vector<VerifyRange>& out, std::span<const std::byte> chunk, std::uint64_t at,
                 const std::error_code& ec) {
    RangeBuilder ranges(out);
    if (ec) {
      ranges.Add(at, chunk.size(), VerifyState::kUnreadable, 0, SectorState::kGarbage);
      return;
    }
    for (std::size_t s = 0; s < chunk.size(); s += kStampSectorBytes) {
      const std::size_t len = std::min<std::size_t>(kStampSectorBytes, chunk.size() - s);
      if (len < kStampSectorBytes) {
        // A device whose size is not whole sectors: its last bytes are taken
        // as they are (the stamp's start cannot be told from a cut sector).
        ranges.Add(at + s, len, VerifyState::kGood, at + s, SectorState::kGood);
        continue;
      }
      AddSector(ranges, chunk.subspan(s, len), at + s, result_.run_id);
    }
  }

  Device& device_;
  Clock& clock_;
  const VerifyOptions options_;
  const std::atomic<bool>* stop_;
  const std::uint64_t size_;
  const std::uint64_t block_bytes_;
  // The pass's queue slots: what each holds, its stamps (writes), the free
  // ones, a batch of completions; the read block's ranges of chunks read
  // before one in front of them, by offset, and where the ranges end.
  std::vector<InFlight> slots_;
  std::vector<StampMemo> memos_;
  std::vector<std::uint32_t> free_;
  std::vector<ReadQueue::Completion> batch_;
  std::map<std::uint64_t, std::vector<VerifyRange>> early_;
  std::uint64_t merged_to_ = 0;
  RequestTimeline timeline_;
  const std::chrono::nanoseconds run_start_;
  VerifyResult result_;
};

}  // namespace

const char* VerifyStateName(VerifyState state) {
  static constexpr const char* kNames[] = {"good", "wrapped", "lost", "unreadable"};
  return kNames[static_cast<int>(state)];
}

const char* VerifyVerdictName(VerifyVerdict verdict) {
  static constexpr const char* kNames[] = {"genuine", "fake capacity", "data loss", "unreadable"};
  return kNames[static_cast<int>(verdict)];
}

void JudgeVerify(VerifyResult& r) {
  const auto bad = [](const VerifyRange& x) { return x.state != VerifyState::kGood; };
  const auto first_bad = std::find_if(r.ranges.begin(), r.ranges.end(), bad);
  if (first_bad == r.ranges.end()) {
    r.verdict = VerifyVerdict::kGenuine;
    r.usable_bytes =
        r.interrupted ? (r.ranges.empty() ? 0 : r.ranges.back().end_bytes) : r.claimed_bytes;
    return;
  }
  // A wrap: the data read at x was written for x + k * real; the smallest
  // distance is the real capacity, and a file system of that size from 0
  // never overwrites itself.
  std::uint64_t period = 0;
  for (const VerifyRange& x : r.ranges) {
    if (x.state != VerifyState::kWrapped || x.source_bytes <= x.start_bytes) continue;
    const std::uint64_t d = x.source_bytes - x.start_bytes;
    period = period == 0 ? d : std::min(period, d);
  }
  if (period != 0) {
    r.verdict = VerifyVerdict::kFakeCapacity;
    r.usable_bytes = period;
    return;
  }
  // A bad end: the last ranges lost or unreadable up to the end of the
  // device, a lost one among them; at least a tenth of it is a fake's.
  auto tail = r.ranges.end();
  bool tail_lost = false;
  while (tail != r.ranges.begin() && bad(*std::prev(tail))) {
    --tail;
    tail_lost = tail_lost || tail->state == VerifyState::kLost;
  }
  const bool to_end = !r.ranges.empty() && r.ranges.back().end_bytes == r.claimed_bytes;
  if (tail != r.ranges.end() && to_end &&
      IsFakeEnd(r.claimed_bytes, tail->start_bytes, tail_lost)) {
    r.verdict = VerifyVerdict::kFakeCapacity;
    r.usable_bytes = tail->start_bytes;
    return;
  }
  r.usable_bytes = first_bad->start_bytes;
  const bool any_lost = std::any_of(r.ranges.begin(), r.ranges.end(), [](const VerifyRange& x) {
    return x.state == VerifyState::kLost;
  });
  r.verdict = any_lost ? VerifyVerdict::kDataLoss : VerifyVerdict::kUnreadable;
}

bool IsFakeEnd(std::uint64_t claimed, std::uint64_t bad_from, bool lost) {
  constexpr double kFakeEndShare = 0.10;
  return lost && bad_from < claimed &&
         static_cast<double>(claimed - bad_from) >= kFakeEndShare * static_cast<double>(claimed);
}

void CheckVerifyResume(const VerifyResult& r, std::uint64_t size, std::uint64_t chunk) {
  const auto fail = [](const std::string& why) {
    throw Error("cannot resume this verify run: " + why, ErrorKind::kBadInput);
  };
  if (r.claimed_bytes != size) {
    fail("it verified " + std::to_string(r.claimed_bytes) + " bytes, the device has " +
         std::to_string(size));
  }
  if (r.chunk_bytes != chunk) {
    fail("it used chunks of " + std::to_string(r.chunk_bytes) + " bytes, not " +
         std::to_string(chunk) + " (give the same --chunk-size)");
  }
  if (r.run_id == 0) fail("it has no run id");
  if (r.block_bytes == 0 || r.block_bytes % chunk != 0) fail("its blocks are not whole chunks");
  const auto on_block = [&](std::uint64_t done) {
    return done <= size && (done == size || done % r.block_bytes == 0);
  };
  if (!on_block(r.write_done_bytes) || !on_block(r.read_done_bytes)) {
    fail("its passes did not stop at the end of a block");
  }
  if (r.read_done_bytes > 0 && r.write_done_bytes != size) fail("it read before writing all");
  if (r.read_done_bytes == size) fail("it completed");
  if (r.blocks.size() != (size + r.block_bytes - 1) / r.block_bytes) fail("its blocks do not fit");
  std::uint64_t at = 0;
  for (const VerifyRange& x : r.ranges) {
    if (x.start_bytes != at || x.end_bytes <= x.start_bytes || x.end_bytes > size) {
      fail("its ranges do not follow each other from 0");
    }
    at = x.end_bytes;
  }
  if (at < r.read_done_bytes) fail("its ranges end before its read pass did");
}

VerifyResult RunVerify(Device& device, Clock& clock, const VerifyOptions& options,
                       const std::atomic<bool>* stop) {
  return Verifier(device, clock, options, stop).Run();
}

}  // namespace zcav
