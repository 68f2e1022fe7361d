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
// Against stalls (a reader preempted on a busy machine, a host pausing its
// virtual disk: one probe read far slower, or a burst of reads that had
// waited read far faster): one untimed probe wakes the device before the
// grid; a grid probe off both its neighbours the same way is read again
// until two reads agree (a zone spans at least three grid probes); a
// bisection's probe far outside both levels is read again; a converged edge
// has its probe on the slower level's side read once more (a stall makes a
// probe of the faster level look slower, never the reverse), and a bracket
// that reopens is verified again; and each edge is finally placed where
// all the probes read around it disagree least with it, not where the last
// single reads put it. Against bursts (the reads that queued behind a
// stall, served at once from the device's read-ahead): three reads of a
// probe none of which agree drop the fastest when it is far above the
// next, and a converged edge's probe on the faster level's side is read
// again too when it reads off that level. A noisy grid (its smallest step
// under 5 of its noise sigmas) is read a second time, where that costs
// under 0.2 % of the range, before its steps are bisected.
//
// Re-reads are bounded: the reads of probes already read (for any of the
// reasons above) stop at half the bytes read otherwise, so that a busy
// host's noise raises the cost by at most half instead of without end (a
// 20 TB disk in a busy server must not take a day); the result says how
// much they cost and whether they hit the bound.
//
// Against drift (a host's slow period: every read 5-25 % slower for a few
// hundred ms, which moved the grid's levels and sent bisections the wrong
// way): one reference probe, a fixed block in the middle of the grid's last
// gap, is read twice before the grid and again before every
// reference_every probes; each probe read is divided by the drift it shows
// then (its rate against its median, interpolated between its reads either
// side in time, a stalled read of it left out; drifts under 2 % or two of
// its noise sigmas are none). A reference read off the one before is read
// again at once: agreeing, the speed changed in between, and the probes
// read since the one before are suspect (a grid probe takes the drift
// before or after the change that its grid neighbours agree with, or is
// read again; a bisection's moves whose side the drift decides are undone).
// At the end every edge is placed again with all the drifts known, and one
// whose probes either side are no longer neighbours is bisected again.
//
// Each probe is read in chunks through the device's read queue (the
// sweep's engine, queue_depth chunks in flight, the queue kept full so that
// the device never idles inside a probe) and timed from the first
// completion to the last: the seek, the head settling and the first chunk
// stay outside the time, and the rate is the media's, as a sweep's. The
// steps are bisected in turns (one read per open step per round), so that
// two reads in a row are at different edges, far apart: no read-ahead from
// one probe serves the next; a marginal probe is read again a round later,
// and with one step left open an untimed chunk at the far end of the range
// separates its probes. Two edges between the same two grid probes are seen
// as one (the grid's spacing must be below the narrowest zone).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/base/clock.h"
#include "zcav/device/device.h"
#include "zcav/measure/sample.h"

namespace zcav {

class SampleSink;  // sample_sink.h

// What the sampling is doing, after each probe: reading the grid (probe k
// of n), or refining edge k of n.
struct AdaptiveProgress {
  enum class Phase { kGrid, kRefine };
  Phase phase = Phase::kGrid;
  std::size_t done = 0;   // grid probes read, or edges finished before this one
  std::size_t total = 0;  // grid probes, or edges to refine
  std::uint64_t bytes_read = 0;
};

struct AdaptiveOptions {
  // Bytes each probe times (rounded up to the chunk). REQUIRED: > 0.
  std::uint64_t probe_bytes = 0;
  // Bytes per read call within a probe. Default: 1 MiB (at most the probe).
  std::uint64_t chunk_bytes = std::uint64_t{1} << 20;
  // Chunks in flight within a probe (the device's read queue; a device
  // without a queue reads one at a time). Default: 1.
  std::uint32_t queue_depth = 1;
  // Probes of the coarse grid, evenly spaced over the range. Default: 200.
  std::uint32_t grid_probes = 200;
  // Reads of a probe whose side is marginal (its distances to the two
  // levels, in log, within two noise sigmas of each other), or far off
  // both, or whose reads disagree; the median of the reads that agree is
  // kept (a stalled read left out). Default: 3.
  std::uint32_t max_reads = 3;
  // Stop refining once this many bytes have been read (0 = no limit): the
  // edges still open keep their wider uncertainty. A budget the grid itself
  // overruns ends the grid too: its probes read so far (the grid's order
  // spreads them over the range) give the edges, each as wide as the gap
  // between the probes either side. Default: 0.
  std::uint64_t byte_budget = 0;
  // The same for the clock's time since the sampling began (0 = no limit).
  // Default: 0.
  std::chrono::nanoseconds time_budget{0};
  // The range. Defaults: the whole device.
  std::uint64_t start_bytes = 0;
  std::optional<std::uint64_t> end_bytes;
  // One reference probe (a fixed block, in the middle of the grid's last
  // gap) is read again before every `reference_every` probe reads: how the
  // device's speed drifts over time (a host's slow period: every read 5-25 %
  // slow for a few hundred ms), divided out of the probes' rates (0 = no
  // reference). Default: 10.
  std::uint32_t reference_every = 10;
  // Reads of probes already read (a grid spike's, a marginal probe's, an
  // edge's verification, the moves a change of speed undid, a settled edge
  // bisected again, the reference read again at once) stop once they come
  // to this share of the bytes read otherwise (the grid, the bisection's
  // first reads, the reference's reads when due): a busy host's noise
  // raises the cost by at most this share, and the probes read after keep
  // the reads they have (AdaptiveResult::reread_capped). Default: 0.5.
  double max_reread_share = 0.5;
  // Called after every probe (may be empty). Must not throw.
  std::function<void(const AdaptiveProgress&)> progress;
};

// One probe read (the median of those of its `reads` reads that agree).
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
  std::uint64_t start_bytes = 0;      // the range sampled
  std::uint64_t range_bytes = 0;
  std::uint64_t probe_bytes = 0;  // each probe's length (the options', rounded to the chunk)
  std::uint32_t grid_probes = 0;  // probes of the grid
  std::string engine;             // how the probes were read: "io_uring", "pread", "sim"
  // One probe's noise: the robust sigma of ln(rate), from the grid's
  // neighbour steps (about the relative noise: 0.02 is about 2 %).
  double noise_rel = 0;
  // The reference probe's reads (AdaptiveOptions::reference_every; counted
  // in bytes_read, not in probes), and the drift furthest from 1 that a
  // probe's read was divided by (1: none; 0.9: the device read 10 % slow
  // then).
  std::uint32_t reference_reads = 0;
  double largest_drift = 1;
  // Bytes of probes read again (counted in bytes_read): a grid spike's, a
  // marginal probe's, an edge's verification, the moves a change of speed
  // undid, an edge bisected again, the reference read again at once. They
  // stop at half the other bytes read (a busy host costs at most half more);
  // reread_capped: they did, and later probes kept the reads they had.
  std::uint64_t reread_bytes = 0;
  bool reread_capped = false;
  bool budget_hit = false;
  // Probes that could not be read (a bad sector is data: each failed probe
  // is one range, its whole length, and the sampling goes on without it).
  std::vector<UnreadableRange> unreadable;
  // The device went away (read_checks.h IsDeviceGone): the sampling ended
  // there; what was read is kept.
  std::error_code error;
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

// What a caller asks of an adaptive run (zcav sweep --adaptive, zcav
// profile); zeros mean the defaults.
struct AdaptiveRequest {
  std::uint64_t start_bytes = 0;  // the range. REQUIRED: end > start.
  std::uint64_t end_bytes = 0;
  std::uint64_t sector_bytes = 512;
  double expected_mb_per_s = 0;             // about how fast the range reads (MB/s); 0 = not known
  std::uint64_t max_chunk_bytes = 0;        // the engine's read call (a sweep plan's chunk)
  std::uint64_t probe_bytes = 0;            // given (--block-size); 0 = the default
  std::uint64_t chunk_bytes = 0;            // given (--chunk-size); 0 = the default
  std::uint32_t grid_probes = 0;            // given (--grid); 0 = the default
  double budget_share = 0;                  // a byte budget as a share of the range (0 = none)
  std::chrono::nanoseconds budget_time{0};  // a time budget (0 = none)
};

// The options of an adaptive run for `request`, the probe and chunk as
// SampleAdaptively reads them (AdaptiveChunk, AdaptiveProbeBytes): defaults
// sized so the grid reads at most 3.1 % of the range (and half of a byte
// budget); a given probe, chunk or grid is kept (rounded as SampleAdaptively
// rounds). Pure.
// Specification: docs/adaptive.md#defaults
inline constexpr std::uint32_t kDefaultGridProbes = 200;
AdaptiveOptions PlanAdaptive(const AdaptiveRequest& request);

// How SampleAdaptively reads a probe of probe_bytes in read calls of up to
// chunk_bytes: chunks of at most half the probe (the first is untimed),
// whole sectors; the probe a whole number of chunks (at least two sectors).
// Pure.
std::uint64_t AdaptiveChunk(std::uint64_t probe_bytes, std::uint64_t chunk_bytes,
                            std::uint64_t sector_bytes);
std::uint64_t AdaptiveProbeBytes(std::uint64_t probe_bytes, std::uint64_t chunk_bytes,
                                 std::uint64_t sector_bytes);

// An adaptive run as a sweep's events, for the writers behind `sink`: samples
// `device` (SampleAdaptively with run.plan's range and queue depth), then OnStart(run), each
// probe as a block (OnBlock, position order, index = its rank; `passes` =
// its reads), each unreadable probe (OnUnreadable), one PassSummary of the
// timed reads, OnAdaptive (the edges and zones; probes left empty) and
// OnFinish. The result: status kComplete, kInterrupted, or kDeviceGone;
// bytes_read and read_time the probes' timed bytes and time; wall_seconds
// on `clock` (virtual for a simulated device), warm-ups and seeks included.
// REQUIRES: run.plan from PlanSweep with block_bytes = options.probe_bytes.
// Throws as SampleAdaptively.
SweepResult RunAdaptiveSweep(Device& device, const RunInfo& run, Clock& clock,
                             const AdaptiveOptions& options, const AdaptiveStepFinder& find_steps,
                             SampleSink& sink, const std::atomic<bool>* stop = nullptr);

}  // namespace zcav
