#include "zcav/analysis/expectations.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"
#include "zcav/measure/sweep.h"
#include "zcav/pipeline/sweep_chain.h"

using std::chrono::milliseconds;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using zcav::ExpectationFigures;
using zcav::Expectations;
using zcav::ParseExpectations;
using zcav::UnmetExpectations;

namespace {

// The one-line message ParseExpectations throws for `text`.
std::string ParseError(const std::string& text) {
  try {
    (void)ParseExpectations(text);
  } catch (const zcav::Error& e) {
    CHECK(e.kind() == zcav::ErrorKind::kBadInput);
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
    return e.what();
  }
  FAIL("no error for '" << text << "'");
  return "";
}

// A run that measured 36.2 MB/s on average, 20.5 at its slowest block, with
// one slow region and two unreadable ranges, health suspect.
ExpectationFigures Figures() {
  ExpectationFigures f;
  f.blocks_measured = 100;
  f.min_mb_per_s = 20.5;
  f.avg_mb_per_s = 36.2;
  f.slow_regions = 1;
  f.unreadable_ranges = 2;
  f.unreadable_bytes = 8192;
  f.health_verdict = "suspect";
  return f;
}

}  // namespace

TEST_CASE("Expectations read every key, with white space around keys and values",
          "[expectations]") {
  const Expectations e =
      ParseExpectations("min=20, avg = 36.5 ,max-slow=0,max-unreadable=3,health=suspect");
  REQUIRE(e.min_mb_per_s);
  CHECK(*e.min_mb_per_s == 20);
  REQUIRE(e.avg_mb_per_s);
  CHECK(*e.avg_mb_per_s == 36.5);
  REQUIRE(e.max_slow_regions);
  CHECK(*e.max_slow_regions == 0);
  REQUIRE(e.max_unreadable);
  CHECK(*e.max_unreadable == 3);
  REQUIRE(e.health);
  CHECK(*e.health == "suspect");
  CHECK_FALSE(e.empty());

  const Expectations one = ParseExpectations("avg=100");
  CHECK(one.avg_mb_per_s);
  CHECK_FALSE(one.min_mb_per_s);
  CHECK_FALSE(one.max_slow_regions);
  CHECK_FALSE(one.max_unreadable);
  CHECK_FALSE(one.health);
}

TEST_CASE("Expectations refuse bad input with one line naming the item", "[expectations]") {
  CHECK_THAT(ParseError(""), Catch::Contains("empty --expect") && Catch::Contains("avg"));
  CHECK_THAT(ParseError("  "), Catch::Contains("empty --expect"));
  CHECK_THAT(ParseError("speed=100"), Catch::Contains("'speed=100'") &&
                                          Catch::Contains("unknown key 'speed'") &&
                                          Catch::Contains("max-unreadable"));
  CHECK_THAT(ParseError("avg=fast"), Catch::Contains("'fast' is not a rate in MB/s"));
  CHECK_THAT(ParseError("avg=-5"), Catch::Contains("'-5' is not a rate"));
  CHECK_THAT(ParseError("min=nan"), Catch::Contains("not a rate"));
  CHECK_THAT(ParseError("avg="), Catch::Contains("'' is not a rate"));
  CHECK_THAT(ParseError("max-slow=1.5"), Catch::Contains("'1.5' is not a count"));
  CHECK_THAT(ParseError("max-unreadable=-1"), Catch::Contains("not a count"));
  CHECK_THAT(ParseError("health=failing"), Catch::Contains("'failing' is not a health level"));
  CHECK_THAT(ParseError("health=GOOD"), Catch::Contains("not a health level"));
  CHECK_THAT(ParseError("avg=1,avg=2"), Catch::Contains("avg is given twice"));
  CHECK_THAT(ParseError("avg"), Catch::Contains("'avg': no value"));
  CHECK_THAT(ParseError("avg=1,"), Catch::Contains("an empty item"));
  CHECK_THAT(ParseError(",avg=1"), Catch::Contains("an empty item"));
}

TEST_CASE("Met expectations give no sentence", "[expectations]") {
  // Exactly at the limits counts as met: "at least" and "at most".
  CHECK(UnmetExpectations(
            ParseExpectations("min=20.5,avg=36.2,max-slow=1,max-unreadable=2,health=suspect"),
            Figures())
            .empty());
  CHECK(UnmetExpectations(ParseExpectations("avg=1"), Figures()).empty());
  ExpectationFigures good = Figures();
  good.health_verdict = "good";
  CHECK(UnmetExpectations(ParseExpectations("health=suspect"), good).empty());
  CHECK(UnmetExpectations(Expectations{}, Figures()).empty());
}

TEST_CASE("Each unmet expectation is one sentence with both numbers and units", "[expectations]") {
  const std::vector<std::string> unmet = UnmetExpectations(
      ParseExpectations("health=good,max-unreadable=0,max-slow=0,avg=100,min=25"), Figures());
  REQUIRE(unmet.size() == 5);
  // In a fixed order whatever the order given.
  CHECK(unmet[0] == "slowest block 20.5 MB/s is below the expected minimum 25 MB/s (MB = 10^6 B)");
  CHECK(unmet[1] == "average 36.2 MB/s is below the expected 100 MB/s (MB = 10^6 B)");
  CHECK(unmet[2] == "1 slow region found, more than the expected 0 at most");
  CHECK(unmet[3] == "2 unreadable ranges (8192 bytes) found, more than the expected 0 at most");
  CHECK(unmet[4] == "health suspect is worse than the expected good");
}

TEST_CASE("A rate just below the expectation is never rounded up to it", "[expectations]") {
  ExpectationFigures f = Figures();
  f.avg_mb_per_s = 99.96;
  const std::vector<std::string> unmet = UnmetExpectations(ParseExpectations("avg=100"), f);
  REQUIRE(unmet.size() == 1);
  CHECK(unmet[0] == "average 99.96 MB/s is below the expected 100 MB/s (MB = 10^6 B)");
  f.avg_mb_per_s = 36.24;
  CHECK(UnmetExpectations(ParseExpectations("avg=36.5"), f)[0] ==
        "average 36.2 MB/s is below the expected 36.5 MB/s (MB = 10^6 B)");
}

TEST_CASE("What cannot be checked counts as unmet and says why", "[expectations]") {
  ExpectationFigures none;  // nothing measured, no health verdict
  const std::vector<std::string> unmet =
      UnmetExpectations(ParseExpectations("avg=1,min=1,health=suspect,max-slow=0"), none);
  REQUIRE(unmet.size() == 3);
  CHECK(unmet[0] ==
        "slowest block could not be checked: no block was measured (expected minimum 1 MB/s)");
  CHECK(unmet[1] == "average could not be checked: no block was measured (expected 1 MB/s)");
  CHECK(unmet[2] ==
        "health could not be checked: no health verdict for this run (expected suspect)");
}

TEST_CASE("The figures of a sweep are its rates and counts, health left unknown",
          "[expectations]") {
  zcav::SweepResult r;
  r.blocks_measured = 7;
  r.min_mb_per_s = 10;
  r.avg_mb_per_s = 30;
  r.slow_regions.resize(3);
  r.unreadable.push_back({4096, 512, 5, 0, false});
  const ExpectationFigures f = zcav::FiguresOf(r);
  CHECK(f.blocks_measured == 7);
  CHECK(f.min_mb_per_s == 10);
  CHECK(f.avg_mb_per_s == 30);
  CHECK(f.slow_regions == 3);
  CHECK(f.unreadable_ranges == 1);
  CHECK(f.unreadable_bytes == 512);
  CHECK(f.health_verdict.empty());
}

TEST_CASE("worst-stall and sustained read a duration in ms or s and a rate in MB/s or MiB/s",
          "[expectations]") {
  const Expectations e = ParseExpectations("worst-stall=500ms, sustained = 30MB/s@10s");
  REQUIRE(e.worst_stall);
  CHECK(*e.worst_stall == milliseconds(500));
  REQUIRE(e.sustained);
  CHECK(e.sustained->mb_per_s == 30);
  CHECK_FALSE(e.sustained->mib);
  CHECK(e.sustained->window == seconds(10));
  CHECK_FALSE(e.empty());
  CHECK(*ParseExpectations("worst-stall=1.5s").worst_stall == milliseconds(1500));
  CHECK(*ParseExpectations("worst-stall=0.25ms").worst_stall == nanoseconds(250000));
  const Expectations mib = ParseExpectations("sustained=10 MiB/s @ 2.5s");
  REQUIRE(mib.sustained);
  CHECK(mib.sustained->mib);
  CHECK(mib.sustained->mb_per_s == Approx(10.48576));
  CHECK(mib.sustained->window == milliseconds(2500));
  CHECK(ParseExpectations("sustained=30MB/s@500ms").sustained->window == milliseconds(500));
}

TEST_CASE("worst-stall and sustained refuse a number without its unit, with one line",
          "[expectations]") {
  // Each item, and a part of the one line it gets.
  const std::pair<const char*, const char*> refused[] = {
      {"worst-stall=500", "'500' has no unit: give the stall in ms or s (e.g. 500ms or 2s)"},
      {"worst-stall=5m", "unknown unit 'm' in '5m'"},
      {"worst-stall=0ms", "must be above 0"},
      {"worst-stall=fast", "'fast' is not a stall"},
      {"worst-stall=-1s", "is not a stall"},
      {"worst-stall=2d", "unknown unit 'd'"},
      {"worst-stall=90000s", "longer than a day"},
      {"sustained=30@10s", "'30' has no unit: give MB/s (10^6 B/s) or MiB/s (2^20 B/s)"},
      {"sustained=30MB/s", "is not RATE@WINDOW"},
      {"sustained=30MB/s@10", "'10' has no unit: give the window in ms or s"},
      {"sustained=30GB/s@10s", "unknown unit 'GB/s'"},
      {"sustained=30mb/s@10s", "unknown unit 'mb/s'"},
      {"sustained=x@10s", "'x' is not a rate"},
      {"sustained=30MB/s@0s", "must be above 0"},
      {"worst-stall=1s,worst-stall=2s", "worst-stall is given twice"},
  };
  for (const auto& [item, why] : refused) CHECK_THAT(ParseError(item), Catch::Contains(why));
  CHECK_THAT(ParseError("speed=1"), Catch::Contains("worst-stall, sustained"));
}

namespace {

// A run whose longest request took 612.3 ms at 1.5 GiB, 12.3 s in, and
// whose lowest 10 s after a 256 MiB write cache was 21.34 MB/s at 1 GiB.
ExpectationFigures RecorderFigures() {
  ExpectationFigures f = Figures();
  f.worst_stall = zcav::WorstStall{1610612736, zcav::kMiB, 0, milliseconds(12300),
                                   std::chrono::microseconds(612300)};
  zcav::SustainedFigure s;
  s.window = seconds(10);
  s.from_bytes = 268435456;
  s.after_write_cache = true;
  s.timed = seconds(60);
  s.lowest = zcav::LowestWindow{21.34, 213400000, 1073741824, 0, milliseconds(45200)};
  f.sustained = s;
  return f;
}

}  // namespace

TEST_CASE("An unmet worst stall or sustained rate says where, when and in which pass",
          "[expectations]") {
  const std::vector<std::string> unmet = UnmetExpectations(
      ParseExpectations("sustained=30MB/s@10s,worst-stall=500ms"), RecorderFigures());
  REQUIRE(unmet.size() == 2);
  CHECK(unmet[0] ==
        "worst stall 612.3 ms at 1.50 GiB (1610612736 bytes), 12.3 s into the run (pass 1), "
        "a request of 1 MiB, is longer than the expected 500 ms at most");
  CHECK(unmet[1] ==
        "lowest rate over 10 s 21.3 MB/s, in the window from 1.00 GiB (1073741824 bytes), "
        "45.2 s into the run (pass 1), is below the expected sustained 30 MB/s (MB = 10^6 B); "
        "counted after the write cache, from 256.00 MiB (268435456 bytes)");
  // In MiB/s when asked so; a stall in s when the limit is.
  CHECK(UnmetExpectations(ParseExpectations("sustained=25MiB/s@10s"), RecorderFigures())[0] ==
        "lowest rate over 10 s 20.4 MiB/s, in the window from 1.00 GiB (1073741824 bytes), "
        "45.2 s into the run (pass 1), is below the expected sustained 25 MiB/s (MiB = 2^20 B); "
        "counted after the write cache, from 256.00 MiB (268435456 bytes)");
  ExpectationFigures long_stall = RecorderFigures();
  long_stall.worst_stall->duration = milliseconds(2004);
  CHECK_THAT(UnmetExpectations(ParseExpectations("worst-stall=2s"), long_stall)[0],
             Catch::StartsWith("worst stall 2.004 s at") &&
                 Catch::EndsWith("longer than the expected 2 s at most"));
  // At the limits: met ("at most", "at least").
  CHECK(UnmetExpectations(ParseExpectations("worst-stall=612.3ms,sustained=21.34MB/s@10s"),
                          RecorderFigures())
            .empty());
}

TEST_CASE("A worst stall or sustained rate that cannot be checked counts as unmet",
          "[expectations]") {
  ExpectationFigures none = Figures();  // an adaptive sweep: no request timed
  const std::vector<std::string> unmet =
      UnmetExpectations(ParseExpectations("worst-stall=1s,sustained=30MB/s@10s"), none);
  REQUIRE(unmet.size() == 2);
  CHECK(unmet[0] ==
        "worst stall could not be checked: no single request was timed (an adaptive sweep "
        "times probes, not requests: use --full) (expected 1 s at most)");
  CHECK(unmet[1] ==
        "sustained rate over 10 s could not be checked: no single request was timed (an "
        "adaptive sweep times probes, not requests: use --full) (expected 30 MB/s)");
  ExpectationFigures shorter = RecorderFigures();
  shorter.sustained->lowest.reset();
  shorter.sustained->timed = milliseconds(4200);
  CHECK(UnmetExpectations(ParseExpectations("sustained=30MB/s@10s"), shorter)[0] ==
        "sustained rate over 10 s could not be checked: only 4.2 s of requests after the write "
        "cache (from 256.00 MiB (268435456 bytes)), less than the window (expected 30 MB/s)");
  // Windows of another length than asked were measured: not comparable.
  CHECK(UnmetExpectations(ParseExpectations("sustained=1MB/s@5s"), RecorderFigures())[0] ==
        "sustained rate over 5 s could not be checked: the run measured windows of 10 s");
}

namespace {

// A device that forwards to another and keeps its own account of each
// write: where, when and how long on the virtual clock.
class TimedWrites final : public zcav::Device {
 public:
  struct Write {
    std::uint64_t offset_bytes;
    std::uint64_t length_bytes;
    nanoseconds at;
    nanoseconds took;
  };
  TimedWrites(std::unique_ptr<zcav::Device> inner, zcav::VirtualClock& clock)
      : inner_(std::move(inner)), clock_(clock) {}
  const zcav::DeviceInfo& info() const override { return inner_->info(); }
  std::error_code ReadAt(std::uint64_t offset, std::span<std::byte> buffer) noexcept override {
    return inner_->ReadAt(offset, buffer);
  }
  std::error_code WriteAt(std::uint64_t offset,
                          std::span<const std::byte> buffer) noexcept override {
    const nanoseconds t0 = clock_.Now();
    const std::error_code ec = inner_->WriteAt(offset, buffer);
    writes.push_back({offset, buffer.size(), t0, clock_.Now() - t0});
    return ec;
  }
  std::vector<Write> writes;  // the first is the sweep's untimed warm-up

 private:
  std::unique_ptr<zcav::Device> inner_;
  zcav::VirtualClock& clock_;
};

struct CardRun {
  zcav::SweepResult result;
  std::optional<zcav::WriteCacheAnalysis> cache;
  std::vector<TimedWrites::Write> writes;  // the timed ones
  nanoseconds began{0};                    // the sweep: its untimed warm-up write
  std::string json;
};

// A write sweep (or with !write a read sweep) of `spec` in blocks of 4 MiB,
// with the zones found (and so the write cache), into a JSON writer, with
// windows of `window`.
CardRun Sweep(const std::string& spec, nanoseconds window, bool write = true) {
  zcav::VirtualClock clock;
  TimedWrites device(zcav::OpenDeviceForWrite(spec, std::nullopt, clock), clock);
  zcav::SweepOptions o;
  o.write = write;
  o.block_bytes = 4 * zcav::kMiB;
  o.sustained_window = window;
  zcav::RunInfo run;
  run.device = device.info();
  run.plan = zcav::PlanSweep(run.device, o);
  std::ostringstream json;
  zcav::SweepChainSpec chain_spec;
  chain_spec.writers = {{zcav::OutputFormat::kJson, &json, false}};
  zcav::SweepChain chain(std::move(chain_spec));
  CardRun out;
  out.result = chain.Run(device, run, clock);
  out.cache = chain.context().write_cache;
  if (write) {
    out.began = device.writes.front().at;
    out.writes.assign(device.writes.begin() + 1, device.writes.end());
  }
  out.json = json.str();
  return out;
}

// A card: a 128 MiB write cache at 90 MB/s, then 30 MB/s; 2 % of the writes
// stall up to 400 ms more.
constexpr char kStallingCard[] =
    "sim:ssd?size=1G&noise=0&wcache=128M&wcache_rate=90&wrate=30&hiccups=2%&hiccup=400";

}  // namespace

TEST_CASE("worst-stall on a card with stalls: met below the limit, unmet with the place above",
          "[expectations]") {
  const CardRun card = Sweep(kStallingCard, seconds(10));
  REQUIRE(card.result.status == zcav::SweepStatus::kComplete);
  // The test's own account: the longest write, where and when.
  const auto worst = std::max_element(card.writes.begin(), card.writes.end(),
                                      [](const auto& a, const auto& b) { return a.took < b.took; });
  const zcav::RequestSummary& r = card.result.requests;
  CHECK(r.requests == card.writes.size());
  REQUIRE(r.worst_stall);
  CHECK(r.worst_stall->duration == worst->took);
  CHECK(r.worst_stall->offset_bytes == worst->offset_bytes);
  CHECK(r.worst_stall->length_bytes == worst->length_bytes);
  CHECK(r.worst_stall->pass == 0);
  CHECK(r.worst_stall->started_at == worst->at - card.began);
  // Every stall is below 400 ms plus a chunk's time at 30 MB/s; the longest
  // of the ~20 is well above 200 ms.
  CHECK(worst->took < milliseconds(400) + milliseconds(36));
  CHECK(worst->took > milliseconds(200));

  ExpectationFigures f = zcav::FiguresOf(card.result, card.cache);
  CHECK(UnmetExpectations(ParseExpectations("worst-stall=500ms"), f).empty());
  const std::vector<std::string> unmet =
      UnmetExpectations(ParseExpectations("worst-stall=200ms"), f);
  REQUIRE(unmet.size() == 1);
  CHECK_THAT(unmet[0],
             Catch::StartsWith("worst stall ") &&
                 Catch::Contains(" at " + zcav::FormatBytes(worst->offset_bytes) + ", ") &&
                 Catch::Contains("(pass 1)") &&
                 Catch::EndsWith("is longer than the expected 200 ms at most"));
  // The JSON names it whether or not a gate asks.
  CHECK_THAT(card.json, Catch::Contains("\"worst_stall\":{\"offset_bytes\":" +
                                        std::to_string(worst->offset_bytes) + ","));
}

TEST_CASE("sustained on a card: met just below its rate after the cache, unmet just above",
          "[expectations]") {
  const CardRun card =
      Sweep("sim:ssd?size=1G&noise=0&wcache=128M&wcache_rate=90&wrate=30", seconds(10));
  REQUIRE(card.cache);
  const std::uint64_t cliff = card.cache->phases.front().end_bytes;
  CHECK(cliff == 128 * zcav::kMiB);
  // The test's own account of the rate after the cache.
  std::uint64_t bytes = 0;
  nanoseconds took{0};
  for (const TimedWrites::Write& w : card.writes) {
    if (w.offset_bytes < cliff) continue;
    bytes += w.length_bytes;
    took += w.took;
  }
  const double rate = zcav::MbPerS(bytes, took);
  CHECK(rate == Approx(30).epsilon(0.01));

  const ExpectationFigures f = zcav::FiguresOf(card.result, card.cache);
  REQUIRE(f.sustained);
  CHECK(f.sustained->after_write_cache);
  CHECK(f.sustained->from_bytes == cliff);
  CHECK(f.sustained->timed == took);
  REQUIRE(f.sustained->lowest);
  CHECK(f.sustained->lowest->mb_per_s == Approx(rate).epsilon(1e-3));
  CHECK(f.sustained->lowest->offset_bytes >= cliff);
  const auto expect = [](double mb_per_s) {
    return ParseExpectations("sustained=" + zcav::FormatFixed(mb_per_s, 2) + "MB/s@10s");
  };
  CHECK(UnmetExpectations(expect(rate * 0.99), f).empty());
  const std::vector<std::string> unmet = UnmetExpectations(expect(rate * 1.01), f);
  REQUIRE(unmet.size() == 1);
  CHECK_THAT(unmet[0], Catch::StartsWith("lowest rate over 10 s ") &&
                           Catch::Contains("(pass 1), is below the expected sustained") &&
                           Catch::EndsWith("; counted after the write cache, from " +
                                           zcav::FormatBytes(cliff)));
  CHECK_THAT(card.json, Catch::Contains("\"sustained\":{\"window_seconds\":10.0,\"from_bytes\":" +
                                        std::to_string(cliff) + ",\"after_write_cache\":true,"));
}

TEST_CASE("A cache that leaves less than a window after it: sustained cannot be checked",
          "[expectations]") {
  // 384 MiB of cache at 90 MB/s (4.5 s), then 128 MiB at 30 MB/s: 4.5 s,
  // less than the window of 5 s.
  const CardRun card =
      Sweep("sim:ssd?size=512M&noise=0&wcache=384M&wcache_rate=90&wrate=30", seconds(5));
  REQUIRE(card.cache);
  const ExpectationFigures f = zcav::FiguresOf(card.result, card.cache);
  REQUIRE(f.sustained);
  CHECK_FALSE(f.sustained->lowest);
  const std::vector<std::string> unmet =
      UnmetExpectations(ParseExpectations("sustained=20MB/s@5s"), f);
  REQUIRE(unmet.size() == 1);
  CHECK_THAT(unmet[0], Catch::StartsWith("sustained rate over 5 s could not be checked: only "
                                         "4.5 s of requests after the write cache"));
  // Counted from the start, the cache's speed would lift every window above
  // the card's 30 MB/s: a gate at 30 MB/s would pass.
  const std::optional<zcav::SustainedFigure> from_start =
      zcav::SustainedOf(card.result.requests, std::nullopt);
  REQUIRE(from_start);
  REQUIRE(from_start->lowest);
  CHECK(from_start->lowest->mb_per_s > 30);
}

TEST_CASE("On a read sweep every request counts, from the first", "[expectations]") {
  const CardRun disk =
      Sweep("sim:ssd?size=1G&noise=0&hiccups=1%&hiccup=300", seconds(1), /*write=*/false);
  const ExpectationFigures f = zcav::FiguresOf(disk.result, disk.cache);
  CHECK_FALSE(disk.cache);
  REQUIRE(f.worst_stall);
  CHECK(f.worst_stall->duration > milliseconds(100));
  CHECK(f.worst_stall->duration < milliseconds(310));
  REQUIRE(f.sustained);
  CHECK_FALSE(f.sustained->after_write_cache);
  CHECK(f.sustained->from_bytes == 0);
  CHECK(static_cast<double>(f.sustained->timed.count()) ==
        Approx(static_cast<double>(disk.result.read_time.count())).epsilon(1e-9));
  REQUIRE(f.sustained->lowest);
  CHECK(f.sustained->lowest->mb_per_s < disk.result.avg_mb_per_s);
  CHECK(UnmetExpectations(ParseExpectations("worst-stall=310ms"), f).empty());
  CHECK(UnmetExpectations(ParseExpectations("worst-stall=100ms"), f).size() == 1);
}
