// The raw writer (classic zcav layout), the writer factory and the number
// formatting shared by the writers.
//
// Layout: '#' header lines (units, device, options, start time), the classic
// "#loops:" and "#block offset" lines, one line per block, then '#' footer
// lines (passes, summary, status). Classic parsers and gnuplot skip '#' lines
// and read columns 1:2 as "offset GiB, MiB/s", as they did with zcav 1.x.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/base/enum_names.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/adaptive_format.h"
#include "zcav/format/writers.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/sweep.h"

namespace zcav {

namespace {

// The header's status field is padded to this width so that the final status
// can overwrite it in place. Longer texts are cut here; the last line of the
// file always carries the full text.
constexpr std::size_t kStatusFieldWidth = 100;
constexpr char kStatusPrefix[] = "# status: ";
constexpr char kRunningStatus[] = "running (the final status is the last line)";
constexpr char kErrorsPrefix[] = "# errors: ";
constexpr char kNoErrorsYet[] = "none so far (the final count is in the footer)";

std::string KnownOr(const std::string& text) { return text.empty() ? "unknown" : OneLine(text); }

std::string YesNo(bool value) { return value ? "yes" : "no"; }

std::string StatusField(const std::string& status) {
  std::string field = OneLine(status).substr(0, kStatusFieldWidth);
  field.resize(kStatusFieldWidth, ' ');
  return field;
}

// At most 3 decimals, without trailing zeros: "0", "2", "0.125".
std::string Short(double value) {
  std::string text = FormatFixed(value, 3);
  while (text.find('.') != std::string::npos && (text.back() == '0' || text.back() == '.')) {
    const bool dot = text.back() == '.';
    text.pop_back();
    if (dot) break;
  }
  return text;
}

double Seconds(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) / 1e9; }

class RawWriter final : public ResultSink {
 public:
  RawWriter(std::ostream& out, bool seekable) : out_(out), seekable_(seekable) {}

  void OnStart(const RunInfo& run) override {
    const DeviceInfo& dev = run.device;
    const SweepPlan& plan = run.plan;
    passes_planned_ = plan.passes;
    std::string h;
    h += "# zcav " + OneLine(run.version) + " raw data, classic zcav layout\n";
    if (seekable_) {
      const std::streampos start = out_.tellp();
      if (start != std::streampos(-1)) status_pos_ = start + std::streamoff(h.size());
    }
    h += kStatusPrefix + StatusField(kRunningStatus) + "\n";
    if (seekable_ && status_pos_ != std::streampos(-1)) {
      errors_pos_ = status_pos_ + std::streamoff(sizeof(kStatusPrefix) - 1 + kStatusFieldWidth + 1);
    }
    h += kErrorsPrefix + StatusField(kNoErrorsYet) + "\n";
    h += "# units: column 1 = block offset in GiB (2^30 B); column 2 = median MiB/s (2^20 B/s); "
         "column 3 = seconds; MB = 10^6 B\n";
    h += "# device: " + KnownOr(dev.path) + "\n";
    h += "# kind: " + KnownOr(dev.kind) + "\n";
    h += "# size_bytes: " + std::to_string(dev.size_bytes) + "\n";
    h += "# sector_bytes: " + std::to_string(dev.sector_bytes) + "\n";
    h += "# vendor: " + KnownOr(dev.vendor) + "\n";
    h += "# model: " + KnownOr(dev.model) + "\n";
    h += "# serial: " + KnownOr(dev.serial) + "\n";
    h += "# wwn: " + KnownOr(dev.wwn) + "\n";
    h += "# firmware: " + KnownOr(dev.firmware) + "\n";
    h += "# physical_sector_bytes: " +
         (dev.physical_sector_bytes ? std::to_string(dev.physical_sector_bytes) : "unknown") + "\n";
    h += "# rotation_rpm: " + (dev.rotation_rpm ? std::to_string(*dev.rotation_rpm) : "unknown") +
         "\n";
    for (const std::string& id : dev.by_id) h += "# by_id: " + OneLine(id) + "\n";
    h += "# rotational: " + (dev.rotational ? YesNo(*dev.rotational) : "unknown") + "\n";
    h += "# transport: " + KnownOr(dev.transport) + "\n";
    if (!dev.storage_transport.empty()) {
      h += "# storage: " + dev.storage_transport + ", rotational " +
           (dev.storage_rotational ? YesNo(*dev.storage_rotational) : "unknown") + "\n";
    }
    h += "# link: " + KnownOr(dev.link) + "\n";
    if (!dev.link_state.transport.empty()) {
      h += "# link detail: " + OneLine(dev.link_state.reason) + "\n";
    }
    h += std::string("# direct_io: ") +
         (dev.direct_io ? "yes" : "no (buffered reads; page cache dropped before each pass)") +
         "\n";
    if (plan.write) {
      h += "# mode: write (sequential write rate by position; the data in the range was "
           "overwritten)\n";
    }
    for (const std::string& note : dev.notes) h += "# note: " + OneLine(note) + "\n";
    for (const std::string& note : plan.notes) h += "# note: " + OneLine(note) + "\n";
    h += "# options: block_bytes=" + std::to_string(plan.block_bytes) +
         " chunk_bytes=" + std::to_string(plan.chunk_bytes) +
         " passes=" + std::to_string(plan.passes) +
         " start_bytes=" + std::to_string(plan.start_bytes) +
         " end_bytes=" + std::to_string(plan.end_bytes) + " skip=" + std::to_string(plan.skip) +
         " quick=" + YesNo(plan.quick) + " warmup=" + YesNo(plan.warmup) +
         " blocks=" + std::to_string(plan.block_count) + " engine=" + plan.engine +
         " queue_depth=" + std::to_string(plan.queue_depth) + "\n";
    // How sharp the per-block figures are (sweep.h BlockTimingOf); zcav's
    // reader takes blur_blocks for the zone detector.
    const BlockTiming timing = BlockTimingOf(plan);
    h += "# timing: bytes_in_flight=" + std::to_string(timing.bytes_in_flight) +
         " blocks_spanned=" + Short(timing.blocks_spanned) +
         " drained_per_block=" + YesNo(timing.drained_per_block) +
         " blur_blocks=" + Short(timing.blur_blocks()) + "\n";
    h += "# started: " + KnownOr(run.start_time_utc) + "\n";
    started_ = run.start_time_utc;
    h += "# host: " + KnownOr(run.host) + "\n";
    h += "# kernel: " + KnownOr(run.kernel) + "\n";
    h += "# command: " + KnownOr(run.command_line) + "\n";
    // The two classic zcav header lines, kept verbatim in shape.
    h += "#loops: " + std::to_string(plan.passes) + ", version: " + OneLine(run.version) + "\n";
    h += "#block offset (GiB), MiB/s, time, MB/s, min MB/s, max MB/s, stddev MB/s, n\n";
    Write(h);
  }

  // Multi-pass sweeps record every timed sample (what --resume needs to
  // continue exactly); a one-pass sweep's data lines are its samples.
  void OnSample(const Sample& x) override {
    if (passes_planned_ <= 1) return;
    Write("# sample: pass=" + std::to_string(x.pass + 1) + " block=" +
          std::to_string(x.block_index) + " offset_bytes=" + std::to_string(x.offset_bytes) +
          " length_bytes=" + std::to_string(x.length_bytes) +
          " elapsed_ns=" + std::to_string(x.elapsed.count()) + "\n");
  }

  void OnBlock(const BlockResult& b) override {
    if (b.passes == 0) {
      // No clean read: a comment, not a data line (a rate of 0 would be a lie).
      Write("# unreadable block: offset_bytes=" + std::to_string(b.offset_bytes) +
            " length_bytes=" + std::to_string(b.length_bytes) + " unreadable_bytes=" +
            std::to_string(b.unreadable_bytes) + " (no clean read, no data line)\n");
      return;
    }
    // 9 decimals of GiB resolve 1.07 bytes, so column 1 times 2^30, rounded,
    // gives back the exact byte offset (classic zcav printed 0.01 GiB).
    std::string line = FormatFixed(static_cast<double>(b.offset_bytes) / kGiB, 9);
    line += ' ' + FormatFixed(MbToMib(b.mb_per_s), 3);
    line += ' ' + FormatFixed(b.seconds, 6);
    line += ' ' + FormatFixed(b.mb_per_s, 3);
    line += ' ' + FormatFixed(b.min_mb_per_s, 3);
    line += ' ' + FormatFixed(b.max_mb_per_s, 3);
    line += ' ' + FormatFixed(b.stddev_mb_per_s, 3);
    line += ' ' + std::to_string(b.passes) + '\n';
    Write(line);
    ++blocks_;
  }

  void OnPassDone(const PassSummary& pass) override { passes_.push_back(pass); }

  void OnUnreadable(const UnreadableRange& u) override { Write("# " + UnreadableLine(u) + "\n"); }

  void OnSlowRegion(const SlowRegion& x) override {
    Write("# slow: offset_bytes=" + std::to_string(x.offset_bytes) +
          " length_bytes=" + std::to_string(x.length_bytes) + " ms=" + FormatFixed(x.ms, 3) +
          " expected_ms=" + FormatFixed(x.expected_ms, 3) + " pass=" + std::to_string(x.pass + 1) +
          "\n");
  }

  // The zone table as '#' comment lines, so classic parsers skip it.
  void OnZones(const ZoneAnalysis& analysis, const ZoneReportContext& context) override {
    std::string text;
    std::istringstream lines(FormatZoneTable(analysis, context));
    for (std::string line; std::getline(lines, line);) text += "# " + line + "\n";
    Write(text);
  }

  // "# health: VERDICT" and a "# health reason:" line per reason; SMART
  // before/after and the temperatures as "# smart ...:" and "# temperature:"
  // lines. Written in the footer.
  void OnHealth(const HealthReport& h) override {
    health_ = "# health: " + std::string(HealthVerdictName(h.health.verdict)) + "\n";
    for (const std::string& reason : h.health.reasons) {
      health_ += "# health reason: " + OneLine(reason) + "\n";
    }
    if (h.smart_requested) {
      health_ += SmartLine("before", h.smart_before) + SmartLine("after", h.smart_after);
      for (const SmartChange& c : h.smart_increases) {
        health_ += "# smart increase: " + c.field + " " + std::to_string(c.before) + " -> " +
                   std::to_string(c.after) + "\n";
      }
    }
    for (const TemperatureReading& t : h.temperatures) {
      health_ += "# temperature: seconds=" + FormatFixed(t.seconds, 1) +
                 " offset_bytes=" + std::to_string(t.offset_bytes) +
                 " celsius=" + FormatFixed(t.celsius, 1) + " pass=" + std::to_string(t.pass + 1) +
                 " source=" + h.temperature_source + "\n";
    }
  }

  void OnAdaptive(const AdaptiveResult& result) override {
    adaptive_ = "# adaptive: " + AdaptiveJsonText(result, blocks_) + "\n";
  }

  void OnFinish(const SweepResult& r) override {
    const std::vector<PassSummary>& passes = r.passes.empty() ? passes_ : r.passes;
    std::string f = adaptive_;
    for (const PassSummary& p : passes) {
      f += "# pass " + std::to_string(p.pass + 1) + ": " + std::to_string(p.bytes) + " bytes in " +
           FormatFixed(Seconds(p.read_time), 6) + " s, " + FormatFixed(p.mb_per_s, 3) + " MB/s" +
           (p.complete ? "" : " (incomplete)") + "\n";
    }
    for (const PassSummary& p : passes)
      f += LatencyLine("pass=" + std::to_string(p.pass + 1), p.latency);
    if (passes.size() > 1) f += LatencyLine("total", r.LatencyTotals());
    f += "# summary: min " + FormatFixed(r.min_mb_per_s, 3) + " max " +
         FormatFixed(r.max_mb_per_s, 3) + " avg " + FormatFixed(r.avg_mb_per_s, 3) +
         " MB/s (avg = bytes read / read time), " + std::to_string(r.bytes_read) + " bytes in " +
         FormatFixed(Seconds(r.read_time), 6) + " s of reading, wall " +
         FormatFixed(r.wall_seconds, 3) + " s, cpu " + FormatFixed(r.cpu_percent, 1) + "%\n";
    if (r.storage_read_bytes) {
      f += "# storage bytes read: " + std::to_string(*r.storage_read_bytes) + "\n";
    }
    if (r.system_busy_percent) {
      f += "# system cpu busy: " + FormatFixed(*r.system_busy_percent, 1) +
           "% (all CPUs, /proc/stat, during the sweep)\n";
    }
    const std::string errors = ErrorsText(r);
    f += kErrorsPrefix + errors + "\n";
    for (const UnreadableRange& u : r.unreadable) f += "# final " + UnreadableLine(u) + "\n";
    const std::string status = r.StatusText();
    f += health_;
    f += "# finished: " + KnownOr(UtcPlusSeconds(started_, r.wall_seconds)) + "\n";
    f += kStatusPrefix + OneLine(status) + "\n";
    Write(f);
    if (seekable_ && status_pos_ != std::streampos(-1)) {
      RewriteField(status_pos_ + std::streamoff(sizeof(kStatusPrefix) - 1), status);
    }
    if (seekable_ && errors_pos_ != std::streampos(-1)) {
      RewriteField(errors_pos_ + std::streamoff(sizeof(kErrorsPrefix) - 1), errors);
    }
  }

 private:
  void Write(const std::string& text) {
    out_.write(text.data(), static_cast<std::streamsize>(text.size()));
    out_.flush();
    if (!out_)
      throw Error("writing the raw data failed (disk full or output closed?)", ErrorKind::kRuntime);
  }

  static std::string UnreadableLine(const UnreadableRange& u) {
    return "unreadable: offset_bytes=" + std::to_string(u.offset_bytes) +
           " length_bytes=" + std::to_string(u.length_bytes) +
           " errno=" + std::to_string(u.errno_value) + " (" +
           OneLine(std::error_code(u.errno_value, std::system_category()).message()) +
           ") pass=" + std::to_string(u.pass + 1) + (u.bounded_by_budget ? " bounded" : "");
  }

  // "# latency: WHO chunk_bytes=N below_5ms=N ... at_least_500ms=N
  // unreadable=N": chunks by latency class (sample.h).
  static std::string LatencyLine(const std::string& who, const LatencyClasses& c) {
    std::string line = "# latency: " + who + " chunk_bytes=" + std::to_string(c.chunk_bytes);
    for (std::size_t i = 0; i < c.chunks.size(); ++i) {
      line += std::string(" ") + LatencyClassKey(static_cast<LatencyClass>(i)) + "=" +
              std::to_string(c.chunks[i]);
    }
    return line + " " + LatencyClassKey(LatencyClass::kUnreadable) + "=" +
           std::to_string(c.unreadable_chunks) + "\n";
  }

  // "# smart WHEN: key=value ..." (absent fields left out), or the note.
  static std::string SmartLine(const char* when, const SmartSnapshot& s) {
    std::string line = std::string("# smart ") + when + ": ";
    if (!s.available) return line + "unavailable (" + OneLine(s.note) + ")\n";
    line += "protocol=" + KnownOr(s.protocol);
    if (s.passed) line += std::string(" passed=") + (*s.passed ? "yes" : "no");
    if (s.temperature_c) line += " temperature_c=" + FormatFixed(*s.temperature_c, 0);
    const std::pair<const char*, std::optional<std::uint64_t>> counters[] = {
        {"power_on_hours", s.power_on_hours},   {"reallocated_sectors", s.reallocated_sectors},
        {"pending_sectors", s.pending_sectors}, {"offline_uncorrectable", s.offline_uncorrectable},
        {"crc_errors", s.crc_errors},           {"media_errors", s.media_errors},
        {"percentage_used", s.percentage_used}};
    for (const auto& [key, value] : counters) {
      if (value) line += std::string(" ") + key + "=" + std::to_string(*value);
    }
    return line + "\n";
  }

  static std::string ErrorsText(const SweepResult& r) {
    const std::uint64_t bytes = r.UnreadableBytes();
    return std::to_string(r.unreadable.size()) + " unreadable region" +
           (r.unreadable.size() == 1 ? "" : "s") + " (" + std::to_string(bytes) + " bytes), " +
           std::to_string(r.slow_regions.size()) + " slow region" +
           (r.slow_regions.size() == 1 ? "" : "s");
  }

  // Overwrites a padded header field in place (same length, so nothing
  // moves), then returns to the end so the caller may keep writing.
  void RewriteField(std::streampos pos, const std::string& text) {
    out_.seekp(pos);
    Write(StatusField(text));
    out_.seekp(0, std::ios::end);
    out_.flush();
    if (!out_) throw Error("rewriting the raw data status line failed", ErrorKind::kRuntime);
  }

  std::ostream& out_;
  bool seekable_;
  std::streampos status_pos_ = std::streampos(-1);
  std::streampos errors_pos_ = std::streampos(-1);
  std::uint32_t passes_planned_ = 1;
  std::string started_;              // RunInfo::start_time_utc
  std::string health_;               // OnHealth's footer lines
  std::string adaptive_;             // OnAdaptive's footer line
  std::size_t blocks_ = 0;           // data lines written
  std::vector<PassSummary> passes_;  // fallback when the result carries none
};

}  // namespace

OutputFormat ParseOutputFormat(const std::string& text) {
  static constexpr EnumName<OutputFormat> kNames[] = {
      {OutputFormat::kRaw, "raw"}, {OutputFormat::kCsv, "csv"}, {OutputFormat::kJson, "json"}};
  if (const std::optional<OutputFormat> format = ValueOf(text, kNames)) return *format;
  throw Error("unknown output format '" + text + "' (use raw, csv or json)", ErrorKind::kBadInput);
}

std::unique_ptr<ResultSink> MakeRawWriter(std::ostream& out, bool seekable) {
  return std::make_unique<RawWriter>(out, seekable);
}

std::unique_ptr<ResultSink> MakeWriter(OutputFormat format, std::ostream& out, bool seekable) {
  switch (format) {
    case OutputFormat::kRaw:
      return MakeRawWriter(out, seekable);
    case OutputFormat::kCsv:
      return MakeCsvWriter(out);
    case OutputFormat::kJson:
      return MakeJsonWriter(out);
  }
  throw Error("unknown output format", ErrorKind::kBadInput);
}

}  // namespace zcav
