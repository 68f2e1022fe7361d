// Write, read back and compare every position of a device (issue 39): is a
// stick, card or SSD what it claims? Every chunk is written with data
// stamped for its place and this run (write_stamp.h), timed; then every
// chunk is read back, timed, and each sector checked. What came back is
// summed up as ranges (good, wrapped: data written for another place, lost:
// zeros, stale or garbage, unreadable: a read error) and a verdict, with
// the write and read rate of each block for the curve. Both passes go block
// by block as a sweep does (writes one at a time, reads through the
// device's read queue), so their rates are a sweep's.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/base/clock.h"
#include "zcav/device/device.h"
#include "zcav/device/write_stamp.h"
#include "zcav/measure/request_timeline.h"

namespace zcav {

enum class VerifyState { kGood, kWrapped, kLost, kUnreadable };
// "good", "wrapped", "lost", "unreadable".
const char* VerifyStateName(VerifyState state);

// A run of sectors that came back alike, [start_bytes, end_bytes).
struct VerifyRange {
  std::uint64_t start_bytes = 0;
  std::uint64_t end_bytes = 0;
  VerifyState state = VerifyState::kGood;
  // kWrapped: the place the data at start_bytes was written for (the data
  // continues from there); kLost: what came back first (blank, stale, garbage).
  std::uint64_t source_bytes = 0;
  SectorState lost_as = SectorState::kBlank;
};

enum class VerifyVerdict {
  kGenuine,       // every sector came back good
  kFakeCapacity,  // data wraps around, or the end of the device holds nothing
  kDataLoss,      // data lost in places
  kUnreadable,    // read errors, nothing else wrong
};
// "genuine", "fake capacity", "data loss", "unreadable".
const char* VerifyVerdictName(VerifyVerdict verdict);

// One block of the curve: rates in MB/s (10^6 B/s), each the block's bytes
// over the time from its first request to its last completion, as a sweep
// times a block; 0 where a write or read of the block failed.
struct VerifyBlock {
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  double write_mb_per_s = 0;
  double read_mb_per_s = 0;
};

struct VerifyResult;

struct VerifyOptions {
  std::uint64_t chunk_bytes = 1 << 20;  // bytes per write and read call
  // Per curve point, rounded up to whole chunks. 0: a read sweep's default
  // block at this chunk and depth (about 1000 blocks, but at least the reads
  // in flight and 100 ms of reading at the rate of the device's start, read
  // before the write pass; at least 64 blocks).
  std::uint64_t block_bytes = 0;
  std::uint64_t run_id = 0;  // 0: NewStampRunId()
  // Reads in flight in the read pass (the device's read queue, never across
  // a block). 0: the device's default, as a read sweep (DeviceInfo::
  // default_queue_depth). Writes go one at a time, as a write sweep's.
  std::uint32_t queue_depth = 0;
  // A run to go on with (an interrupted one, CheckVerifyResume): its run id,
  // blocks and ranges are kept and each pass starts where it stopped.
  const VerifyResult* resume = nullptr;
  // Called after each block of either pass: writing or reading, and the
  // bytes of that pass done. Default: none.
  std::function<void(bool writing, std::uint64_t done_bytes)> progress;
  // The window of the write pass's lowest rate (write_requests). Default: 10 s.
  std::chrono::nanoseconds sustained_window = std::chrono::seconds(10);
};

struct VerifyResult {
  std::uint64_t run_id = 0;
  std::uint64_t claimed_bytes = 0;  // the device's size
  // The bytes a file system can use from offset 0: claimed_bytes when
  // genuine, the wrap's period or the start of the empty end for a fake,
  // the start of the first bad range otherwise.
  std::uint64_t usable_bytes = 0;
  std::uint64_t written_bytes = 0;
  std::uint64_t read_bytes = 0;
  // How far each pass went (== claimed_bytes when it completed); a resumed
  // run goes on from here.
  std::uint64_t write_done_bytes = 0;
  std::uint64_t read_done_bytes = 0;
  std::uint64_t chunk_bytes = 0;  // the chunk and block sizes the run used
  std::uint64_t block_bytes = 0;
  // The write pass's requests (this run's, after a resume): its worst stall
  // and lowest rate over sustained_window, a part per block (SustainedOf
  // picks the part after a write cache). Not saved with a result.
  RequestSummary write_requests;
  std::vector<VerifyBlock> blocks;
  std::vector<VerifyRange> ranges;  // in order; cover what was read back
  VerifyVerdict verdict = VerifyVerdict::kGenuine;
  // The run ended early (*stop became true, or the device went away): the
  // ranges cover part, the verdict is of that part.
  bool interrupted = false;
  bool device_gone = false;        // the device went away and ended the run (a note says where)
  std::vector<std::string> notes;  // write errors, in plain words
};

// Runs the write pass then the read pass over the whole of `device`, which
// must be open for writing (OpenDeviceForWrite: it destroys the data).
// Once *stop becomes true, submits nothing more and ends when the requests
// in flight are done (the block they belong to is done again on a resume).
// A failed write is noted and the pass goes on (what comes back there says
// the rest); a failed read makes its chunk unreadable; a device gone ends
// the run. Never throws for I/O (a read queue that cannot be set up gives
// way to reads one at a time, with a note); throws std::bad_alloc if the
// buffers cannot be allocated.
VerifyResult RunVerify(Device& device, Clock& clock, const VerifyOptions& options,
                       const std::atomic<bool>* stop = nullptr);

// The verdict and usable size of `result` from its ranges (RunVerify calls it).
void JudgeVerify(VerifyResult& result);

// Whether a bad end of a device of claimed_bytes, from bad_from_bytes to its
// end and with lost data in it (not only read errors), is a fake's: at least
// a tenth of the device (a failing card loses places, not its last tenth).
bool IsFakeEnd(std::uint64_t claimed_bytes, std::uint64_t bad_from_bytes, bool lost);

// Throws Error(kBadInput) with one line when `saved` cannot be resumed on a
// device of `size_bytes` with `chunk_bytes`: another size or chunk, passes
// beyond the device or not on chunk boundaries, blocks or ranges that do not
// fit them, a run that completed.
void CheckVerifyResume(const VerifyResult& saved, std::uint64_t size_bytes,
                       std::uint64_t chunk_bytes);

}  // namespace zcav
