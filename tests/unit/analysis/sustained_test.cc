// The sustained rate after a write cache (SustainedOf) over a time line of
// requests in parts, as a write sweep's first pass keeps them.
#include "zcav/analysis/sustained.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "zcav/base/units.h"

namespace zcav {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A write sweep's first pass in parts of 100 MB: 1 GB at 500 MB/s (a cache),
// then 2 GB at 50 MB/s, 1 MB per request.
RequestSummary CachedWrite() {
  RequestTimeline t(seconds(10));
  std::chrono::nanoseconds clock{0};
  for (std::uint64_t mb = 0; mb < 3000; ++mb) {
    if (mb % 100 == 0) t.StartPart();
    const auto took = mb < 1000 ? milliseconds(2) : milliseconds(20);
    t.Add({mb * 1000000, 1000000, 0, clock, took});
    clock += took;
  }
  return t.Summary();
}

WriteCacheAnalysis CacheEndingAt(std::uint64_t end_bytes) {
  WriteCacheAnalysis w;
  w.size_bytes = end_bytes;
  w.phases.push_back({"cache", 0, end_bytes, 500});
  w.phases.push_back({"sustained", end_bytes, 3000000000, 50});
  return w;
}

TEST_CASE("The sustained rate counts from the write cache's end", "[sustained]") {
  const RequestSummary r = CachedWrite();
  REQUIRE(r.parts.size() == 30);
  // Without the cache the lowest window is the slow part's anyway, but the
  // windows count from the first request and the time is the whole run's.
  const std::optional<SustainedFigure> all = SustainedOf(r, std::nullopt);
  REQUIRE(all);
  CHECK_FALSE(all->after_write_cache);
  CHECK(all->from_bytes == 0);
  CHECK(all->window == seconds(10));
  CHECK(all->timed == seconds(2 + 40));
  REQUIRE(all->lowest);
  CHECK(all->lowest->mb_per_s == Approx(50));

  // A cache found to end at 1 GB: from the part that begins there.
  const std::optional<SustainedFigure> after = SustainedOf(r, CacheEndingAt(1000000000));
  REQUIRE(after);
  CHECK(after->after_write_cache);
  CHECK(after->from_bytes == 1000000000);
  CHECK(after->timed == seconds(40));
  REQUIRE(after->lowest);
  CHECK(after->lowest->mb_per_s == Approx(50));
  CHECK(after->lowest->offset_bytes >= 1000000000);

  // A cache end inside a part: the next part's start (windows never begin
  // inside the cache).
  const std::optional<SustainedFigure> inside = SustainedOf(r, CacheEndingAt(1050000000));
  REQUIRE(inside);
  CHECK(inside->from_bytes == 1100000000);
  CHECK(inside->timed == milliseconds(20 * 1900));
}

TEST_CASE("Less than a window after the cache, or nothing timed, has no lowest window",
          "[sustained]") {
  const RequestSummary r = CachedWrite();
  // After 2.9 GB: 100 requests of 20 ms, 2 s, less than the window.
  const std::optional<SustainedFigure> late = SustainedOf(r, CacheEndingAt(2900000000));
  REQUIRE(late);
  CHECK(late->timed == seconds(2));
  CHECK_FALSE(late->lowest);
  // No part begins at or after the end: nothing timed after it.
  const std::optional<SustainedFigure> beyond = SustainedOf(r, CacheEndingAt(2950000000));
  REQUIRE(beyond);
  CHECK(beyond->timed == seconds(0));
  CHECK_FALSE(beyond->lowest);
  CHECK_FALSE(SustainedOf(RequestSummary{}, std::nullopt));
}

}  // namespace
}  // namespace zcav
