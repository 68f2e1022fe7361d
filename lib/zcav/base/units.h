// Units and size parsing, one way everywhere.
//
// MB = 10^6 B, MiB = 2^20 B, GB = 10^9 B, GiB = 2^30 B. Rates: mb_per_s is
// 10^6 B/s, mib_per_s is 2^20 B/s. Sizes are std::uint64_t bytes.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace zcav {

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * 1024;
inline constexpr std::uint64_t kGiB = kMiB * 1024;
inline constexpr std::uint64_t kTiB = kGiB * 1024;
inline constexpr double kMB = 1e6;
inline constexpr double kGB = 1e9;

// Parses a size: "512", "4k", "64M", "1G", "1.5T", "2P" (binary multiples of
// 1024, case-insensitive, optional trailing "iB"/"B" after the letter, e.g.
// "64MiB"); decimal multiples only when spelled "kB", "MB", "GB", "TB", "PB"
// (uppercase B after the letter, e.g. "500MB" = 500*10^6). Fractions are allowed
// when the result is a whole number of bytes after rounding down.
// Throws Error(kBadInput) naming `what` on garbage, zero when !allow_zero,
// negative values, or overflow.
std::uint64_t ParseSize(std::string_view text, std::string_view what, bool allow_zero = false);

// Parses a positive integer count (passes, skip); throws Error(kBadInput)
// naming `what`.
std::uint64_t ParseCount(std::string_view text, std::string_view what);

// Parses a duration: a number and a unit, "90s", "10m", "2h", "1.5h" (s, m,
// h; a bare number is seconds). Throws Error(kBadInput) naming `what` on
// garbage, an unknown unit, zero, negative values, or more than 10^6 hours.
std::chrono::nanoseconds ParseDuration(std::string_view text, std::string_view what);

// A duration as ParseDuration reads it, in the largest unit that keeps it
// whole: "2h", "10m", "90s", "1.5s" (below a second: up to 3 decimals).
std::string DurationText(std::chrono::nanoseconds d);

// A time left or taken, rounded to whole seconds, for a person: "45s",
// "3m07s", "1h02m".
std::string FormatDuration(double seconds);

// "1.50 GiB (1610612736 bytes)"-style human size in binary units.
std::string FormatBytes(std::uint64_t bytes);

// "64 MiB", "512 KiB" or "1000 bytes": the shortest exact binary spelling of
// `bytes`, for sizes in a sentence.
std::string ExactBinarySize(std::uint64_t bytes);

// Rate in MB/s (10^6 B/s) of `bytes` read in `elapsed`; 0 when elapsed is 0.
double MbPerS(std::uint64_t bytes, std::chrono::nanoseconds elapsed);

// `elapsed` in milliseconds.
inline double Millis(std::chrono::nanoseconds elapsed) {
  return static_cast<double>(elapsed.count()) * 1e-6;
}

inline double MbToMib(double mb_per_s) { return mb_per_s * kMB / kMiB; }

// Rounds down/up to a multiple of `unit` (unit > 0).
inline std::uint64_t RoundDown(std::uint64_t v, std::uint64_t unit) { return v / unit * unit; }
inline std::uint64_t RoundUp(std::uint64_t v, std::uint64_t unit) {
  return (v + unit - 1) / unit * unit;
}

}  // namespace zcav
