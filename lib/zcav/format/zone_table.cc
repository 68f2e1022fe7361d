#include "zcav/format/zone_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "zcav/analysis/adaptive_steps.h"
#include "zcav/base/enum_names.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

// The zone table shows this many zones at its head and tail when it has
// many (the CSV and JSON list them all).
constexpr std::size_t kTableHead = 12;
constexpr std::size_t kTableTail = 4;

using Json = nlohmann::ordered_json;

double Finite(double v) { return std::isfinite(v) ? v : 0.0; }

std::uint64_t DeviceBytes(const ZoneAnalysis& a, const ZoneReportContext& c) {
  if (c.device_bytes != 0) return c.device_bytes;
  return a.zones.empty() ? 0 : a.zones.back().end_bytes;
}

double Pct(std::uint64_t bytes, std::uint64_t total) {
  return total == 0 ? 0 : 100.0 * static_cast<double>(bytes) / static_cast<double>(total);
}

double Gb(std::uint64_t bytes) { return static_cast<double>(bytes) / kGB; }

double XSpeed(double mb_per_s, Media media) {
  const double one_x = OneXBytesPerS(media);
  return one_x > 0 ? mb_per_s * kMB / one_x : 0;
}

std::string Pad(const std::string& s, std::size_t width, bool left = false) {
  if (s.size() >= width) return s;
  const std::string fill(width - s.size(), ' ');
  return left ? s + fill : fill + s;
}

// Average X over the whole curve: bytes / time, as a drive's "average speed".
double AverageMbPerS(const ZoneAnalysis& a) {
  double bytes = 0, seconds = 0;
  for (const Zone& z : a.zones) {
    const double b = static_cast<double>(z.end_bytes - z.start_bytes);
    if (z.mean_mb_per_s > 0) {
      bytes += b;
      seconds += b / (z.mean_mb_per_s * kMB);
    }
  }
  return seconds > 0 ? bytes / seconds / kMB : 0;
}

}  // namespace

Media ParseMedia(const std::string& text) {
  if (text == "cd") return Media::kCd;
  if (text == "dvd") return Media::kDvd;
  if (text == "bd") return Media::kBd;
  if (text == "none") return Media::kNone;
  throw Error("invalid media '" + text + "' (use cd, dvd, bd or none)", ErrorKind::kBadInput);
}

Media GuessMedia(const std::string& path) {
  const auto starts = [&](const char* prefix) { return path.rfind(prefix, 0) == 0; };
  if (starts("sim:cd")) return Media::kCd;
  if (starts("sim:dvd")) return Media::kDvd;
  if (starts("/dev/sr") || starts("/dev/scd") || starts("/dev/cdrom")) return Media::kCd;
  if (starts("/dev/dvd")) return Media::kDvd;
  return Media::kNone;
}

double OneXBytesPerS(Media media) {
  switch (media) {
    case Media::kCd:
      return 153600;  // 75 sectors x 2048 B per second
    case Media::kDvd:
      return 1385000;
    case Media::kBd:
      return 4500000;
    case Media::kNone:
      return 0;
  }
  return 0;
}

const char* MediaName(Media media) {
  static constexpr EnumName<Media> kNames[] = {
      {Media::kCd, "CD"}, {Media::kDvd, "DVD"}, {Media::kBd, "BD"}, {Media::kNone, "none"}};
  return NameOf(media, kNames, "none");
}

namespace {

// The texture lines of the zone table: jitter, correlated noise, dips and
// bursts.
std::string TextureText(const ZoneAnalysis& a) {
  std::ostringstream out;
  const Texture& t = a.texture;
  if (t.jitter_p5_rel < 1 || t.jitter_p95_rel > 1) {
    // The low side is below the median: signed by hand, so that a p5 a hair
    // under the median still reads "-0.0" beside the "+0.0" of the high side.
    const std::string low = t.jitter_p5_rel < 1 ? "-" + FormatFixed(100 * (1 - t.jitter_p5_rel), 1)
                                                : FormatFixed(100 * (t.jitter_p5_rel - 1), 1);
    out << "jitter: 90 % of the blocks within " << low << " % .. +"
        << FormatFixed(100 * (t.jitter_p95_rel - 1), 1) << " % of their zone's median";
    if (t.correlated) {
      out << "; correlated (lag-1 " << FormatFixed(t.lag1_autocorrelation, 2)
          << "): a mean over many blocks wanders "
          << FormatFixed(std::sqrt(t.variance_inflation), 1)
          << "x as far as independent noise would, and steps are judged against that";
    }
    out << "\n";
  }
  if (t.dip_count > 0) {
    out << "dips: " << t.dip_count << ", " << FormatFixed(100 * t.dip_depth_rel, 0)
        << " % deep (median)";
    if (t.dip_period_blocks > 0)
      out << ", every " << FormatFixed(t.dip_period_blocks, 0) << " blocks";
    out << ", " << FormatFixed(100 * t.dip_share, 1)
        << " % of the blocks (texture, such as an SSD's garbage collection: not zones, left out "
           "of the zone statistics)\n";
  }
  if (t.banded) {
    out << "bands: neighbouring bands differ by " << FormatFixed(100 * t.band_amplitude_rel, 1)
        << " % (median), a fast and a slow band every " << FormatFixed(t.band_period_blocks, 0)
        << " blocks (multi-head or serpentine layout): texture; the zones follow their envelope\n";
  }
  if (t.burst_count > 0) {
    out << "bursts: " << t.burst_count << ", " << FormatFixed(100 * t.burst_share, 1)
        << " % of the blocks read faster than around them (a cache answering now and then: not "
           "zones, left out of the zone statistics)\n";
  }
  return out.str();
}

// The steps line: position or time, as the passes tell.
std::string StepsText(const ZoneAnalysis& a) {
  std::ostringstream out;
  std::size_t position = 0, unknown = 0;
  for (const Step& st : a.steps) {
    if (st.origin == StepOrigin::kPosition) ++position;
    if (st.origin == StepOrigin::kUnknown) ++unknown;
    if (st.origin != StepOrigin::kTime) continue;
    out << "time-dependent: a step at " << FormatFixed(Gb(st.offset_bytes), 3) << " GB";
    for (std::size_t p = 0; p < st.pass_offsets_bytes.size(); ++p) {
      const std::int64_t at = st.pass_offsets_bytes[p];
      out << (p ? ", " : " (") << "pass " << p + 1 << ": "
          << (at < 0 ? std::string("none")
                     : FormatFixed(Gb(static_cast<std::uint64_t>(at)), 3) + " GB");
    }
    out << (st.pass_offsets_bytes.empty() ? "" : ")")
        << " followed the elapsed time, not the position (a cache running out, throttling, the "
           "host): not a zone\n";
  }
  if (position > 0) {
    out << "steps: " << position << " at the same position in every pass (the media's)\n";
  } else if (a.zones.size() > 1 && a.steps.empty()) {
    out << "steps: read once, so whether they follow the position or the time cannot be told "
           "(--passes 2 tells)\n";
  }
  return out.str();
}

Json SlowRegionObject(const SlowRegion& r) {
  return {{"offset_bytes", r.offset_bytes},
          {"length_bytes", r.length_bytes},
          {"ms", Finite(r.ms)},
          {"expected_ms", Finite(r.expected_ms)},
          {"pass", r.pass + 1}};
}

// The table's closing lines about places: the outlier blocks, the
// unreadable and the slow regions (the first five of each).
std::string RegionsText(const ZoneAnalysis& a, const ZoneReportContext& c) {
  std::ostringstream out;
  out << "outliers: " << a.outliers.size() << (a.outliers.size() == 1 ? " block" : " blocks");
  for (std::size_t i = 0; i < a.outliers.size() && i < 5; ++i) {
    out << (i ? ", " : " (") << FormatFixed(Gb(a.outliers[i].offset_bytes), 3)
        << " GB: " << FormatFixed(a.outliers[i].mb_per_s, 2) << " MB/s";
    if (i + 1 == a.outliers.size() || i == 4) out << (a.outliers.size() > 5 ? ", ...)" : ")");
  }
  out << "\n";
  if (!c.unreadable.empty()) {
    std::uint64_t bytes = 0;
    for (const UnreadableRange& u : c.unreadable) bytes += u.length_bytes;
    out << "unreadable regions: " << c.unreadable.size() << ", " << FormatBytes(bytes)
        << ", not in the zone statistics:";
    for (std::size_t i = 0; i < c.unreadable.size() && i < 5; ++i) {
      out << (i ? ", " : " ") << FormatFixed(Gb(c.unreadable[i].offset_bytes), 3) << " GB +"
          << c.unreadable[i].length_bytes << " B";
    }
    out << (c.unreadable.size() > 5 ? ", ...\n" : "\n");
  }
  if (!c.slow_regions.empty()) {
    out << "slow regions: " << c.slow_regions.size() << ", far slower than their neighbours:";
    for (std::size_t i = 0; i < c.slow_regions.size() && i < 5; ++i) {
      const SlowRegion& r = c.slow_regions[i];
      out << (i ? ", " : " ") << FormatFixed(Gb(r.offset_bytes), 3) << "-"
          << FormatFixed(Gb(r.offset_bytes + r.length_bytes), 3) << " GB in "
          << FormatFixed(r.ms, 0) << " ms (" << FormatFixed(r.ms / std::max(r.expected_ms, 1e-9), 0)
          << "x slower)";
    }
    out << (c.slow_regions.size() > 5 ? ", ...\n" : "\n");
  }
  return out.str();
}

}  // namespace

// Probe noise (AdaptiveResult::noise_rel) from which the note says what it
// hides.
constexpr double kNoteNoiseRel = 0.015;

std::string AdaptiveNote(const AdaptiveResult& r, std::size_t probes) {
  std::uint64_t widest = 0;
  for (const AdaptiveEdge& e : r.edges) widest = std::max(widest, e.uncertainty_bytes);
  std::string s = "adaptive: " + std::to_string(probes) + " probes read " +
                  FormatFixed(Gb(r.bytes_read), 3) + " GB of " + FormatFixed(Gb(r.range_bytes), 3) +
                  " GB (" + FormatFixed(Pct(r.bytes_read, r.range_bytes), 3) +
                  " %; GB = 10^9 B); between the probes the zone levels are inferred, not measured";
  if (!r.edges.empty()) {
    s += "; each edge within +-" + FormatFixed(static_cast<double>(widest) / kMiB, 1) +
         " MiB (the widest)";
  }
  if (r.budget_hit) s += "; the budget ended the refinement";
  // A noisy host: probes read again took over a fifth of the other reads.
  const std::uint64_t first = r.bytes_read - std::min(r.reread_bytes, r.bytes_read);
  if (r.reread_capped || r.reread_bytes * 5 > first) {
    s += "; the host was noisy: probes read again took " +
         FormatFixed(Pct(r.reread_bytes, r.range_bytes), 2) + " % of the range";
    if (r.reread_capped) s += " and reached their bound (half the other reads)";
  }
  // What the probes' noise hides: on sim disks of 8 zones 14 % apart, runs
  // whose probes' noise came to over a quarter of the step lost edges, those
  // under a fifth none.
  if (r.noise_rel >= kNoteNoiseRel) {
    s += "; the probes' noise was " + FormatFixed(100 * r.noise_rel, 1) +
         " %: a step between zones under about " + FormatFixed(400 * r.noise_rel, 0) +
         " % may be missed (a full sweep, or a run on a quieter host, resolves it)";
  }
  return s;
}

std::string FormatZoneTable(const ZoneAnalysis& a, const ZoneReportContext& c) {
  const std::uint64_t total = DeviceBytes(a, c);
  const bool optical = c.media != Media::kNone;
  std::ostringstream out;
  out << "zones of " << c.source << ": curve " << CurveTypeName(a.type);
  if (!a.description.empty()) out << " (" << a.description << ")";
  out << "\n";
  if (a.zones.empty()) {
    out << "no data to analyse\n";
    return out.str();
  }
  const std::vector<std::string> head = {"zone",  "start GB",  "end GB",      "start %",
                                         "end %", "length GB", "median MB/s", "mean",
                                         "min",   "max",       "stddev"};
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < a.zones.size(); ++i) {
    const Zone& z = a.zones[i];
    std::vector<std::string> r = {std::to_string(i + 1),
                                  FormatFixed(Gb(z.start_bytes), 3),
                                  FormatFixed(Gb(z.end_bytes), 3),
                                  FormatFixed(Pct(z.start_bytes, total), 2),
                                  FormatFixed(Pct(z.end_bytes, total), 2),
                                  FormatFixed(Gb(z.end_bytes - z.start_bytes), 3),
                                  FormatFixed(z.mb_per_s, 2),
                                  FormatFixed(z.mean_mb_per_s, 2),
                                  FormatFixed(z.min_mb_per_s, 2),
                                  FormatFixed(z.max_mb_per_s, 2),
                                  FormatFixed(z.stddev_mb_per_s, 3)};
    if (optical) r.push_back(FormatFixed(XSpeed(z.mb_per_s, c.media), 1) + "x");
    rows.push_back(std::move(r));
  }
  std::vector<std::string> header = head;
  if (optical) header.push_back(std::string(MediaName(c.media)) + " speed");
  std::vector<std::size_t> width(header.size());
  for (std::size_t k = 0; k < header.size(); ++k) {
    width[k] = header[k].size();
    for (const auto& r : rows) width[k] = std::max(width[k], r[k].size());
  }
  for (std::size_t k = 0; k < header.size(); ++k)
    out << (k ? "  " : "") << Pad(header[k], width[k]);
  out << "\n";
  // Many zones (a noisy or banded curve): the first and the last ones, and
  // how many lie between; the CSV and JSON list every zone.
  const bool summarised = rows.size() > kTableHead + kTableTail + 1;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (summarised && i == kTableHead) {
      double lo = a.zones[i].mb_per_s, hi = lo;
      for (std::size_t k = i; k < rows.size() - kTableTail; ++k) {
        lo = std::min(lo, a.zones[k].mb_per_s);
        hi = std::max(hi, a.zones[k].mb_per_s);
      }
      out << "... " << rows.size() - kTableHead - kTableTail << " zones more, "
          << FormatFixed(lo, 2) << " to " << FormatFixed(hi, 2)
          << " MB/s (zcav zones FILE --format csv lists them all)\n";
      i = rows.size() - kTableTail - 1;
      continue;
    }
    const auto& r = rows[i];
    for (std::size_t k = 0; k < r.size(); ++k) out << (k ? "  " : "") << Pad(r[k], width[k]);
    out << "\n";
  }
  const Zone& fast = a.zones[a.fastest_zone];
  const Zone& slow = a.zones[a.slowest_zone];
  out << "summary: " << a.zones.size() << (a.zones.size() == 1 ? " zone" : " zones")
      << "; outer/inner " << FormatFixed(a.outer_inner_ratio, 2) << ":1; fastest zone "
      << a.fastest_zone + 1 << " (" << FormatFixed(fast.mb_per_s, 2) << " MB/s), slowest zone "
      << a.slowest_zone + 1 << " (" << FormatFixed(slow.mb_per_s, 2) << " MB/s)\n";
  out << "share of the device at >= 90 % of the peak rate: " << FormatFixed(100 * a.share_at_90, 1)
      << " %, >= 75 %: " << FormatFixed(100 * a.share_at_75, 1)
      << " %, >= 50 %: " << FormatFixed(100 * a.share_at_50, 1) << " %\n";
  if (optical) {
    out << "average over the disc: " << FormatFixed(XSpeed(AverageMbPerS(a), c.media), 1) << "x "
        << MediaName(c.media) << " (" << FormatFixed(AverageMbPerS(a), 2)
        << " MB/s; 1x = " << FormatFixed(OneXBytesPerS(c.media), 0) << " B/s)\n";
  }
  if (a.fit_r2 > 0) {
    out << "fit: " << FormatFixed(a.fit_start_mb_per_s, 2) << " MB/s at the start, "
        << FormatFixed(a.fit_end_mb_per_s, 2) << " MB/s at the end (R^2 "
        << FormatFixed(a.fit_r2, 4) << ")\n";
  }
  if (a.alternating) out << "pattern: many short plateaus alternating between levels\n";
  out << TextureText(a) << StepsText(a);
  if (c.transport && c.transport->ceiling_mb_per_s > 0) {
    out << "bus: " << (c.transport->link.empty() ? c.transport->kind : c.transport->link)
        << ", practical ceiling " << FormatFixed(c.transport->ceiling_mb_per_s, 0) << " MB/s ("
        << c.transport->source << ")\n";
  }
  if (c.verdict) {
    out << "verdict: " << VerdictKindName(c.verdict->kind) << ": " << c.verdict->reason << "\n";
  } else if (!c.caches.text.empty()) {
    out << "caches: " << c.caches.text << "\n";  // the verdict, when there is one, says it
  }
  if (c.write_cache) {
    out << "write cache: " << c.write_cache->description;
    if (c.write_cache->recovery) out << "; " << RecoveryText(*c.write_cache);
    out << "\n";
  }
  out << RegionsText(a, c);
  if (c.health) {
    out << "health: " << HealthVerdictName(c.health->verdict);
    for (std::size_t i = 0; i < c.health->reasons.size(); ++i) {
      out << (i ? "; " : ": ") << c.health->reasons[i];
    }
    out << "\n";
  }
  for (const std::string& note : c.notes) out << "note: " << note << "\n";
  out << "(MB = 10^6 B, GB = 10^9 B)\n";
  return out.str();
}

std::string FormatZoneCsv(const ZoneAnalysis& a, const ZoneReportContext& c, bool header,
                          bool with_source) {
  const std::uint64_t total = DeviceBytes(a, c);
  std::ostringstream out;
  const auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (const char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  if (header) {
    if (with_source) out << "source,";
    out << "index,start_bytes,end_bytes,start_gb,end_gb,start_pct,end_pct,length_bytes,"
           "mb_per_s,mean_mb_per_s,min_mb_per_s,max_mb_per_s,stddev_mb_per_s,x_speed\n";
  }
  for (std::size_t i = 0; i < a.zones.size(); ++i) {
    const Zone& z = a.zones[i];
    if (with_source) out << quoted(c.source) << ",";
    out << i + 1 << "," << z.start_bytes << "," << z.end_bytes << ","
        << FormatFixed(Gb(z.start_bytes), 6) << "," << FormatFixed(Gb(z.end_bytes), 6) << ","
        << FormatFixed(Pct(z.start_bytes, total), 4) << ","
        << FormatFixed(Pct(z.end_bytes, total), 4) << "," << z.end_bytes - z.start_bytes << ","
        << FormatFixed(z.mb_per_s, 6) << "," << FormatFixed(z.mean_mb_per_s, 6) << ","
        << FormatFixed(z.min_mb_per_s, 6) << "," << FormatFixed(z.max_mb_per_s, 6) << ","
        << FormatFixed(z.stddev_mb_per_s, 6) << ","
        << (c.media != Media::kNone ? FormatFixed(XSpeed(z.mb_per_s, c.media), 3) : "") << "\n";
  }
  return out.str();
}

std::string SlowRegionJson(const SlowRegion& region) { return SlowRegionObject(region).dump(); }

// The analysis's own slow regions (a sweep writes the ones it found itself,
// with its health, beside the zones): into `j` when `c` has a health.
void AddSlowRegionsJson(const ZoneReportContext& c, Json& j) {
  if (!c.health) return;
  Json slow = Json::array();
  for (const SlowRegion& r : c.slow_regions) slow.push_back(SlowRegionObject(r));
  j["slow_regions"] = slow;
  j["health"] = {{"verdict", HealthVerdictName(c.health->verdict)}, {"reasons", c.health->reasons}};
}

// zone_summary.texture: the jitter, dips, bands and bursts of the curve.
Json TextureJson(const ZoneAnalysis& a) {
  const Texture& t = a.texture;
  return {{"jitter_p5_rel", Finite(t.jitter_p5_rel)},
          {"correlated", t.correlated},
          {"jitter_p95_rel", Finite(t.jitter_p95_rel)},
          {"lag1_autocorrelation", Finite(t.lag1_autocorrelation)},
          {"variance_inflation", Finite(t.variance_inflation)},
          {"dips", t.dip_count},
          {"dip_period_blocks", Finite(t.dip_period_blocks)},
          {"dip_depth_rel", Finite(t.dip_depth_rel)},
          {"dip_share", Finite(t.dip_share)},
          {"banded", t.banded},
          {"band_amplitude_rel", Finite(t.band_amplitude_rel)},
          {"band_period_blocks", Finite(t.band_period_blocks)},
          {"bursts", t.burst_count},
          {"burst_share", Finite(t.burst_share)},
          {"resolution_blocks", a.resolution_blocks}};
}

// "caches" (caches.h), when the passes or the page cache say anything.
void AddCachesJson(const CacheFinding& f, Json& j) {
  if (f.trend == PassTrend::kNone && f.text.empty()) return;
  j["caches"] = {{"pass_trend", PassTrendName(f.trend)},
                 {"ram_passes", f.ram_passes},
                 {"storage_pass", f.storage_pass == 0 ? Json(nullptr) : Json(f.storage_pass)},
                 {"misleads", f.misleads},
                 {"description", f.text}};
}

std::string ZoneAnalysisJson(const ZoneAnalysis& a, const ZoneReportContext& c) {
  const std::uint64_t total = DeviceBytes(a, c);
  const bool optical = c.media != Media::kNone;
  Json j;
  j["curve_type"] = CurveTypeName(a.type);
  Json zones = Json::array();
  for (const Zone& z : a.zones) {
    Json zj;
    zj["start_bytes"] = z.start_bytes;
    zj["end_bytes"] = z.end_bytes;
    zj["start_pct"] = Finite(Pct(z.start_bytes, total));
    zj["end_pct"] = Finite(Pct(z.end_bytes, total));
    zj["blocks"] = z.end_block - z.first_block;
    zj["mb_per_s"] = Finite(z.mb_per_s);
    zj["mean_mb_per_s"] = Finite(z.mean_mb_per_s);
    zj["min_mb_per_s"] = Finite(z.min_mb_per_s);
    zj["max_mb_per_s"] = Finite(z.max_mb_per_s);
    zj["stddev_mb_per_s"] = Finite(z.stddev_mb_per_s);
    if (optical) zj["x_speed"] = Finite(XSpeed(z.mb_per_s, c.media));
    zones.push_back(zj);
  }
  j["zones"] = zones;
  Json outliers = Json::array();
  for (const Outlier& o : a.outliers) {
    Json oj;
    oj["offset_bytes"] = o.offset_bytes;
    oj["mb_per_s"] = Finite(o.mb_per_s);
    outliers.push_back(oj);
  }
  j["outliers"] = outliers;
  Json s;
  s["zones"] = a.zones.size();
  s["description"] = a.description;
  s["outer_inner_ratio"] = Finite(a.outer_inner_ratio);
  s["fastest_zone"] = a.zones.empty() ? Json(nullptr) : Json(a.fastest_zone + 1);
  s["slowest_zone"] = a.zones.empty() ? Json(nullptr) : Json(a.slowest_zone + 1);
  s["share_at_90_pct"] = Finite(a.share_at_90);
  s["share_at_75_pct"] = Finite(a.share_at_75);
  s["share_at_50_pct"] = Finite(a.share_at_50);
  s["alternating"] = a.alternating;
  s["noise_sigma_mb_per_s"] = Finite(a.noise_sigma_mb_per_s);
  s["penalty"] = Finite(a.penalty);
  s["min_zone_blocks"] = a.min_zone_blocks;
  s["texture"] = TextureJson(a);
  Json steps = Json::array();
  for (const Step& st : a.steps) {
    steps.push_back({{"zone", st.zone + 1},
                     {"offset_bytes", st.offset_bytes},
                     {"origin", StepOriginName(st.origin)},
                     {"pass_offsets_bytes", st.pass_offsets_bytes}});
  }
  s["steps"] = steps;
  if (a.fit_r2 > 0) {
    s["fit"] = {{"start_mb_per_s", Finite(a.fit_start_mb_per_s)},
                {"end_mb_per_s", Finite(a.fit_end_mb_per_s)},
                {"r2", Finite(a.fit_r2)}};
  }
  if (optical) {
    s["media"] = MediaName(c.media);
    s["one_x_bytes_per_s"] = OneXBytesPerS(c.media);
    s["average_x_speed"] = Finite(XSpeed(AverageMbPerS(a), c.media));
  }
  j["zone_summary"] = s;
  if (!c.notes.empty()) j["notes"] = c.notes;
  AddSlowRegionsJson(c, j);
  AddCachesJson(c.caches, j);
  if (c.transport) {
    j["transport"] = {
        {"kind", c.transport->kind},
        {"link", c.transport->link},
        {"ceiling_mb_per_s",
         c.transport->ceiling_mb_per_s > 0 ? Json(c.transport->ceiling_mb_per_s) : Json(nullptr)},
        {"source", c.transport->source}};
  }
  if (c.verdict) {
    Json v = {{"kind", VerdictKindName(c.verdict->kind)}, {"reason", c.verdict->reason}};
    if (c.verdict->kind == VerdictKind::kBusCapped) {
      v["capped_share"] = Finite(c.verdict->capped_share);
      v["uncapped_estimate_mb_per_s"] = Finite(c.verdict->uncapped_estimate_mb_per_s);
    }
    j["verdict"] = v;
  }
  if (c.write_cache) {
    const WriteCacheAnalysis& w = *c.write_cache;
    Json phases = Json::array();
    for (const WritePhase& p : w.phases) {
      phases.push_back({{"name", p.name},
                        {"start_bytes", p.start_bytes},
                        {"end_bytes", p.end_bytes},
                        {"mb_per_s", Finite(p.mb_per_s)}});
    }
    j["write_cache"] = {{"size_bytes", w.size_bytes},
                        {"in_cache_mb_per_s", Finite(w.in_cache_mb_per_s)},
                        {"after_cache_mb_per_s", Finite(w.after_cache_mb_per_s)},
                        {"phases", phases},
                        {"description", w.description}};
    if (w.recovery) {
      const WriteCacheRecovery& r = *w.recovery;
      j["write_cache"]["recovery"] = {{"idle_seconds", Finite(r.idle_seconds)},
                                      {"regained_bytes", r.regained_bytes},
                                      {"probe_bytes", r.probe_bytes},
                                      {"mb_per_s", Finite(r.mb_per_s)},
                                      {"at_least", r.at_least}};
    }
  }
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Verdict VerdictFor(const ZoneAnalysis& analysis, const Transport& transport,
                   std::optional<double> burst_mb_per_s,
                   const std::optional<WriteCacheAnalysis>& write_cache,
                   const CacheFinding& caches) {
  VerdictInputs in;
  in.caches = caches;
  in.sustained_max_mb_per_s =
      analysis.zones.empty() ? 0 : analysis.zones[analysis.fastest_zone].mb_per_s;
  in.sustained_avg_mb_per_s = AverageMbPerS(analysis);
  in.burst_mb_per_s = burst_mb_per_s;
  in.transport = transport;
  in.write_cache = write_cache;
  return DecideVerdict(analysis, in);
}

}  // namespace zcav
