// The real capacity of a flash device in minutes (zcav verify --quick,
// issue 39): spot checks instead of every sector. Small stamped probes
// (write_stamp.h) are written at spread places, the device's own write
// cache is flushed by writing more than it holds, and everything is read
// back; a probe that comes back lost, or data found where it was not written
// (a wrap: it names where it was written for), bounds the usable size from
// above, a probe that comes back good bounds it from below. Further rounds
// probe between the two bounds until they are within the precision asked.
// What lies between probes is not checked: a small lost range can be missed
// (the full verify, verify.h, checks every sector).
//
// The plan, in short (PlanQuickVerify; the reasons in verify_quick_plan.cc):
// probes of probe_bytes at positions spaced at most `precision` of their
// offset apart (so the boundary is bracketed that closely in one round),
// at most window_bytes apart anywhere, just below and at each power of two
// and at the end; then cache_flush_bytes written just after the window; then
// the window [0, window_bytes) read: a device that wraps at any real size R
// maps the first probe above R into it, where its stamp names the probe.
// With keep_data, what each write overwrites is read and kept first, and
// written back at the end (write_undo.h), also after a stop.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <vector>

#include "zcav/base/clock.h"
#include "zcav/device/device.h"
#include "zcav/measure/verify.h"

namespace zcav {

struct QuickVerifyOptions {
  // Bytes of each probe (a multiple of the device's sector, at most 1 MiB).
  // Default: 4 KiB (a flash page, a 4Kn sector).
  std::uint64_t probe_bytes = 4096;
  // How close the two bounds must come: bad - good <= precision * good.
  // Default: 0.01 (1 %).
  double precision = 0.01;
  // The first round's probes are spaced for this precision (0: `precision`,
  // so that one round usually does); a coarser first round writes fewer
  // probes and leaves the rest to further rounds, each with its own flush.
  // Default: 0.
  double first_round_precision = 0;
  // Written after each round's probes and before reading them back, so that
  // a write cache in the device (SRAM of a stick's or card's controller, a
  // DRAM-less SSD's host memory buffer) holds none of them: more than the
  // cache holds; 0 for a device known to have none. Default: 16 MiB.
  std::uint64_t cache_flush_bytes = 16ULL << 20;
  // The start of the device read back for probes that wrapped into it; also
  // the largest spacing of probes. 0: the claimed size / 1024, from 4 MiB to
  // 256 MiB. Default: 0.
  std::uint64_t window_bytes = 0;
  // A further round only while everything written stays under this share of
  // the size proven good. Default: 0.05.
  double max_write_share = 0.05;
  // Rounds at most (the first included), probes per further round at most.
  // Defaults: 6, 64.
  std::uint32_t max_rounds = 6;
  std::uint32_t max_round_probes = 64;
  // Run id of the first round (round r uses run_id + r - 1); 0: NewStampRunId().
  std::uint64_t run_id = 0;
  // Save what each write overwrites and write it back at the end (--keep-data).
  bool keep_data = false;
  // keep_data: the most kept in memory; refused (Error kBadInput) before any
  // write when the plan could need more. Default: 256 MiB.
  std::uint64_t keep_memory_bytes = 256ULL << 20;
};

// Where the probes go; PlanQuickVerify.
struct QuickVerifyPlan {
  std::uint64_t probe_bytes = 0;
  std::uint64_t window_bytes = 0;  // [0, window) read back every round
  std::uint64_t flush_offset_bytes = 0;
  std::uint64_t flush_bytes = 0;      // written every round from flush_offset_bytes
  std::vector<std::uint64_t> probes;  // the first round's offsets, ascending
  std::uint64_t first_round_write_bytes = 0;
  std::uint64_t max_write_bytes = 0;  // written at most by all rounds
  // keep_data: kept at most (the flush's places are kept once).
  std::uint64_t max_keep_bytes = 0;
};

// The plan for a device of `info` (its size and sector). Throws
// Error(kBadInput), one line, for options out of range or a device too small
// for a quick check (under 4 times window plus flush: the full verify writes
// it in about as long).
QuickVerifyPlan PlanQuickVerify(const DeviceInfo& info, const QuickVerifyOptions& options);

struct QuickVerifyResult {
  // claimed_bytes; usable_bytes (within [good_bytes, bad_bytes]: the wrap's
  // period when one was seen there, good_bytes otherwise, claimed_bytes for a
  // genuine device); written_bytes (probes, flushes: everything written, not
  // counting a keep_data write-back), read_bytes (read-backs, the window,
  // keep_data's saves); ranges: each probe's state and the bad sectors of
  // the window and the flush (data of a probe that wrapped there, lost,
  // unreadable), in order: spot checks that do not cover the device (blocks
  // is empty); verdict (as JudgeVerify: a wrap or a lost end of 10 % or more is
  // a fake capacity); interrupted; notes (the first says what quick mode can
  // and cannot find).
  VerifyResult verify;
  // The bracket: [0, good_bytes) spot-checked good, bad_bytes the lowest
  // place proven bad (lost, unreadable, or the higher of two places that
  // share storage); claimed_bytes when none was found. The usable size lies
  // in [good_bytes, bad_bytes].
  std::uint64_t good_bytes = 0;
  std::uint64_t bad_bytes = 0;
  // (bad - good) / bad: the share of [0, bad) still uncertain, 0..1.
  double precision = 0;
  // The wrap's period (the real capacity of a fake that wraps): of places
  // found sharing storage, the smallest distance from the lowest to the
  // next; 0 when none.
  std::uint64_t wrap_period_bytes = 0;
  std::uint64_t probes = 0;  // probes written, every round
  std::uint64_t probe_bytes = 0;
  std::uint32_t rounds = 0;
  std::uint64_t flush_bytes = 0;        // the cache flush of each round
  std::chrono::nanoseconds elapsed{0};  // on `clock`, the write-back included
  // keep_data: bytes saved and whether all of them were written back.
  bool kept_data = false;
  std::uint64_t saved_bytes = 0;
  bool restored = false;
};

// Runs the quick check on `device`, open for writing (OpenDeviceForWrite:
// without keep_data the probed places lose their data). Checks *stop
// between I/Os: a stop ends the rounds (interrupted; with keep_data the data
// is still written back). A failed write or read is data (a note, a bad
// place); a device gone ends the run. Throws Error(kBadInput) before any
// write for bad options, a device too small, or keep_data needing more
// memory than keep_memory_bytes; std::bad_alloc.
QuickVerifyResult RunQuickVerify(Device& device, Clock& clock, const QuickVerifyOptions& options,
                                 const std::atomic<bool>* stop = nullptr);

}  // namespace zcav
