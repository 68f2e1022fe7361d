// Fleet comparison (zcav merge): which of many drives of one model is slower
// than its siblings, and where.
//
// Each drive's curve is reduced to kFleetBins rates, one per 1 % of its
// surface (FleetBins), so thousands of drives fit in memory whatever their
// block counts. Drives are grouped by model and firmware (FleetGroupKey);
// each group of at least kFleetMinDrives drives gets a reference curve: per
// bin the median of its drives' rates and the 10th and 90th percentiles.
// Every drive is then scored against its group's median, in a group of at
// most kFleetLeaveOneOutMax drives the median of its siblings alone (the
// group without it: in a small group the drive's own slowness would move
// the reference and widen the spread it is measured against):
//   ratio         the drive's average rate over the surface as a share of
//                 the median's (time-weighted: the time to read every bin
//                 at the median's rates over the time at the drive's);
//   worst region  the stretch of bins where the drive is most below the
//                 median: bins below by more than max(kFleetMinDeficit, 4
//                 robust standard deviations of the group's own spread in
//                 that bin), joined over gaps of one bin; the stretch with
//                 the largest deficit (sum of 1 - ratio over its bins) of at
//                 least kFleetMinRegionBins bins.
// A drive is flagged, with a reason each, for: a worst region; a ratio below
// 1 - kFleetMinOverallDeficit; unreadable ranges; more slow regions than
// twice its group's median (and at least one); a suspect or failing health
// verdict; an access time over 1.5 times its group's median; a burst rate
// below two thirds of its group's median. A group too small for a reference
// flags only what needs none (unreadable ranges, slow regions, health).
// Rates in MB/s (10^6 B/s); positions in % of the drive's surface. Pure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zcav/analysis/zone_detector.h"  // Curve

namespace zcav {

inline constexpr std::size_t kFleetBins = 100;
inline constexpr std::size_t kFleetMinDrives = 3;
inline constexpr double kFleetMinDeficit = 0.05;
inline constexpr double kFleetMinOverallDeficit = 0.10;
inline constexpr std::size_t kFleetMinRegionBins = 2;
// Groups up to this size score each drive against its siblings without it
// (when they are still at least kFleetMinDrives); in a larger group one
// drive barely moves the median, and leaving each out would cost a
// reference per drive.
inline constexpr std::size_t kFleetLeaveOneOutMax = 20;

// MB/s per 1 % of the surface; NaN = nothing measured there.
using FleetCurve = std::array<double, kFleetBins>;

// `curve` (position order) over a surface of `size_bytes` (0 = up to the
// curve's last block) as bins: each bin's rate is the median of the blocks
// whose middle lies in it; a bin no block's middle lies in (blocks larger
// than 1 % of the surface, a quick sweep's sampled blocks) takes the block
// whose middle is nearest to the bin's middle, within two bins; else NaN.
FleetCurve FleetBins(const Curve& curve, std::uint64_t size_bytes);

// One drive's result, as merge needs it.
struct FleetDrive {
  std::string source;  // the file it came from
  std::string name;    // what tables call it (host/serial, else the device, else the file)
  std::string host, serial, model, firmware, device_path;
  std::string wwn;          // "" = not recorded
  std::string started_utc;  // when its run started ("2026-11-29T22:30:50Z"); "" = not recorded
  std::uint64_t size_bytes = 0;
  FleetCurve bins{};
  std::size_t unreadable_ranges = 0;
  std::size_t slow_regions = 0;
  std::string health;  // "good", "suspect", "failing"; "" = not recorded
  std::optional<double> access_mean_ms;
  std::optional<double> burst_mb_per_s;
};

// One result per drive: of the results with the same WWN (else, without a
// WWN, the same serial) the newest by its recorded start is kept (without
// a recorded start: the first in input order; ties too), in input order.
// A copied result must not count as a sibling of itself. Returns one line
// per drive that had several, naming the results dropped and the one kept.
std::vector<std::string> KeepNewestPerDrive(std::vector<FleetDrive>& drives);

// The group a drive belongs to: "MODEL (firmware FW)" when the model is
// known, else "unknown model, SIZE" (its size in bytes, or "unknown size").
std::string FleetGroupKey(const FleetDrive& drive);

struct FleetRegion {
  double start_percent = 0;
  double end_percent = 0;
  double ratio = 1;  // the drive's mean rate there over the median's
};

struct FleetGroup {
  std::string key;
  std::string model, firmware;
  std::uint64_t size_bytes = 0;     // the first drive's
  std::vector<std::size_t> drives;  // indices into the drives, in input order
  bool has_reference = false;       // at least kFleetMinDrives drives
  FleetCurve median{}, p10{}, p90{};
  std::optional<double> access_median_ms, burst_median_mb_per_s;
  double slow_regions_median = 0;
};

struct FleetScore {
  std::size_t group = 0;  // index into FleetAnalysis::groups
  bool flagged = false;
  std::vector<std::string> reasons;
  std::optional<double> ratio;  // none without a reference
  std::optional<FleetRegion> worst_region;
};

struct FleetAnalysis {
  std::vector<FleetGroup> groups;  // in order of their first drive
  std::vector<FleetScore> scores;  // one per drive, in input order
  // Drive indices worst first: flagged before not, then by the lower of the
  // worst region's and the overall ratio, then input order.
  std::vector<std::size_t> order;
};

FleetAnalysis AnalyzeFleet(const std::vector<FleetDrive>& drives);

}  // namespace zcav
