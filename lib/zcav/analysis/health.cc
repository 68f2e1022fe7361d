#include "zcav/analysis/health.h"

#include <algorithm>
#include <string>

#include "zcav/base/text.h"
#include "zcav/base/units.h"

namespace zcav {

namespace {

// Positions listed in a reason at most; the rest are counted.
constexpr std::size_t kListedPositions = 5;

// "12.345 GB" (10^9 B) and in parentheses, when the device size is known,
// "41.2 %", then `extra` ("12.345 GB (41.2 %, 64 KiB)").
std::string Where(std::uint64_t offset_bytes, std::uint64_t device_bytes,
                  const std::string& extra = "") {
  std::string text = FormatFixed(static_cast<double>(offset_bytes) / kGB, 3) + " GB";
  std::string inside = extra;
  if (device_bytes > 0) {
    inside = FormatFixed(
                 100.0 * static_cast<double>(offset_bytes) / static_cast<double>(device_bytes), 1) +
             " %" + (extra.empty() ? "" : ", " + extra);
  }
  return inside.empty() ? text : text + " (" + inside + ")";
}

std::string Plural(std::uint64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "at A, B, C and 4 more".
template <typename Range, typename Describe>
std::string Positions(const Range& items, Describe describe) {
  std::string text;
  std::size_t i = 0;
  for (const auto& item : items) {
    if (i == kListedPositions) break;
    text += (i == 0 ? "" : ", ") + describe(item);
    ++i;
  }
  if (items.size() > kListedPositions) {
    text += " and " + std::to_string(items.size() - kListedPositions) + " more";
  }
  return text;
}

class Assessor {
 public:
  Assessor(const HealthInputs& in, const HealthThresholds& t) : in_(in), t_(t) {}

  Health Run() {
    Unreadable();
    SmartFailing();
    SlowRegions();
    SlowestChunks();
    SmartSuspect();
    Temperature();
    Thermal();
    if (failing_.empty() && suspect_.empty()) return Good();
    Health h;
    h.verdict = failing_.empty() ? HealthVerdict::kSuspect : HealthVerdict::kFailing;
    h.reasons = failing_;
    h.reasons.insert(h.reasons.end(), suspect_.begin(), suspect_.end());
    h.reasons.insert(h.reasons.end(), notes_.begin(), notes_.end());
    return h;
  }

 private:
  void Unreadable() {
    if (in_.unreadable.empty()) return;
    std::uint64_t bytes = 0;
    for (const UnreadableRange& u : in_.unreadable) bytes += u.length_bytes;
    failing_.push_back(
        Plural(in_.unreadable.size(), "unreadable range", "unreadable ranges") + " (" +
        std::to_string(bytes) + " bytes) at " + Positions(in_.unreadable, [&](const auto& u) {
          return Where(u.offset_bytes, in_.device_bytes, ExactBinarySize(u.length_bytes));
        }));
  }

  void SmartFailing() {
    const SmartSnapshot& after = in_.smart_after.available ? in_.smart_after : in_.smart_before;
    if (after.available && after.passed == false) {
      failing_.push_back("SMART overall assessment: FAILED (smartctl)");
    }
    if (!in_.smart_before.available || !in_.smart_after.available) return;
    for (const SmartChange& c : SmartIncreases(in_.smart_before, in_.smart_after)) {
      const std::string text = "SMART " + c.field +
                               " grew during the run: " + std::to_string(c.before) + " -> " +
                               std::to_string(c.after);
      if (c.field == "crc_errors" || c.field == "percentage_used") {
        suspect_.push_back(text + (c.field == "crc_errors" ? " (the cable or the bus)" : ""));
      } else {
        failing_.push_back(text);
      }
    }
  }

  // The slow regions, one per place: regions that overlap or touch (the
  // same place found in several passes, bounded a little differently each
  // time) are one, with the slowest time and the passes that found it.
  void SlowRegions() {
    struct Place {
      std::uint64_t begin = 0, end = 0;
      SlowRegion slowest;
      std::vector<std::uint32_t> passes;
    };
    std::vector<SlowRegion> sorted = in_.slow_regions;
    std::sort(sorted.begin(), sorted.end(), [](const SlowRegion& a, const SlowRegion& b) {
      return a.offset_bytes < b.offset_bytes;
    });
    std::vector<Place> places;
    for (const SlowRegion& r : sorted) {
      if (places.empty() || r.offset_bytes > places.back().end) {
        places.push_back({r.offset_bytes, r.offset_bytes + r.length_bytes, r, {}});
      }
      Place& p = places.back();
      p.end = std::max(p.end, r.offset_bytes + r.length_bytes);
      if (r.ms > p.slowest.ms) p.slowest = r;
      if (std::find(p.passes.begin(), p.passes.end(), r.pass) == p.passes.end()) {
        p.passes.push_back(r.pass);
      }
    }
    if (places.empty()) return;
    suspect_.push_back(Plural(places.size(), "slow region", "slow regions") + " at " +
                       Positions(places, [&](const Place& p) {
                         const SlowRegion& r = p.slowest;
                         return Where(p.begin, in_.device_bytes, ExactBinarySize(p.end - p.begin)) +
                                ": " + FormatFixed(r.ms, 0) + " ms where " +
                                FormatFixed(r.expected_ms, 0) + " ms was expected" +
                                (p.passes.size() > 1
                                     ? " (in " + std::to_string(p.passes.size()) + " passes)"
                                     : "");
                       }));
  }

  void SlowestChunks() {
    const std::uint64_t slowest =
        in_.latency.chunks[static_cast<std::size_t>(LatencyClass::kAtLeast500)];
    if (slowest == 0) return;
    suspect_.push_back(Plural(slowest, "chunk", "chunks") + " of " +
                       std::to_string(in_.latency.Total()) + " took " +
                       FormatFixed(kLatencyBoundsMs.back(), 0) + " ms or more (chunk " +
                       ExactBinarySize(in_.latency.chunk_bytes) + ")");
  }

  void SmartSuspect() {
    const SmartSnapshot& s = in_.smart_before;
    if (!s.available) return;
    const std::pair<const char*, std::optional<std::uint64_t>> present[] = {
        {"reallocated_sectors", s.reallocated_sectors},
        {"pending_sectors", s.pending_sectors},
        {"offline_uncorrectable", s.offline_uncorrectable},
        {"media_errors", s.media_errors}};
    for (const auto& [name, value] : present) {
      if (value && *value > 0) {
        suspect_.push_back(std::string("SMART ") + name + " " + std::to_string(*value) +
                           " before the run");
      }
    }
  }

  void Temperature() {
    std::optional<double> hottest = in_.max_temperature_c;
    for (const SmartSnapshot* s : {&in_.smart_before, &in_.smart_after}) {
      if (s->available && s->temperature_c) {
        hottest = std::max(hottest.value_or(*s->temperature_c), *s->temperature_c);
      }
    }
    if (!hottest) return;
    const bool rotating = in_.rotational.value_or(true);
    const double limit = rotating ? t_.max_rotating_c : t_.max_solid_state_c;
    if (*hottest >= limit) {
      suspect_.push_back("temperature reached " + FormatFixed(*hottest, 0) + " C (limit " +
                         FormatFixed(limit, 0) + " C for a " +
                         (rotating ? "rotating" : "solid-state") + " drive)");
    }
  }

  // "throughput fell 60 % (3000 -> 1200 MB/s) at 90.000 GB (35.2 %) in pass
  // 1, 30 s into the run, while the drive warmed from 40 C to 80 C; ..."
  void Thermal() {
    for (const ThermalDrop& d : in_.thermal_drops) {
      std::string text =
          "throughput fell " + FormatFixed(100 * (1 - d.after_mb_per_s / d.before_mb_per_s), 0) +
          " % (" + FormatFixed(d.before_mb_per_s, 1) + " -> " + FormatFixed(d.after_mb_per_s, 1) +
          " MB/s) at " + Where(d.offset_bytes, in_.device_bytes) + " in pass " +
          std::to_string(d.pass + 1) + ", " + FormatFixed(d.seconds, 0) +
          " s into the run, while the drive warmed from " + FormatFixed(d.from_c, 0) + " C to " +
          FormatFixed(d.to_c, 0) + " C";
      if (d.time_effect) {
        suspect_.push_back(text +
                           "; the other passes read there without the drop: thermal throttling, "
                           "not a zone");
      } else {
        notes_.push_back(text +
                         "; no other pass read there, so it cannot be told from a zone edge "
                         "(read 2 passes to tell)");
      }
    }
  }

  Health Good() const {
    Health h;
    // No chunk times (an adaptive run times whole probes): no count to give.
    h.reasons.push_back(
        in_.adaptive_share_read ? "no unreadable sectors in the probes read (" +
                                      FormatFixed(100 * *in_.adaptive_share_read, 2) +
                                      " % of the surface; the rest was not read: adaptive sampling "
                                      "is no surface scan)"
        : in_.latency.Total() > 0 ? "no unreadable sectors and no slow regions in " +
                                        Plural(in_.latency.Total(), "chunk", "chunks") + " read"
                                  : std::string("no unreadable sectors found"));
    std::size_t worst = 0;
    for (std::size_t i = 0; i < in_.latency.chunks.size(); ++i) {
      if (in_.latency.chunks[i] > 0) worst = i;
    }
    if (in_.latency.Total() > 0) {
      h.reasons.push_back(std::string("slowest chunk class: ") +
                          LatencyClassLabel(static_cast<LatencyClass>(worst)) + " (chunk " +
                          ExactBinarySize(in_.latency.chunk_bytes) + ")");
    }
    if (in_.smart_before.available && in_.smart_after.available) {
      h.reasons.push_back("SMART: no error counter grew during the run");
    }
    h.reasons.insert(h.reasons.end(), notes_.begin(), notes_.end());
    return h;
  }

  const HealthInputs& in_;
  const HealthThresholds& t_;
  std::vector<std::string> failing_;
  std::vector<std::string> suspect_;
  std::vector<std::string> notes_;  // listed, verdict unchanged
};

}  // namespace

const char* HealthVerdictName(HealthVerdict verdict) {
  switch (verdict) {
    case HealthVerdict::kGood:
      return "good";
    case HealthVerdict::kSuspect:
      return "suspect";
    case HealthVerdict::kFailing:
      return "failing";
  }
  return "unknown";
}

Health AssessHealth(const HealthInputs& in, const HealthThresholds& thresholds) {
  return Assessor(in, thresholds).Run();
}

}  // namespace zcav
