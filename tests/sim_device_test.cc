#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "zcav/aligned_buffer.h"
#include "zcav/clock.h"
#include "zcav/error.h"
#include "zcav/sim_device.h"
#include "zcav/units.h"

using namespace std::chrono_literals;

TEST_CASE("The hdd model is a 16-zone disk about 2:1 from outer to inner", "[sim_device]") {
  const zcav::SimModel m = zcav::ParseSimSpec("sim:hdd");
  REQUIRE(m.zones.size() == 16);
  CHECK(m.zones.front().start_frac == 0.0);
  CHECK(m.zones.back().end_frac == 1.0);
  const double ratio = m.zones.front().mb_per_s / m.zones.back().mb_per_s;
  CHECK(ratio > 1.8);
  CHECK(ratio < 2.2);
  for (std::size_t i = 1; i < m.zones.size(); ++i) {
    CHECK(m.zones[i].start_frac == Approx(m.zones[i - 1].end_frac));
    CHECK(m.zones[i].mb_per_s < m.zones[i - 1].mb_per_s);
  }
  CHECK(m.info.rotational == true);
}

TEST_CASE("The usb2-hdd model is capped flat by its bus over the outer zones", "[sim_device]") {
  const zcav::SimModel m = zcav::ParseSimSpec("sim:usb2-hdd?noise=0");
  const std::uint64_t size = m.info.size_bytes;
  CHECK(zcav::ExpectedMbPerS(m, 0, zcav::kMiB) == Approx(35.0));
  CHECK(zcav::ExpectedMbPerS(m, size / 4, zcav::kMiB) == Approx(35.0));
  CHECK(zcav::ExpectedMbPerS(m, size - zcav::kMiB, zcav::kMiB) == Approx(30.0));
}

TEST_CASE("Optical CAV models rise with the square of the rate linear in position",
          "[sim_device]") {
  for (const char* name : {"sim:cd", "sim:dvd"}) {
    CAPTURE(name);
    const zcav::SimModel m = zcav::ParseSimSpec(name);
    REQUIRE(m.cav);
    CHECK(m.info.sector_bytes == 2048);
    const std::uint64_t size = m.info.size_bytes;
    const std::uint64_t len = 2048 * 16;
    const double r0 = zcav::ExpectedMbPerS(m, 0, len);
    const double r_mid = zcav::ExpectedMbPerS(m, size / 2 - len / 2, len);
    const double r1 = zcav::ExpectedMbPerS(m, size - len, len);
    CHECK(r0 < r_mid);
    CHECK(r_mid < r1);
    // rate^2 is linear in position: the middle one is the mean of the ends.
    CHECK(r_mid * r_mid == Approx((r0 * r0 + r1 * r1) / 2).epsilon(0.002));
  }
  const zcav::SimModel cd = zcav::ParseSimSpec("sim:cd");
  CHECK(zcav::ExpectedMbPerS(cd, cd.info.size_bytes - 2048, 2048) ==
        Approx(40 * 153600 / 1e6).epsilon(0.001));
  const zcav::SimModel dvd = zcav::ParseSimSpec("sim:dvd");
  CHECK(zcav::ExpectedMbPerS(dvd, dvd.info.size_bytes - 2048, 2048) ==
        Approx(16 * 1.385).epsilon(0.001));
}

TEST_CASE("The ssd model is flat", "[sim_device]") {
  const zcav::SimModel m = zcav::ParseSimSpec("sim:ssd");
  CHECK(zcav::ExpectedMbPerS(m, 0, zcav::kMiB) ==
        Approx(zcav::ExpectedMbPerS(m, m.info.size_bytes - zcav::kMiB, zcav::kMiB)));
  CHECK(m.info.rotational == false);
}

TEST_CASE("sim: parameters set size, seed, noise, rates and zones", "[sim_device]") {
  const zcav::SimModel m =
      zcav::ParseSimSpec("sim:hdd?size=2T&seed=7&noise=0.5%&outer=250&inner=100&zones=20");
  CHECK(m.info.size_bytes == 2ULL << 40);
  CHECK(m.seed == 7);
  CHECK(m.noise == Approx(0.005));
  CHECK(m.zones.size() == 20);
  CHECK(m.zones.front().mb_per_s == Approx(250));
  CHECK(m.zones.back().mb_per_s == Approx(100));
  CHECK(m.info.path == "sim:hdd?size=2T&seed=7&noise=0.5%&outer=250&inner=100&zones=20");
}

TEST_CASE("Unknown sim models, keys and bad values are rejected", "[sim_device]") {
  for (const char* bad : {"sim:floppy", "sim:", "sim:hdd?colour=red", "sim:hdd?size=abc",
                          "sim:hdd?noise=-1", "sim:hdd?zones=0", "sim:hdd?seed", "sim:cd?zones=4",
                          "sim:hdd?outer=0", "sim:hdd?size=1G&size=2G"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(zcav::ParseSimSpec(bad), zcav::Error);
  }
  try {
    zcav::ParseSimSpec("sim:floppy");
  } catch (const zcav::Error& e) {
    CHECK(std::string(e.what()).find("hdd, usb2-hdd, cd, dvd, ssd") != std::string::npos);
  }
}

TEST_CASE("A simulated read advances the virtual clock by the modelled time", "[sim_device]") {
  zcav::VirtualClock clock;
  const zcav::SimModel m = zcav::ParseSimSpec("sim:ssd?noise=0");
  auto dev = zcav::MakeSimulatedDevice(m, clock);
  zcav::AlignedBuffer buf(zcav::kMiB, 4096);
  REQUIRE_FALSE(dev->ReadAt(0, buf.span(zcav::kMiB)));
  const double seconds = static_cast<double>(clock.Now().count()) * 1e-9;
  CHECK(seconds == Approx(static_cast<double>(zcav::kMiB) / 530e6).epsilon(1e-6));
  CHECK(clock.StorageReadBytes() == zcav::kMiB);
  CHECK(dev->ReadAt(m.info.size_bytes, buf.span(512)));  // past the end: an error
}

TEST_CASE("Simulated noise is deterministic for a seed", "[sim_device]") {
  const auto times = [](const std::string& spec) {
    zcav::VirtualClock clock;
    auto dev = zcav::MakeSimulatedDevice(zcav::ParseSimSpec(spec), clock);
    zcav::AlignedBuffer buf(zcav::kMiB, 4096);
    std::vector<std::int64_t> out;
    for (int i = 0; i < 5; ++i) {
      const auto before = clock.Now();
      (void)dev->ReadAt(static_cast<std::uint64_t>(i) * zcav::kMiB, buf.span(zcav::kMiB));
      out.push_back((clock.Now() - before).count());
    }
    return out;
  };
  CHECK(times("sim:hdd?seed=3&noise=2%") == times("sim:hdd?seed=3&noise=2%"));
  CHECK(times("sim:hdd?seed=3&noise=2%") != times("sim:hdd?seed=4&noise=2%"));
}

TEST_CASE("Reads touching an injected bad range fail with EIO", "[sim_device]") {
  zcav::VirtualClock clock;
  auto dev = zcav::MakeSimulatedDevice(zcav::ParseSimSpec("sim:hdd?bad=10M+4k"), clock);
  zcav::AlignedBuffer buf(zcav::kMiB, 4096);
  CHECK_FALSE(dev->ReadAt(9 * zcav::kMiB, buf.span(zcav::kMiB)));
  const std::error_code ec = dev->ReadAt(10 * zcav::kMiB, buf.span(zcav::kMiB));
  CHECK(ec == std::error_code(EIO, std::system_category()));
  CHECK_FALSE(dev->ReadAt(11 * zcav::kMiB, buf.span(zcav::kMiB)));
}
