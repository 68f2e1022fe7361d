// The JSON writer: one JSON document, streamed.
//
//   {"format":"zcav","schema_version":"1.0","version":..,"units":..,"command":..,"started":..,
//   "device":{..},
//   "options":{..},           <- with "timing":{"bytes_in_flight","blocks_spanned",
//                                "drained_per_block","blur_blocks"} (sweep.h BlockTiming)
//   "blocks":[
//   {..},                      <- one line per block, written as it arrives
//   {..}
//   ],
//   "passes":[..],             <- each with "chunk_bytes", "latency_classes":
//                                [{"below_ms":5,"chunks":N},..,{"below_ms":null,..}]
//                                (null: 500 ms and more) and "unreadable_chunks"
//   "summary":{..},            <- the same three summed over the passes
//   "health":{"verdict":"good|suspect|failing","reasons":[..]},  <- behind a HealthSink
//   "smart":{"before":{..},"after":{..},"increases":[{"field","before","after"}]},
//                              <- when SMART was asked for; a snapshot that could
//                                 not be read is {"available":false,"note":..}
//   "temperatures":[{"seconds","offset_bytes","celsius","pass"}],"temperature_source":..
//   "thermal_drops":[{"pass","offset_bytes","seconds","before_mb_per_s",
//                     "after_mb_per_s","from_celsius","to_celsius","time_effect"}],
//                              <- drops that came with a temperature rise
//                                 (analysis/thermal.h); time_effect null: unknown
//   "errors":[{"offset_bytes","length_bytes","errno","error","pass",
//              "bounded_by_budget"}],     <- unreadable ranges, merged
//   "slow_regions":[{"offset_bytes","length_bytes","ms","expected_ms","pass"}],
//   "worst_stall":{"offset_bytes","length_bytes","ms","pass","seconds"},
//                              <- the longest request (request_timeline.h); null
//                                 when none was timed (an adaptive sweep)
//   "sustained":{"window_seconds","from_bytes","after_write_cache","timed_seconds",
//                "mb_per_s","bytes","offset_bytes","pass","seconds"},
//                              <- the lowest window after the write cache
//                                 (analysis/sustained.h); its last five null when
//                                 less than a window was timed; null as above
//   "status":"complete","partial":false,
//   "finished":"2026-..Z"}     <- start + wall time, UTC (null when the start is unknown)
//
// The opening is written at OnStart, each block at OnBlock, the rest at
// OnFinish; the document is only complete (parseable) after OnFinish.
// Rates are MB/s (10^6 B/s), sizes bytes, times seconds. Unknown device facts
// are null. NaN and infinities never appear (written as 0). A block with no
// clean read (passes 0) has null rates and its "unreadable_bytes".
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/analysis/sustained.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/adaptive_format.h"
#include "zcav/format/events_writer.h"
#include "zcav/format/json_keys.h"
#include "zcav/format/writers.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/sweep.h"

namespace zcav {

namespace {

namespace keys = json_keys;
using Json = nlohmann::ordered_json;  // keeps keys in the order written

double Finite(double v) { return std::isfinite(v) ? v : 0.0; }

// Long members are written in pieces of about this size.
constexpr std::size_t kPieceBytes = std::size_t{1} << 20;

Json StringOrNull(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

double Seconds(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e9; }

// Device strings come from sysfs and the command line: invalid UTF-8 is
// replaced (U+FFFD) rather than aborting the run.
std::string Dump(const Json& value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

// `"name":`, what opens a member.
std::string Key(const char* name) { return Dump(Json(name)) + ":"; }

std::string Member(const char* name, const Json& value) { return Key(name) + Dump(value); }

// device.link_detail: how the link trained (LinkState); units in the names.
Json LinkDetailJson(const LinkState& s) {
  const auto count_or_null = [](unsigned n) { return n > 0 ? Json(n) : Json(nullptr); };
  const auto rate_or_null = [](double r) { return r > 0 ? Json(r) : Json(nullptr); };
  Json j = {{keys::kTransport, s.transport},
            {keys::kCurrent, StringOrNull(s.current)},
            {keys::kMax, StringOrNull(s.max)},
            {keys::kWidth, count_or_null(s.width)},
            {keys::kMaxWidth, count_or_null(s.max_width)},
            {keys::kDriver, StringOrNull(s.driver)},
            {keys::kDowngraded, s.downgraded},
            {keys::kReason, s.reason},
            {keys::kLimitMbPerS, rate_or_null(s.limit_mb_per_s)},
            {keys::kMaxLimitMbPerS, rate_or_null(s.max_limit_mb_per_s)}};
  if (s.transport == "mmc") {
    j[keys::kCardType] = StringOrNull(s.card_type);
    j[keys::kSpeedClass] = StringOrNull(s.speed_class);
    j[keys::kCardGrades] = StringOrNull(s.card_grades);
  }
  return j;
}

Json DeviceJson(const DeviceInfo& dev) {
  Json j;
  j[keys::kPath] = dev.path;
  j[keys::kKind] = StringOrNull(dev.kind);
  j[keys::kSizeBytes] = dev.size_bytes;
  j[keys::kSectorBytes] = dev.sector_bytes;
  j[keys::kVendor] = StringOrNull(dev.vendor);
  j[keys::kModel] = StringOrNull(dev.model);
  j[keys::kRotational] = dev.rotational ? Json(*dev.rotational) : Json(nullptr);
  j[keys::kTransport] = StringOrNull(dev.transport);
  if (!dev.storage_transport.empty()) {
    j[keys::kStorageTransport] = dev.storage_transport;
    j[keys::kStorageRotational] =
        dev.storage_rotational ? Json(*dev.storage_rotational) : Json(nullptr);
  }
  j[keys::kLink] = StringOrNull(dev.link);
  if (!dev.link_state.transport.empty()) j[keys::kLinkDetail] = LinkDetailJson(dev.link_state);
  j[keys::kDirectIo] = dev.direct_io;
  if (!dev.page_cache_file.empty()) j[keys::kPageCacheFile] = dev.page_cache_file;
  j[keys::kNotes] = dev.notes;  // an array, [] when none
  return j;
}

// Which drive, on which machine, with which zcav: what tells a result apart
// from its siblings' (device.identity).
Json IdentityJson(const RunInfo& run) {
  const DeviceInfo& dev = run.device;
  Json j;
  j[keys::kModel] = StringOrNull(dev.model);
  j[keys::kSerial] = StringOrNull(dev.serial);
  j[keys::kWwn] = StringOrNull(dev.wwn);
  j[keys::kFirmware] = StringOrNull(dev.firmware);
  j[keys::kCapacityBytes] = dev.size_bytes;
  j[keys::kLogicalSectorBytes] = dev.sector_bytes;
  j[keys::kPhysicalSectorBytes] =
      dev.physical_sector_bytes ? Json(dev.physical_sector_bytes) : Json(nullptr);
  j[keys::kRotationRpm] = dev.rotation_rpm ? Json(*dev.rotation_rpm) : Json(nullptr);
  j[keys::kById] = dev.by_id;  // an array, [] when none
  j[keys::kHost] = StringOrNull(run.host);
  j[keys::kKernel] = StringOrNull(run.kernel);
  j[keys::kZcavVersion] = StringOrNull(run.version);
  j[keys::kStarted] = StringOrNull(run.start_time_utc);
  return j;
}

Json OptionsJson(const SweepPlan& plan) {
  Json j;
  j[keys::kStartBytes] = plan.start_bytes;
  j[keys::kEndBytes] = plan.end_bytes;
  j[keys::kBlockBytes] = plan.block_bytes;
  j[keys::kChunkBytes] = plan.chunk_bytes;
  j[keys::kPasses] = plan.passes;
  j[keys::kSkip] = plan.skip;
  j[keys::kQuick] = plan.quick;
  j[keys::kWarmup] = plan.warmup;
  j[keys::kEngine] = plan.engine;           // io_uring, pread, sim or pwrite
  j[keys::kQueueDepth] = plan.queue_depth;  // chunks in flight at once
  // How sharp the per-block figures are (sweep.h BlockTimingOf): readers
  // give blur_blocks to the zone detector (ZoneOptions::blur_blocks).
  const BlockTiming timing = BlockTimingOf(plan);
  Json t;
  t[keys::kBytesInFlight] = timing.bytes_in_flight;
  t[keys::kBlocksSpanned] = timing.blocks_spanned;
  t[keys::kDrainedPerBlock] = timing.drained_per_block;
  t[keys::kBlurBlocks] = timing.blur_blocks();
  j[keys::kTiming] = t;
  if (plan.write) j[keys::kMode] = "write";  // absent: a read sweep
  j[keys::kBlockCount] = plan.block_count;
  j[keys::kNotes] = plan.notes;  // an array, [] when none
  return j;
}

Json BlockJson(const BlockResult& b) {
  Json j;
  j[keys::kIndex] = b.index;
  j[keys::kOffsetBytes] = b.offset_bytes;
  j[keys::kLengthBytes] = b.length_bytes;
  j[keys::kMbPerS] = Finite(b.mb_per_s);
  j[keys::kMeanMbPerS] = Finite(b.mean_mb_per_s);
  j[keys::kMinMbPerS] = Finite(b.min_mb_per_s);
  j[keys::kMaxMbPerS] = Finite(b.max_mb_per_s);
  j[keys::kStddevMbPerS] = Finite(b.stddev_mb_per_s);
  j[keys::kPasses] = b.passes;
  j[keys::kSeconds] = Finite(b.seconds);
  if (b.unreadable_bytes > 0) j[keys::kUnreadableBytes] = b.unreadable_bytes;
  if (b.worst_chunk_ms > 0) j[keys::kWorstChunkMs] = Finite(b.worst_chunk_ms);
  if (b.passes == 0) {
    // No clean read: no rate at all (not 0 MB/s).
    for (const char* key : {keys::kMbPerS, keys::kMeanMbPerS, keys::kMinMbPerS, keys::kMaxMbPerS,
                            keys::kStddevMbPerS, keys::kSeconds}) {
      j[key] = nullptr;
    }
  }
  return j;
}

// Adds `c` to `j`: chunk_bytes, latency_classes (the last class, 500 ms and
// more, has a null bound), unreadable_chunks.
void AddLatency(Json& j, const LatencyClasses& c) {
  j[keys::kChunkBytes] = c.chunk_bytes;
  Json classes = Json::array();
  for (std::size_t i = 0; i < c.chunks.size(); ++i) {
    classes.push_back(
        {{keys::kBelowMs, i < kLatencyBoundsMs.size() ? Json(kLatencyBoundsMs[i]) : Json(nullptr)},
         {keys::kChunks, c.chunks[i]}});
  }
  j[keys::kLatencyClasses] = classes;
  j[keys::kUnreadableChunks] = c.unreadable_chunks;
}

Json PassJson(const PassSummary& p) {
  Json j;
  j[keys::kPass] = p.pass + 1;  // 1-based for people
  j[keys::kBytes] = p.bytes;
  j[keys::kSeconds] = Seconds(p.read_time);
  j[keys::kMbPerS] = Finite(p.mb_per_s);
  j[keys::kComplete] = p.complete;
  if (p.cached_share) j[keys::kPageCacheShare] = Finite(*p.cached_share);
  AddLatency(j, p.latency);
  return j;
}

Json SummaryJson(const SweepResult& r) {
  Json j;
  j[keys::kMinMbPerS] = Finite(r.min_mb_per_s);
  j[keys::kMaxMbPerS] = Finite(r.max_mb_per_s);
  j[keys::kAvgMbPerS] = Finite(r.avg_mb_per_s);
  j[keys::kCpuPercent] = Finite(r.cpu_percent);
  j[keys::kSystemBusyPercent] =
      r.system_busy_percent ? Json(Finite(*r.system_busy_percent)) : Json(nullptr);
  j[keys::kSeconds] = Seconds(r.read_time);
  j[keys::kWallSeconds] = Finite(r.wall_seconds);
  j[keys::kBytesRead] = r.bytes_read;
  j[keys::kBlocks] = r.blocks_measured;
  j[keys::kStorageReadBytes] = r.storage_read_bytes ? Json(*r.storage_read_bytes) : Json(nullptr);
  if (r.cached_share_at_end) j[keys::kPageCacheShareAtEnd] = Finite(*r.cached_share_at_end);
  AddLatency(j, r.LatencyTotals());
  return j;
}

Json UnreadableJson(const UnreadableRange& u) {
  return {{keys::kOffsetBytes, u.offset_bytes},
          {keys::kLengthBytes, u.length_bytes},
          {keys::kErrno, u.errno_value},
          {keys::kError, std::error_code(u.errno_value, std::system_category()).message()},
          {keys::kPass, u.pass + 1},
          {keys::kBoundedByBudget, u.bounded_by_budget}};
}

Json SlowJson(const SlowRegion& x) { return Json::parse(SlowRegionJson(x)); }

// "worst_stall": where (pass from 1) and when (s into the run) the longest
// request began, and what it took; null when none was timed.
Json WorstStallJson(const RequestSummary& r) {
  if (!r.worst_stall) return nullptr;
  const WorstStall& w = *r.worst_stall;
  return {{keys::kOffsetBytes, w.offset_bytes},
          {keys::kLengthBytes, w.length_bytes},
          {keys::kMs, Finite(Millis(w.duration))},
          {keys::kPass, w.pass + 1},
          {keys::kSeconds, Seconds(w.started_at)}};
}

// "sustained" (see the file comment); null when no request was timed.
Json SustainedJson(const std::optional<SustainedFigure>& f) {
  if (!f) return nullptr;
  Json j;
  j[keys::kWindowSeconds] = Seconds(f->window);
  j[keys::kFromBytes] = f->from_bytes;
  j[keys::kAfterWriteCache] = f->after_write_cache;
  j[keys::kTimedSeconds] = Seconds(f->timed);
  const std::optional<LowestWindow>& w = f->lowest;
  j[keys::kMbPerS] = w ? Json(Finite(w->mb_per_s)) : Json(nullptr);
  j[keys::kBytes] = w ? Json(w->bytes) : Json(nullptr);
  j[keys::kOffsetBytes] = w ? Json(w->offset_bytes) : Json(nullptr);
  j[keys::kPass] = w ? Json(w->pass + 1) : Json(nullptr);
  j[keys::kSeconds] = w ? Json(Seconds(w->started_at)) : Json(nullptr);
  return j;
}

template <typename T>
Json OrNull(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json SmartJson(const SmartSnapshot& s) {
  Json j;
  j[keys::kAvailable] = s.available;
  if (!s.note.empty()) j[keys::kNote] = s.note;
  j[keys::kProtocol] = StringOrNull(s.protocol);
  j[keys::kModel] = StringOrNull(s.model);
  j[keys::kSerial] = StringOrNull(s.serial);
  j[keys::kFirmware] = StringOrNull(s.firmware);
  j[keys::kPassed] = OrNull(s.passed);
  j[keys::kTemperatureC] = OrNull(s.temperature_c);
  j[keys::kPowerOnHours] = OrNull(s.power_on_hours);
  j[keys::kReallocatedSectors] = OrNull(s.reallocated_sectors);
  j[keys::kPendingSectors] = OrNull(s.pending_sectors);
  j[keys::kOfflineUncorrectable] = OrNull(s.offline_uncorrectable);
  j[keys::kCrcErrors] = OrNull(s.crc_errors);
  j[keys::kMediaErrors] = OrNull(s.media_errors);
  j[keys::kPercentageUsed] = OrNull(s.percentage_used);
  return j;
}

// "health", "smart" and "temperatures" members, each followed by ",\n".
std::string HealthMembers(const HealthReport& h) {
  std::string s = Member(keys::kHealth, {{keys::kVerdict, HealthVerdictName(h.health.verdict)},
                                         {keys::kReasons, h.health.reasons}}) +
                  ",\n";
  if (h.smart_requested) {
    Json increases = Json::array();
    for (const SmartChange& c : h.smart_increases) {
      increases.push_back(
          {{keys::kField, c.field}, {keys::kBefore, c.before}, {keys::kAfter, c.after}});
    }
    s += Member(keys::kSmart, {{keys::kBefore, SmartJson(h.smart_before)},
                               {keys::kAfter, SmartJson(h.smart_after)},
                               {keys::kIncreases, increases}}) +
         ",\n";
  }
  Json temps = Json::array();
  for (const TemperatureReading& t : h.temperatures) {
    temps.push_back({{keys::kSeconds, Finite(t.seconds)},
                     {keys::kOffsetBytes, t.offset_bytes},
                     {keys::kCelsius, t.celsius},
                     {keys::kPass, t.pass + 1}});
  }
  Json drops = Json::array();
  for (const ThermalDrop& d : h.thermal_drops) {
    drops.push_back({{keys::kPass, d.pass + 1},
                     {keys::kOffsetBytes, d.offset_bytes},
                     {keys::kSeconds, Finite(d.seconds)},
                     {keys::kBeforeMbPerS, Finite(d.before_mb_per_s)},
                     {keys::kAfterMbPerS, Finite(d.after_mb_per_s)},
                     {keys::kFromCelsius, d.from_c},
                     {keys::kToCelsius, d.to_c},
                     {keys::kTimeEffect, d.time_effect ? Json(*d.time_effect) : Json(nullptr)}});
  }
  s += Member(keys::kTemperatures, temps) + ",\n" +
       Member(keys::kTemperatureSource, StringOrNull(h.temperature_source)) + ",\n" +
       Member(keys::kThermalDrops, drops) + ",\n";
  return s;
}

class JsonWriter final : public JsonDocumentWriter {
 public:
  // `defer_closing`: keep the members after "blocks" for Closing.
  explicit JsonWriter(std::ostream& out, bool defer_closing = false)
      : out_(out), defer_closing_(defer_closing) {}

  void OnStart(const RunInfo& run) override {
    std::string s = "{" + Member(keys::kFormat, "zcav") + "," +
                    Member(keys::kSchemaVersion, kSchemaVersion) + "," +
                    Member(keys::kVersion, run.version) + "," +
                    Member(keys::kUnits,
                           "rates (*_mb_per_s) in MB/s = 10^6 B/s; sizes in bytes; "
                           "times in seconds") +
                    "," + Member(keys::kCommand, run.command_line) + "," +
                    Member(keys::kStarted, StringOrNull(run.start_time_utc)) + ",\n";
    Json device = DeviceJson(run.device);
    device[keys::kIdentity] = IdentityJson(run);
    s += Member(keys::kDevice, device) + ",\n";
    s += Member(keys::kOptions, OptionsJson(run.plan)) + ",\n";
    s += Key(keys::kBlocks) + "[";
    passes_planned_ = run.plan.passes;
    started_ = run.start_time_utc;
    Write(s);
  }

  void OnBlock(const BlockResult& block) override {
    // The comma goes before every block but the first, so the text written so
    // far never ends in a dangling comma.
    Write((first_block_ ? "\n" : ",\n") + Dump(BlockJson(block)));
    first_block_ = false;
    ++blocks_;
  }

  void OnPassDone(const PassSummary& pass) override { passes_.push_back(pass); }
  void OnSample(const Sample& x) override {
    if (passes_planned_ > 1) samples_.push_back({x.pass + 1, x.block_index, x.elapsed.count()});
  }

  void OnZones(const ZoneAnalysis& analysis, const ZoneReportContext& context) override {
    zones_ = Json::parse(ZoneAnalysisJson(analysis, context));
    write_cache_ = context.write_cache;
  }

  void OnHealth(const HealthReport& report) override { health_ = HealthMembers(report); }
  void OnAdaptive(const AdaptiveResult& result) override {
    adaptive_ = Key(keys::kAdaptive) + AdaptiveJsonText(result, blocks_) + ",\n";
  }

  void OnFinish(const SweepResult& r) override {
    const std::vector<PassSummary>& passes = r.passes.empty() ? passes_ : r.passes;
    Json pass_array = Json::array();
    for (const PassSummary& p : passes) pass_array.push_back(PassJson(p));
    std::string s = "\n],\n";
    s += Member(keys::kPasses, pass_array) + ",\n";
    s += Member(keys::kSummary, SummaryJson(r)) + ",\n";
    s += health_;
    s += adaptive_;
    // The zone analysis, when the sweep ran the detector: "curve_type",
    // "zones", "outliers", "zone_summary" at the top level.
    for (const auto& [key, value] : zones_.items()) s += Member(key.c_str(), value) + ",\n";
    Json errors = Json::array();
    for (const UnreadableRange& u : r.unreadable) errors.push_back(UnreadableJson(u));
    Json slow = Json::array();
    for (const SlowRegion& x : r.slow_regions) slow.push_back(SlowJson(x));
    if (passes_planned_ > 1) {
      // Every timed sample: [pass (from 1), block index, elapsed ns]; what
      // --resume needs to continue a multi-pass sweep exactly. Written as
      // text in pieces (the text nlohmann::json would write): tens of
      // millions of samples would take gigabytes as a JSON value.
      s += Key(keys::kSamples) + "[";
      for (std::size_t i = 0; i < samples_.size(); ++i) {
        const TimedSample& x = samples_[i];
        s += (i > 0 ? ",[" : "[") + std::to_string(x.pass) + ',' + std::to_string(x.block) + ',' +
             std::to_string(x.ns) + ']';
        if (s.size() >= kPieceBytes) {
          Emit(s);
          s.clear();
        }
      }
      s += "],\n";
      samples_ = {};
    }
    s += Member(keys::kErrors, errors) + ",\n";
    s += Member(keys::kSlowRegions, slow) + ",\n";
    s += Member(keys::kWorstStall, WorstStallJson(r.requests)) + ",\n";
    s += Member(keys::kSustained, SustainedJson(SustainedOf(r.requests, write_cache_))) + ",\n";
    s += Member(keys::kStatus, r.StatusText()) + "," + Member(keys::kPartial, r.partial()) + ",\n" +
         Member(keys::kFinished, StringOrNull(UtcPlusSeconds(started_, r.wall_seconds)));
    if (r.status == SweepStatus::kReadError || r.status == SweepStatus::kDeviceGone ||
        r.status == SweepStatus::kWriteError) {
      Json error;
      error[keys::kOffsetBytes] = r.error_offset_bytes;
      error[keys::kMessage] = r.error.message();
      s += ",\n" + Member(keys::kError, error);
    }
    s += "}\n";
    Emit(s);
  }

  std::string Closing(const std::vector<std::pair<std::string, std::string>>& members,
                      const std::vector<std::string>& drop) override {
    // The kept closing part: "blocks":[ before it gives it back as a JSON
    // object.
    const Json sweep_doc = Json::parse("{" + Key(keys::kBlocks) + "[" + closing_);
    closing_.clear();
    Json doc = Json::object();
    for (auto it = sweep_doc.begin(); it != sweep_doc.end(); ++it) {
      if (it.key() == keys::kBlocks ||
          std::find(drop.begin(), drop.end(), it.key()) != drop.end()) {
        continue;
      }
      doc[it.key()] = it.value();
    }
    for (const auto& [name, value] : members) doc[name] = Json::parse(value);
    // The blocks' array is still open: close it, then the members one a line.
    std::string end = "\n]";
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      end += ",\n" + Json(it.key()).dump(-1, ' ', false, Json::error_handler_t::replace) + ":" +
             it.value().dump(-1, ' ', false, Json::error_handler_t::replace);
    }
    end += "}\n";
    return end;
  }

 private:
  // The closing part: written, or kept for Closing.
  void Emit(const std::string& text) {
    if (defer_closing_) {
      closing_ += text;
    } else {
      Write(text);
    }
  }
  void Write(const std::string& text) {
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
    out_.flush();
    if (!out_) {
      throw Error("writing the JSON data failed (disk full or output closed?)",
                  ErrorKind::kRuntime);
    }
  }

  std::ostream& out_;
  bool defer_closing_ = false;
  std::string closing_;  // the members after "blocks", kept for Closing
  bool first_block_ = true;
  std::vector<PassSummary> passes_;  // fallback when the result carries none
  Json zones_ = Json::object();      // set by OnZones
  // Set by OnZones: a write sweep's cache, whose end starts the sustained rate.
  std::optional<WriteCacheAnalysis> write_cache_;
  std::string health_;      // set by OnHealth: members, each ending ",\n"
  std::string adaptive_;    // set by OnAdaptive: the member, ending ",\n"
  std::size_t blocks_ = 0;  // blocks written
  std::uint32_t passes_planned_ = 1;
  std::string started_;  // RunInfo::start_time_utc
  struct TimedSample {
    std::uint32_t pass;
    std::uint64_t block;
    std::int64_t ns;
  };
  std::vector<TimedSample> samples_;  // multi-pass sweeps only: 16 bytes each
};

// Events for pipelines (events_writer.h): one line per event, whole.
class EventsWriterImpl final : public EventsWriter {
 public:
  explicit EventsWriterImpl(std::ostream& out) : out_(out) {}
  ~EventsWriterImpl() override {
    if (!finished_ || done_written_) return;
    try {
      WriteDone(Json(nullptr));
    } catch (const Error&) {
      // Nothing to tell from a destructor: the lines so far are whole.
    }
  }

  void OnStart(const RunInfo& run) override {
    passes_planned_ = run.plan.passes;
    Json e = Event("start");
    e["zcav_version"] = run.version;
    e["command"] = run.command_line;
    e["started"] = StringOrNull(run.start_time_utc);
    e["units"] = "rates (*_mb_per_s) in MB/s = 10^6 B/s; sizes in bytes; times in seconds";
    Json device = DeviceJson(run.device);
    device["identity"] = IdentityJson(run);
    e["device"] = device;
    e["options"] = OptionsJson(run.plan);
    Write(e);
  }
  void OnSample(const Sample& x) override {
    if (x.pass + 1 > passes_started_) {
      passes_started_ = x.pass + 1;
      Json e = Event("pass_start");
      e["pass"] = passes_started_;
      Write(e);
    }
    // The passes before the last give their reads as they come: a run
    // killed before its last pass still leaves a curve.
    if (x.pass + 1 >= passes_planned_) return;
    Json e = Event("sample");
    e["pass"] = x.pass + 1;
    e["index"] = x.block_index;
    e["offset_bytes"] = x.offset_bytes;
    e["length_bytes"] = x.length_bytes;
    e["seconds"] = Seconds(x.elapsed);
    e["mb_per_s"] = Finite(MbPerS(x.length_bytes, x.elapsed));
    Write(e);
  }
  void OnBlock(const BlockResult& block) override { Write(With(Event("block"), BlockJson(block))); }
  void OnPassDone(const PassSummary& pass) override {
    Write(With(Event("pass_end"), PassJson(pass)));
  }
  void OnUnreadable(const UnreadableRange& range) override {
    Write(With(Event("unreadable"), UnreadableJson(range)));
  }
  void OnSlowRegion(const SlowRegion& region) override {
    Write(With(Event("slow_region"), SlowJson(region)));
  }
  void OnHealth(const HealthReport& report) override {
    Json e = Event("health");
    e["verdict"] = HealthVerdictName(report.health.verdict);
    e["reasons"] = report.health.reasons;
    Write(e);
  }
  void OnZones(const ZoneAnalysis& analysis, const ZoneReportContext& context) override {
    Write(With(Event("zones"), Json::parse(ZoneAnalysisJson(analysis, context))));
  }
  void OnFinish(const SweepResult& r) override {
    done_ = Json::object();
    done_["status"] = r.StatusText();
    done_["partial"] = r.partial();
    done_["min_mb_per_s"] = Finite(r.min_mb_per_s);
    done_["max_mb_per_s"] = Finite(r.max_mb_per_s);
    done_["avg_mb_per_s"] = Finite(r.avg_mb_per_s);
    done_["bytes_read"] = r.bytes_read;
    done_["blocks"] = r.blocks_measured;
    done_["seconds"] = Seconds(r.read_time);
    done_["wall_seconds"] = Finite(r.wall_seconds);
    done_["unreadable_ranges"] = r.unreadable.size();
    done_["slow_regions"] = r.slow_regions.size();
    finished_ = true;
  }
  void OnExit(int exit_code) override {
    if (!finished_ || done_written_) return;
    WriteDone(Json(exit_code));
  }

 private:
  static Json Event(const char* name) {
    Json e;
    e["event"] = name;
    e["schema_version"] = kSchemaVersion;
    return e;
  }
  // `e` with the members of `object` after its own.
  static Json With(Json e, const Json& object) {
    for (const auto& [key, value] : object.items()) e[key] = value;
    return e;
  }
  void WriteDone(const Json& exit_code) {
    done_written_ = true;
    Json e = With(Event("done"), done_);
    e["exit_code"] = exit_code;
    Write(e);
  }
  // The line goes out in one piece after a flush of everything before it:
  // a process killed between events leaves whole lines only.
  void Write(const Json& event) {
    const std::string line = Dump(event) + "\n";
    out_.write(line.data(), static_cast<std::streamsize>(line.size()));
    out_.flush();
    if (!out_) {
      throw Error("writing the events failed (disk full or output closed?)", ErrorKind::kRuntime);
    }
  }

  std::ostream& out_;
  std::uint32_t passes_started_ = 0;
  std::uint32_t passes_planned_ = 1;
  Json done_;
  bool finished_ = false;
  bool done_written_ = false;
};

}  // namespace

std::string WorstStallJsonText(const RequestSummary& requests) {
  return Dump(WorstStallJson(requests));
}

std::string SustainedJsonText(const std::optional<SustainedFigure>& sustained) {
  return Dump(SustainedJson(sustained));
}

std::unique_ptr<ResultSink> MakeJsonWriter(std::ostream& out) {
  return std::make_unique<JsonWriter>(out);
}

std::unique_ptr<JsonDocumentWriter> MakeJsonDocumentWriter(std::ostream& out) {
  return std::make_unique<JsonWriter>(out, /*defer_closing=*/true);
}

std::unique_ptr<EventsWriter> MakeEventsWriter(std::ostream& out) {
  return std::make_unique<EventsWriterImpl>(out);
}

}  // namespace zcav
