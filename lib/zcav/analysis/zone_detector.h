// Zone detection: finds the throughput plateaus of a per-block curve and
// names the shape of the curve.
//
// DetectZones is a pure function over values. The method (penalised exact
// segmentation of the log rates, Hampel outlier filter, merging of steps too
// small to be zones, curve classification), its references and the reasons
// for its thresholds are described in zone_detector.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "zcav/result/curve.h"

namespace zcav {

struct ZoneOptions {
  // Multiplies the segmentation penalty (and the merge thresholds with it):
  // > 1 finds fewer, stronger zones; < 1 finds more. Values <= 0 mean 1.
  // Default: 1.
  double sensitivity = 1.0;
  // Minimum zone length in blocks; 0 = max(3, 0.2 % of the blocks). Default: 0.
  std::uint64_t min_zone_blocks = 0;
  // How many blocks one block's timing can be smeared over: the bytes in
  // flight divided by the block size, when the reads in flight span more than
  // one block (a device that completes them in bursts then shares one burst's
  // time among several blocks). 0 or 1 = each block timed on its own. Above 1
  // the detector treats runs of up to that many blocks as one measurement
  // (minimum zone length, outlier runs). Default: 0.
  double blur_blocks = 0;
  // The device is known not to rotate (SSD, NVMe, a virtual disk, RAM): a
  // curve of two levels is then `tiered` (a cache, then the device's own
  // rate), never two zones of a platter. Default: false (rotational or
  // unknown).
  bool non_rotational = false;
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
  kTiered,    // a fast region, then the device's own rate (host cache, SSD cache read-back)
  kFlatDips,  // one level with recurring short dips (SSD garbage collection, host hiccups)
};

// "zoned", "flat", "clipped", "cav", "pcav", "zclv", "clv", "other",
// "tiered", "flat-dips".
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

// Fine structure of a curve that is described rather than listed as zones.
// Relative figures are fractions of the level they sit on (0.05 = 5 %).
struct Texture {
  // Jitter: the 5th and 95th percentiles of each block's rate over its
  // zone's median (e.g. 0.96 and 1.03); 1 and 1 when unknown.
  double jitter_p5_rel = 1;
  double jitter_p95_rel = 1;
  // Lag-1 autocorrelation of the noise (robust, -1..1) and how much the
  // correlation may inflate the variance of a mean over many blocks
  // (long-run variance / variance of independent noise, from the estimate
  // plus 2 standard errors: what the segmentation allows for; 1 =
  // independent).
  double lag1_autocorrelation = 0;
  double variance_inflation = 1;
  // The noise is shown to be correlated (its lag-1 autocorrelation clears 3
  // standard errors and inflates a long mean's variance by more than 1.5):
  // one pass then cannot tell a wander from a step of the media.
  bool correlated = false;
  // Recurring short dips below the level they interrupt (SSD garbage
  // collection, host hiccups): how many, the median spacing between their
  // starts (blocks; 0 when fewer than 3 dips), the median depth (fraction
  // below the level) and the share of the curve's blocks inside them.
  std::size_t dip_count = 0;
  double dip_period_blocks = 0;
  double dip_depth_rel = 0;
  double dip_share = 0;
  // Short bursts above the level they interrupt (a cache answering now and
  // then): how many, and the share of blocks inside them.
  std::size_t burst_count = 0;
  double burst_share = 0;
  // Alternating bands (multi-head / serpentine layouts): the median
  // relative difference between neighbouring bands and the median length of
  // a fast + slow pair (blocks). The zones then follow the falling envelope.
  bool banded = false;
  double band_amplitude_rel = 0;
  double band_period_blocks = 0;
};

// What caused a step between two zones, from the passes' curves: a media
// zone stays at the same position in every pass; a cache, a host hiccup or
// thermal throttling follows the elapsed time, so it moves or vanishes.
enum class StepOrigin {
  kUnknown,   // one pass: cannot tell
  kPosition,  // at the same position in every pass
  kTime,      // moves between passes, or missing from some
};

// "unknown", "position", "time".
const char* StepOriginName(StepOrigin origin);

struct Step {
  // The zone that begins at the step (index into zones, >= 1); for a kTime
  // step merged away by MergeZonesAt, the zone it now lies inside.
  std::size_t zone = 0;
  StepOrigin origin = StepOrigin::kUnknown;
  // Where the (median) curve stepped, in bytes; 0 = not recorded.
  std::uint64_t offset_bytes = 0;
  // Where each pass puts the step (offset in bytes; -1 = no such step in
  // that pass), in pass order; empty for one pass.
  std::vector<std::int64_t> pass_offsets_bytes;
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
  Texture texture;
  // One entry per step between zones, filled in by ClassifySteps when the
  // passes are known (origin kUnknown otherwise).
  std::vector<Step> steps;
  // Blocks per point the zones were found on: 1, or k when the per-block
  // rates could not be trusted one by one (ZoneOptions::blur_blocks > 1, or
  // per-block rates scattered over more than kResolutionSigma in log units,
  // as a throttle or a host that completes reads in bursts makes them): then
  // consecutive groups of k blocks were merged into one point each (their
  // bytes over their summed time) and every zone figure is over those
  // points. Zone and outlier block indices are still the curve's blocks.
  std::uint64_t resolution_blocks = 1;
  // ZoneOptions::non_rotational as given: the verdict never reads platter
  // zones into the curve of a device that does not rotate.
  bool non_rotational = false;
  // Blocks inside described dips and bursts (excluded from the zone
  // statistics like outliers); indices into the curve, in order.
  std::vector<std::uint64_t> dip_blocks;
  std::vector<std::uint64_t> burst_blocks;
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
// Empty input gives an empty analysis of type kOther. Never throws except
// std::bad_alloc.
//
// Up to kMaxDetailPoints points the whole method runs on the points
// themselves: memory O(N) (about 40 bytes per point besides the input), time
// close to linear (FPOP keeps about a dozen candidates alive on disk curves;
// tests/bench/zone_bench.cc: 10^6 points with 20 zones in about 0.4 s).
// Longer curves (a 20 TB disk in 1 MiB blocks has 20 M points) are segmented
// on a reduced series: consecutive points in buckets of
// k = ceil(N / kMaxDetailPoints), each bucket's median rate after the outlier
// filter. The outlier filter, the zone statistics and the shares still use
// every point, and each edge between stepped zones is moved to the point
// where the level changes (least squares within a bucket either side), so
// zones, outliers and figures are per block as for a short curve. What stays
// per bucket: a pcav fit's knee (within k points: 20 MiB of a 20 TB disk),
// min_zone_blocks (a multiple of k; a minimum given in points is rounded up
// to whole buckets) and `penalty` (the reduced series'); noise_sigma_mb_per_s
// is the points'. Memory then at most about 9 bytes per point besides the
// input (a mark per point throughout; 4 more while the noise scale is
// estimated, 8 per point of the largest zone while its statistics are) and
// 40 per bucket; time linear (20 M points in a few seconds).
inline constexpr std::size_t kMaxDetailPoints = std::size_t{1} << 20;
// Per-block scatter (robust sigma of the first differences of the log rates,
// over sqrt(2)) above which per-block times are read as timing noise rather
// than the device's rate, and blocks are grouped (ZoneAnalysis::
// resolution_blocks) until the groups' scatter is under kResolvedSigma.
inline constexpr double kResolutionSigma = 0.25;
inline constexpr double kResolvedSigma = 0.05;
ZoneAnalysis DetectZones(const Curve& curve, const ZoneOptions& options, bool optical = false);
// Merges each zone named in `steps` (indices into analysis.zones, >= 1) into
// the zone before it, as when a step turns out not to be a zone (it followed
// the elapsed time, not the position): the merged zones' statistics are
// computed again over `curve` (outliers and dip blocks left out), the
// remaining steps renumbered (a merged step of origin kTime is kept, as the
// record of a time-dependent change, with `zone` the zone it now lies in and
// offset_bytes where it was), a stepped curve left with one zone becomes
// flat (flat-dips with dips), and the summary and description are redone.
// REQUIRES: `analysis` came from DetectZones over `curve`.
void MergeZonesAt(const Curve& curve, const std::vector<std::size_t>& steps,
                  ZoneAnalysis& analysis);
// The zones of `analysis` replaced by zones that begin at `starts` (indices
// into `curve`, ascending; those outside 1..size-1 or out of order are
// ignored): a segmentation made elsewhere (adaptive sampling bisects its
// edges; the detector over its probes must not make a second one). The
// detector's outliers, dips and texture are kept; the zones' statistics,
// the stepped type (zoned, clipped, tiered, flat, ...), the summary and the
// description are redone; steps are cleared (one pass: no origin). A smooth
// curve (cav, pcav) is left as it is: its fit, not steps, describes it.
// `optical`: as DetectZones's. REQUIRES: `analysis` came from DetectZones
// over `curve` with the same `optical`.
void ZonesAt(const Curve& curve, const std::vector<std::size_t>& starts, bool optical,
             ZoneAnalysis& analysis);
// The same on a plain list of points (copied into a Curve first).
ZoneAnalysis DetectZones(std::span<const CurvePoint> curve, const ZoneOptions& options,
                         bool optical = false);

}  // namespace zcav
