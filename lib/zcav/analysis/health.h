// The health conclusion of a run: good, suspect or failing, with the numbers
// behind it. A pure function over what the sweep found (unreadable ranges,
// slow regions, chunk latency classes) and what the drive said about itself
// (SMART before and after, temperature).
//
// Thresholds (HealthThresholds), after what MHDD/Victoria, HD Tune and
// smartctl users act on:
//   failing  - any unreadable range (a sector the drive could not read twice);
//            - SMART's overall assessment failed (smart_status.passed false);
//            - SMART error counters grew during the run: reallocated, pending
//              or offline-uncorrectable sectors, NVMe media errors (the drive
//              found new bad sectors while we read it).
//   suspect  - a slow region (chunks slow_factor times slower than their
//              neighbours: a drive retrying or remapping);
//            - a chunk that took 500 ms or more (LatencyClass::kAtLeast500): Victoria's
//              "red" class; a healthy drive never waits that long for one read;
//            - reallocated, pending or offline-uncorrectable sectors already
//              present before the run (SMART), or CRC errors that grew (the
//              cable or the bus, not the media);
//            - temperature at or above 60 C (rotating) or 70 C (solid state):
//              the usual top of the operating range;
//            - a throughput drop that came with a temperature rise while the
//              other passes read the same positions without it: thermal
//              throttling (thermal.h). With no other pass to tell it from a
//              zone edge, the drop is listed but changes no verdict.
//   good     - none of the above; the reasons then list what was checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zcav/analysis/thermal.h"
#include "zcav/measure/sample.h"
#include "zcav/measure/smart.h"

namespace zcav {

enum class HealthVerdict { kGood, kSuspect, kFailing };

// "good", "suspect", "failing".
const char* HealthVerdictName(HealthVerdict verdict);

struct HealthThresholds {
  double max_rotating_c = 60;  // temperature at or above: suspect
  double max_solid_state_c = 70;
};

// What the conclusion is drawn from.
struct HealthInputs {
  std::uint64_t device_bytes = 0;  // for positions in % (0 = unknown)
  std::optional<bool> rotational;  // the device's, for the temperature limit
  std::vector<UnreadableRange> unreadable;
  std::vector<SlowRegion> slow_regions;
  LatencyClasses latency;  // over all passes
  // SMART at the start and the end (available false when not read).
  SmartSnapshot smart_before;
  SmartSnapshot smart_after;
  // The highest drive temperature seen during the run, C (hwmon or SMART).
  std::optional<double> max_temperature_c;
  // Throughput drops that came with a temperature rise (FindThermalDrops).
  std::vector<ThermalDrop> thermal_drops;
  // An adaptive run read only its probes: the share of the range they
  // covered (0..1). A good verdict then says that the rest was not read.
  std::optional<double> adaptive_share_read;
};

struct Health {
  HealthVerdict verdict = HealthVerdict::kGood;
  // One sentence per finding, worst first, with its numbers and positions;
  // for a good verdict, what was checked.
  std::vector<std::string> reasons;
};

// The conclusion for `in` (see the thresholds above).
Health AssessHealth(const HealthInputs& in, const HealthThresholds& thresholds = {});

// A run's health conclusion with what it rests on: what the writers record
// (ResultSink::OnHealth) and the summary says.
struct HealthReport {
  Health health;
  // SMART was asked for (zcav profile, zcav sweep --smart); the snapshots
  // then say what was read or, in their note, why nothing was.
  bool smart_requested = false;
  SmartSnapshot smart_before;
  SmartSnapshot smart_after;
  std::vector<SmartChange> smart_increases;
  // Readings during the run, in time order, and where they came from
  // ("hwmon", "smartctl"); empty when the drive reports no temperature.
  std::vector<TemperatureReading> temperatures;
  std::string temperature_source;
  // Throughput drops that came with a temperature rise (thermal.h).
  std::vector<ThermalDrop> thermal_drops;
};

}  // namespace zcav
