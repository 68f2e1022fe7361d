// Reading saved results back: zcav's own raw/CSV/JSON outputs and the logs of
// classic zcav versions (bonnie++ 1.03 and 1.9x/2.00).
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "zcav/analysis/caches.h"
#include "zcav/analysis/thermal.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/device/device.h"
#include "zcav/measure/adaptive.h"
#include "zcav/measure/random_access.h"
#include "zcav/measure/sample.h"

namespace zcav {

// One timed random read (zcav access, zcav profile): what the access plot
// draws.
struct AccessSample {
  std::uint64_t offset_bytes = 0;
  double ms = 0;  // access time, milliseconds
};

struct Profile {
  std::string source;  // file name, as given
  // "zcav-raw", "zcav-csv", "zcav-json", "zcav-events", "bonnie-1.03",
  // "bonnie-1.9x".
  std::string format;
  std::string device_path;         // when the file says; else empty
  std::uint64_t device_bytes = 0;  // when known; else 0
  std::uint64_t block_bytes = 0;   // nominal block size, when known or inferred
  std::uint32_t passes = 0;        // passes behind each point, when known
  // Per block, position order; mb_per_s = median (10^6 B/s). Compact
  // (zone_detector.h): 8 bytes per block for one pass.
  Curve points;
  // From zcav's own headers/summary when present (empty/nullopt otherwise).
  std::string device_vendor;
  std::string device_model;
  // Which drive and which machine (DeviceInfo::serial, wwn, firmware;
  // RunInfo::host), from zcav's raw header or JSON device.identity.
  std::string device_serial;
  std::string device_wwn;
  std::string device_firmware;
  std::string host;
  // When the run started, "2026-11-29T22:30:50Z" (RunInfo::start_time_utc)
  // as the file recorded it (raw "# started:", CSV, JSON identity); else "".
  std::string started_utc;
  std::string transport;  // e.g. "usb", "ata", "sim"
  // The device's sysfs rotational flag, and what the reads reached under a
  // file or a loop device (DeviceInfo::storage_transport and
  // storage_rotational), when the file recorded them.
  std::optional<bool> rotational;
  std::string storage_transport;
  std::optional<bool> storage_rotational;
  std::string link;  // e.g. "USB 480 Mb/s"
  // How the link trained (JSON device.link_detail), when the file has it.
  LinkState link_state;
  std::optional<double> avg_mb_per_s;  // bytes read / read time
  std::optional<double> cpu_percent;   // process user+sys as % of wall
  // From a `zcav profile` JSON (profile.json) when present: the access-time
  // and burst measurements and the bus-or-media verdict. A sweep's JSON has
  // the verdict only (decided without a burst rate).
  std::optional<double> access_mean_ms;      // mean of the random reads, ms
  std::vector<AccessSample> access_samples;  // each random read, in the order read
  std::optional<double> burst_mb_per_s;      // average burst rate, MB/s (10^6 B/s)
  std::string verdict;                       // "bus-limited", "media-limited", ...; empty = none
  std::string verdict_reason;                // its sentences
  // Random access by size and queue depth ("random_access" of zcav access
  // --sizes or zcav profile): the cells, and "read" or "write".
  std::vector<RandomAccessCell> random_access;
  std::string random_access_mode;
  // zcav's own outputs: the unreadable ranges (sorted) and slow regions the
  // sweep found. Blocks with no clean read are not in `points`.
  std::vector<UnreadableRange> unreadable;
  std::vector<SlowRegion> slow_regions;
  // zcav's own outputs: each pass's chunk latency classes (PassSummary::
  // latency; empty when not recorded) and, from its JSON, each block's
  // slowest chunk (BlockResult::worst_chunk_ms), parallel to `points` (empty
  // when not recorded): what the surface map draws. chunk_bytes: the chunk
  // size they are for (0 = not known).
  // zcav's raw and JSON outputs behind a HealthSink: the health verdict
  // ("good", "suspect", "failing"; empty = none recorded) and its reasons,
  // the SMART counters that grew during the run ("reallocated_sectors 0 ->
  // 8") and, when SMART could not be read, why.
  std::string health_verdict;
  std::vector<std::string> health_reasons;
  std::vector<std::string> smart_increases;
  std::string smart_note;
  std::vector<LatencyClasses> latency_classes;
  // zcav's raw and JSON outputs with a temperature source: the drive's
  // temperature readings during the run (HealthReport::temperatures), in
  // time order; empty when none were recorded.
  std::vector<TemperatureReading> temperatures;
  std::vector<float> worst_chunk_ms;
  std::uint64_t chunk_bytes = 0;
  // zcav's JSON: each complete pass's rate and page-cache share, the share
  // at the end and the file they count (caches.h); empty when not recorded.
  CacheEvidence caches;
  // zcav's own raw and JSON outputs: the sweep's plan as recorded
  // ("# options:" / "options"), the run's status text, and every timed
  // sample of a multi-pass sweep ("# sample:" lines / "samples"), what
  // --resume continues from.
  std::optional<SweepPlan> plan;
  // How many blocks one block's time may be smeared over (the sweep's
  // BlockTiming::blur_blocks, from "# timing:" / options.timing): what the
  // zone detector takes as ZoneOptions::blur_blocks. 0 = each block timed on
  // its own, or not recorded (files before zcav recorded it, CSV, classic).
  double blur_blocks = 0;
  std::string status;
  std::vector<Sample> samples;
  // An adaptive run's edges, inferred zones and bytes read (adaptive_format.h;
  // its probes are `points`, the only measured data); nullopt for a sweep.
  std::optional<AdaptiveResult> adaptive;
  // What a user should know about the import, e.g. "12 '++++' rates
  // recomputed from the time column and the 100 MiB block size".
  std::vector<std::string> notes;
};

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
// points as it is read, so a 20 M-block result takes about the Profile's 8
// bytes per block (16 while a raw file's block lengths are filled in), not
// its gigabytes of text. Files whose blocks repeat (several passes printed,
// runs concatenated) keep every row until they are merged.
Profile ReadProfile(const std::string& path, std::uint64_t max_bytes = 0);

// Reads the random access by size and depth of a zcav JSON result (`zcav
// access --sizes ... --format json`, or a profile's JSON): the returned
// Profile has no points, its device fields, random_access and
// random_access_mode filled. Throws Error(kBadInput) as ReadProfile does, and
// "FILE: no random access results ..." for a file without them.
Profile ReadRandomAccess(const std::string& path);

// The curve the zone detector reads for `profile`: its points, or for an
// adaptive result its probes stretched to the edges (AdaptiveCurve): what
// `zcav zones`, the plots, the report and merge analyse.
Curve ZoneCurve(const Profile& profile);
// The zones of `profile`: DetectZones over its points, or for an adaptive
// result AdaptiveZones over ZoneCurve (the sampler's edges, one
// segmentation). `options` and `optical` as DetectZones's.
ZoneAnalysis ProfileZones(const Profile& profile, const ZoneOptions& options, bool optical);

// The device facts a profile recorded, as a DeviceInfo (path, size,
// transport, rotational flags; the rest default): for KnownNotToRotate.
DeviceInfo RecordedDevice(const Profile& profile);
// The same from a stream; one that cannot seek (a pipe) is copied into
// memory first (detection reads the start twice).
Profile ParseProfile(std::istream& in, const std::string& source);

}  // namespace zcav
