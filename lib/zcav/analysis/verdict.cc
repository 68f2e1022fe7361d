// The bus-or-media verdict.
//
// Evidence, and what each piece says:
// - The curve's shape (zone_detector.h). A hard disk reads faster at the
//   outer edge (more sectors per track at the same rpm), so a curve that
//   falls outer -> inner is the media's signature: no bus slows down with
//   the position. A flat curve is either a device with no zones (SSD) or a
//   disk whose every zone is faster than the bus (Rob Lohman's Maxtor, flat
//   at 31-34 MB/s over USB2 and FireWire). A flat top and then a fall
//   (clipped) is a disk whose outer zones are faster than the bus.
// - The transport's practical ceiling (transport.h): a flat level close to
//   it says the bus sets the rate.
// - The burst rate (reads answered from the drive's cache): it measures the
//   interface. Burst well above sustained says the interface could carry
//   more; burst equal to sustained says even the cache cannot go faster.
//
// Thresholds:
// - "Near the ceiling": level >= 75 % of the practical ceiling. The ceilings
//   are round practical figures and real buses spread around them (USB2
//   bridges deliver 35-42 MB/s against a ceiling of 40, so a bus-limited
//   USB2 disk reads 85-105 % of it); 75 % leaves room for a slow bridge
//   without calling a 60 %-of-the-bus device bus-limited. A level above 115 %
//   of the ceiling contradicts the stated link (USB bridges often report
//   wrong): the ceiling is then ignored and the reason says so.
// - "Burst ≈ sustained": within 10 %, the pass-to-pass spread of real
//   buses. "Burst well above": >= 1.3x, a ratio no measurement noise makes.
// - "Falls": outer/inner >= 1.2 (ZCAV disks are 1.5-2.5:1; below 1.2 the
//   difference is within what temperature and remapping do). A zoned curve
//   under 1.1:1 is treated as flat; between 1.1 and 1.2 it is undetermined.
//
// Rules, in order:
// 1. clipped -> bus-capped: the share of the device at the ceiling (the
//    leading zones within 1.5 % of the first zone's rate) and the uncapped
//    estimate: on a ZCAV disk the rate is proportional to the radius and
//    the position (bytes from the outer edge) to R^2 - r^2, so rate^2 falls
//    linearly with the position; a least-squares line through the falling
//    zones' (midpoint, rate^2), extrapolated to position 0, gives the rate
//    of the outermost track. With a single falling zone, the capped/falling
//    boundary at the cap level is the second point.
// 2. zoned, outer/inner >= 1.2 -> media-limited, whatever the burst and
//    ceiling say (they are quoted as supporting evidence): the fall itself
//    shows the media setting the rate. (The rule also asked for a
//    burst >= 1.3x or a peak well below the ceiling; a falling curve with
//    neither is still the media's, so we do not demand them.)
//    Only where a platter can be behind it: on a device known not to
//    rotate (SSD, NVMe, virtio; ZoneAnalysis::non_rotational) a falling
//    curve is undetermined, its steps a cache, the host or the device's
//    management. And only when the steps are positions: two or more passes
//    put every step at the same place (StepOrigin::kPosition), or one pass
//    gave a clean staircase (noise not shown to be correlated: Texture::
//    correlated, the detector's judgement); otherwise undetermined, asking for a
//    second pass. And only for a curve a platter can make (PlatterCheck):
//    outer/inner at most 3:1 (a 3.5" platter's innermost track is at about
//    0.45 of its outer radius, rates follow the radius: ZCAV disks are
//    1.5-2.5:1), no step between neighbouring zones over 2.5x (zones of a
//    real disk differ by a few per cent; a detector that merged several, or
//    a weak stretch at 0.6-0.8x of its neighbours, stays well under), no
//    rise over 50 % towards the inner edge (a weak stretch's end is
//    1.25-1.7x; a zone below both neighbours is left out as a dip), and a
//    peak of at most 600 MB/s (the fastest single disks read under 300-550
//    MB/s). A faster peak with a platter's shape (3 or more zones falling
//    evenly) is an array of disks and the reason says so; any other curve is
//    named for what it is: a cache then the device (the first step the
//    largest), steps in time (read once), or "not a platter's curve".
// 3. flat (flat, flat-dips; tiered judged by its last tier, the device's own
//    rate behind its cache):
//    a. burst >= 1.3x sustained -> media-limited: the interface carries more.
//    b. level near a known ceiling -> bus-limited. This includes a SATA SSD
//       at 530 MB/s on SATA 6 Gb/s (95 % of 560): the interface is what
//       stops it (the same flash behind NVMe reads faster).
//    c. level far below a known ceiling -> media-limited: the bus could
//       carry more, so the device itself (its controller or flash) is the
//       limit; the reason says "the device itself" explicitly.
//    d. ceiling unknown, burst ≈ sustained -> bus-limited: even the cache
//       cannot beat the sustained rate, so the interface sets it.
//    e. otherwise undetermined: a flat curve fits a bus limit and an SSD
//       alike; the reason asks for --bus or a burst measurement.
//    A burst more than 10 % below the sustained rate (the burst test reads
//    one 64 KiB chunk at a time; an SSD, NVMe or virtual disk needs reads in
//    flight to reach its rate, and a drive without a cache pays a seek per
//    repetition) is latency, not the interface: it is never quoted as
//    support (here or under 2.), and e. says why it does not decide.
// 4. anything else (optical shapes, other, no data) -> undetermined.
// Then the caches behind the passes (caches.h): a median curve that is a
// cache's or RAM's (passes each faster, pass 1 slow and the rest alike,
// passes that started with half the page-cache file cached) makes any of
// the above undetermined, saying what it would have been and which pass
// measures the storage; other findings (passes each slower, uneven, a
// share of the file cached) are added to the reason.

#include "zcav/analysis/verdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "zcav/base/enum_names.h"
#include "zcav/base/text.h"

namespace zcav {
namespace {

constexpr double kNearCeiling = 0.75;
constexpr double kAboveCeiling = 1.15;
constexpr double kBurstSame = 0.10;
constexpr double kBurstHigh = 1.3;
constexpr double kFalls = 1.2;
constexpr double kFlatEnough = 1.1;
constexpr double kCappedTolerance = 0.985;
constexpr double kPlatterMaxRatio = 3.0;
constexpr double kPlatterMaxStep = 2.5;
constexpr double kPlatterMaxRise = 1.5;
constexpr double kPlatterMaxMbPerS = 600;
constexpr std::size_t kArrayMinZones = 3;

std::string Num(double value, int decimals = 1) { return FormatFixed(value, decimals); }

std::string Mb(double value) { return Num(value) + " MB/s"; }

std::string Pct(double fraction) { return Num(100 * fraction, 0) + " %"; }

// No verdict, and why.
Verdict Undetermined(std::string reason) {
  Verdict v;
  v.reason = std::move(reason);
  return v;
}

std::string CeilingText(const Transport& t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", t.ceiling_mb_per_s);
  return "the " + (t.link.empty() ? t.kind : t.link) + " ceiling of " + buf + " MB/s";
}

// Fits y = a + b x by least squares; false when the x are all equal.
bool FitLine(const std::vector<double>& x, const std::vector<double>& y, double& a, double& b) {
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double den = n * sxx - sx * sx;
  if (x.size() < 2 || std::abs(den) < 1e-18) return false;
  b = (n * sxy - sx * sy) / den;
  a = (sy - b * sx) / n;
  return true;
}

// The steps still between zones (a step that followed the time was merged
// away and is only recorded) were each seen at the same position in two or
// more passes.
bool PassesAgree(const ZoneAnalysis& z) {
  bool any = false;
  for (const Step& s : z.steps) {
    if (s.origin == StepOrigin::kTime) continue;
    if (s.origin != StepOrigin::kPosition) return false;
    any = true;
  }
  return any;
}

// The steps can be read as positions on a platter: the passes agree, or
// (one pass) the curve is a clean staircase, its noise not shown to be
// correlated (a host's or a cache's wander fakes steps that one pass cannot
// tell from zones).
bool PositionBacked(const ZoneAnalysis& z) {
  const bool one_pass = std::none_of(z.steps.begin(), z.steps.end(), [](const Step& s) {
    return s.origin == StepOrigin::kPosition;
  });
  if (!one_pass) return PassesAgree(z);
  return !z.texture.correlated;
}

// Rule 1: a clipped curve is bus-capped. `ceiling` is 0 when unknown or
// contradicted.
Verdict BusCapped(const ZoneAnalysis& z, const VerdictInputs& in, double ceiling) {
  Verdict v;
  const double cap = z.zones.front().mb_per_s;
  const double begin = static_cast<double>(z.zones.front().start_bytes);
  const double total = static_cast<double>(z.zones.back().end_bytes) - begin;
  std::size_t capped = 0;
  while (capped < z.zones.size() && z.zones[capped].mb_per_s >= kCappedTolerance * cap) ++capped;
  const double boundary = static_cast<double>(z.zones[capped - 1].end_bytes) - begin;
  v.capped_share = total > 0 ? boundary / total : 0;

  std::vector<double> x, y;
  for (std::size_t i = capped; i < z.zones.size(); ++i) {
    const Zone& zone = z.zones[i];
    const double mid = (static_cast<double>(zone.start_bytes + zone.end_bytes) / 2 - begin) / total;
    x.push_back(mid);
    y.push_back(zone.mb_per_s * zone.mb_per_s);
  }
  if (x.size() == 1) {
    x.push_back(v.capped_share);
    y.push_back(cap * cap);
  }
  double a = 0, b = 0;
  if (total > 0 && FitLine(x, y, a, b) && b < 0 && a > cap * cap)
    v.uncapped_estimate_mb_per_s = std::sqrt(a);

  v.kind = VerdictKind::kBusCapped;
  v.reason = "Flat at " + Mb(cap) + " over the outer " + Pct(v.capped_share) + " of the device";
  if (ceiling > 0) v.reason += " (" + Pct(cap / ceiling) + " of " + CeilingText(in.transport) + ")";
  v.reason += ", then falling to " + Mb(z.zones.back().mb_per_s) +
              ": the bus caps the outer zones and the disk sets the rate only beyond them.";
  if (v.uncapped_estimate_mb_per_s > 0) {
    v.reason += " Without the cap the disk would start at about " +
                Mb(v.uncapped_estimate_mb_per_s) +
                " (the falling zones' trend extrapolated to the outer edge).";
  } else {
    v.reason += " The falling part is too short to estimate the uncapped rate.";
  }
  return v;
}

// What the burst rate says against the sustained `level` (see the
// thresholds above).
struct BurstEvidence {
  bool measured = false;
  double mb_per_s = 0;
  bool same = false;  // within 10 % of the level
  bool high = false;  // at least 1.3x the level
  // Below the level by more than 10 %: the burst test's reads, one at a time,
  // wait on the device's latency (an SSD, NVMe or virtual disk, or a drive
  // without a cache) and say nothing of the interface; never quoted as
  // support.
  bool low = false;
  std::string text;  // for the reason; empty when not measured
};

BurstEvidence JudgeBurst(const VerdictInputs& in, double level) {
  BurstEvidence b;
  b.measured = in.burst_mb_per_s.has_value() && *in.burst_mb_per_s > 0;
  b.mb_per_s = b.measured ? *in.burst_mb_per_s : 0;
  b.same = b.measured && std::abs(b.mb_per_s / level - 1) <= kBurstSame;
  b.high = b.measured && b.mb_per_s >= kBurstHigh * level;
  b.low = b.measured && b.mb_per_s < (1 - kBurstSame) * level;
  if (b.same) {
    b.text = "burst " + Mb(b.mb_per_s) + " ≈ sustained";
  } else if (b.low) {
    b.text = "the burst test (one read at a time) reached only " + Mb(b.mb_per_s) + ", " +
             Num(b.mb_per_s / level, 2) +
             "x the sustained rate: it waits on the device's latency and says nothing of the "
             "interface";
  } else if (b.measured) {
    b.text =
        "burst " + Mb(b.mb_per_s) + " is " + Num(b.mb_per_s / level, 2) + "x the sustained peak";
  }
  return b;
}

// Whether a falling zoned curve is one a platter (or an array of disks)
// can make; see rule 2 above.
struct PlatterCheck {
  bool plausible = true;
  bool array = false;  // plausible, but faster than one disk reads
  std::string why;     // when not plausible: what rules it out
  std::string what;    // when not plausible: what the curve is instead
};

PlatterCheck CheckPlatter(const ZoneAnalysis& z, bool one_pass) {
  PlatterCheck c;
  // A zone below both neighbours is a dip (a slow stretch: health's
  // business, not the curve's shape): steps are taken around it.
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < z.zones.size(); ++i) {
    const bool dip = i > 0 && i + 1 < z.zones.size() &&
                     z.zones[i].mb_per_s < z.zones[i - 1].mb_per_s &&
                     z.zones[i].mb_per_s < z.zones[i + 1].mb_per_s;
    if (!dip && z.zones[i].mb_per_s > 0) kept.push_back(i);
  }
  double largest_step = 1, largest_rise = 1;
  std::size_t largest_at = 0, largest_before = 0;
  double peak = 0;
  for (std::size_t k = 0; k < kept.size(); ++k) {
    peak = std::max(peak, z.zones[kept[k]].mb_per_s);
    if (k == 0) continue;
    const double ratio = z.zones[kept[k - 1]].mb_per_s / z.zones[kept[k]].mb_per_s;
    if (ratio > largest_step) {
      largest_step = ratio;
      largest_at = kept[k];
      largest_before = kept[k - 1];
    }
    largest_rise = std::max(largest_rise, 1 / ratio);
  }
  if (z.outer_inner_ratio > kPlatterMaxRatio) {
    c.why = "it falls " + Num(z.outer_inner_ratio, 1) + ":1, more than any platter's " +
            "outer/inner ratio (about 3:1 at most)";
  } else if (largest_step > kPlatterMaxStep) {
    c.why = "one zone to the next drops " + Num(largest_step, 1) + "x (" +
            Mb(z.zones[largest_before].mb_per_s) + " to " + Mb(z.zones[largest_at].mb_per_s) +
            "), where a disk's neighbouring zones differ by a few per cent";
  } else if (largest_rise > kPlatterMaxRise) {
    c.why = "it rises " + Pct(largest_rise - 1) + " towards the inner edge, which no platter does";
  } else if (peak > kPlatterMaxMbPerS) {
    if (z.zones.size() >= kArrayMinZones) {
      c.array = true;
      return c;
    }
    c.why = "its peak of " + Mb(peak) + " is above what one disk reads (under " +
            Mb(kPlatterMaxMbPerS) + ") and " + std::to_string(z.zones.size()) +
            " zones are too few to show an array's staircase";
  }
  if (c.why.empty()) return c;
  c.plausible = false;
  if (largest_at == 1 && largest_step > kPlatterMaxStep) {
    const double share =
        static_cast<double>(z.zones.front().end_bytes - z.zones.front().start_bytes) /
        static_cast<double>(z.zones.back().end_bytes - z.zones.front().start_bytes);
    c.what = "tiers: a cache (or a faster store) serving the first " + Pct(share) + " at " +
             Mb(z.zones.front().mb_per_s) + ", then the device";
  } else if (one_pass) {
    c.what =
        "steps in time (a cache, the host or throttling), which one pass cannot tell from "
        "positions: read it twice (--passes 2)";
  } else {
    c.what = "not a platter's curve: a cache, the host or the device's own management";
  }
  return c;
}

// Rule 2: a zoned curve that falls by kFalls or more. `ceiling` is 0 when
// unknown or contradicted. REQUIRES: a zoned curve, outer/inner >= kFalls.
Verdict FallingVerdict(const ZoneAnalysis& z, const VerdictInputs& in, double level, double ceiling,
                       const BurstEvidence& burst) {
  const std::string falls =
      "Falls from " + Mb(z.zones.front().mb_per_s) + " to " + Mb(z.zones.back().mb_per_s);
  const std::string over_zones = " over " + std::to_string(z.zones.size()) + " zones";
  if (z.non_rotational) {
    return Undetermined(falls + over_zones +
                        ", but the device does not rotate (an SSD, NVMe or virtual disk): the "
                        "steps are not a platter's zones but a cache, the host or the device's "
                        "own management; no bus-or-media verdict.");
  }
  if (!PositionBacked(z)) {
    return Undetermined(falls + over_zones +
                        ", but the noise is correlated (a cache or a host in the way) and the "
                        "curve was read once, so a position on the platter cannot be told from "
                        "a moment in time: read it twice (--passes 2) for a verdict.");
  }
  const bool passes_agree = PassesAgree(z);
  const PlatterCheck platter = CheckPlatter(z, !passes_agree);
  if (!platter.plausible) {
    return Undetermined(falls + over_zones + ", but " + platter.why + ": " + platter.what +
                        "; no bus-or-media verdict.");
  }
  Verdict v;
  v.kind = VerdictKind::kMediaLimited;
  v.reason = falls + " outer to inner (" + Num(z.outer_inner_ratio, 2) + ":1" + over_zones +
             (passes_agree ? ", at the same positions in every pass" : "") + "): ";
  if (platter.array) {
    v.reason +=
        "the rate follows the position, as on the platters of an array of disks "
        "striped together (one disk reads under " +
        Mb(kPlatterMaxMbPerS) + "), which only the media does.";
  } else {
    v.reason += "the rate follows the position on the platter, which only the media does.";
  }
  std::string support;
  if (burst.measured && !burst.low) support = burst.text;
  if (ceiling > 0) {
    if (!support.empty()) support += "; ";
    support += "the peak is " + Pct(level / ceiling) + " of " + CeilingText(in.transport);
  }
  if (!support.empty()) v.reason += " Also, " + support + ".";
  return v;
}

// Rule 4, and a zoned curve between kFlatEnough and kFalls: no verdict.
Verdict NoShapeVerdict(const ZoneAnalysis& z) {
  if (z.type == CurveType::kZoned) {
    return Undetermined(
        "Falls only " + Num(z.outer_inner_ratio, 2) +
        ":1 outer to inner: too little to call the media's zones, too much to call flat.");
  }
  return Undetermined(std::string("The curve is ") + CurveTypeName(z.type) + " (" + z.description +
                      "), neither flat, falling nor clipped: no bus-or-media verdict.");
}

// How rule 3 describes a flat (or tiered) curve at `level`.
std::string FlatText(const ZoneAnalysis& z, const VerdictInputs& in, double level, bool tiered) {
  // A tiered curve is judged by its last tier, the device's own rate.
  const Zone& zone = tiered ? z.zones.back() : z.zones.front();
  const double sigma = zone.stddev_mb_per_s > 0 ? zone.stddev_mb_per_s : z.noise_sigma_mb_per_s;
  std::string flat_text = "Flat at " + Mb(level) + " (±" + Num(100 * sigma / level, 1) + " %)";
  if (tiered) {
    flat_text = "Tiered: " + Mb(z.zones.front().mb_per_s) + " over the first " +
                Pct(static_cast<double>(z.zones.front().end_bytes - z.zones.front().start_bytes) /
                    static_cast<double>(z.zones.back().end_bytes - z.zones.front().start_bytes)) +
                " (a cache in front of the device), then its own rate, " + flat_text.substr(5);
  } else if (z.type == CurveType::kFlatDips) {
    flat_text += " with " + std::to_string(z.texture.dip_count) + " short dips";
  }
  if (in.sustained_avg_mb_per_s > 0 && std::abs(in.sustained_avg_mb_per_s / level - 1) > 0.01) {
    flat_text += ", average " + Mb(in.sustained_avg_mb_per_s);
  }
  return flat_text;
}

// Rule 3 (a. to e.) for a flat curve at `level`; `ceiling` is 0 when
// unknown or contradicted.
Verdict FlatVerdict(const ZoneAnalysis& z, const VerdictInputs& in, double level, double ceiling,
                    const BurstEvidence& burst, bool tiered) {
  Verdict v;
  const std::string flat_text = FlatText(z, in, level, tiered);
  // A low burst is no evidence either way: only the undetermined case
  // (e.) says why it does not help.
  const std::string with_burst = burst.text.empty() || burst.low ? "" : "; " + burst.text;
  if (burst.high) {
    v.kind = VerdictKind::kMediaLimited;
    v.reason = flat_text + "; " + burst.text +
               ": the interface carries more than the device sustains, so the device itself "
               "sets the rate.";
  } else if (ceiling > 0 && level >= kNearCeiling * ceiling) {
    v.kind = VerdictKind::kBusLimited;
    v.reason = flat_text + ", " + Pct(level / ceiling) + " of " + CeilingText(in.transport) +
               with_burst + ": the bus, not the disk, sets the rate.";
  } else if (ceiling > 0) {
    v.kind = VerdictKind::kMediaLimited;
    v.reason = flat_text + ", only " + Pct(level / ceiling) + " of " + CeilingText(in.transport) +
               with_burst +
               ": the bus could carry more, so the device itself (its controller or flash, or a "
               "disk slower than the bus everywhere) is the limit.";
  } else if (burst.same) {
    v.kind = VerdictKind::kBusLimited;
    v.reason = flat_text + with_burst +
               ": even the drive's cache cannot beat the sustained rate, so the interface, not "
               "the media, sets it (bus ceiling unknown: state it with --bus to confirm).";
  } else if (burst.low) {
    v.reason = flat_text +
               ", with no known bus ceiling: a flat curve fits a bus limit and an SSD alike, "
               "and " +
               burst.text + "; state the bus with --bus.";
  } else {
    v.reason = flat_text + with_burst +
               ", with no known bus ceiling: a flat curve fits a bus limit and an SSD alike; "
               "state the bus with --bus or measure the burst rate.";
  }
  return v;
}

}  // namespace

const char* VerdictKindName(VerdictKind kind) {
  static constexpr EnumName<VerdictKind> kNames[] = {
      {VerdictKind::kBusLimited, "bus-limited"},
      {VerdictKind::kMediaLimited, "media-limited"},
      {VerdictKind::kBusCapped, "bus-capped"},
      {VerdictKind::kUndetermined, "undetermined"},
  };
  return NameOf(kind, kNames, "undetermined");
}

Verdict DecideVerdict(const ZoneAnalysis& z, const VerdictInputs& in) {
  if (z.zones.empty()) return Undetermined("No data: the sweep produced no curve to judge.");
  if (in.write_cache) {
    return Undetermined("A write sweep that filled a write cache (" + in.write_cache->description +
                        "): the fall is the cache, not the media or the bus. The bus-or-media "
                        "verdict is for reads.");
  }
  double level = in.sustained_max_mb_per_s > 0
                     ? in.sustained_max_mb_per_s
                     : z.zones[std::min(z.fastest_zone, z.zones.size() - 1)].mb_per_s;
  // A tiered curve's first tier is a cache: the device's own rate, the one
  // a bus could limit, is its last tier.
  const bool tiered = z.type == CurveType::kTiered && z.zones.size() >= 2;
  if (tiered) level = z.zones.back().mb_per_s;
  if (level <= 0) return Undetermined("No data: the curve's peak rate is 0.");

  // The ceiling, unless the curve contradicts it.
  double ceiling = in.transport.ceiling_mb_per_s;
  std::string note;
  if (ceiling > 0 && level > kAboveCeiling * ceiling) {
    note = " The peak of " + Mb(level) + " is above " + CeilingText(in.transport) +
           ", so that link is not what limits it (a USB bridge often reports wrong; state the "
           "bus with --bus).";
    ceiling = 0;
  }
  const BurstEvidence burst = JudgeBurst(in, level);

  const bool zoned = z.type == CurveType::kZoned;
  const bool flat = z.type == CurveType::kFlat || z.type == CurveType::kFlatDips || tiered ||
                    (zoned && z.outer_inner_ratio < kFlatEnough);
  Verdict v;
  if (z.type == CurveType::kClipped && z.zones.size() >= 2) {
    v = BusCapped(z, in, ceiling);
  } else if (zoned && z.outer_inner_ratio >= kFalls) {
    v = FallingVerdict(z, in, level, ceiling, burst);
  } else if (!flat) {
    v = NoShapeVerdict(z);
  } else {
    v = FlatVerdict(z, in, level, ceiling, burst, tiered);
  }
  v.reason += note;
  if (in.caches.misleads) {
    const std::string judged = v.kind == VerdictKind::kUndetermined
                                   ? "The median curve: "
                                   : std::string("Judged on the median curve it would be ") +
                                         VerdictKindName(v.kind) + ": ";
    v = Undetermined(in.caches.text + " " + judged + v.reason);
  } else if (!in.caches.text.empty()) {
    v.reason += " " + in.caches.text;
  }
  // What would lift a bus limit: the link as it trained (link_state.h).
  if (!in.transport.link_diagnosis.empty()) v.reason += " Link: " + in.transport.link_diagnosis;
  return v;
}

}  // namespace zcav
