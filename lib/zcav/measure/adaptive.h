// Adaptive sampling: the zone edges of a device from a small share of its
// surface. A coarse grid of probe blocks is read first (in an order that
// never reads two neighbours one after the other, so a drive's read-ahead
// cannot flatter a probe); then, between every two neighbouring probes
// where the grid changes level (the zone detector's segmentation of the
// grid, passed in: a smooth curve's slope is no edge), the gap is bisected,
// probe by probe, down to one probe block: each middle probe joins the side
// whose level it is closer to (re-read when its side is marginal). The cost grows
// with the number of edges (log2 of the grid step per edge), not with the
// size of the device.
//
// Each probe is one untimed chunk at its offset (the seek, and the head
// settling, outside the time) and then the rest of its probe_bytes read in
// chunks and timed from the first to the last: the rate is the media's, as
// a sweep's. Two edges between the same two grid probes are seen as one
// (the grid's spacing must be below the narrowest zone).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <system_error>
#include <vector>

#include "zcav/base/clock.h"
#include "zcav/device/device.h"

namespace zcav {

struct AdaptiveOptions {
  // Bytes each probe times (rounded up to the chunk). REQUIRED: > 0.
  std::uint64_t probe_bytes = 0;
  // Bytes per read call within a probe. Default: 1 MiB (at most the probe).
  std::uint64_t chunk_bytes = std::uint64_t{1} << 20;
  // Probes of the coarse grid, evenly spaced over the range. Default: 200.
  std::uint32_t grid_probes = 200;
  // Reads of a probe whose side is marginal (its distances to the two
  // levels, in log, within two noise sigmas of each other); the median is
  // kept. Default: 3.
  std::uint32_t max_reads = 3;
  // Stop refining once this many bytes have been read (0 = no limit): the
  // edges still open keep their wider uncertainty. Default: 0.
  std::uint64_t byte_budget = 0;
  // The range. Defaults: the whole device.
  std::uint64_t start_bytes = 0;
  std::optional<std::uint64_t> end_bytes;
};

// One probe read (its median over `reads` reads).
struct AdaptiveProbe {
  std::uint64_t offset_bytes = 0;
  std::uint64_t length_bytes = 0;
  double mb_per_s = 0;  // 10^6 B/s
  std::uint32_t reads = 1;
};

// A level change: between the end of the last probe at the left level and
// the start of the first at the right one. The edge is `at_bytes` give or
// take `uncertainty_bytes` (half the gap between those probes, and a probe
// block when the probe at the edge straddles it).
struct AdaptiveEdge {
  std::uint64_t at_bytes = 0;
  std::uint64_t uncertainty_bytes = 0;
  double left_mb_per_s = 0;  // the levels on either side (the grid's)
  double right_mb_per_s = 0;
};

// A stretch between edges (or the range's ends): its level is the median of
// the probes that lie wholly inside it.
struct AdaptiveZone {
  std::uint64_t start_bytes = 0;
  std::uint64_t end_bytes = 0;
  double mb_per_s = 0;
  std::uint32_t probes = 0;
};

struct AdaptiveResult {
  std::vector<AdaptiveProbe> probes;  // every probe, in position order
  std::vector<AdaptiveEdge> edges;    // in position order
  std::vector<AdaptiveZone> zones;    // edges.size() + 1 of them
  std::uint64_t bytes_read = 0;       // timed and untimed
  std::uint64_t range_bytes = 0;
  double noise_rel = 0;  // the probes' relative noise (robust sigma of neighbour steps)
  bool budget_hit = false;
  std::error_code error;  // a failed read ends the sampling (what was read is kept)
  std::uint64_t error_offset_bytes = 0;
  bool interrupted = false;
};

// A level change the grid shows: between grid probes `left` and `right`
// (indexes into the grid, in position order; left < right), at the levels
// on either side.
struct AdaptiveStep {
  std::size_t left = 0;
  std::size_t right = 0;
  double left_mb_per_s = 0;
  double right_mb_per_s = 0;
};
// Where the grid changes level: the caller's segmentation of the grid's
// probes (measure/ does not segment curves; analysis/adaptive_steps.h does).
using AdaptiveStepFinder =
    std::function<std::vector<AdaptiveStep>(const std::vector<AdaptiveProbe>&)>;

// Samples `device` adaptively, timed by `clock`: the grid, then each step
// `find_steps` names in it bisected to one probe block. Never throws for
// I/O; throws Error(kBadInput) for a probe smaller than two sectors, a range
// that cannot hold three probes, or fewer than 3 grid probes.
AdaptiveResult SampleAdaptively(Device& device, Clock& clock, const AdaptiveOptions& options,
                                const AdaptiveStepFinder& find_steps,
                                const std::atomic<bool>* stop = nullptr);

}  // namespace zcav
