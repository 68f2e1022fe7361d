// The model of a saved result: what a sweep, an adaptive run or a profile
// recorded, as the readers (format/data_reader.h) return it and the plots,
// reports, fleet and resume use it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zcav/device/link_state.h"
#include "zcav/measure/adaptive.h"
#include "zcav/measure/random_access.h"
#include "zcav/measure/sample.h"
#include "zcav/measure/verify.h"
#include "zcav/result/curve.h"
#include "zcav/result/recorded.h"

namespace zcav {

// One timed random read (zcav access, zcav profile): what the access plot
// draws.
struct AccessSample {
  std::uint64_t offset_bytes = 0;
  double ms = 0;  // access time, milliseconds
};

struct SavedResult {
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
  // zcav verify's result (ReadVerify), when the file is one.
  std::optional<VerifyResult> verify;
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

}  // namespace zcav
