#include "zcav/measure/burst.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"

namespace {

zcav::BurstResult RunBurst(const std::string& spec, const zcav::BurstOptions& options = {},
                           const std::atomic<bool>* stop = nullptr) {
  zcav::VirtualClock clock;
  auto device = zcav::MakeSimulatedDevice(zcav::ParseSimSpec(spec), clock);
  return zcav::MeasureBurst(*device, clock, options, stop);
}

}  // namespace

TEST_CASE("Burst on the hdd model reads its cache at the SATA interface rate", "[burst]") {
  const zcav::BurstResult r = RunBurst("sim:hdd");
  CHECK(r.repetitions == 200);
  CHECK(r.avg_mb_per_s == Approx(150).epsilon(0.01));
  CHECK(r.min_mb_per_s <= r.avg_mb_per_s);
  CHECK(r.max_mb_per_s >= r.avg_mb_per_s);
  CHECK(r.min_mb_per_s > 140);
  CHECK(r.max_mb_per_s < 160);
  CHECK(r.cpu_percent == 0);
  CHECK_FALSE(r.error);
  CHECK_FALSE(r.interrupted);
  // Well above the 60 MB/s the media gives at the outer edge.
  CHECK(r.avg_mb_per_s > 2 * 60);
}

TEST_CASE("Burst on the usb2-hdd model is held to the bridge's 35 MB/s", "[burst]") {
  CHECK(RunBurst("sim:usb2-hdd").avg_mb_per_s == Approx(35).epsilon(0.01));
}

TEST_CASE("Burst on the ssd model, which has no cache, is its flash rate less one access",
          "[burst]") {
  // Each repetition reads 512 KiB at 530 MB/s after jumping back to offset
  // 0, which costs the model's fixed 0.05 ms.
  const double region_s = 512.0 * 1024 / 530e6;
  const double expected = 530 * region_s / (region_s + 0.05e-3);
  CHECK(expected == Approx(504.5).epsilon(0.001));
  CHECK(RunBurst("sim:ssd").avg_mb_per_s == Approx(expected).epsilon(0.01));
}

TEST_CASE("Burst on a disk without a cache is the outer media rate less a seek per repetition",
          "[burst]") {
  const zcav::SimModel m = zcav::ParseSimSpec("sim:hdd?cache=0&noise=0");
  const double region_s = 512.0 * 1024 / 60e6;
  // Back from 512 KiB to 0: the seek curve plus half a revolution on average
  // (200 uniform draws of [0, 8.33) ms average 4.17 +- 0.17 ms).
  const double access_s = (zcav::SeekMs(m, 512 * 1024) + zcav::MeanRotationalMs(m)) * 1e-3;
  const double expected = 60 * region_s / (region_s + access_s);
  const zcav::BurstResult r = RunBurst("sim:hdd?cache=0&noise=0");
  CHECK(r.avg_mb_per_s == Approx(expected).epsilon(0.03));
  CHECK(r.max_mb_per_s <= 60.0 * 1.0001);
}

TEST_CASE("Burst follows the model's interface rate", "[burst]") {
  CHECK(RunBurst("sim:hdd?interface=300").avg_mb_per_s == Approx(300).epsilon(0.01));
  CHECK(RunBurst("sim:dvd").avg_mb_per_s == Approx(33).epsilon(0.01));
}

TEST_CASE("Burst stops when asked to and counts only whole repetitions", "[burst]") {
  const std::atomic<bool> stop{true};
  const zcav::BurstResult r = RunBurst("sim:hdd", {}, &stop);
  CHECK(r.interrupted);
  CHECK(r.repetitions == 0);
  CHECK(r.avg_mb_per_s == 0);
}

TEST_CASE("A burst read error stops the test with its offset", "[burst]") {
  const zcav::BurstResult r = RunBurst("sim:hdd?bad=256k");
  CHECK(r.error == std::error_code(EIO, std::system_category()));
  CHECK(r.error_offset_bytes == 256 * zcav::kKiB);
  CHECK(r.repetitions == 0);
}

TEST_CASE("Burst rejects zero sizes, a chunk above the region and a region above the device",
          "[burst]") {
  zcav::VirtualClock clock;
  auto device = zcav::MakeSimulatedDevice(zcav::ParseSimSpec("sim:hdd?size=256k"), clock);
  zcav::BurstOptions o;
  CHECK_THROWS_AS(zcav::MeasureBurst(*device, clock, o), zcav::Error);  // 512 KiB > 256 KiB
  o.region_bytes = 128 * zcav::kKiB;
  CHECK_NOTHROW(zcav::MeasureBurst(*device, clock, o));
  o.chunk_bytes = 256 * zcav::kKiB;
  CHECK_THROWS_AS(zcav::MeasureBurst(*device, clock, o), zcav::Error);
  o.chunk_bytes = 0;
  CHECK_THROWS_AS(zcav::MeasureBurst(*device, clock, o), zcav::Error);
  o.chunk_bytes = 64 * zcav::kKiB;
  o.repetitions = 0;
  CHECK_THROWS_AS(zcav::MeasureBurst(*device, clock, o), zcav::Error);
}
