#include "zcav/measure/read_checks.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>

#include "zcav/base/clock.h"
#include "zcav/base/error.h"

namespace {

zcav::DeviceInfo SmallDevice() {
  zcav::DeviceInfo info;
  info.path = "/dev/small";
  info.size_bytes = 8192;
  return info;
}

}  // namespace

TEST_CASE("RequireSomeBytes refuses a size of 0 naming the option", "[read_checks]") {
  CHECK_NOTHROW(zcav::RequireSomeBytes({{1, "chunk size"}, {4096, "estimate size"}}));
  CHECK_NOTHROW(zcav::RequireSomeBytes({}));
  try {
    zcav::RequireSomeBytes({{1, "region size"}, {0, "chunk size"}, {0, "estimate size"}});
    FAIL("no error");
  } catch (const zcav::Error& e) {
    CHECK(std::string(e.what()) == "invalid chunk size 0: must be at least one sector");
    CHECK(e.kind() == zcav::ErrorKind::kBadInput);
  }
}

TEST_CASE("RequireFitsDevice refuses more bytes than the device holds", "[read_checks]") {
  const zcav::DeviceInfo info = SmallDevice();
  CHECK_NOTHROW(zcav::RequireFitsDevice(8192, info, "burst region"));
  try {
    zcav::RequireFitsDevice(8193, info, "burst region");
    FAIL("no error");
  } catch (const zcav::Error& e) {
    CHECK(std::string(e.what()).rfind("burst region ", 0) == 0);
    CHECK(std::string(e.what()).find(" is larger than /dev/small (") != std::string::npos);
    CHECK(e.kind() == zcav::ErrorKind::kBadInput);
  }
}

TEST_CASE("StopRequested reads the flag; null means no stop", "[read_checks]") {
  std::atomic<bool> stop{false};
  CHECK_FALSE(zcav::StopRequested(nullptr));
  CHECK_FALSE(zcav::StopRequested(&stop));
  stop = true;
  CHECK(zcav::StopRequested(&stop));
}

TEST_CASE("CpuMeter measures from its construction", "[read_checks]") {
  zcav::VirtualClock clock;
  clock.Advance(std::chrono::seconds(5));
  const zcav::CpuMeter cpu(clock);
  CHECK(cpu.wall_start() == std::chrono::seconds(5));
  CHECK(cpu.Percent() == 0);  // no wall time yet
  clock.Advance(std::chrono::seconds(1));
  CHECK(cpu.Percent() == 0);  // a virtual clock reports no CPU time
}

namespace {

// A clock whose CPU time is set by hand.
class CpuClock final : public zcav::Clock {
 public:
  std::chrono::nanoseconds Now() override { return now; }
  std::chrono::nanoseconds ProcessCpuTime() override { return cpu; }
  std::chrono::nanoseconds now{0};
  std::chrono::nanoseconds cpu{0};
};

}  // namespace

TEST_CASE("CpuMeter gives the CPU share of the wall time since construction", "[read_checks]") {
  CpuClock clock;
  clock.now = std::chrono::seconds(10);
  clock.cpu = std::chrono::seconds(3);
  const zcav::CpuMeter cpu(clock);
  clock.now += std::chrono::seconds(2);
  clock.cpu += std::chrono::seconds(1);
  CHECK(cpu.Percent() == Approx(50));
}
