// The worst stall and the lowest rate over a sliding window, online
// (RequestTimeline) against a direct computation over every window.
#include "zcav/measure/request_timeline.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "zcav/base/units.h"

namespace zcav {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;

// Requests one after the other on the time line from offset 0 (each starts
// where the previous ended, on the clock too).
std::vector<TimedRequest> Sequence(const std::vector<std::pair<std::uint64_t, nanoseconds>>& io,
                                   std::uint32_t pass = 0) {
  std::vector<TimedRequest> out;
  std::uint64_t at = 0;
  nanoseconds clock{0};
  for (const auto& [bytes, took] : io) {
    out.push_back({at, bytes, pass, clock, took});
    at += bytes;
    clock += took;
  }
  return out;
}

// `n` requests of `bytes` each at `mb_per_s`.
std::vector<std::pair<std::uint64_t, nanoseconds>> Steady(int n, std::uint64_t bytes,
                                                          double mb_per_s) {
  const nanoseconds took{static_cast<std::int64_t>(static_cast<double>(bytes) / mb_per_s * 1e3)};
  return std::vector<std::pair<std::uint64_t, nanoseconds>>(n, {bytes, took});
}

// The lowest rate (MB/s) over every window of `window` on the time line of
// `requests`, each request's bytes spread evenly over its duration: every
// window that starts or ends at a request's edge, its bytes from the bytes
// transferred by each edge. None when the line is shorter than the window.
std::optional<double> DirectLowest(const std::vector<TimedRequest>& requests, nanoseconds window) {
  std::vector<double> t0, d, b, before;
  double end = 0, bytes = 0;
  for (const TimedRequest& r : requests) {
    t0.push_back(end);
    d.push_back(static_cast<double>(r.duration.count()));
    b.push_back(static_cast<double>(r.length_bytes));
    before.push_back(bytes);
    end += d.back();
    bytes += b.back();
  }
  // Bytes transferred by time x.
  const auto by = [&](double x) {
    const std::size_t i =
        static_cast<std::size_t>(std::upper_bound(t0.begin(), t0.end(), x) - t0.begin()) - 1;
    return before[i] + b[i] * std::min(x - t0[i], d[i]) / d[i];
  };
  const double w = static_cast<double>(window.count());
  std::optional<double> lowest;
  const auto offer = [&](double start) {
    if (start < 0 || start + w > end) return;
    const double rate = (by(start + w) - by(start)) / kMB / (w * 1e-9);
    if (!lowest || rate < *lowest) lowest = rate;
  };
  for (std::size_t i = 0; i < t0.size(); ++i) {
    offer(t0[i]);
    offer(t0[i] + d[i] - w);
  }
  return lowest;
}

TEST_CASE("The worst stall is the longest request: where, when, in which pass", "[requests]") {
  RequestTimeline t(seconds(1));
  CHECK_FALSE(t.Summary().worst_stall);
  for (const TimedRequest& r :
       Sequence({{kMiB, milliseconds(10)}, {kMiB, milliseconds(750)}, {kMiB, milliseconds(20)}})) {
    t.Add(r);
  }
  t.Add({5 * kMiB, kMiB, 1, milliseconds(900), milliseconds(750)});  // as long: the first stays
  const RequestSummary& s = t.Summary();
  REQUIRE(s.worst_stall);
  CHECK(s.worst_stall->offset_bytes == kMiB);
  CHECK(s.worst_stall->length_bytes == kMiB);
  CHECK(s.worst_stall->pass == 0);
  CHECK(s.worst_stall->started_at == milliseconds(10));
  CHECK(s.worst_stall->duration == milliseconds(750));
  CHECK(s.requests == 4);
  CHECK(s.bytes == 4 * kMiB);
  CHECK(s.time == milliseconds(1530));
  // A stall given apart from the duration (several in flight: the time the
  // device completed nothing) is what counts.
  t.Add({9 * kMiB, kMiB, 1, seconds(2), milliseconds(5)}, milliseconds(800));
  REQUIRE(t.Summary().worst_stall);
  CHECK(t.Summary().worst_stall->offset_bytes == 9 * kMiB);
  CHECK(t.Summary().worst_stall->pass == 1);
  CHECK(t.Summary().worst_stall->duration == milliseconds(800));
}

TEST_CASE("A steady run's lowest window is its rate; a run shorter than the window has none",
          "[requests]") {
  // 100 MB/s in requests of 1 MB for 30 s; windows of 10 s.
  const std::vector<TimedRequest> run = Sequence(Steady(3000, 1000000, 100));
  const RequestSummary s = SummarizeRequests(run, seconds(10));
  const std::optional<LowestWindow> w = s.LowestFrom(0);
  REQUIRE(w);
  CHECK(w->mb_per_s == Approx(100).epsilon(1e-9));
  CHECK(w->bytes == 1000000000);
  CHECK(s.window == seconds(10));
  // The window of exactly the run's length is the run.
  CHECK(SummarizeRequests(run, seconds(30)).LowestFrom(0)->mb_per_s == Approx(100));
  CHECK_FALSE(SummarizeRequests(run, milliseconds(30001)).LowestFrom(0));
}

TEST_CASE("A stall inside the run gives the lowest window, placed where it begins", "[requests]") {
  // 20 s at 100 MB/s, one request of 1 MB stalling 2 s, 20 s at 100 MB/s.
  auto io = Steady(2000, 1000000, 100);
  io.push_back({1000000, seconds(2)});
  const auto after = Steady(2000, 1000000, 100);
  io.insert(io.end(), after.begin(), after.end());
  const std::vector<TimedRequest> run = Sequence(io);
  const RequestSummary s = SummarizeRequests(run, seconds(4));
  const std::optional<LowestWindow> w = s.LowestFrom(0);
  REQUIRE(w);
  // Any 4 s window holding the whole stall: 2 s at 100 MB/s and the 1 MB.
  CHECK(w->mb_per_s == Approx((2 * 100e6 + 1e6) / 4 / 1e6));
  // The first such window begins 2 s before the stall ends: 1 s into the
  // run's time before the stall, at 1.9 GB (the 20 s before it are 2 GB).
  CHECK(w->started_at == seconds(18));
  CHECK(w->offset_bytes == 1800000000);
  CHECK(w->pass == 0);
  CHECK(*DirectLowest(run, seconds(4)) == Approx(w->mb_per_s));
}

TEST_CASE("The online lowest window equals the direct one over random runs with stalls",
          "[requests]") {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    CAPTURE(seed);
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::uint64_t> sectors(8, 8192);         // 4 KiB to 4 MiB
    std::uniform_int_distribution<std::int64_t> micros(1000, 60000);       // 1 to 60 ms
    std::uniform_int_distribution<std::int64_t> stall_micros(1, 3000000);  // up to 3 s
    std::bernoulli_distribution stalls(0.03);
    std::vector<std::pair<std::uint64_t, nanoseconds>> io;
    const int n = 200 + static_cast<int>(seed * 7);
    for (int i = 0; i < n; ++i) {
      const std::int64_t us = stalls(rng) ? stall_micros(rng) : micros(rng);
      io.push_back({sectors(rng) * 512, std::chrono::microseconds(us)});
    }
    const std::vector<TimedRequest> run = Sequence(io);
    for (const nanoseconds window :
         {nanoseconds(milliseconds(5)), nanoseconds(milliseconds(700)), nanoseconds(seconds(3))}) {
      CAPTURE(window.count());
      const std::optional<LowestWindow> online = SummarizeRequests(run, window).LowestFrom(0);
      const std::optional<double> direct = DirectLowest(run, window);
      REQUIRE(online.has_value() == direct.has_value());
      if (direct) CHECK(online->mb_per_s == Approx(*direct).epsilon(1e-9));
    }
  }
}

TEST_CASE("Requests far shorter than the window are merged: memory bounded, rate kept",
          "[requests]") {
  // 2 million requests of 4 KiB, 20 us each (about 205 MB/s), every 1000th
  // stalling 5 ms; windows of 1 s hold 50 000 requests.
  RequestTimeline t(seconds(1));
  std::vector<TimedRequest> sample;  // the first 200 000, for the direct computation
  std::uint64_t at = 0;
  nanoseconds clock{0};
  for (int i = 0; i < 2000000; ++i) {
    const nanoseconds took = i % 1000 == 999 ? milliseconds(5) : std::chrono::microseconds(20);
    const TimedRequest r{at, 4096, 0, clock, took};
    t.Add(r);
    if (i < 200000) sample.push_back(r);
    at += 4096;
    clock += took;
  }
  // At most about 2 x kWindowResolution entries are kept: a ring of 32768.
  CHECK(t.ring_entries() <= 4 * static_cast<std::size_t>(kWindowResolution));
  const std::optional<LowestWindow> w = t.Summary().LowestFrom(0);
  REQUIRE(w);
  // Every 1 s window holds about 40 stalls of 5 ms: 0.8 s of requests.
  CHECK(w->mb_per_s == Approx(4096.0 / 20e-6 * 0.8 / 1e6).epsilon(0.02));
  // Against the direct computation on a prefix: within one entry's bytes.
  const std::optional<double> direct = DirectLowest(sample, seconds(1));
  REQUIRE(direct);
  CHECK(SummarizeRequests(sample, seconds(1)).LowestFrom(0)->mb_per_s ==
        Approx(*direct).epsilon(1e-3));
}

TEST_CASE("Parts keep the windows that begin in them apart", "[requests]") {
  // Part 0: 10 s at 200 MB/s (a write cache), part 1: 30 s at 50 MB/s.
  RequestTimeline t(seconds(5));
  const std::vector<TimedRequest> fast = Sequence(Steady(2000, 1000000, 200));
  for (const TimedRequest& r : fast) t.Add(r);
  t.StartPart();
  t.StartPart();  // twice: still one new part
  std::uint64_t at = 2000000000;
  nanoseconds clock{seconds(10)};
  for (int i = 0; i < 1500; ++i) {
    t.Add({at, 1000000, 0, clock, milliseconds(20)});
    at += 1000000;
    clock += milliseconds(20);
  }
  const RequestSummary& s = t.Summary();
  REQUIRE(s.parts.size() == 2);
  CHECK(s.parts[1].first_offset_bytes == 2000000000);
  CHECK(s.parts[1].begins_at == seconds(10));
  CHECK(s.FirstPartFrom(0) == 0);
  CHECK(s.FirstPartFrom(1) == 1);
  CHECK(s.FirstPartFrom(2000000000) == 1);
  CHECK(s.FirstPartFrom(2000000001) == 2);  // none
  CHECK(s.TimeFrom(1) == seconds(30));
  CHECK(s.TimeFrom(2) == nanoseconds(0));
  CHECK(s.LowestFrom(0)->mb_per_s == Approx(50));
  // The windows that begin in part 0 reach into part 1 at most from its
  // last request: 5 ms at 200 MB/s, then 4.995 s at 50 MB/s.
  const std::optional<LowestWindow> cache_part = s.parts[0].lowest;
  REQUIRE(cache_part);
  CHECK(cache_part->mb_per_s == Approx((1e6 + 4.995 * 50e6) / 5 / 1e6));
  CHECK(s.LowestFrom(1)->mb_per_s == Approx(50));
  CHECK(s.LowestFrom(1)->offset_bytes >= 2000000000);
  CHECK_FALSE(s.LowestFrom(2));
  // A part that begins later in the same pass than any request: no part.
  RequestTimeline empty(seconds(1));
  empty.StartPart();  // before any request: nothing
  empty.Add({0, 4096, 0, nanoseconds(0), milliseconds(1)});
  CHECK(empty.Summary().parts.size() == 1);
}

TEST_CASE("Parts of a later pass all come after the first pass's", "[requests]") {
  RequestTimeline t(seconds(1));
  t.Add({1 << 20, 4096, 0, nanoseconds(0), milliseconds(1)});
  t.StartPart();
  t.Add({0, 4096, 1, milliseconds(1), milliseconds(1)});
  // The second pass starts at offset 0, but after the first pass's parts.
  CHECK(t.Summary().FirstPartFrom(2 << 20) == 1);
}

}  // namespace
}  // namespace zcav
