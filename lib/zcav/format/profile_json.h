// The JSON of zcav's probes and of zcav profile's measurements besides the
// sweep: the members profile.json adds after "blocks" (json_reader.cc reads
// them back) and the documents of zcav access and zcav burst. Each function
// returns one JSON value as text; the key names are json_keys.h's. NaN and
// infinities are written as 0, invalid UTF-8 is replaced (U+FFFD).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "zcav/analysis/transport.h"
#include "zcav/analysis/verdict.h"
#include "zcav/device/device.h"
#include "zcav/measure/access.h"
#include "zcav/measure/burst.h"
#include "zcav/measure/estimate.h"
#include "zcav/measure/random_access.h"
#include "zcav/measure/sweep.h"

namespace zcav {

// The device facts every probe's JSON carries: path, size_bytes,
// sector_bytes, model, direct_io.
std::string ProbeDeviceJson(const DeviceInfo& dev);
// The figures of an access test (access.h) of `read_bytes` per read, every
// sample included, as `zcav access` and profile.json write them.
std::string AccessFiguresJson(const AccessResult& r, std::uint64_t read_bytes);
// Random access by size and depth (random_access.h): mode, engine,
// seconds_per_cell, seed and cells [{size_bytes, queue_depth, engine_depth,
// ops, seconds, iops, mb_per_s, mean_ms, p50_ms, p99_ms, max_ms}].
std::string RandomAccessJson(const RandomAccessResult& r, const RandomAccessOptions& o);
// The figures of a burst test (burst.h) over `region_bytes`.
std::string BurstFiguresJson(const BurstResult& r, std::uint64_t region_bytes);
// The bus (transport.h): kind, link, its ceilings (null when unknown), source.
std::string TransportJson(const Transport& t);
// The verdict (verdict.h): kind and reason, and for a bus-capped curve the
// capped share and the uncapped estimate.
std::string VerdictJson(const Verdict& v);

// How zcav profile chose its sweep: profile.json's "profile" member.
struct ProfileSampling {
  std::string sampling;               // "full", "quick" or "adaptive"
  std::string why;                    // why that sampling, in words
  double adaptive_above_seconds = 0;  // the estimated duration above which it is adaptive
  std::uint32_t passes = 0;           // the sweep's passes
  std::string passes_why;             // "-c", "default" or why that many
  std::optional<StartRate> estimate;  // the start's rate (estimate.h), when it was read
  double full_sweep_seconds = 0;      // what the estimate makes of a full sweep
};

// What one zcav profile run measured besides the sweep's own document (the
// caller's, referred to for the call).
struct ProfileMeasurements {
  const Transport& transport;
  const Verdict& verdict;
  const SweepResult& sweep;
  const SweepPlan& plan;  // the sweep's
  const AccessResult& access;
  std::uint64_t access_read_bytes;  // per read, rounded up to the sector
  const RandomAccessResult& random_access;
  const RandomAccessOptions& random_options;
  const BurstResult& burst;
  std::uint64_t burst_region_bytes;  // the bytes the burst test reads
  const ProfileSampling& sampling;
  const std::string& status;  // the run's: "complete" or "partial: ..."
  bool partial;
};

// profile.json's members after the sweep's, in order, each a name and its
// value as JSON text: transport, verdict, sweep, access, random_access,
// burst, profile, status, partial (JsonDocumentWriter::Closing takes them).
std::vector<std::pair<std::string, std::string>> ProfileJsonMembers(const ProfileMeasurements& m);

}  // namespace zcav
