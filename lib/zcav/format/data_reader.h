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

// Reads a saved result (zcav events, JSON, raw, CSV, or a classic zcav 1.03 or
// 1.9x/2.00 log), detecting its format from its content. `path` "-" is stdin;
// another must be a regular file of at most `max_bytes` (0 = no cap). Throws
// Error(kBadInput) "FILE:LINE: what is wrong" for malformed input and "FILE:
// ..." for an unreadable, empty, unrecognised or refused file; Error(kRuntime)
// "FILE: read failed" on an I/O error.
// Specification: docs/formats-reading.md#reading-saved-results
SavedResult ReadProfile(const std::string& path, std::uint64_t max_bytes = 0);

// Reads the random access by size and depth of a zcav JSON result (`zcav
// access --sizes ... --format json`, or a profile's JSON): the returned
// SavedResult has no points, its device fields, random_access and
// random_access_mode filled. Throws Error(kBadInput) as ReadProfile does, and
// "FILE: no random access results ..." for a file without them.
SavedResult ReadRandomAccess(const std::string& path);

// The largest zcav verify result ReadVerify reads (64 MiB of JSON text).
inline constexpr std::uint64_t kMaxVerifyFileBytes = std::uint64_t{64} << 20;

// Reads zcav verify's JSON result (`zcav verify --format json`): the
// returned SavedResult has no points, its device fields and `verify` filled
// (ParseVerifyJson). Throws Error(kBadInput) as ReadProfile does, "FILE: no
// verify result ..." for a file without one, and ParseVerifyJson's errors.
SavedResult ReadVerify(const std::string& path);

// The same from a stream; one that cannot seek (a pipe) is copied into
// memory first (detection reads the start twice).
SavedResult ParseProfile(std::istream& in, const std::string& source);

}  // namespace zcav
