// Reading zcav raw files (raw_writer.cc): the "# key: value" comment lines
// (device, options, status, unreadable ranges, samples, latency,
// temperatures) and the data rows, whose offsets are snapped back to the
// block grid and whose lengths are filled in at the end.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/format/adaptive_format.h"
#include "zcav/format/reader_internal.h"

namespace zcav::reader {

namespace {

// "# summary: min A max B avg C MB/s (...), N bytes in S s of reading, wall W
// s, cpu P%": the average rate and the CPU share. Unparsable values are left
// unset (the summary is informative, not data).
void ParseRawSummary(std::string_view text, SavedResult& profile) {
  const std::vector<std::string_view> w = Words(text);
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] == "avg") {
      if (const std::optional<double> v = ToDouble(w[i + 1]); v && std::isfinite(*v) && *v >= 0) {
        profile.avg_mb_per_s = *v;
      }
    } else if (w[i] == "cpu") {
      std::string_view pct = w[i + 1];
      if (!pct.empty() && pct.back() == '%') pct.remove_suffix(1);
      if (const std::optional<double> v = ToDouble(pct); v && std::isfinite(*v) && *v >= 0) {
        profile.cpu_percent = *v;
      }
    }
  }
}

std::uint64_t HeaderNumber(const Input& in, std::size_t line, std::string_view name,
                           std::string_view value) {
  const std::optional<std::uint64_t> v = ToUint(value);
  if (!v) in.Fail(line, std::string(name) + " " + Quote(value) + " is not a whole number");
  return *v;
}

// "offset_bytes=X length_bytes=Y errno=E (text) pass=P [bounded]".
UnreadableRange RawUnreadable(const Input& in, std::size_t n, std::string_view text) {
  UnreadableRange r;
  bool offset = false, length = false;
  for (std::string_view word : Words(text)) {
    const std::size_t eq = word.find('=');
    if (word == "bounded") r.bounded_by_budget = true;
    if (eq == std::string_view::npos) continue;
    const std::string_view key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "offset_bytes") r.offset_bytes = HeaderNumber(in, n, key, value), offset = true;
    if (key == "length_bytes") r.length_bytes = HeaderNumber(in, n, key, value), length = true;
    if (key == "errno") r.errno_value = static_cast<int>(HeaderNumber(in, n, key, value) & 0xffff);
    if (key == "pass") {
      const std::uint64_t pass = HeaderNumber(in, n, key, value);
      r.pass =
          pass > 0 ? static_cast<std::uint32_t>(std::min<std::uint64_t>(pass - 1, 1u << 30)) : 0;
    }
  }
  if (!offset || !length || r.length_bytes == 0) {
    in.Fail(n, "an unreadable line needs offset_bytes and a positive length_bytes");
  }
  return r;
}

// "offset_bytes=X length_bytes=Y ms=M expected_ms=E pass=P".
SlowRegion RawSlow(const Input& in, std::size_t n, std::string_view text) {
  SlowRegion r;
  bool offset = false, length = false;
  for (const auto& [key, value] : KeyValues(text)) {
    if (key == "offset_bytes") r.offset_bytes = HeaderNumber(in, n, key, value), offset = true;
    if (key == "length_bytes") r.length_bytes = HeaderNumber(in, n, key, value), length = true;
    if (key == "ms") r.ms = NonNegative(in, n, "ms", value);
    if (key == "expected_ms") r.expected_ms = NonNegative(in, n, "expected_ms", value);
  }
  if (!offset || !length || r.length_bytes == 0) {
    in.Fail(n, "a slow line needs offset_bytes and a positive length_bytes");
  }
  return r;
}

// ParseZcavRaw's state: what the comment lines said so far (options,
// status, unreadable ranges), and the data rows becoming points.
class RawParser {
 public:
  RawParser(Input& in, SavedResult& profile) : in_(in), profile_(profile), rows_(profile) {}

  void Run() {
    std::string_view line;
    std::size_t n = 0;
    while (in_.Next(line, n)) {
      if (line.empty()) continue;
      if (line.front() == '#') {
        CommentLine(line, n);
      } else {
        DataRow(line, n);
      }
    }
    Finish();
  }

 private:
  void CommentLine(std::string_view line, std::size_t n) {
    if (StartsWith(line, "# zcav ")) {
      order_.StartTable();  // the start of a file (several may be concatenated)
    } else if (DeviceLine(line, n)) {
      // taken
    } else if (StartsWith(line, "# final unreadable: offset_bytes=")) {
      final_unreadable_.push_back(RawUnreadable(in_, n, line.substr(20)));
    } else if (StartsWith(line, "# unreadable: offset_bytes=")) {
      inline_unreadable_.push_back(RawUnreadable(in_, n, line.substr(14)));
    } else if (StartsWith(line, "# slow: offset_bytes=")) {
      profile_.slow_regions.push_back(RawSlow(in_, n, line.substr(8)));
    } else if (StartsWith(line, "# options:")) {
      OptionsLine(line.substr(10), n);
    } else if (StartsWith(line, "# timing:")) {
      TimingLine(line.substr(9), n);
    } else if (StartsWith(line, "# sample: ")) {
      SampleLine(line.substr(10), n);
    } else if (StartsWith(line, "# latency: pass=")) {
      LatencyLine(line.substr(11), n);
    } else if (StartsWith(line, "# temperature: ")) {
      TemperatureLine(line.substr(15), n);
    } else if (StartsWith(line, "# adaptive: ")) {
      profile_.adaptive =
          ParseAdaptiveJson(std::string(line.substr(12)), in_.source() + ":" + std::to_string(n));
    }
  }

  // The lines about the device and the run (size, path, status, identity,
  // summary); false for any other line.
  bool DeviceLine(std::string_view line, std::size_t n) {
    if (StartsWith(line, "# size_bytes:")) {
      profile_.device_bytes = HeaderNumber(in_, n, "size_bytes", Trim(line.substr(13)));
    } else if (StartsWith(line, "# device:")) {
      const std::string_view path = Trim(line.substr(9));
      profile_.device_path = path == "unknown" ? "" : std::string(path);
    } else if (StartsWith(line, "# status:")) {
      status_ = Trim(line.substr(9));
    } else if (StartsWith(line, "# vendor:")) {
      profile_.device_vendor = KnownText(line.substr(9));
    } else if (StartsWith(line, "# model:")) {
      profile_.device_model = KnownText(line.substr(8));
    } else if (StartsWith(line, "# serial:")) {
      profile_.device_serial = KnownText(line.substr(9));
    } else if (StartsWith(line, "# wwn:")) {
      profile_.device_wwn = KnownText(line.substr(6));
    } else if (StartsWith(line, "# firmware:")) {
      profile_.device_firmware = KnownText(line.substr(11));
    } else if (StartsWith(line, "# host:")) {
      profile_.host = KnownText(line.substr(7));
    } else if (StartsWith(line, "# started:")) {
      profile_.started_utc = KnownText(line.substr(10));
    } else if (StartsWith(line, "# transport:")) {
      profile_.transport = KnownText(line.substr(12));
    } else if (StartsWith(line, "# rotational:")) {
      const std::string_view r = Trim(line.substr(13));
      if (r == "yes" || r == "no") profile_.rotational = r == "yes";
    } else if (StartsWith(line, "# storage:")) {
      // "# storage: TRANSPORT, rotational yes|no|unknown"
      const std::string_view text = Trim(line.substr(10));
      const std::size_t comma = text.find(',');
      profile_.storage_transport = std::string(Trim(text.substr(0, comma)));
      if (comma != std::string_view::npos) {
        const std::string_view r = Trim(text.substr(comma + 1));
        if (r == "rotational yes" || r == "rotational no") {
          profile_.storage_rotational = r == "rotational yes";
        }
      }
    } else if (StartsWith(line, "# link:")) {
      profile_.link = KnownText(line.substr(7));
    } else if (StartsWith(line, "# mode: write")) {
      plan_.write = true;
    } else if (StartsWith(line, "# summary:")) {
      ParseRawSummary(line.substr(10), profile_);
    } else if (StartsWith(line, "# health: ")) {
      profile_.health_verdict = std::string(Trim(line.substr(10)));
    } else if (StartsWith(line, "# health reason: ")) {
      profile_.health_reasons.emplace_back(Trim(line.substr(17)));
    } else if (StartsWith(line, "# smart increase: ")) {
      profile_.smart_increases.emplace_back(Trim(line.substr(18)));
    } else if (StartsWith(line, "# smart before: unavailable (")) {
      const std::string_view note = Trim(line.substr(29));
      profile_.smart_note =
          std::string(note.substr(0, note.size() - (note.ends_with(')') ? 1 : 0)));
    } else {
      return false;
    }
    return true;
  }

  // "# options: key=value ...": the sweep's plan.
  void OptionsLine(std::string_view text, std::size_t n) {
    for (const auto& [key, value] : KeyValues(text)) {
      if (key == "block_bytes") block_ = HeaderNumber(in_, n, key, value);
      if (key == "start_bytes") start_ = HeaderNumber(in_, n, key, value);
      if (key == "end_bytes") end_ = HeaderNumber(in_, n, key, value);
      if (key == "chunk_bytes") plan_.chunk_bytes = HeaderNumber(in_, n, key, value);
      if (key == "passes") {
        plan_.passes = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(HeaderNumber(in_, n, key, value), 1u << 20));
      }
      if (key == "skip") {
        plan_.skip = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(HeaderNumber(in_, n, key, value), 1u << 30));
      }
      if (key == "blocks") {
        plan_.block_count = HeaderNumber(in_, n, key, value);
        // One point per block: room for them all at once (within reason:
        // a damaged count must not reserve gigabytes: 2^25 points, 256 MiB,
        // more than a 20 TB disk in 1 MiB blocks; found by fuzz_raw).
        if (profile_.points.empty()) {
          profile_.points.reserve(static_cast<std::size_t>(
              std::min<std::uint64_t>(plan_.block_count, std::uint64_t{1} << 25)));
        }
      }
      if (key == "quick") plan_.quick = value == "yes";
      if (key == "warmup") plan_.warmup = value == "yes";
      if (key == "engine") plan_.engine = std::string(value);
      if (key == "queue_depth") {
        plan_.queue_depth = static_cast<std::uint32_t>(
            std::min<std::uint64_t>(HeaderNumber(in_, n, key, value), 1u << 20));
      }
    }
    has_options_ = true;
  }

  // "# temperature: seconds=S offset_bytes=N celsius=C pass=P source=..."
  // (pass: 1-based; absent in files before it was recorded).
  void TemperatureLine(std::string_view text, std::size_t n) {
    TemperatureReading t;
    for (const auto& [key, value] : KeyValues(text)) {
      if (key == "seconds" || key == "celsius") {
        const std::optional<double> v = ToDouble(value);
        if (!v || !std::isfinite(*v) || (key == "seconds" && *v < 0)) {
          in_.Fail(n, std::string(key) + " " + Quote(value) + " is not a number");
        }
        (key == "seconds" ? t.seconds : t.celsius) = *v;
      } else if (key == "offset_bytes") {
        t.offset_bytes = HeaderNumber(in_, n, key, value);
      } else if (key == "pass") {
        const std::uint64_t pass = HeaderNumber(in_, n, key, value);
        t.pass = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(pass, 1, 1u << 20) - 1);
      }
    }
    profile_.temperatures.push_back(t);
  }

  // "# timing: blur_blocks=B".
  void TimingLine(std::string_view text, std::size_t n) {
    for (std::string_view word : Words(text)) {
      const std::size_t eq = word.find('=');
      if (eq == std::string_view::npos || word.substr(0, eq) != "blur_blocks") continue;
      const std::optional<double> v = ToDouble(word.substr(eq + 1));
      if (!v || !std::isfinite(*v) || *v < 0 || *v > kMaxBlurBlocks) {
        in_.Fail(n, "blur_blocks " + Quote(word.substr(eq + 1)) +
                        " is not a number of blocks (0 or more)");
      }
      profile_.blur_blocks = *v;
    }
  }

  // "# sample: pass=P block=B offset_bytes=X length_bytes=Y elapsed_ns=T".
  void SampleLine(std::string_view text, std::size_t n) {
    Sample x;
    for (const auto& [key, value] : KeyValues(text)) {
      const std::uint64_t v = HeaderNumber(in_, n, key, value);
      if (key == "pass") {
        x.pass = static_cast<std::uint32_t>(std::min<std::uint64_t>(v, 1u << 20) - (v > 0 ? 1 : 0));
      }
      if (key == "block") x.block_index = v;
      if (key == "offset_bytes") x.offset_bytes = v;
      if (key == "length_bytes") x.length_bytes = v;
      if (key == "elapsed_ns") {
        x.elapsed = std::chrono::nanoseconds(
            static_cast<std::int64_t>(std::min<std::uint64_t>(v, 1ULL << 62)));
      }
    }
    profile_.samples.push_back(x);
  }

  // "# latency: pass=P chunk_bytes=N below_5ms=N ... unreadable=N": one
  // pass's chunks by latency class (the "total" line is their sum).
  void LatencyLine(std::string_view text, std::size_t n) {
    LatencyClasses c;
    for (const auto& [key, value] : KeyValues(text)) {
      if (key == "pass") continue;
      const std::uint64_t v = HeaderNumber(in_, n, key, value);
      if (key == "chunk_bytes") c.chunk_bytes = v;
      if (key == LatencyClassKey(LatencyClass::kUnreadable)) c.unreadable_chunks = v;
      for (std::size_t i = 0; i < c.chunks.size(); ++i) {
        if (key == LatencyClassKey(static_cast<LatencyClass>(i))) c.chunks[i] = v;
      }
    }
    profile_.latency_classes.push_back(c);
    if (profile_.chunk_bytes == 0) profile_.chunk_bytes = c.chunk_bytes;
  }

  // A data row: "offset GiB, MiB/s, seconds, MB/s, min, max, stddev MB/s, passes".
  void DataRow(std::string_view line, std::size_t n) {
    const std::vector<std::string_view> w = Words(line);
    if (w.size() != 8) {
      in_.Fail(n,
               "expected 8 numbers (offset GiB, MiB/s, seconds, MB/s, min, max, stddev MB/s, "
               "passes), got " +
                   Quote(line));
    }
    const std::optional<double> gib = ToDouble(w[0]);
    if (!gib || !std::isfinite(*gib) || *gib < 0) {
      in_.Fail(n, "offset " + Quote(w[0]) + " is not a non-negative number of GiB");
    }
    const double bytes = *gib * static_cast<double>(kGiB);
    if (bytes > kMaxOffsetBytes) in_.Fail(n, "offset " + Quote(w[0]) + " GiB is out of range");
    NonNegative(in_, n, "rate (MiB/s)", w[1]);
    NonNegative(in_, n, "time (s)", w[2]);
    const double mb_per_s = NonNegative(in_, n, "rate (MB/s)", w[3]);
    const double min_mb_per_s = NonNegative(in_, n, "min rate (MB/s)", w[4]);
    const double max_mb_per_s = NonNegative(in_, n, "max rate (MB/s)", w[5]);
    NonNegative(in_, n, "stddev (MB/s)", w[6]);
    const std::optional<std::uint64_t> passes = ToUint(w[7]);
    if (!passes || *passes == 0) {
      in_.Fail(n, "passes " + Quote(w[7]) + " is not a positive whole number");
    }
    const std::uint64_t snapped = SnapOffset(bytes);
    order_.Add(in_, n, snapped, std::string(w[0]) + " GiB");
    rows_.Add(Row{.offset_bytes = snapped,
                  .length_bytes = 0,
                  .mb_per_s = mb_per_s,
                  .passes = *passes,
                  .min_mb_per_s = min_mb_per_s,
                  .max_mb_per_s = max_mb_per_s});
  }

  // 9 decimals of GiB are about one byte: round to the block grid (or at
  // least to 512-byte sectors) to get the exact offset back.
  std::uint64_t SnapOffset(double bytes) const {
    auto offset = static_cast<std::uint64_t>(std::llround(bytes));
    const std::uint64_t sector = 512;
    std::uint64_t snapped = (offset + sector / 2) / sector * sector;
    if (block_ > 0 && offset + sector >= start_) {
      const double k =
          std::round((bytes - static_cast<double>(start_)) / static_cast<double>(block_));
      const std::uint64_t grid = start_ + static_cast<std::uint64_t>(std::max(0.0, k)) * block_;
      if ((grid > offset ? grid - offset : offset - grid) <= sector) snapped = grid;
    }
    return snapped;
  }

  // After the last line: the points, the plan, the status and the ranges.
  void Finish() {
    if (rows_.empty()) in_.FailFile("no data rows (the run measured no blocks?)");
    rows_.Finish();
    if (has_options_) {
      plan_.block_bytes = block_;
      plan_.start_bytes = start_;
      plan_.end_bytes = end_;
      profile_.plan = plan_;
    }
    profile_.status = status_;
    // The footer's merged list when the run finished; else the ones found.
    profile_.unreadable = final_unreadable_.empty() ? inline_unreadable_ : final_unreadable_;
    std::sort(profile_.unreadable.begin(), profile_.unreadable.end(),
              [](const auto& a, const auto& b) { return a.offset_bytes < b.offset_bytes; });

    const Curve& points = profile_.points;
    if (block_ == 0 && points.size() >= 2) {
      std::vector<double> steps;
      for (std::size_t i = 1; i < points.size(); ++i) {
        steps.push_back(static_cast<double>(points.offset_bytes(i) - points.offset_bytes(i - 1)));
      }
      block_ = static_cast<std::uint64_t>(Median(steps));
      profile_.notes.push_back("no options line: block size " + MibText(block_) +
                               " inferred from the offsets");
    }
    profile_.block_bytes = block_;
    SizePoints();
    if (status_.empty() || StartsWith(status_, "running")) {
      profile_.notes.push_back("no final status line: the run was killed, or is still running");
    } else if (status_ != "complete") {
      profile_.notes.push_back("the run's status: " + status_);
    }
  }

  // The lengths (the file gives none): a block, up to the next block and
  // the end of the range. The curve is copied with them.
  void SizePoints() {
    const Curve& points = profile_.points;
    const std::uint64_t limit = end_ > 0 ? end_ : profile_.device_bytes;
    Curve sized;
    sized.reserve(points.size());
    std::optional<CurvePoint> previous;
    const auto add = [&](CurvePoint p, std::optional<std::uint64_t> next_offset) {
      std::uint64_t length = block_;
      if (next_offset) length = std::min(length, *next_offset - p.offset_bytes);
      if (limit > p.offset_bytes) length = std::min(length, limit - p.offset_bytes);
      p.length_bytes = length;
      sized.push_back(p);
    };
    for (const CurvePoint& p : points) {
      if (previous) add(*previous, p.offset_bytes);
      previous = p;
    }
    if (previous) add(*previous, std::nullopt);
    profile_.points = std::move(sized);
  }

  Input& in_;
  SavedResult& profile_;
  std::vector<UnreadableRange> final_unreadable_, inline_unreadable_;
  SweepPlan plan_;
  bool has_options_ = false;
  std::uint64_t block_ = 0;  // the options' block_bytes, start_bytes and end_bytes
  std::uint64_t start_ = 0;
  std::uint64_t end_ = 0;
  std::string status_;
  RowReducer rows_;
  PassOrder order_{/*equal_allowed=*/false};
};

}  // namespace

void ParseZcavRaw(Input& in, SavedResult& profile) { RawParser(in, profile).Run(); }

}  // namespace zcav::reader
