// Tests of the sweep-duration estimate: the start rate on simulated devices
// (virtual clock) and the plan arithmetic.
#include "zcav/measure/estimate.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/measure/sweep.h"

namespace zcav {
namespace {

StartRate Measure(const std::string& spec, const StartRateOptions& options = {},
                  const std::atomic<bool>* stop = nullptr) {
  VirtualClock clock;
  auto device = MakeSimulatedDevice(ParseSimSpec(spec), clock);
  return MeasureStartRate(*device, clock, options, stop);
}

TEST_CASE("The start rate of the hdd model is its outer zone's, cut off after 2 s", "[estimate]") {
  const StartRate r = Measure("sim:hdd?noise=0");
  CHECK(r.mb_per_s == Approx(60).epsilon(0.001));
  // 60 MB/s for 2 s is 120 MB, well under 256 MiB: the time limit ends it,
  // within one 1 MiB chunk (17.5 ms at 60 MB/s).
  CHECK(r.time >= std::chrono::seconds(2));
  CHECK(r.time < std::chrono::milliseconds(2020));
  CHECK(r.bytes < 256 * kMiB);
  CHECK(r.bytes % kMiB == 0);
  CHECK_FALSE(r.error);
  CHECK_FALSE(r.interrupted);
}

TEST_CASE("The start rate of a fast device stops after 256 MiB", "[estimate]") {
  const StartRate r = Measure("sim:ssd?noise=0");
  CHECK(r.bytes == 256 * kMiB);
  CHECK(r.time < std::chrono::seconds(1));
  CHECK(r.mb_per_s == Approx(530).epsilon(0.001));
}

TEST_CASE("The start rate stops at the end of a small device; the first chunk is untimed",
          "[estimate]") {
  const StartRate r = Measure("sim:ssd?size=10M&noise=0");
  CHECK(r.bytes == 9 * kMiB);
  StartRateOptions odd;
  odd.chunk_bytes = 3 * kMiB;
  // 10 MiB: 3 untimed, then 3 + 3 + the last 1.
  CHECK(Measure("sim:ssd?size=10M", odd).bytes == 7 * kMiB);
}

TEST_CASE("A read error stops the start rate and keeps what was timed before it", "[estimate]") {
  const StartRate r = Measure("sim:hdd?bad=5M+1M&noise=0");
  REQUIRE(r.error);
  CHECK(r.error_offset_bytes == 5 * kMiB);
  CHECK(r.bytes == 4 * kMiB);  // chunks 1..4 after the untimed chunk 0
  CHECK(r.mb_per_s == Approx(60).epsilon(0.001));
  const StartRate at_start = Measure("sim:hdd?bad=0+4096");
  CHECK(at_start.error);
  CHECK(at_start.bytes == 0);
  CHECK(at_start.mb_per_s == 0);
}

TEST_CASE("With reads in flight the start rate stops at the first failing read", "[estimate]") {
  StartRateOptions queued;
  queued.queue_depth = 4;  // a simulated device's queue takes one at a time
  const StartRate r = Measure("sim:hdd?bad=5M+1M&noise=0", queued);
  REQUIRE(r.error);
  CHECK(r.error_offset_bytes == 5 * kMiB);
  CHECK(r.bytes == 4 * kMiB);
  CHECK(r.mb_per_s == Approx(60).epsilon(0.001));
  CHECK(Measure("sim:ssd?noise=0", queued).bytes == 256 * kMiB);
}

TEST_CASE("The block estimate reads at most 1/16 of a small range", "[estimate]") {
  DeviceInfo small;
  small.path = "small";
  small.size_bytes = 192 * kMiB;
  small.read_engine = "io_uring";
  small.default_queue_depth = 4;
  const StartRateOptions o = BlockEstimateOptions(PlanSweep(small, {}));
  CHECK(o.max_bytes == 12 * kMiB);
  CHECK(o.max_time == kBlockEstimateTime);
  CHECK(o.queue_depth * o.chunk_bytes <= 4 * kMiB);
}

TEST_CASE("A stop request ends the start rate before the next chunk", "[estimate]") {
  std::atomic<bool> stop{true};
  const StartRate r = Measure("sim:hdd", {}, &stop);
  CHECK(r.interrupted);
  CHECK(r.bytes == 0);
  CHECK(r.mb_per_s == 0);
}

TEST_CASE("The start rate refuses a zero chunk or size and a start beyond the end", "[estimate]") {
  StartRateOptions zero_chunk;
  zero_chunk.chunk_bytes = 0;
  CHECK_THROWS_AS(Measure("sim:hdd", zero_chunk), Error);
  StartRateOptions zero_bytes;
  zero_bytes.max_bytes = 0;
  CHECK_THROWS_AS(Measure("sim:hdd", zero_bytes), Error);
  StartRateOptions beyond;
  beyond.start_bytes = 20 * kMiB;
  CHECK_THROWS_AS(Measure("sim:hdd?size=10M", beyond), Error);
}

TEST_CASE("The estimate is passes x bytes per pass / rate", "[estimate]") {
  DeviceInfo disk;
  disk.path = "disk";
  disk.size_bytes = 250'000'000'000;
  SweepOptions full;
  const SweepPlan plan = PlanSweep(disk, full);
  CHECK(PlanBytesPerPass(plan) == disk.size_bytes);
  CHECK(EstimateSweepSeconds(plan, 50) == Approx(5000));
  full.passes = 3;
  CHECK(EstimateSweepSeconds(PlanSweep(disk, full), 50) == Approx(15000));
  CHECK(EstimateSweepSeconds(plan, 0) == 0);

  // Quick reads a tenth; every 10th block of 100 MiB over 1000 MiB + 4 KiB
  // reads blocks 0 and 10 (the trailing 4 KiB block).
  SweepOptions quick;
  quick.quick = true;
  const SweepPlan q = PlanSweep(disk, quick);
  CHECK(static_cast<double>(PlanBytesPerPass(q)) ==
        Approx(static_cast<double>(disk.size_bytes) / 10.0).epsilon(0.01));
  DeviceInfo small;
  small.path = "small";
  small.size_bytes = 1000 * kMiB + 4096;
  SweepOptions every_10th;
  every_10th.block_bytes = 100 * kMiB;
  every_10th.quick = true;
  const SweepPlan s = PlanSweep(small, every_10th);
  REQUIRE(s.block_count == 2);
  CHECK(PlanBytesPerPass(s) == 100 * kMiB + 4096);
}

}  // namespace
}  // namespace zcav
