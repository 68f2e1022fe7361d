#include "zcav/analysis/health.h"

#include <catch2/catch.hpp>
#include <string>

#include "zcav/base/units.h"
#include "zcav/pipeline/health_sink.h"

namespace zcav {
namespace {

// A clean run: 1000 chunks of 1 MiB, all under 20 ms.
HealthInputs Clean() {
  HealthInputs in;
  in.device_bytes = 1000 * kMiB;
  in.rotational = true;
  in.latency.chunk_bytes = kMiB;
  in.latency.chunks = {900, 100, 0, 0, 0, 0};
  return in;
}

SmartSnapshot Smart(std::uint64_t reallocated, std::uint64_t pending, std::uint64_t crc) {
  SmartSnapshot s;
  s.available = true;
  s.protocol = "ATA";
  s.passed = true;
  s.temperature_c = 35;
  s.reallocated_sectors = reallocated;
  s.pending_sectors = pending;
  s.crc_errors = crc;
  return s;
}

bool Mentions(const Health& h, const std::string& text) {
  for (const std::string& r : h.reasons) {
    if (r.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("A clean run is good and says what was checked", "[health]") {
  const Health h = AssessHealth(Clean());
  CHECK(h.verdict == HealthVerdict::kGood);
  CHECK(std::string(HealthVerdictName(h.verdict)) == "good");
  CHECK(Mentions(h, "no unreadable sectors and no slow regions in 1000 chunks"));
  CHECK(Mentions(h, "slowest chunk class: < 20 ms"));
}

TEST_CASE("Unreadable ranges make a run failing, with their positions", "[health]") {
  HealthInputs in = Clean();
  in.unreadable = {{500 * kMiB, 4096, 5, 0, false}, {700 * kMiB, 8192, 5, 0, false}};
  const Health h = AssessHealth(in);
  CHECK(h.verdict == HealthVerdict::kFailing);
  REQUIRE_FALSE(h.reasons.empty());
  CHECK(h.reasons[0].find("2 unreadable ranges (12288 bytes)") != std::string::npos);
  CHECK(h.reasons[0].find("at 0.524 GB (50.0 %, 4 KiB), 0.734 GB (70.0 %, 8 KiB)") !=
        std::string::npos);  // 500 and 700 MiB
}

TEST_CASE("Slow regions and chunks of 500 ms or more make a run suspect", "[health]") {
  HealthInputs in = Clean();
  SECTION("a slow region") {
    in.slow_regions = {{300 * kMiB, 2 * kMiB, 0, 600, 20}};
    const Health h = AssessHealth(in);
    CHECK(h.verdict == HealthVerdict::kSuspect);
    CHECK(
        Mentions(h, "1 slow region at 0.315 GB (30.0 %, 2 MiB): 600 ms where 20 ms was expected"));
  }
  SECTION("the same place found in three passes is one region") {
    in.slow_regions = {{300 * kMiB, 2 * kMiB, 0, 600, 20},
                       {301 * kMiB, 1 * kMiB, 1, 650, 20},
                       {300 * kMiB, 2 * kMiB, 2, 610, 20}};
    CHECK(Mentions(AssessHealth(in),
                   "1 slow region at 0.315 GB (30.0 %, 2 MiB): 650 ms where 20 "
                   "ms was expected (in 3 passes)"));
  }
  SECTION("a very slow chunk") {
    in.latency.chunks[5] = 3;
    const Health h = AssessHealth(in);
    CHECK(h.verdict == HealthVerdict::kSuspect);
    CHECK(Mentions(h, "3 chunks of 1003 took 500 ms or more"));
  }
  SECTION("chunks under 500 ms are not enough") {
    in.latency.chunks[4] = 3;
    CHECK(AssessHealth(in).verdict == HealthVerdict::kGood);
  }
  SECTION("failing wins, and its reasons come first") {
    in.slow_regions = {{300 * kMiB, 2 * kMiB, 0, 600, 20}};
    in.unreadable = {{500 * kMiB, 4096, 5, 0, false}};
    const Health h = AssessHealth(in);
    CHECK(h.verdict == HealthVerdict::kFailing);
    REQUIRE(h.reasons.size() == 2);
    CHECK(h.reasons[0].find("unreadable") != std::string::npos);
    CHECK(h.reasons[1].find("slow region") != std::string::npos);
  }
}

TEST_CASE("SMART counters that grow during the run are named", "[health][smart]") {
  HealthInputs in = Clean();
  in.smart_before = Smart(0, 0, 0);
  SECTION("new reallocated sectors: failing") {
    in.smart_after = Smart(8, 0, 0);
    const Health h = AssessHealth(in);
    CHECK(h.verdict == HealthVerdict::kFailing);
    CHECK(Mentions(h, "SMART reallocated_sectors grew during the run: 0 -> 8"));
  }
  SECTION("new CRC errors: suspect, the cable") {
    in.smart_after = Smart(0, 0, 4);
    const Health h = AssessHealth(in);
    CHECK(h.verdict == HealthVerdict::kSuspect);
    CHECK(Mentions(h, "crc_errors grew during the run: 0 -> 4 (the cable or the bus)"));
  }
  SECTION("nothing grew: good, and it says so") {
    in.smart_after = Smart(0, 0, 0);
    const Health h = AssessHealth(in);
    CHECK(h.verdict == HealthVerdict::kGood);
    CHECK(Mentions(h, "SMART: no error counter grew"));
  }
  SECTION("pending sectors before the run: suspect") {
    in.smart_before = Smart(0, 2, 0);
    in.smart_after = Smart(0, 2, 0);
    const Health h = AssessHealth(in);
    CHECK(h.verdict == HealthVerdict::kSuspect);
    CHECK(Mentions(h, "SMART pending_sectors 2 before the run"));
  }
  SECTION("the drive's own assessment failed: failing") {
    in.smart_after = Smart(0, 0, 0);
    in.smart_after.passed = false;
    CHECK(AssessHealth(in).verdict == HealthVerdict::kFailing);
  }
  SECTION("no SMART: judged on the reads alone") {
    in.smart_before = SmartSnapshot{};
    in.smart_before.note = "smartctl not found";
    in.smart_after = in.smart_before;
    CHECK(AssessHealth(in).verdict == HealthVerdict::kGood);
  }
}

TEST_CASE("A hot drive is suspect; the limit depends on rotation", "[health]") {
  HealthInputs in = Clean();
  in.max_temperature_c = 62;
  CHECK(AssessHealth(in).verdict == HealthVerdict::kSuspect);
  CHECK(Mentions(AssessHealth(in), "temperature reached 62 C (limit 60 C for a rotating drive)"));
  in.rotational = false;
  CHECK(AssessHealth(in).verdict == HealthVerdict::kGood);
  in.max_temperature_c = 71;
  CHECK(AssessHealth(in).verdict == HealthVerdict::kSuspect);
}

// Records what reaches the sinks behind a HealthSink.
class Recorder final : public ResultSink {
 public:
  void OnHealth(const HealthReport& r) override {
    report = r;
    health_before_finish = !finished;
  }
  void OnFinish(const SweepResult&) override { finished = true; }
  HealthReport report;
  bool finished = false;
  bool health_before_finish = false;
};

TEST_CASE("HealthSink reads SMART at both ends and temperature on the clock", "[health]") {
  Recorder recorder;
  int smart_reads = 0;
  double celsius = 40;
  HealthSources sources;
  sources.smart = [&] {
    ++smart_reads;
    return Smart(smart_reads == 1 ? 0 : 5, 0, 0);
  };
  sources.temperature = [&]() -> std::optional<double> { return celsius += 1; };
  sources.temperature_source = "hwmon";
  sources.temperature_every = std::chrono::seconds(60);
  HealthSink sink(recorder, sources);
  RunInfo run;
  run.device.size_bytes = 1000 * kMiB;
  sink.OnStart(run);
  CHECK(smart_reads == 1);
  // A block every 10 s for 200 s: readings at 0, 60, 120, 180 s, then one at the end.
  for (int i = 0; i < 20; ++i) {
    Sample x;
    x.block_index = static_cast<std::uint64_t>(i);
    x.offset_bytes = static_cast<std::uint64_t>(i) * 50 * kMiB;
    x.length_bytes = 50 * kMiB;
    x.started_at = std::chrono::seconds(10 * i);
    sink.OnSample(x);
  }
  SweepResult r;
  r.wall_seconds = 200;
  sink.OnFinish(r);
  CHECK(smart_reads == 2);
  CHECK(recorder.finished);
  CHECK(recorder.health_before_finish);
  const HealthReport& h = recorder.report;
  CHECK(h.smart_requested);
  REQUIRE(h.smart_increases.size() == 1);
  CHECK(h.smart_increases[0].field == "reallocated_sectors");
  CHECK(h.health.verdict == HealthVerdict::kFailing);
  REQUIRE(h.temperatures.size() == 5);
  CHECK(h.temperatures[1].seconds == Approx(60));
  CHECK(h.temperatures[1].offset_bytes == 6 * 50 * kMiB);
  CHECK(h.temperatures[4].seconds == Approx(200));
  CHECK(h.temperatures[4].celsius == 45);
  CHECK(h.temperature_source == "hwmon");
}

TEST_CASE("HealthSink without sources still concludes from the reads", "[health]") {
  Recorder recorder;
  HealthSink sink(recorder, HealthSources{});
  sink.OnStart(RunInfo{});
  SweepResult r;
  r.unreadable = {{0, 512, 5, 0, false}};
  sink.OnFinish(r);
  CHECK_FALSE(recorder.report.smart_requested);
  CHECK(recorder.report.temperatures.empty());
  CHECK(recorder.report.health.verdict == HealthVerdict::kFailing);
}

}  // namespace
}  // namespace zcav
