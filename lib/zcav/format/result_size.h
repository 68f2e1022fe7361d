// How many bytes a sweep's results take on disk, estimated from its plan
// before anything is read, so that the CLI can refuse an output whose file
// system cannot hold them (instead of losing a long measurement at the end).
//
// The figures are upper estimates of what the writers (writers.h) put out:
// per-line sizes with the widest numbers a sweep gives (offsets of many TB,
// rates in the thousands of MB/s, 11-digit nanosecond times), plus a fixed
// allowance for the header, the footer and the zone table. They are not
// exact: a sweep with many unreadable or slow regions writes one more line
// for each. Units: bytes.
#pragma once

#include <cstdint>

#include "zcav/format/writers.h"
#include "zcav/measure/sample.h"

namespace zcav {

// Widest line per block, per sample and per pass summary, by format, and the
// fixed part (header, footer, zone table) each format allows for.
inline constexpr std::uint64_t kRawBlockLineBytes = 96;    // "offset MiB/s s MB/s min max sd n"
inline constexpr std::uint64_t kRawSampleLineBytes = 128;  // "# sample: pass= block= ..."
inline constexpr std::uint64_t kCsvRowBytes = 160;
inline constexpr std::uint64_t kJsonBlockBytes = 320;
inline constexpr std::uint64_t kJsonSampleBytes = 32;  // "[pass,block,elapsed_ns],"
inline constexpr std::uint64_t kPassLineBytes = 256;
inline constexpr std::uint64_t kResultFixedBytes = 64 * 1024;

// Bytes `format` takes for a sweep of `plan`: the fixed part, plus
// plan.block_count lines (rows, objects), plus for raw and JSON with 2+
// passes plan.block_count x plan.passes sample lines (what --resume reads),
// plus a line per pass. Pure; saturates instead of overflowing.
std::uint64_t EstimateResultBytes(OutputFormat format, const SweepPlan& plan);

// What `zcav profile` writes into its directory besides the sweep: the
// images (three PNGs of ~60 KB, SVGs), scripts, zones.txt, summary.txt and
// report.md in a fixed 1 MB; per block the falloff plot's data (twice: the
// plot and the report's), its SVG and the HTML report's table; per access
// sample its line in profile.json, the access plot's data and SVG. Measured
// on `zcav profile sim:hdd` (1000 blocks, 1000 samples: 0.93 MB written).
inline constexpr std::uint64_t kProfileFixedBytes = 1000 * 1000;  // 1 MB
inline constexpr std::uint64_t kPlotDataLineBytes = 256;
inline constexpr std::uint64_t kAccessSampleBytes = 256;

// Bytes a `zcav profile` directory takes for a sweep of `plan` and an access
// test of `access_samples` reads: profile.json (the JSON result), NAME.dat
// (the raw result), kPlotDataLineBytes per block, kAccessSampleBytes per
// access sample and kProfileFixedBytes. Pure; saturates.
std::uint64_t EstimateProfileBytes(const SweepPlan& plan, std::uint64_t access_samples);

}  // namespace zcav
