// zcav verify's result as JSON, as text, and the fix it offers (issue 39).
// The JSON member "verify":
//   {"verdict","claimed_bytes","usable_bytes","run_id" (16 hex digits),
//    "chunk_bytes","block_bytes","written_bytes","read_bytes",
//    "write_done_bytes","read_done_bytes","interrupted",
//    "ranges":[{"start_bytes","end_bytes","state","source_bytes"?,"lost_as"?}],
//    "blocks":[{"offset_bytes","length_bytes","write_mb_per_s","read_mb_per_s"}],
//    "notes":[...], "fix":{"partition_command"?,"badblocks_block_bytes"?}}
// source_bytes only for "wrapped" (where the data read there was written
// for), lost_as only for "lost" ("blank", "stale", "garbage"). Rates in
// MB/s (10^6 B/s), 0 where no chunk of the block was timed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "zcav/analysis/card_class.h"
#include "zcav/analysis/sustained.h"
#include "zcav/measure/verify.h"
#include "zcav/measure/verify_quick.h"

namespace zcav {

// The block size of the badblocks list (e2fsprogs' usual file system block).
inline constexpr std::uint64_t kBadBlocksBlockBytes = 4096;

// The member as one JSON value (text). `device` is the path as given, for
// the fix's command.
std::string VerifyJsonText(const VerifyResult& result, const std::string& device);

// zcav verify --quick's own member "quick": {good_bytes, bad_bytes,
// precision, wrap_period_bytes, probes, probe_bytes, rounds, flush_bytes,
// seconds, kept_data, saved_bytes, restored}; the rest is the "verify"
// member of r.verify (its blocks empty: spot checks draw no curve).
std::string QuickVerifyJsonText(const QuickVerifyResult& r);

// The summary of a quick check: spot checks, what was written, the verdict,
// the bracket of the usable size and how sure it is, the data kept.
std::string QuickVerifyReportText(const QuickVerifyResult& r, const std::string& device);

// What the write pass says to a recorder: its worst stall, its sustained
// rate (after the write cache), and what a graded SD card promises.
struct VerifyWriteFigures {
  std::optional<WorstStall> worst_stall;
  std::optional<SustainedFigure> sustained;
  std::optional<CardPromise> card;
};
// Lines for the text summary: "worst write stall: 812.0 ms at 1.23 GiB ...",
// "sustained write: 12.3 MB/s over 10 s ...", the card's promise. Empty when
// nothing was timed.
std::string VerifyWriteFiguresText(const VerifyWriteFigures& figures);
// The card's promise as the JSON member "card_promise" {grade, mb_per_s,
// sustained_mb_per_s, met} ("null" without a promise or a sustained rate).
std::string CardPromiseJsonText(const VerifyWriteFigures& figures);

// Parses the member back (for --resume). `where` names the file in a
// message. Throws Error(kBadInput) "WHERE: verify: ..." for anything that is
// not such an object, a missing or negative number, an unknown state,
// more than 10^7 ranges or blocks.
VerifyResult ParseVerifyJson(const std::string& text, const std::string& where);

// The summary a person reads: verdict, usable size, the ranges (the first
// `max_ranges`, then how many more), the mean write and read rates, and
// the fix. Sizes in MiB/GiB (2^20, 2^30 B) and bytes, rates in MB/s.
std::string VerifyReportText(const VerifyResult& result, const std::string& device,
                             std::size_t max_ranges = 20);

// The command that makes one partition of the usable size on `device` (an
// MBR label: GPT keeps a copy at the device's very end, which a fake does
// not hold), for a person to run: device shell-quoted. Empty unless the
// verdict is fake capacity with at least 2 MiB usable.
std::string PartitionCommand(const VerifyResult& result, const std::string& device);

// Lost and unreadable ranges as a badblocks list: one block number a line
// (blocks of kBadBlocksBlockBytes counted from the start of the device),
// every block that overlaps such a range; the format mkfs.ext4 -l and
// e2fsck -l read. For a fake capacity only the places below the usable size
// (a fake's fix is a smaller partition; wrapped ranges are never listed).
// Empty when there is none.
std::string BadBlocksList(const VerifyResult& result);

// `text` quoted for a POSIX shell: itself when it is only
// A-Z a-z 0-9 / . _ - + : , =, else in single quotes with ' as '\''.
std::string ShellQuote(const std::string& text);

}  // namespace zcav
