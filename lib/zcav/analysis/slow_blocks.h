// Slow regions from block rates: for results without chunk times (classic
// zcav logs, block-only raw/CSV/JSON files), where the chunk-time detector of
// the sweep (sweep.h) cannot run. A damaged stretch then shows only as blocks
// far slower than the blocks around them, often interleaved with blocks read
// at full speed (a real 1 TB disk: 323 blocks of 3.7-50 MB/s among 105 MB/s
// ones over 99-200 GB). This finds such stretches so that they are reported
// as slow regions, not as outliers, dips or zones.
//
// Method:
//  1. Each block's level is the upper quartile of the rates within
//     max(min_window_blocks, blocks / 16) blocks on either side (a quantile,
//     so that a window up to 3/4 slow keeps the healthy level). A block is
//     slow below slow_factor x its level.
//  2. Slow blocks at most max_gap_blocks apart form a run; neighbouring runs
//     closer than the shorter one's span are one (a damaged stretch read
//     some longer stretches at full speed).
//  3. A run is a slow region when it holds at least min_slow_blocks slow
//     blocks and at least min_slow_share of its span is slow, and, against
//     the blocks on each side of it (a window each, at least min_side_blocks
//     and a quarter of the run's span up to the window):
//       - its slow blocks' median is below slow_factor x each side's median:
//         a step down that stays down (a zone edge, a cache then the device)
//         has a slow side and is no slow region; so is a run at either end of
//         the curve, unless its blocks between the slow ones read at the
//         other side's level (a damaged stretch that reaches the end: a
//         slower last zone has no healthy blocks inside it);
//       - the share of slow blocks on each side is under half of the run's,
//         and the run holds 6 standard deviations more slow blocks than that
//         share would put there by chance: slow blocks spread evenly (a
//         throttle's bursts, a busy host) are texture, wherever they cluster.
// Single slow blocks and short runs stay what the zone detector makes of them
// (outliers).
#pragma once

#include <cstddef>
#include <vector>

#include "zcav/analysis/zone_detector.h"
#include "zcav/measure/sample.h"

namespace zcav {

struct SlowBlockOptions {
  // Below this fraction of its level a block is slow. Neighbouring zones of
  // a real disk differ by a few per cent and its outer/inner ratio is at
  // most ~2.5 over the whole surface, so 0.6x within a window of 1/8 of the
  // curve is never a zone step; the damaged stretch read 3.7-50 of
  // 105 MB/s (<= 0.48x). Default: 0.6
  double slow_factor = 0.6;
  // The level's window on each side, at least; it grows to 1/16 of the
  // curve's blocks, so that a solid slow stretch up to ~9 % of the curve is
  // still measured against healthy blocks. Default: 64
  std::size_t min_window_blocks = 64;
  // Ordinary blocks allowed between two slow ones of one run. Default: 8
  std::size_t max_gap_blocks = 8;
  // Slow blocks a run needs to be a region: fewer are outliers (a host
  // hiccup takes one or two blocks). Default: 8
  std::size_t min_slow_blocks = 8;
  // Share of a run's span that must be slow. Default: 0.25
  double min_slow_share = 0.25;
  // Blocks needed on each side of a run. Default: 4
  std::size_t min_side_blocks = 4;
};

// The slow regions of `points` (position order, one pass's or the median
// across passes), in position order, each from its first slow block to the
// end of its last: pass 0, `ms` the time the region's blocks took at their
// rates and `expected_ms` what they would take at the slower side's median.
// Empty for curves under 2 x min_side_blocks + min_slow_blocks blocks.
// Linear in the curve's size (the levels are sampled).
std::vector<SlowRegion> FindSlowBlockRuns(const Curve& points,
                                          const SlowBlockOptions& options = {});

// `points` without the blocks that lie inside `regions` (sorted, apart).
Curve WithoutRegions(const Curve& points, const std::vector<SlowRegion>& regions);

}  // namespace zcav
