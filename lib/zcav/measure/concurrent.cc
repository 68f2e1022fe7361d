#include "zcav/measure/concurrent.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <thread>

#include "zcav/base/units.h"
#include "zcav/measure/sweep.h"

namespace zcav {
namespace {

constexpr double kSharedBelow = 0.85;
constexpr double kSlowedShare = 0.10;

double Seconds(std::chrono::nanoseconds d) { return static_cast<double>(d.count()) * 1e-9; }

// Bytes of `r` that fall inside [lo, hi), pro rata to time.
double BytesWithin(const TimedRead& r, std::chrono::nanoseconds lo, std::chrono::nanoseconds hi) {
  if (r.end <= r.start) return r.start >= lo && r.start < hi ? static_cast<double>(r.bytes) : 0;
  const auto a = std::max(r.start, lo);
  const auto b = std::min(r.end, hi);
  if (b <= a) return 0;
  return static_cast<double>(r.bytes) * static_cast<double>((b - a).count()) /
         static_cast<double>((r.end - r.start).count());
}

std::string Mb(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB/s", v);
  return text;
}

std::string Sum(const std::vector<double>& values) {
  std::string text;
  for (std::size_t i = 0; i < values.size(); ++i) {
    char part[32];
    std::snprintf(part, sizeof part, "%s%.1f", i ? " + " : "", values[i]);
    text += part;
  }
  return text;
}

}  // namespace

std::vector<SweepResult> RunConcurrentSweeps(std::vector<ConcurrentJob>& jobs,
                                             const std::atomic<bool>* stop_requested) {
  std::vector<SweepResult> results(jobs.size());
  std::vector<std::thread> threads;
  threads.reserve(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    assert(jobs[i].device && jobs[i].clock && jobs[i].sink);
    threads.emplace_back([&jobs, &results, stop_requested, i] {
      ConcurrentJob& job = jobs[i];
      results[i] = RunSweep(*job.device, job.run, *job.clock, *job.sink, stop_requested);
      job.device.reset();
    });
  }
  for (auto& t : threads) t.join();
  return results;
}

Aggregate AggregateTimelines(const std::vector<std::vector<TimedRead>>& timelines,
                             std::size_t slices) {
  assert(slices > 0);
  Aggregate out;
  const std::size_t n = timelines.size();
  out.device_mb_per_s.assign(n, 0);
  bool any = false;
  std::chrono::nanoseconds first{0}, last{0};                  // over all reads
  std::chrono::nanoseconds latest_first{0}, earliest_last{0};  // the window
  for (const auto& reads : timelines) {
    if (reads.empty()) continue;
    auto lo = reads.front().start, hi = reads.front().end;
    for (const TimedRead& r : reads) {
      lo = std::min(lo, r.start);
      hi = std::max(hi, r.end);
    }
    if (!any) {
      first = lo, last = hi, latest_first = lo, earliest_last = hi;
      any = true;
    } else {
      first = std::min(first, lo), last = std::max(last, hi);
      latest_first = std::max(latest_first, lo), earliest_last = std::min(earliest_last, hi);
    }
  }
  if (!any) return out;
  out.wall_seconds = Seconds(last - first);

  auto window_lo = latest_first, window_hi = earliest_last;
  if (window_hi <= window_lo) window_lo = first, window_hi = last;
  out.overlap_seconds = Seconds(window_hi - window_lo);
  if (out.overlap_seconds > 0) {
    for (std::size_t d = 0; d < n; ++d) {
      double bytes = 0;
      for (const TimedRead& r : timelines[d]) bytes += BytesWithin(r, window_lo, window_hi);
      out.device_mb_per_s[d] = bytes / out.overlap_seconds / kMB;
      out.aggregate_mb_per_s += out.device_mb_per_s[d];
    }
  }

  // Slices: each read's bytes are spread over the slices it overlaps.
  const auto span = last - first;
  if (span.count() <= 0) return out;
  const double width_s = Seconds(span) / static_cast<double>(slices);
  std::vector<std::vector<double>> bytes(slices, std::vector<double>(n, 0));
  const double slice_count = static_cast<double>(slices);
  const auto slice_start = [&](std::size_t k) {
    return first + std::chrono::nanoseconds(static_cast<std::int64_t>(
                       static_cast<double>(span.count()) * static_cast<double>(k) / slice_count));
  };
  for (std::size_t d = 0; d < n; ++d) {
    for (const TimedRead& r : timelines[d]) {
      const auto slice_of = [&](std::chrono::nanoseconds t) {
        const double k = Seconds(t - first) / width_s;
        return std::min(slices - 1, static_cast<std::size_t>(std::max(0.0, k)));
      };
      for (std::size_t k = slice_of(r.start); k <= slice_of(r.end); ++k) {
        const auto lo = slice_start(k);
        const auto hi = k + 1 == slices ? last + std::chrono::nanoseconds(1) : slice_start(k + 1);
        bytes[k][d] += BytesWithin(r, lo, hi);
      }
    }
  }
  for (std::size_t k = 0; k < slices; ++k) {
    AggregatePoint p;
    p.time_s = (static_cast<double>(k) + 0.5) * width_s;
    for (std::size_t d = 0; d < n; ++d) {
      p.device_mb_per_s.push_back(bytes[k][d] / width_s / kMB);
      p.total_mb_per_s += p.device_mb_per_s.back();
    }
    out.peak_mb_per_s = std::max(out.peak_mb_per_s, p.total_mb_per_s);
    out.points.push_back(std::move(p));
  }
  // The level the total holds while every device is read: the 90th
  // percentile of the slices inside the window (the peak is one noisy slice).
  std::vector<double> inside;
  for (std::size_t k = 0; k < slices; ++k) {
    if (slice_start(k) >= window_lo && (k + 1 == slices || slice_start(k + 1) <= window_hi)) {
      inside.push_back(out.points[k].total_mb_per_s);
    }
  }
  if (inside.empty()) {
    for (const auto& p : out.points) inside.push_back(p.total_mb_per_s);
  }
  std::sort(inside.begin(), inside.end());
  out.high_mb_per_s =
      inside[static_cast<std::size_t>(0.9 * static_cast<double>(inside.size() - 1))];
  return out;
}

SharedCeiling JudgeSharedCeiling(const std::vector<DeviceRun>& alone,
                                 const std::vector<DeviceRun>& together,
                                 const Aggregate& aggregate) {
  SharedCeiling c;
  const std::size_t n = together.size();
  const std::string together_text = "Read together, the " + std::to_string(n) +
                                    " devices reached " + Mb(aggregate.aggregate_mb_per_s) +
                                    " in all (" + Sum(aggregate.device_mb_per_s) + ")";
  if (alone.size() != n || n == 0) {
    c.reason = together_text +
               "; read each alone too (--alone-and-together) to see whether they share a ceiling.";
    return c;
  }
  std::vector<double> alone_avg;
  for (const DeviceRun& d : alone) {
    alone_avg.push_back(d.avg_mb_per_s);
    c.sum_alone_mb_per_s += d.avg_mb_per_s;
  }
  c.share = c.sum_alone_mb_per_s > 0 ? aggregate.aggregate_mb_per_s / c.sum_alone_mb_per_s : 0;

  // Block by block: where was each device slowed, and how much.
  std::size_t most = 0;
  double most_ratio = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& a = alone[i].block_mb_per_s;
    const auto& t = together[i].block_mb_per_s;
    const std::size_t blocks = std::min({a.size(), t.size(), together[i].block_bytes.size()});
    std::vector<double> ratio(blocks, 1.0);
    for (std::size_t b = 0; b < blocks; ++b) ratio[b] = a[b] > 0 ? t[b] / a[b] : 1.0;
    double slowed = 0, total = 0, slowed_ratio_sum = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
      // Running median of 5 blocks: one stalled block is not a ceiling.
      std::vector<double> w;
      for (std::size_t k = b >= 2 ? b - 2 : 0; k < std::min(blocks, b + 3); ++k)
        w.push_back(ratio[k]);
      std::nth_element(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(w.size() / 2), w.end());
      const double r = w[w.size() / 2];
      const double bytes = static_cast<double>(together[i].block_bytes[b]);
      total += bytes;
      if (r < kSharedBelow) {
        slowed += bytes;
        slowed_ratio_sum += r * bytes;
      }
    }
    c.slowed_share.push_back(total > 0 ? slowed / total : 0);
    const double mean_slowed_ratio = slowed > 0 ? slowed_ratio_sum / slowed : 1;
    if (c.slowed_share.back() > c.slowed_share[most] || (i == 0 && c.slowed_share.back() > 0)) {
      most = i;
      most_ratio = mean_slowed_ratio;
    }
  }
  c.shared = c.share < kSharedBelow || c.slowed_share[most] >= kSlowedShare;

  char pct[16];
  std::snprintf(pct, sizeof pct, "%.0f %%", 100 * c.share);
  const std::string alone_text = ", " + std::string(pct) + " of the " + Mb(c.sum_alone_mb_per_s) +
                                 " they read alone (" + Sum(alone_avg) + ")";
  char slowed_text[200];
  std::snprintf(slowed_text, sizeof slowed_text,
                "%s read at %.0f %% of its rate alone over %.0f %% of it",
                together[most].name.c_str(), 100 * most_ratio, 100 * c.slowed_share[most]);
  if (*c.shared) {
    c.reason = together_text + alone_text + "; " + slowed_text +
               ": they share a ceiling of about " + Mb(aggregate.high_mb_per_s) +
               " (one bus, controller or the system), not their own limits.";
  } else {
    c.reason = together_text + alone_text +
               ": no shared ceiling; each device read within 15 % of its rate alone almost "
               "everywhere.";
  }
  return c;
}

}  // namespace zcav
