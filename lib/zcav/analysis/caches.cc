// Caches behind a sweep's rates.
//
// Thresholds:
// - A pass "reads RAM" when at least half of the file its reads pass through
//   was in the page cache as it started (kRamShare): the cached half alone
//   reads 10-100x faster than a disk and sets the pass's rate. From a tenth
//   (kSomeShare) the share is mentioned, not acted on. RAM passes that read
//   no faster than pass 1 (under 1.25x), or every pass from RAM under 500
//   MB/s (kRamFloorMbPerS), leave the verdict alone: something in front of
//   the page cache sets that rate.
// - Passes "differ" when the fastest is 1.25x the slowest or more
//   (kTrendRatio): a disk's passes agree within a few per cent, and the
//   correlated jitter of a virtual disk moves whole passes by 10-20 %.
// - "Each faster": every pass at least 0.97x the one before
//   (kStepTolerance), so that a cache filling is not missed for one pass a
//   few per cent slower than the last.
// - "Alike" after pass 1: the fastest of passes 2.. within 1.15x of their
//   slowest (kPlateauSpread).
#include "zcav/analysis/caches.h"

#include <algorithm>
#include <cstddef>

#include "zcav/base/enum_names.h"
#include "zcav/base/text.h"

namespace zcav {
namespace {

constexpr double kRamShare = 0.5;
constexpr double kSomeShare = 0.1;
constexpr double kTrendRatio = 1.25;
constexpr double kStepTolerance = 0.03;
constexpr double kPlateauSpread = 1.15;
constexpr std::size_t kListedPasses = 6;
// Reads served from the page cache, even through a loop device on a busy
// 2-core VM, run at 1.5-17 GB/s here; a pass that read from it slower than
// this was limited by something in front of the cache (a throttle, the bus).
constexpr double kRamFloorMbPerS = 500;

std::string Mb(double value) { return FormatFixed(value, 1) + " MB/s"; }
std::string Pct(double share) { return FormatFixed(100 * share, 0) + " %"; }

// "3500.0, 8600.0 and 11300.0 MB/s"; more than kListedPasses: "from 3500.0
// MB/s (pass 1) to 11300.0 MB/s (pass 9)".
std::string PassList(const std::vector<double>& r) {
  if (r.size() > kListedPasses) {
    return "from " + Mb(r.front()) + " (pass 1) to " + Mb(r.back()) + " (pass " +
           std::to_string(r.size()) + ")";
  }
  std::string s;
  for (std::size_t i = 0; i < r.size(); ++i) {
    s += (i == 0 ? "" : i + 1 == r.size() ? " and " : ", ") + FormatFixed(r[i], 1);
  }
  return s + " MB/s";
}

// "passes 2-3" or "pass 2".
std::string PassRange(std::uint32_t first, std::uint32_t last) {
  return first == last ? "pass " + std::to_string(first)
                       : "passes " + std::to_string(first) + "-" + std::to_string(last);
}

bool EachAtLeast(const std::vector<double>& r) {
  for (std::size_t i = 1; i < r.size(); ++i) {
    if (r[i] < r[i - 1] * (1 - kStepTolerance)) return false;
  }
  return true;
}

bool EachAtMost(const std::vector<double>& r) {
  for (std::size_t i = 1; i < r.size(); ++i) {
    if (r[i] > r[i - 1] * (1 + kStepTolerance)) return false;
  }
  return true;
}

PassTrend TrendOf(const std::vector<double>& r) {
  if (r.size() < 2 || *std::min_element(r.begin(), r.end()) <= 0) return PassTrend::kNone;
  const auto [lo, hi] = std::minmax_element(r.begin(), r.end());
  if (*hi < kTrendRatio * *lo) return PassTrend::kSteady;
  if (r.size() >= 3) {
    const auto [rest_lo, rest_hi] = std::minmax_element(r.begin() + 1, r.end());
    if (*rest_hi <= kPlateauSpread * *rest_lo && *rest_lo >= kTrendRatio * r.front()) {
      return PassTrend::kWarmAfterFirst;
    }
  }
  if (EachAtLeast(r) && r.back() >= kTrendRatio * r.front()) return PassTrend::kRising;
  if (EachAtMost(r) && r.back() * kTrendRatio <= r.front()) return PassTrend::kFalling;
  return PassTrend::kUneven;
}

// The sentence on a trend without the page cache behind it.
std::string TrendText(PassTrend trend, const std::vector<double>& r) {
  const std::string cache =
      "a cache (the host's, a controller's or the page cache) kept what earlier passes read";
  const std::string n = std::to_string(r.size());
  switch (trend) {
    case PassTrend::kRising:
      return "Passes read " + PassList(r) + ", each faster than the one before: " + cache +
             ". Pass 1 measures the storage: " + Mb(r.front()) +
             "; the curve is the median over the passes.";
    case PassTrend::kWarmAfterFirst: {
      const auto [lo, hi] = std::minmax_element(r.begin() + 1, r.end());
      return "Pass 1 read " + Mb(r.front()) + ", passes 2-" + n + " " + FormatFixed(*lo, 1) + "-" +
             Mb(*hi) + ": " + cache + ". Pass 1 measures the storage; the curve is the median " +
             "over the passes.";
    }
    case PassTrend::kFalling:
      return "Passes read " + PassList(r) +
             ", each slower than the one before: the device or the host slowed as the sweep went "
             "on (heat, a cache emptying, a rate limit); pass 1 measured it at its best.";
    case PassTrend::kUneven: {
      const auto [lo, hi] = std::minmax_element(r.begin(), r.end());
      return "Passes read " + PassList(r) + " (" + FormatFixed(*hi / *lo, 2) +
             "x apart, in no order: the host's or the device's own variation); the curve is the "
             "median over them.";
    }
    case PassTrend::kNone:
    case PassTrend::kSteady:
      break;
  }
  return "";
}

// The page cache's part: RAM passes, or a share worth naming. False when it
// has nothing to say.
bool PageCacheFinding(const CacheEvidence& e, CacheFinding& f) {
  const std::string file = CleanText(e.page_cache_file, kMaxIdentityBytes);
  if (file.empty()) return false;
  const std::vector<std::optional<double>>& share = e.pass_cached_share;
  for (std::size_t i = 0; i < share.size(); ++i) {
    if (share[i] && *share[i] >= kRamShare)
      f.ram_passes.push_back(static_cast<std::uint32_t>(i + 1));
  }
  const std::string fix =
      " Drop its cache, or read through a loop device with direct I/O (losetup --direct-io=on), "
      "to measure the storage.";
  if (!f.ram_passes.empty()) {
    f.misleads = true;
    const std::uint32_t first = f.ram_passes.front();
    const std::uint32_t last = f.ram_passes.back();
    const double first_share = *share[first - 1];
    const std::vector<double>& all = e.pass_mb_per_s;
    if (first == 1 && !all.empty() && *std::max_element(all.begin(), all.end()) < kRamFloorMbPerS) {
      f.misleads = false;
      f.text = "The reads came from RAM (" + Pct(first_share) + " of " + file +
               " was in the page cache when the sweep started), yet at no more than " +
               Mb(*std::max_element(all.begin(), all.end())) +
               ", far below what memory gives: the rate is set in front of the page cache (the "
               "loop device, a throttle, the bus), not by the disk under the file.";
      return true;
    }
    if (first == 1) {
      f.text = "The reads came from RAM: " + Pct(first_share) + " of " + file +
               " was in the page cache when the sweep started (the reads pass through it), so " +
               "the rates are the memory's, not the storage's." + fix;
      return true;
    }
    // Pass 1 read the storage. The RAM passes change the curve only when
    // they read faster: at pass 1's rate, what limits the rate sits in
    // front of the page cache (the loop device, a throttle, the bus).
    const std::vector<double>& r = e.pass_mb_per_s;
    const double storage = r.empty() ? 0 : r.front();
    double ram = 0;
    for (const std::uint32_t p : f.ram_passes) {
      if (p <= r.size()) ram = std::max(ram, r[p - 1]);
    }
    const std::string rates = storage > 0 && ram > 0
                                  ? " (" + Mb(storage) + ", then up to " + Mb(ram) + ")"
                                  : std::string();
    if (storage > 0 && ram > 0 && ram < kTrendRatio * storage) {
      f.misleads = false;
      f.text = "Pass 1 left " + Pct(first_share) + " of " + file + " in the page cache, and " +
               PassRange(first, last) + " read no faster from RAM" + rates +
               ": the rate is set in front of the page cache (the loop device, a throttle, the "
               "bus), not by the disk under the file.";
      return true;
    }
    f.storage_pass = 1;
    f.text = "Pass 1 read the storage and left " + Pct(first_share) + " of " + file +
             " in the page cache: " + PassRange(first, last) + " read RAM" + rates +
             ". Pass 1 measures the storage; the curve is the median over the passes." + fix;
    return true;
  }
  if (!share.empty() && share.front() && *share.front() >= kSomeShare) {
    f.text = Pct(*share.front()) + " of " + file +
             " was in the page cache when the sweep started: that part read at RAM speed.";
    return true;
  }
  if (e.cached_share_at_end && *e.cached_share_at_end >= kRamShare) {
    f.text = "The sweep left " + Pct(*e.cached_share_at_end) + " of " + file +
             " in the page cache: another sweep of it now reads RAM unless the cache is dropped.";
    return true;
  }
  return false;
}

}  // namespace

const char* PassTrendName(PassTrend trend) {
  static constexpr EnumName<PassTrend> kNames[] = {
      {PassTrend::kNone, "none"},       {PassTrend::kSteady, "steady"},
      {PassTrend::kRising, "rising"},   {PassTrend::kWarmAfterFirst, "warm-after-first"},
      {PassTrend::kFalling, "falling"}, {PassTrend::kUneven, "uneven"},
  };
  return NameOf(trend, kNames, "none");
}

CacheEvidence CacheEvidenceOf(const std::vector<PassSummary>& passes,
                              std::optional<double> cached_share_at_end,
                              const std::string& page_cache_file) {
  CacheEvidence e;
  for (const PassSummary& p : passes) {
    if (!p.complete || p.mb_per_s <= 0) continue;
    e.pass_mb_per_s.push_back(p.mb_per_s);
    e.pass_cached_share.push_back(p.cached_share);
  }
  e.cached_share_at_end = cached_share_at_end;
  e.page_cache_file = page_cache_file;
  return e;
}

CacheFinding AssessCaches(const CacheEvidence& e) {
  CacheFinding f;
  f.trend = TrendOf(e.pass_mb_per_s);
  const std::string trend_text = TrendText(f.trend, e.pass_mb_per_s);
  if (PageCacheFinding(e, f)) {
    // The page cache explains a rise; an unexplained trend is still said.
    if (!f.misleads && !trend_text.empty()) f.text += " " + trend_text;
    return f;
  }
  f.text = trend_text;
  if (f.trend == PassTrend::kRising || f.trend == PassTrend::kWarmAfterFirst) {
    f.misleads = true;
    f.storage_pass = 1;
  } else if (f.trend == PassTrend::kFalling) {
    f.storage_pass = 1;
  }
  return f;
}

}  // namespace zcav
