#include "zcav/analysis/caches.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "zcav/analysis/transport.h"
#include "zcav/analysis/verdict.h"
#include "zcav/measure/sample.h"

namespace {

using zcav::AssessCaches;
using zcav::CacheEvidence;
using zcav::CacheFinding;
using zcav::PassTrend;

CacheEvidence Rates(std::vector<double> rates) {
  CacheEvidence e;
  e.pass_mb_per_s = std::move(rates);
  e.pass_cached_share.assign(e.pass_mb_per_s.size(), std::nullopt);
  return e;
}

CacheEvidence Cached(std::vector<double> rates, std::vector<std::optional<double>> shares,
                     std::string file = "/var/tmp/disk.img") {
  CacheEvidence e;
  e.pass_mb_per_s = std::move(rates);
  e.pass_cached_share = std::move(shares);
  e.page_cache_file = std::move(file);
  return e;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// One flat zone at `level` MB/s over 1000 blocks of 1 MB.
zcav::ZoneAnalysis Flat(double level) {
  zcav::ZoneAnalysis a;
  a.type = zcav::CurveType::kFlat;
  zcav::Zone z;
  z.end_bytes = 1000'000'000;
  z.end_block = 1000;
  z.mb_per_s = z.mean_mb_per_s = z.min_mb_per_s = z.max_mb_per_s = level;
  z.stddev_mb_per_s = level * 0.01;
  a.zones.push_back(z);
  a.outer_inner_ratio = 1;
  a.noise_sigma_mb_per_s = level * 0.01;
  return a;
}

}  // namespace

TEST_CASE("Passes within 1.25x of each other are steady and say nothing", "[caches]") {
  for (const std::vector<double>& r :
       {std::vector<double>{100, 102, 99}, {35.1, 34.9}, {100, 124, 110, 101}}) {
    const CacheFinding f = AssessCaches(Rates(r));
    CHECK(f.trend == PassTrend::kSteady);
    CHECK(f.text.empty());
    CHECK_FALSE(f.misleads);
    CHECK(f.storage_pass == 0);
  }
  CHECK(AssessCaches(Rates({100})).trend == PassTrend::kNone);
  CHECK(AssessCaches(Rates({})).text.empty());
}

TEST_CASE("Passes each faster than the one before are a cache filling: pass 1 is the storage",
          "[caches]") {
  // The loop device over a cold 4 GiB file: 3.5, 8.6, 11.3 GB/s.
  const CacheFinding f = AssessCaches(Rates({3500, 8600, 11300}));
  CHECK(f.trend == PassTrend::kRising);
  CHECK(f.misleads);
  CHECK(f.storage_pass == 1);
  CHECK(Has(f.text, "3500.0, 8600.0 and 11300.0 MB/s, each faster"));
  CHECK(Has(f.text, "Pass 1 measures the storage: 3500.0 MB/s"));
  // Two passes, and a pass a few per cent slower than the last inside a rise.
  CHECK(AssessCaches(Rates({100, 240})).trend == PassTrend::kRising);
  CHECK(AssessCaches(Rates({100, 140, 137, 190})).trend == PassTrend::kRising);
  CHECK(zcav::PassTrendName(PassTrend::kRising) == std::string("rising"));
}

TEST_CASE("Pass 1 slow and the rest alike is a cache warmed by pass 1", "[caches]") {
  const CacheFinding f = AssessCaches(Rates({3500, 11000, 11300, 10900}));
  CHECK(f.trend == PassTrend::kWarmAfterFirst);
  CHECK(f.misleads);
  CHECK(f.storage_pass == 1);
  CHECK(Has(f.text, "Pass 1 read 3500.0 MB/s, passes 2-4 10900.0-11300.0 MB/s"));
}

TEST_CASE("Passes each slower are throttling: said, the verdict kept", "[caches]") {
  const CacheFinding f = AssessCaches(Rates({2000, 1500, 1100}));
  CHECK(f.trend == PassTrend::kFalling);
  CHECK_FALSE(f.misleads);
  CHECK(f.storage_pass == 1);
  CHECK(Has(f.text, "each slower than the one before"));
}

TEST_CASE("Passes far apart in no order are uneven: said, the verdict kept", "[caches]") {
  const CacheFinding f = AssessCaches(Rates({100, 150, 105}));
  CHECK(f.trend == PassTrend::kUneven);
  CHECK_FALSE(f.misleads);
  CHECK(f.storage_pass == 0);
  CHECK(Has(f.text, "1.50x apart, in no order"));
}

TEST_CASE("A file in the page cache at the start: the sweep measured RAM", "[caches]") {
  const CacheFinding f = AssessCaches(Cached({17000, 17300, 17100}, {1.0, 1.0, 1.0}));
  CHECK(f.ram_passes == std::vector<std::uint32_t>{1, 2, 3});
  CHECK(f.misleads);
  CHECK(f.storage_pass == 0);
  CHECK(Has(f.text, "The reads came from RAM: 100 % of /var/tmp/disk.img was in the page cache"));
  CHECK(Has(f.text, "losetup --direct-io=on"));
}

TEST_CASE("Pass 1 filled the page cache: later passes read RAM, pass 1 is the storage",
          "[caches]") {
  const CacheFinding f = AssessCaches(Cached({2900, 16000, 16500}, {0.0, 0.98, 1.0}));
  CHECK(f.ram_passes == std::vector<std::uint32_t>{2, 3});
  CHECK(f.misleads);
  CHECK(f.storage_pass == 1);
  CHECK(Has(f.text, "Pass 1 read the storage and left 98 % of /var/tmp/disk.img"));
  CHECK(Has(f.text, "passes 2-3 read RAM (2900.0 MB/s, then up to 16500.0 MB/s)"));
}

TEST_CASE("Passes from RAM no faster than pass 1: the limit is in front of the page cache",
          "[caches]") {
  // A loop device behind a 40 MB/s read throttle over a file pass 1 cached.
  const CacheFinding f = AssessCaches(Cached({40.4, 39.9}, {0.0, 0.98}));
  CHECK(f.ram_passes == std::vector<std::uint32_t>{2});
  CHECK_FALSE(f.misleads);
  CHECK(f.storage_pass == 0);
  CHECK(Has(f.text, "pass 2 read no faster from RAM (40.4 MB/s, then up to 39.9 MB/s)"));
  CHECK(Has(f.text, "set in front of the page cache"));
  // Every pass from RAM, at a throttle's 35 MB/s.
  const CacheFinding slow = AssessCaches(Cached({34.5, 35.1}, {1.0, 1.0}));
  CHECK(slow.ram_passes == std::vector<std::uint32_t>{1, 2});
  CHECK_FALSE(slow.misleads);
  CHECK(Has(slow.text, "yet at no more than 35.1 MB/s, far below what memory gives"));
}

TEST_CASE(
    "Part of the file cached, or left cached by one pass, is said without undoing the "
    "verdict",
    "[caches]") {
  const CacheFinding some = AssessCaches(Cached({500, 510}, {0.2, 0.25}));
  CHECK(some.ram_passes.empty());
  CHECK_FALSE(some.misleads);
  CHECK(Has(some.text, "20 % of /var/tmp/disk.img was in the page cache when the sweep started"));
  CacheEvidence once = Cached({500}, {0.0});
  once.cached_share_at_end = 1.0;
  const CacheFinding left = AssessCaches(once);
  CHECK_FALSE(left.misleads);
  CHECK(Has(left.text, "The sweep left 100 % of /var/tmp/disk.img in the page cache"));
  // No file: the reads bypass the page cache, whatever shares are given.
  CHECK(AssessCaches(Cached({500, 505}, {1.0, 1.0}, "")).text.empty());
}

TEST_CASE("A backing file's name reaches the text without control characters", "[caches]") {
  // A loop device's backing file is any name a user of the machine chose.
  const CacheFinding f =
      AssessCaches(Cached({17000, 17000}, {1.0, 1.0}, "/tmp/a\x1b]2;owned\x07\nb\rc.img"));
  CHECK(f.misleads);
  for (const char c : f.text) CHECK(static_cast<unsigned char>(c) >= 0x20);
  CHECK(Has(f.text, "/tmp/a]2;ownedbc.img"));
}

TEST_CASE("The evidence of a sweep counts its complete passes", "[caches]") {
  std::vector<zcav::PassSummary> passes(3);
  passes[0].complete = true;
  passes[0].mb_per_s = 100;
  passes[0].cached_share = 0.0;
  passes[1].complete = true;
  passes[1].mb_per_s = 300;
  passes[1].cached_share = 1.0;
  passes[2].complete = false;  // interrupted
  passes[2].mb_per_s = 50;
  const CacheEvidence e = zcav::CacheEvidenceOf(passes, 0.9, "/f");
  CHECK(e.pass_mb_per_s == std::vector<double>{100, 300});
  REQUIRE(e.pass_cached_share.size() == 2);
  CHECK(e.pass_cached_share[1] == 1.0);
  CHECK(e.cached_share_at_end == 0.9);
  CHECK(e.page_cache_file == "/f");
}

TEST_CASE("A cache's median curve makes the verdict undetermined, naming what it would be",
          "[caches][verdict]") {
  zcav::VerdictInputs in;
  in.sustained_max_mb_per_s = 38;
  in.transport = zcav::TransportFromName("usb2");
  REQUIRE(zcav::DecideVerdict(Flat(38), in).kind == zcav::VerdictKind::kBusLimited);
  in.caches = AssessCaches(Rates({20, 38, 39}));
  const zcav::Verdict v = zcav::DecideVerdict(Flat(38), in);
  CHECK(v.kind == zcav::VerdictKind::kUndetermined);
  CHECK(Has(v.reason, "Pass 1 read 20.0 MB/s, passes 2-3 38.0-39.0 MB/s"));
  CHECK(Has(v.reason, "Judged on the median curve it would be bus-limited: Flat at 38.0 MB/s"));
  // A finding that does not mislead is added; the verdict stands.
  in.caches = AssessCaches(Rates({40, 30, 22}));
  const zcav::Verdict kept = zcav::DecideVerdict(Flat(38), in);
  CHECK(kept.kind == zcav::VerdictKind::kBusLimited);
  CHECK(Has(kept.reason, "each slower than the one before"));
}
