// Reading saved results back: zcav's own raw/CSV/JSON outputs and the logs of
// classic zcav versions (bonnie++ 1.03 and 1.9x/2.00).
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "zcav/result/saved_result.h"

namespace zcav {

// Bounds on what a result file may hold (a result is data from anywhere: a
// fleet's other hosts, a shared directory). A line longer than
// kMaxLineBytes (1 MiB; zcav's longest is a few kB) is bad input, found
// without reading more of it; `zcav merge` reads no input larger than
// kMaxMergeInputBytes (256 MiB: a 20 TB drive's sweep JSON at 1 MiB blocks
// is ~1.5 GB, so merge wants profile.json or coarser sweeps; one with 100
// MiB blocks is 30 kB).
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;
inline constexpr std::uint64_t kMaxMergeInputBytes = std::uint64_t{256} << 20;

// Reads a saved result, detecting its format from its content.
// Classic files: 1.03 (`#loops: N, version: 1.03`, `#block K/s time`: offset
// in MiB, KiB/s, seconds) and 1.9x/2.00 (`#block offset (GiB), MiB/s, time`,
// with `++++` rates recomputed from the time column); several passes (the
// same offset more than once) are reduced to the per-block median.
// Detection: a first line starting {"event": = zcav events (events_writer.h:
// one JSON object per line; the blocks come from the "block" events, a cut
// last line is skipped with a note, and a file without its "done" event is
// read as a partial run); else first non-blank character '{' = zcav JSON
// (needs "blocks"; the
// optional "access", "burst" and "verdict" members fill the fields above);
// first line `# zcav ` = zcav raw; first line `offset_bytes,length_bytes,
// mb_per_s...` = zcav CSV; otherwise a `#block` header after leading '#'
// lines picks the classic layout (`K/s` = 1.03, `GiB` = 1.9x).
// 1.9x offsets are printed to 0.01 GiB only: the block size comes from
// rate × time (whole MiB), offsets are row index × step when every printed
// offset fits that grid; `notes` says what was inferred.
// Throws Error(kBadInput) "FILE:LINE: what is wrong" for malformed input,
// and "FILE: ..." for an unreadable, empty or unrecognised file;
// Error(kRuntime) "FILE: read failed" when reading fails with an I/O error.
// Bounds: `path` "-" is stdin; another must be a regular file (a FIFO,
// device or socket is refused with Error(kBadInput)) of
// at most `max_bytes` (0 = no cap), lines at most kMaxLineBytes. Every text
// taken from the file (identity, host, notes, reasons, verdicts) is
// CleanText'ed (base/text.h): no control characters, at most
// kMaxIdentityBytes (notes and reasons kMaxNoteBytes). In a JSON document
// only the members this reader knows are kept (others are skipped as they
// are parsed), and at most 2^20 values besides the blocks and samples.
// Memory: the file is read line by line (JSON: parsed as a stream, each
// block object dropped once read), and a zcav file of one pass becomes
// points as it is read, so a 20 M-block result takes about the SavedResult's 8
// bytes per block (16 while a raw file's block lengths are filled in), not
// its gigabytes of text. Files whose blocks repeat (several passes printed,
// runs concatenated) keep every row until they are merged.
SavedResult ReadProfile(const std::string& path, std::uint64_t max_bytes = 0);

// Reads the random access by size and depth of a zcav JSON result (`zcav
// access --sizes ... --format json`, or a profile's JSON): the returned
// SavedResult has no points, its device fields, random_access and
// random_access_mode filled. Throws Error(kBadInput) as ReadProfile does, and
// "FILE: no random access results ..." for a file without them.
SavedResult ReadRandomAccess(const std::string& path);

// The same from a stream; one that cannot seek (a pipe) is copied into
// memory first (detection reads the start twice).
SavedResult ParseProfile(std::istream& in, const std::string& source);

}  // namespace zcav
