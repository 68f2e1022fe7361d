#include "zcav/analysis/thermal.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "writer_fixture.h"
#include "zcav/analysis/health.h"
#include "zcav/base/clock.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"
#include "zcav/device/sim_device.h"
#include "zcav/format/data_reader.h"
#include "zcav/format/writers.h"

namespace zcav {
namespace {

constexpr std::uint64_t kBlock = 256'000'000;
constexpr std::uint64_t kBlocks = 400;  // 102.4 GB

// A sweep of `passes` passes of kBlocks blocks read back to back, each block
// at rate(pass, block) MB/s; the temperature read every 5 s from
// celsius(seconds).
struct Run {
  std::vector<std::vector<RateStretch>> passes;
  std::vector<TemperatureReading> readings;
};

Run Sweep(std::uint32_t passes, const std::function<double(std::uint32_t, std::uint64_t)>& rate,
          const std::function<double(double)>& celsius) {
  RateTimeline timeline;
  Run run;
  double t = 0;
  double next_reading = 0;
  for (std::uint32_t p = 0; p < passes; ++p) {
    for (std::uint64_t b = 0; b < kBlocks; ++b) {
      if (t >= next_reading) {
        run.readings.push_back({t, b * kBlock, celsius(t), p});
        next_reading += 5;
      }
      const double seconds = static_cast<double>(kBlock) / kMB / rate(p, b);
      timeline.Add(p, t, b * kBlock, kBlock, seconds);
      t += seconds;
    }
  }
  run.passes = timeline.Passes();
  return run;
}

// Throttles to 1200 MB/s after 11.9 s of reading at 3000 MB/s (block 140
// of pass 1) and stays throttled; 40 C rising to 80 C at 12 s.
double Throttled(std::uint32_t pass, std::uint64_t block) {
  return pass == 0 && block < 140 ? 3000 : 1200;
}
double Warming(double seconds) { return 40 + 40 * std::min(seconds / 12, 1.0); }

TEST_CASE("RateTimeline keeps at most kMaxStretches a pass, merging neighbours", "[thermal]") {
  RateTimeline timeline;
  const std::uint64_t n = 3 * RateTimeline::kMaxStretches + 5;
  for (std::uint64_t i = 0; i < n; ++i)
    timeline.Add(0, static_cast<double>(i), i * kMiB, kMiB, 0.01);
  timeline.Add(1, 0, 0, kMiB, 0.01);
  const auto passes = timeline.Passes();
  REQUIRE(passes.size() == 2);
  CHECK(passes[0].size() <= RateTimeline::kMaxStretches);
  CHECK(passes[0].size() > RateTimeline::kMaxStretches / 2);
  std::uint64_t bytes = 0;
  double seconds = 0;
  for (const RateStretch& s : passes[0]) {
    CHECK(s.offset_bytes == bytes);  // contiguous, in order
    bytes += s.length_bytes;
    seconds += s.read_seconds;
  }
  CHECK(bytes == n * kMiB);
  CHECK(seconds == Approx(static_cast<double>(n) * 0.01));
  CHECK(passes[1].size() == 1);
}

TEST_CASE("A drop while the drive warms is found; one pass cannot tell it from a zone",
          "[thermal]") {
  const Run run = Sweep(1, Throttled, Warming);
  const std::vector<ThermalDrop> drops = FindThermalDrops(run.passes, run.readings);
  REQUIRE(drops.size() == 1);
  const ThermalDrop& d = drops.front();
  CHECK(d.pass == 0);
  CHECK(d.offset_bytes == 140 * kBlock);
  CHECK(d.before_mb_per_s == Approx(3000));
  CHECK(d.after_mb_per_s == Approx(1200));
  CHECK(d.from_c == Approx(40));
  CHECK(d.to_c == Approx(80));
  CHECK(d.seconds == Approx(140 * 256.0 / 3000));
  CHECK_FALSE(d.time_effect.has_value());
}

TEST_CASE("Other passes reading the same place without the drop make it a time effect",
          "[thermal]") {
  const Run run = Sweep(3, Throttled, Warming);
  const std::vector<ThermalDrop> drops = FindThermalDrops(run.passes, run.readings);
  REQUIRE(drops.size() == 1);
  CHECK(drops[0].pass == 0);
  REQUIRE(drops[0].time_effect.has_value());
  CHECK(*drops[0].time_effect);
}

TEST_CASE("Zone edges are not thermal drops", "[thermal]") {
  const auto warming_slowly = [](double seconds) { return 35 + seconds / 20; };
  SECTION("a 16-zone disk, outer to inner 2:1, while it warms 35 -> 50 C") {
    const auto zones = [](std::uint32_t, std::uint64_t b) {
      return 250.0 * std::pow(0.5, static_cast<double>(b * 16 / kBlocks) / 15);
    };
    const Run run = Sweep(1, zones, warming_slowly);
    CHECK(run.readings.back().celsius - run.readings.front().celsius > 15);
    CHECK(FindThermalDrops(run.passes, run.readings).empty());
  }
  SECTION("a 40 % step at the same place in both passes") {
    const auto step = [](std::uint32_t, std::uint64_t b) { return b < 200 ? 500.0 : 300.0; };
    const Run run = Sweep(2, step, warming_slowly);
    CHECK(FindThermalDrops(run.passes, run.readings).empty());
  }
}

TEST_CASE("A drop without a temperature rise of 5 C is not thermal", "[thermal]") {
  const Run flat = Sweep(2, Throttled, [](double seconds) { return 45 + seconds / 100; });
  CHECK(FindThermalDrops(flat.passes, flat.readings).empty());
  CHECK(FindThermalDrops(Sweep(2, Throttled, Warming).passes, {}).empty());
}

TEST_CASE("AssessHealth: throttling is suspect; an undecided drop is listed only", "[thermal]") {
  HealthInputs in;
  in.device_bytes = kBlocks * kBlock;
  in.rotational = false;
  in.latency.chunk_bytes = kMiB;
  in.latency.chunks = {1000, 0, 0, 0, 0, 0};
  ThermalDrop d;
  d.offset_bytes = 140 * kBlock;
  d.seconds = 12;
  d.before_mb_per_s = 3000;
  d.after_mb_per_s = 1200;
  d.from_c = 40;
  d.to_c = 64;
  in.thermal_drops = {d};
  const std::string drop =
      "throughput fell 60 % (3000.0 -> 1200.0 MB/s) at 35.840 GB (35.0 %) in pass 1, 12 s into "
      "the run, while the drive warmed from 40 C to 64 C";
  Health h = AssessHealth(in);
  CHECK(h.verdict == HealthVerdict::kGood);
  REQUIRE_FALSE(h.reasons.empty());
  CHECK(h.reasons.back() == drop +
                                "; no other pass read there, so it cannot be told from a zone "
                                "edge (read 2 passes to tell)");
  in.thermal_drops[0].time_effect = true;
  h = AssessHealth(in);
  CHECK(h.verdict == HealthVerdict::kSuspect);
  REQUIRE(h.reasons.size() == 1);
  CHECK(h.reasons[0] ==
        drop + "; the other passes read there without the drop: thermal throttling, not a zone");
}

TEST_CASE("The simulated throttling drive warms from 40 C to 80 C; others have no temperature",
          "[thermal][sim]") {
  VirtualClock clock;
  const std::unique_ptr<Device> nvme = OpenDevice("sim:nvme-throttle?size=200G", clock);
  REQUIRE(nvme->TemperatureC().has_value());
  CHECK(*nvme->TemperatureC() == Approx(kCoolC));
  std::vector<std::byte> buffer(64 * kMiB);
  std::uint64_t offset = 0;
  // 15 s of reading at 3000 MB/s: half way to throttling.
  while (offset < 45'000'000'000ULL) {
    REQUIRE_FALSE(nvme->ReadAt(offset, buffer));
    offset += buffer.size();
  }
  CHECK(*nvme->TemperatureC() == Approx((kCoolC + kThrottleC) / 2).epsilon(0.02));
  while (offset < 100'000'000'000ULL) {
    REQUIRE_FALSE(nvme->ReadAt(offset, buffer));
    offset += buffer.size();
  }
  CHECK(*nvme->TemperatureC() == Approx(kThrottleC));
  const std::unique_ptr<Device> hdd = OpenDevice("sim:hdd?size=1G", clock);
  CHECK_FALSE(hdd->TemperatureC().has_value());
}

TEST_CASE("Temperatures and thermal drops go through the raw and JSON files and back",
          "[thermal][data_reader]") {
  HealthReport h;
  h.temperatures = {{0, 0, 40.5, 0}, {5, 2 * kGiB, 61.25, 0}, {10, kGiB, 80, 1}};
  h.temperature_source = "hwmon";
  ThermalDrop d;
  d.pass = 0;
  d.offset_bytes = 3 * kGiB;
  d.seconds = 7.5;
  d.before_mb_per_s = 3000;
  d.after_mb_per_s = 1200;
  d.from_c = 40.5;
  d.to_c = 80;
  d.time_effect = true;
  h.thermal_drops = {d};
  for (const OutputFormat format : {OutputFormat::kRaw, OutputFormat::kJson}) {
    CAPTURE(static_cast<int>(format));
    std::stringstream out;
    {
      const std::unique_ptr<ResultSink> writer = MakeWriter(format, out, false);
      const test::WriterRun w = test::CompleteRun();
      writer->OnStart(w.run);
      for (const BlockResult& b : w.blocks) writer->OnBlock(b);
      writer->OnHealth(h);
      writer->OnFinish(w.result);
    }
    const SavedResult p = ParseProfile(out, "t");
    REQUIRE(p.temperatures.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) {
      CHECK(p.temperatures[i].seconds == Approx(h.temperatures[i].seconds));
      CHECK(p.temperatures[i].offset_bytes == h.temperatures[i].offset_bytes);
      CHECK(p.temperatures[i].celsius == Approx(h.temperatures[i].celsius).margin(0.05));
      CHECK(p.temperatures[i].pass == h.temperatures[i].pass);
    }
    if (format == OutputFormat::kJson) {
      const std::string text = out.str();
      CHECK(text.find("\"thermal_drops\":[{\"pass\":1,\"offset_bytes\":3221225472,\"seconds\":7.5,"
                      "\"before_mb_per_s\":3000.0,\"after_mb_per_s\":1200.0,\"from_celsius\":40.5,"
                      "\"to_celsius\":80.0,\"time_effect\":true}]") != std::string::npos);
    }
  }
}

}  // namespace
}  // namespace zcav
