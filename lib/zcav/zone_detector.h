// Zone detection: finds the throughput plateaus of a per-block curve and
// names the shape of the curve.
//
// DetectZones is a pure function over values. The method (penalised exact
// segmentation of the log rates, Hampel outlier filter, merging of steps too
// small to be zones, curve classification), its references and the reasons
// for its thresholds are described in zone_detector.cc.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace zcav {

// One point of a throughput curve: a block and its (median) rate.
struct CurvePoint {
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  double mb_per_s = 0;  // 10^6 B/s (median across passes)
  // Spread across passes, when known (plots draw it as a band); 0 = unknown.
  double min_mb_per_s = 0;
  double max_mb_per_s = 0;
};

struct ZoneOptions {
  // Multiplies the segmentation penalty (and the merge thresholds with it):
  // > 1 finds fewer, stronger zones; < 1 finds more. Values <= 0 mean 1.
  // Default: 1.
  double sensitivity = 1.0;
  // Minimum zone length in blocks; 0 = max(3, 0.2 % of the blocks). Default: 0.
  std::uint64_t min_zone_blocks = 0;
};

enum class CurveType {
  kZoned,    // falling steps (ZCAV hard disk)
  kFlat,     // one level (SSD, bus-limited disk)
  kClipped,  // a flat ceiling over the outer part, then falling steps (fast disk, slow bus)
  kCav,      // smooth rise, rate^2 linear in position (CD/DVD CAV)
  kPcav,     // rise then flat (partial CAV)
  kZclv,     // rising steps (zoned CLV optical)
  kClv,      // flat, optical media
  kOther,
};

// "zoned", "flat", "clipped", "cav", "pcav", "zclv", "clv", "other".
const char* CurveTypeName(CurveType type);

struct Zone {
  std::uint64_t first_block = 0;  // index into the curve
  std::uint64_t end_block = 0;    // exclusive
  std::uint64_t start_bytes = 0;  // offset of the first block
  std::uint64_t end_bytes = 0;    // end of the last block (exclusive)
  // Statistics over the zone's blocks, outliers and a block straddling the
  // zone's edge (read partly in the next zone) excluded. MB/s (10^6 B/s).
  double mb_per_s = 0;  // median
  double mean_mb_per_s = 0;
  double min_mb_per_s = 0;
  double max_mb_per_s = 0;
  double stddev_mb_per_s = 0;
};

struct Outlier {
  std::uint64_t block = 0;
  std::uint64_t offset_bytes = 0;
  double mb_per_s = 0;
};

struct ZoneAnalysis {
  CurveType type = CurveType::kOther;
  std::vector<Zone> zones;        // in position order; one zone for flat/smooth curves
  std::vector<Outlier> outliers;  // single blocks far off their neighbours
  // Many short plateaus alternating between levels (per-head zoning on some
  // modern drives): the zones are reported as found, and this is set.
  bool alternating = false;
  // Robust noise scale used: the relative noise of the log rates times the
  // median rate.
  double noise_sigma_mb_per_s = 0;
  double penalty = 0;                 // beta, on the sigma-normalised log rates
  std::uint64_t min_zone_blocks = 0;  // minimum zone length used
  // Smooth fits (cav, pcav): rate at the start and end of the curve from the
  // fit, and its coefficient of determination (in MB/s, over the curve with
  // outliers replaced). Zero when not fitted. A cav curve is one zone; a pcav
  // curve two: the rise, then the flat part from the knee.
  double fit_start_mb_per_s = 0;
  double fit_end_mb_per_s = 0;
  double fit_r2 = 0;
  // Summary. Peak = the fastest zone's median rate; for cav/pcav the fit's
  // maximum.
  double outer_inner_ratio = 0;  // first / last zone median rate; cav/pcav: fit start / end
  std::size_t fastest_zone = 0;  // index into zones, by median rate
  std::size_t slowest_zone = 0;
  // Fraction of the curve's bytes at >= 90 / 75 / 50 % of the peak, each
  // block counted at its zone's median rate (stepped curves) or at its fitted
  // rate (cav/pcav).
  double share_at_90 = 0;
  double share_at_75 = 0;
  double share_at_50 = 0;
  // One plain sentence about the shape, e.g. "16 zones falling from 60.0 to
  // 30.0 MB/s (2.00:1)"; "no data" for an empty curve.
  std::string description;
};

// Analyses `curve` (points in position order, contiguous or evenly spaced;
// rates >= 0, a rate below 0.1 % of the median counts as that much).
// `optical`: the media is optical, so a flat curve is `clv` rather than `flat`.
// Empty input gives an empty analysis of type kOther. Memory O(N) (about 40
// bytes per point besides the input); time close to linear (FPOP keeps about
// a dozen candidates alive on disk curves; tests/bench/zone_bench.cc: 10^6
// points with 20 zones in about 0.4 s). Never throws except std::bad_alloc.
ZoneAnalysis DetectZones(std::span<const CurvePoint> curve, const ZoneOptions& options,
                         bool optical = false);

}  // namespace zcav
