// The JSON of the probes and of zcav profile's measurements (profile_json.h),
// built as nlohmann::ordered_json values (keys in the order written) and
// handed out as text.
#include "zcav/format/profile_json.h"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <system_error>

#include "zcav/format/json_keys.h"

namespace zcav {

namespace {

namespace keys = json_keys;
using Json = nlohmann::ordered_json;  // keeps keys in the order written

// 0 for NaN and infinities (JSON has no such numbers).
double Finite(double v) { return std::isfinite(v) ? v : 0.0; }

// One JSON value as text; invalid UTF-8 (from device names) replaced.
std::string Text(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json ErrorJson(const std::error_code& error, std::uint64_t offset_bytes) {
  return {{keys::kOffsetBytes, offset_bytes}, {keys::kMessage, error.message()}};
}

Json TransportValue(const Transport& t) {
  return {{keys::kKind, t.kind},
          {keys::kLink, t.link},
          {keys::kCeilingMbPerS, t.ceiling_mb_per_s > 0 ? Json(t.ceiling_mb_per_s) : Json(nullptr)},
          {keys::kTheoreticalMbPerS,
           t.theoretical_mb_per_s > 0 ? Json(t.theoretical_mb_per_s) : Json(nullptr)},
          {keys::kSource, t.source}};
}

Json VerdictValue(const Verdict& v) {
  Json j = {{keys::kKind, VerdictKindName(v.kind)}, {keys::kReason, v.reason}};
  if (v.kind == VerdictKind::kBusCapped) {
    j[keys::kCappedShare] = Finite(v.capped_share);
    j[keys::kUncappedEstimateMbPerS] = Finite(v.uncapped_estimate_mb_per_s);
  }
  return j;
}

Json RandomAccessValue(const RandomAccessResult& r, const RandomAccessOptions& o) {
  Json cells = Json::array();
  for (const RandomAccessCell& c : r.cells) {
    cells.push_back({{keys::kSizeBytes, c.size_bytes},
                     {keys::kQueueDepth, c.queue_depth},
                     {keys::kEngineDepth, c.engine_depth},
                     {keys::kOps, c.ops},
                     {keys::kSeconds, c.seconds},
                     {keys::kIops, c.iops},
                     {keys::kMbPerS, c.mb_per_s},
                     {keys::kMeanMs, c.mean_ms},
                     {keys::kP50Ms, c.p50_ms},
                     {keys::kP99Ms, c.p99_ms},
                     {keys::kMaxMs, c.max_ms}});
  }
  return {{keys::kMode, o.write ? "write" : "read"},
          {keys::kEngine, r.engine},
          {keys::kSecondsPerCell, std::chrono::duration<double>(o.cell_time).count()},
          {keys::kSeed, o.seed},
          {keys::kCells, cells}};
}

Json AccessFiguresValue(const AccessResult& r, std::uint64_t read_bytes) {
  Json samples = Json::array();
  for (const AccessReading& x : r.samples) {
    samples.push_back({{keys::kOffsetBytes, x.offset_bytes},
                       {keys::kDistanceBytes, x.distance_bytes},
                       {keys::kMs, Finite(x.ms)}});
  }
  return {{keys::kReadBytes, read_bytes},     {keys::kCount, r.samples.size()},
          {keys::kMeanMs, Finite(r.mean_ms)}, {keys::kMedianMs, Finite(r.median_ms)},
          {keys::kP95Ms, Finite(r.p95_ms)},   {keys::kMinMs, Finite(r.min_ms)},
          {keys::kMaxMs, Finite(r.max_ms)},   {keys::kCpuPercent, Finite(r.cpu_percent)},
          {keys::kSamples, samples}};
}

Json BurstFiguresValue(const BurstResult& r, std::uint64_t region_bytes) {
  return {{keys::kRegionBytes, region_bytes},         {keys::kRepetitions, r.repetitions},
          {keys::kMinMbPerS, Finite(r.min_mb_per_s)}, {keys::kAvgMbPerS, Finite(r.avg_mb_per_s)},
          {keys::kMaxMbPerS, Finite(r.max_mb_per_s)}, {keys::kCpuPercent, Finite(r.cpu_percent)}};
}

// What one step ended as, for the JSON and the exit code.
std::string StepStatus(const std::error_code& error, std::uint64_t offset, bool interrupted) {
  if (error)
    return "partial: read error at offset " + std::to_string(offset) + " bytes: " + error.message();
  return interrupted ? "partial: interrupted" : "complete";
}

// profile.json's "sweep": the sweep's own status, plan and figures.
Json SweepJson(const SweepResult& sweep, const SweepPlan& p) {
  Json j = {{keys::kStatus, sweep.StatusText()},
            {keys::kPartial, sweep.partial()},
            {keys::kQuick, p.quick},
            {keys::kPasses, p.passes},
            {keys::kBlockBytes, p.block_bytes},
            {keys::kBlocksPlanned, p.block_count},
            {keys::kBlocks, sweep.blocks_measured},
            {keys::kMinMbPerS, Finite(sweep.min_mb_per_s)},
            {keys::kAvgMbPerS, Finite(sweep.avg_mb_per_s)},
            {keys::kMaxMbPerS, Finite(sweep.max_mb_per_s)},
            {keys::kCpuPercent, Finite(sweep.cpu_percent)},
            {keys::kSystemBusyPercent,
             sweep.system_busy_percent ? Json(Finite(*sweep.system_busy_percent)) : Json(nullptr)},
            {keys::kBytesRead, sweep.bytes_read},
            {keys::kWallSeconds, Finite(sweep.wall_seconds)}};
  if (sweep.error) j[keys::kError] = ErrorJson(sweep.error, sweep.error_offset_bytes);
  return j;
}

// profile.json's "access": the step's status, the figures, the error.
Json AccessJson(const AccessResult& access, std::uint64_t read_bytes) {
  Json j = {
      {keys::kStatus, StepStatus(access.error, access.error_offset_bytes, access.interrupted)}};
  j.update(AccessFiguresValue(access, read_bytes));
  if (access.error) j[keys::kError] = ErrorJson(access.error, access.error_offset_bytes);
  return j;
}

// profile.json's "burst": the step's status, the figures, the error.
Json BurstJson(const BurstResult& burst, std::uint64_t region_bytes) {
  Json j = {{keys::kStatus, StepStatus(burst.error, burst.error_offset_bytes, burst.interrupted)}};
  j.update(BurstFiguresValue(burst, region_bytes));
  if (burst.error) j[keys::kError] = ErrorJson(burst.error, burst.error_offset_bytes);
  return j;
}

// profile.json's "profile": how the sweep was chosen.
Json ProfileJson(const ProfileSampling& s) {
  Json estimate_json = nullptr;
  if (s.estimate) {
    estimate_json = {{keys::kBytes, s.estimate->bytes},
                     {keys::kSeconds, static_cast<double>(s.estimate->time.count()) / 1e9},
                     {keys::kMbPerS, Finite(s.estimate->mb_per_s)},
                     {keys::kFullSweepSeconds, Finite(s.full_sweep_seconds)}};
    if (s.estimate->error)
      estimate_json[keys::kError] = ErrorJson(s.estimate->error, s.estimate->error_offset_bytes);
  }
  return {{keys::kSampling, s.sampling},
          {keys::kQuick, s.sampling == "quick"},
          {keys::kWhy, s.why},
          {keys::kAdaptiveAboveSeconds, s.adaptive_above_seconds},
          {keys::kPasses, s.passes},
          {keys::kPassesWhy, s.passes_why},
          {keys::kEstimate, estimate_json}};
}

}  // namespace

std::string ProbeDeviceJson(const DeviceInfo& dev) {
  return Text({{keys::kPath, dev.path},
               {keys::kSizeBytes, dev.size_bytes},
               {keys::kSectorBytes, dev.sector_bytes},
               {keys::kModel, dev.model},
               {keys::kDirectIo, dev.direct_io}});
}

std::string AccessFiguresJson(const AccessResult& r, std::uint64_t read_bytes) {
  return Text(AccessFiguresValue(r, read_bytes));
}

std::string RandomAccessJson(const RandomAccessResult& r, const RandomAccessOptions& o) {
  return Text(RandomAccessValue(r, o));
}

std::string BurstFiguresJson(const BurstResult& r, std::uint64_t region_bytes) {
  return Text(BurstFiguresValue(r, region_bytes));
}

std::string TransportJson(const Transport& t) { return Text(TransportValue(t)); }

std::string VerdictJson(const Verdict& v) { return Text(VerdictValue(v)); }

std::vector<std::pair<std::string, std::string>> ProfileJsonMembers(const ProfileMeasurements& m) {
  return {{keys::kTransport, Text(TransportValue(m.transport))},
          {keys::kVerdict, Text(VerdictValue(m.verdict))},
          {keys::kSweep, Text(SweepJson(m.sweep, m.plan))},
          {keys::kAccess, Text(AccessJson(m.access, m.access_read_bytes))},
          {keys::kRandomAccess, Text(RandomAccessValue(m.random_access, m.random_options))},
          {keys::kBurst, Text(BurstJson(m.burst, m.burst_region_bytes))},
          {keys::kProfile, Text(ProfileJson(m.sampling))},
          {keys::kStatus, Text(m.status)},
          {keys::kPartial, Text(m.partial)}};
}

}  // namespace zcav
