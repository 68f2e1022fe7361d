// Tests of the write-cache analysis (analysis/write_cache.h) and of the
// simulated SSD's write cache (sim_device.h) it is tried on.
#include "zcav/analysis/write_cache.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <vector>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/clock.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"

namespace zcav {
namespace {

// Zones of the given (GB, MB/s) lengths and rates, one after another.
ZoneAnalysis ZonesOf(const std::vector<std::pair<double, double>>& spec) {
  ZoneAnalysis a;
  std::uint64_t at = 0;
  for (const auto& [gb, rate] : spec) {
    Zone z;
    z.start_bytes = at;
    at += static_cast<std::uint64_t>(gb * kGB);
    z.end_bytes = at;
    z.mb_per_s = rate;
    a.zones.push_back(z);
  }
  return a;
}

TEST_CASE("A fast first zone then a slower last one is a cache and its sustained rate",
          "[write_cache]") {
  const auto w = AnalyzeWriteCache(ZonesOf({{20, 1500}, {44, 450}}), 0);
  REQUIRE(w);
  CHECK(w->size_bytes == static_cast<std::uint64_t>(20 * kGB));
  CHECK(w->in_cache_mb_per_s == Approx(1500));
  CHECK(w->after_cache_mb_per_s == Approx(450));
  REQUIRE(w->phases.size() == 2);
  CHECK(w->phases[0].name == "cache");
  CHECK(w->phases[1].name == "sustained");
  CHECK(w->description == "20.0 GB at 1500 MB/s, then 450 MB/s sustained");
  // A sweep that began at 4 GB: the cache is what was written from there.
  const auto later = AnalyzeWriteCache(ZonesOf({{20, 1500}, {44, 450}}), 4000000000);
  REQUIRE(later);
  CHECK(later->size_bytes == 16000000000);
}

TEST_CASE("A cache smaller than 10 GB is said with three significant digits", "[write_cache]") {
  // A 128 MiB cache is 0.134 GB, not "0.1 GB".
  const auto w = AnalyzeWriteCache(ZonesOf({{0.134217728, 240}, {0.4, 60}}), 0);
  REQUIRE(w);
  CHECK(w->description == "0.134 GB at 240 MB/s, then 60 MB/s sustained");
  CHECK(CacheGbText(1500000000) == "1.50 GB");
  CHECK(CacheGbText(21500000000) == "21.5 GB");
  CHECK(CacheGbText(67108864) == "0.0671 GB");
}

TEST_CASE("Zones between the cache and the sustained rate are one folding phase", "[write_cache]") {
  // The cache in two zones within 10 %, folding in two, the sustained rate.
  const auto w =
      AnalyzeWriteCache(ZonesOf({{10, 1500}, {10, 1450}, {5, 200}, {5, 220}, {30, 450}}), 0);
  REQUIRE(w);
  REQUIRE(w->phases.size() == 3);
  CHECK(w->size_bytes == static_cast<std::uint64_t>(20 * kGB));
  CHECK(w->phases[1].name == "folding");
  CHECK(w->phases[1].start_bytes == static_cast<std::uint64_t>(20 * kGB));
  CHECK(w->phases[1].end_bytes == static_cast<std::uint64_t>(30 * kGB));
  // Time-weighted: 10 GB in 5/200 + 5/220 GB-seconds per MB/s.
  CHECK(w->phases[1].mb_per_s == Approx(10.0 / (5.0 / 200 + 5.0 / 220)));
  CHECK(w->in_cache_mb_per_s == Approx(20.0 / (10.0 / 1500 + 10.0 / 1450)));
}

TEST_CASE("No cache without a cliff: one zone, a small step, or a faster end", "[write_cache]") {
  CHECK_FALSE(AnalyzeWriteCache(ZonesOf({{64, 500}}), 0));
  CHECK_FALSE(AnalyzeWriteCache(ZonesOf({{20, 500}, {44, 450}}), 0));   // 11 %: not a cache
  CHECK_FALSE(AnalyzeWriteCache(ZonesOf({{20, 450}, {44, 1500}}), 0));  // faster after
}

TEST_CASE("The simulated SSD writes into its cache, folds, then sustains; idle time frees it",
          "[write_cache]") {
  VirtualClock clock;
  auto dev = MakeSimulatedDevice(
      ParseSimSpec("sim:ssd?size=8G&noise=0&wcache=2G&wcache_rate=1000&wrate=400&fold=1G"
                   "&fold_rate=100&recover=500"),
      clock);
  AlignedBuffer buf(64 * kMiB, 4096);
  std::uint64_t at = 0;
  // The seconds to write the next `gib` GiB.
  const auto write = [&](int gib) {
    const auto t0 = clock.Now();
    for (int i = 0; i < gib * 16; ++i, at += 64 * kMiB)
      REQUIRE_FALSE(dev->WriteAt(at, buf.span(64 * kMiB)));
    return std::chrono::duration<double>(clock.Now() - t0).count();
  };
  const double gib = static_cast<double>(kGiB);
  CHECK(write(2) == Approx(2 * gib / 1000e6));  // the cache
  CHECK(write(1) == Approx(gib / 100e6));       // folding
  CHECK(write(1) == Approx(gib / 400e6));       // sustained
  // 2 s idle at 500 MB/s frees 1 GB: 1 GB at the cache's rate, then it folds again.
  clock.Advance(std::chrono::seconds(2));
  CHECK(write(1) == Approx(1e9 / 1000e6 + (gib - 1e9) / 100e6));
  // Reads never see the write cache.
  const auto t0 = clock.Now();
  REQUIRE_FALSE(dev->ReadAt(at, buf.span(64 * kMiB)));  // where the head is: no seek
  CHECK(std::chrono::duration<double>(clock.Now() - t0).count() ==
        Approx(64 * kMiB / (ExpectedMbPerS(ParseSimSpec("sim:ssd"), 0, kMiB) * 1e6)));
  // A discard (TRIM) empties the cache at once: 2 GiB at its rate again.
  REQUIRE_FALSE(dev->DiscardAll());
  at = 0;  // back to the start: one SSD access time more
  CHECK(write(2) == Approx(2 * gib / 1000e6).margin(0.001));
  CHECK(write(1) == Approx(gib / 100e6));
  // A simulated device without a write cache has nothing to discard.
  auto hdd = MakeSimulatedDevice(ParseSimSpec("sim:hdd"), clock);
  CHECK(hdd->DiscardAll() == std::error_code(EOPNOTSUPP, std::system_category()));
}

}  // namespace
}  // namespace zcav
