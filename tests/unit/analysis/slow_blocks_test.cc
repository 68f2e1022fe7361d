// Slow regions from block rates (slow_blocks.h): issue 37, item 4.
#include "zcav/analysis/slow_blocks.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "zcav/analysis/health.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/format/data_reader.h"

namespace {

using zcav::Curve;
using zcav::CurvePoint;
using zcav::FindSlowBlockRuns;
using zcav::SlowRegion;

constexpr std::uint64_t kBlock = 128'000'000;  // 128 MB blocks, as the 1 TB disk

// A 1 TB zoned disk read in 128 MB blocks: 8 zones from 150 to 75 MB/s
// (neighbours a few per cent apart... 10 % at most), 1 % seeded jitter.
std::vector<double> ZonedRates(std::mt19937_64& rng) {
  const std::size_t n = 1'000'000'000'000 / kBlock;
  std::normal_distribution<double> jitter(1.0, 0.01);
  std::vector<double> rates(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t zone = i * 8 / n;
    rates[i] = (150.0 - 10.7 * static_cast<double>(zone)) * jitter(rng);
  }
  return rates;
}

Curve CurveOf(const std::vector<double>& rates) {
  Curve c;
  for (std::size_t i = 0; i < rates.size(); ++i) c.push_back({i * kBlock, kBlock, rates[i]});
  return c;
}

}  // namespace

TEST_CASE("A damaged stretch in a block-only curve is one slow region with its range",
          "[slow_blocks]") {
  const std::uint64_t seed = 37;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::vector<double> rates = ZonedRates(rng);
  // The disk: 99-200 GB damaged, 323 blocks there at 3.7-50 MB/s,
  // the others at full speed.
  const std::size_t first = 99'000'000'000 / kBlock, last = 200'000'000'000 / kBlock - 1;
  std::vector<std::size_t> damaged;
  for (std::size_t i = first; i <= last; ++i) damaged.push_back(i);
  std::shuffle(damaged.begin() + 1, damaged.end() - 1, rng);
  damaged.resize(323);
  std::uniform_real_distribution<double> slow(3.7, 50.0);
  for (std::size_t i : damaged) rates[i] = slow(rng);
  rates[first] = slow(rng);  // the stretch's ends are slow (kept above)
  rates[last] = slow(rng);
  const Curve curve = CurveOf(rates);

  const std::vector<SlowRegion> regions = FindSlowBlockRuns(curve);
  REQUIRE(regions.size() == 1);
  CHECK(regions[0].offset_bytes == first * kBlock);
  CHECK(regions[0].offset_bytes + regions[0].length_bytes == (last + 1) * kBlock);
  CHECK(regions[0].ms > 2 * regions[0].expected_ms);

  zcav::HealthInputs in;
  in.device_bytes = rates.size() * kBlock;
  in.slow_regions = regions;
  const zcav::Health health = zcav::AssessHealth(in);
  CHECK(health.verdict == zcav::HealthVerdict::kSuspect);
  REQUIRE(!health.reasons.empty());
  CHECK(health.reasons[0].find("slow region") != std::string::npos);

  // Left out, the stretch's blocks are no outliers and the zones are the
  // healthy curve's 8.
  const zcav::ZoneAnalysis with = zcav::DetectZones(curve, {});
  const zcav::ZoneAnalysis without = zcav::DetectZones(zcav::WithoutRegions(curve, regions), {});
  CHECK(with.outliers.size() > 20);
  for (const zcav::Outlier& o : without.outliers) {
    CHECK((o.offset_bytes < first * kBlock || o.offset_bytes > last * kBlock));
  }
  CHECK(without.zones.size() == 8);
}

TEST_CASE("A solid slow stretch of 3 % of the device at 30 % of its zone is one slow region",
          "[slow_blocks]") {
  std::mt19937_64 rng(40);
  std::vector<double> rates = ZonedRates(rng);
  const std::size_t first = rates.size() * 40 / 100, count = rates.size() * 3 / 100;
  for (std::size_t i = first; i < first + count; ++i) rates[i] *= 0.3;
  const std::vector<SlowRegion> regions = FindSlowBlockRuns(CurveOf(rates));
  REQUIRE(regions.size() == 1);
  CHECK(regions[0].offset_bytes == first * kBlock);
  CHECK(regions[0].length_bytes == count * kBlock);
  CHECK(regions[0].ms == Approx(regions[0].expected_ms / 0.3).epsilon(0.05));
}

TEST_CASE("Two damaged stretches far apart are two slow regions", "[slow_blocks]") {
  std::mt19937_64 rng(41);
  std::vector<double> rates = ZonedRates(rng);
  for (std::size_t i = 1000; i < 1040; i += 2) rates[i] = 20;
  for (std::size_t i = 5000; i < 5100; ++i) rates[i] = 30;
  const std::vector<SlowRegion> regions = FindSlowBlockRuns(CurveOf(rates));
  REQUIRE(regions.size() == 2);
  CHECK(regions[0].offset_bytes == 1000 * kBlock);
  CHECK(regions[0].length_bytes == 39 * kBlock);
  CHECK(regions[1].offset_bytes == 5000 * kBlock);
  CHECK(regions[1].length_bytes == 100 * kBlock);
}

TEST_CASE("A single slow block is an outlier, not a slow region", "[slow_blocks]") {
  std::mt19937_64 rng(38);
  std::vector<double> rates = ZonedRates(rng);
  rates[2000] = 10;
  const Curve curve = CurveOf(rates);
  CHECK(FindSlowBlockRuns(curve).empty());
  const zcav::ZoneAnalysis a = zcav::DetectZones(curve, {});
  bool listed = false;
  for (const zcav::Outlier& o : a.outliers) listed = listed || o.offset_bytes == 2000 * kBlock;
  CHECK(listed);
}

// A damaged stretch that reaches an end of the device has no side to come
// back to; its blocks between the slow ones, read at full speed, still tell
// it from a slower zone (a slower last zone has none at the level before it).
TEST_CASE("A damaged stretch at either end of the device is a slow region", "[slow_blocks]") {
  std::mt19937_64 rng(41);
  std::vector<double> rates = ZonedRates(rng);
  const std::size_t n = rates.size(), len = 250;
  std::uniform_real_distribution<double> slow(3.7, 50.0);
  std::bernoulli_distribution damaged(0.45);
  SECTION("the last 250 blocks, 45 % of them slow") {
    for (std::size_t i = n - len; i < n; ++i) {
      if (damaged(rng) || i == n - len) rates[i] = slow(rng);
    }
    const std::vector<SlowRegion> found = FindSlowBlockRuns(CurveOf(rates));
    REQUIRE(found.size() == 1);
    CHECK(found[0].offset_bytes == (n - len) * kBlock);
    // (Within a tenth of the stretch: its last slow blocks may lie apart
    // from the rest, a run too short to join it.)
    CHECK(found[0].offset_bytes + found[0].length_bytes >= (n - len / 10) * kBlock);
  }
  SECTION("the first 250 blocks, 45 % of them slow") {
    for (std::size_t i = 0; i < len; ++i) {
      if (damaged(rng) || i == len - 1) rates[i] = slow(rng);
    }
    const std::vector<SlowRegion> found = FindSlowBlockRuns(CurveOf(rates));
    REQUIRE(found.size() == 1);
    CHECK(found[0].offset_bytes <= len / 10 * kBlock);
    CHECK(found[0].offset_bytes + found[0].length_bytes >= (len - len / 10) * kBlock);
    CHECK(found[0].offset_bytes + found[0].length_bytes <= len * kBlock);
  }
}

TEST_CASE("No slow region from scattered slow blocks, short runs, steps down or texture",
          "[slow_blocks]") {
  std::mt19937_64 rng(39);
  std::vector<double> rates = ZonedRates(rng);
  SECTION("1 % of the blocks slow, scattered over the whole curve") {
    std::uniform_int_distribution<std::size_t> where(0, rates.size() - 1);
    for (int k = 0; k < 78; ++k) rates[where(rng)] *= 0.2;
    CHECK(FindSlowBlockRuns(CurveOf(rates)).empty());
  }
  SECTION("seven slow blocks in a row") {
    for (std::size_t i = 3000; i < 3007; ++i) rates[i] = 20;
    CHECK(FindSlowBlockRuns(CurveOf(rates)).empty());
  }
  SECTION("a cache, then the device at a third of its rate to the end") {
    for (std::size_t i = 3000; i < rates.size(); ++i) rates[i] /= 3;
    CHECK(FindSlowBlockRuns(CurveOf(rates)).empty());
  }
  SECTION("a slow stretch at the very start: no faster side to come back to") {
    for (std::size_t i = 0; i < 200; ++i) rates[i] *= 0.3;
    CHECK(FindSlowBlockRuns(CurveOf(rates)).empty());
  }
  SECTION("a slower last zone, at a third, to the very end") {
    for (std::size_t i = rates.size() - 300; i < rates.size(); ++i) rates[i] *= 0.3;
    CHECK(FindSlowBlockRuns(CurveOf(rates)).empty());
  }
  SECTION("a throttle's bursts: 5, 10 or 30 % of the blocks at a third, all along") {
    for (const double share : {0.05, 0.1, 0.3}) {
      for (std::uint64_t seed = 0; seed < 20; ++seed) {
        CAPTURE(share, seed);
        std::mt19937_64 bursts(seed);
        std::bernoulli_distribution burst(share);
        for (double& r : rates) r = burst(bursts) ? 13 : 40;
        CHECK(FindSlowBlockRuns(CurveOf(rates)).empty());
      }
    }
  }
}

TEST_CASE("Recorded real curves have no slow regions from their block rates", "[slow_blocks]") {
  // The corpus of tests/data (real-curves and the classic logs of import/):
  // none has a damaged stretch, so their zone tables stay as they are.
  const std::filesystem::path data(ZCAV_TEST_DATA_DIR);
  std::size_t files = 0;
  for (const char* dir : {"real-curves", "import"}) {
    for (const auto& entry : std::filesystem::directory_iterator(data / dir)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".json" && ext != ".dat") continue;
      CAPTURE(entry.path().filename().string());
      const zcav::SavedResult profile = zcav::ReadProfile(entry.path().string());
      CHECK(FindSlowBlockRuns(profile.points).empty());
      ++files;
    }
  }
  CHECK(files >= 15);
}
