#include <catch2/catch.hpp>
#include <cmath>
#include <random>
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

TEST_CASE("The seek curve runs from track-to-track to full stroke as the root of the distance",
          "[sim_device]") {
  const zcav::SimModel hdd = zcav::ParseSimSpec("sim:hdd");
  const std::uint64_t size = hdd.info.size_bytes;
  CHECK(zcav::SeekMs(hdd, 0) == Approx(1));
  CHECK(zcav::SeekMs(hdd, size) == Approx(18));
  CHECK(zcav::SeekMs(hdd, size / 4) == Approx(1 + 17 * 0.5).epsilon(1e-6));
  CHECK(zcav::MeanRotationalMs(hdd) == Approx(60e3 / 7200 / 2));
  const zcav::SimModel ssd = zcav::ParseSimSpec("sim:ssd");
  CHECK(zcav::SeekMs(ssd, 0) == Approx(0.05));
  CHECK(zcav::SeekMs(ssd, ssd.info.size_bytes) == Approx(0.05));
  CHECK(zcav::MeanRotationalMs(ssd) == 0);
  const zcav::SimModel cd = zcav::ParseSimSpec("sim:cd");
  CHECK(zcav::SeekMs(cd, cd.info.size_bytes / 2) > 80);
  const zcav::SimModel still = zcav::ParseSimSpec("sim:hdd?seek=0");
  CHECK(zcav::SeekMs(still, size) == 0);
  CHECK(zcav::MeanRotationalMs(still) == 0);
  CHECK(zcav::SeekMs(zcav::ParseSimSpec("sim:hdd?seek=30"), size) == Approx(30));
}

TEST_CASE("Random reads on the hdd model pay the seek curve plus half a revolution on average",
          "[sim_device]") {
  zcav::VirtualClock clock;
  const zcav::SimModel m = zcav::ParseSimSpec("sim:hdd?noise=0");
  auto dev = zcav::MakeSimulatedDevice(m, clock);
  zcav::AlignedBuffer buf(4096, 4096);
  const std::uint64_t seed = 42;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::uint64_t> pick(0, m.info.size_bytes / 4096 - 1);
  std::uint64_t head = 0;
  double positioning_ms = 0, model_ms = 0;
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t offset = pick(rng) * 4096;
    const auto before = clock.Now();
    REQUIRE_FALSE(dev->ReadAt(offset, buf.span(4096)));
    const double ms = static_cast<double>((clock.Now() - before).count()) * 1e-6;
    positioning_ms += ms - 4096 / (zcav::ExpectedMbPerS(m, offset, 4096) * 1e3);
    model_ms += zcav::SeekMs(m, offset > head ? offset - head : head - offset) + 60e3 / 7200 / 2;
    head = offset + 4096;
  }
  // The rotational latency is uniform in [0, 8.33) ms: its mean over 3000
  // reads is within 0.1 ms of 4.17 ms, so the totals agree to about 1 %.
  CHECK(positioning_ms / n == Approx(model_ms / n).epsilon(0.02));
  // Uniform positions: E[sqrt(|U1 - U2|)] = 8/15 (see access_test.cc).
  CHECK(positioning_ms / n == Approx(1 + 17 * 8.0 / 15 + 60e3 / 7200 / 2).epsilon(0.03));
}

TEST_CASE("Sequential reads pay no positioning time", "[sim_device]") {
  zcav::VirtualClock clock;
  const zcav::SimModel m = zcav::ParseSimSpec("sim:hdd?noise=0&cache=0");
  auto dev = zcav::MakeSimulatedDevice(m, clock);
  zcav::AlignedBuffer buf(zcav::kMiB, 4096);
  const std::uint64_t start = 100 * zcav::kMiB;
  REQUIRE_FALSE(dev->ReadAt(start - zcav::kMiB, buf.span(zcav::kMiB)));  // positions the head
  const auto before = clock.Now();
  for (std::uint64_t i = 0; i < 10; ++i) {
    REQUIRE_FALSE(dev->ReadAt(start + i * zcav::kMiB, buf.span(zcav::kMiB)));
  }
  const double seconds = static_cast<double>((clock.Now() - before).count()) * 1e-9;
  CHECK(seconds == Approx(10.0 * zcav::kMiB / (zcav::ExpectedMbPerS(m, start, 10 * zcav::kMiB) * 1e6))
                       .epsilon(1e-6));
  // A jump back pays at least a track-to-track seek.
  const auto jump = clock.Now();
  REQUIRE_FALSE(dev->ReadAt(start, buf.span(zcav::kMiB)));
  CHECK((clock.Now() - jump) >= std::chrono::milliseconds(1));
}

TEST_CASE("Re-reads of the start of the disk come from the cache at the interface rate",
          "[sim_device]") {
  zcav::VirtualClock clock;
  const zcav::SimModel m = zcav::ParseSimSpec("sim:hdd?noise=0");
  CHECK(m.cache_bytes == 8 * zcav::kMiB);
  CHECK(m.interface_mb_per_s == Approx(150));
  auto dev = zcav::MakeSimulatedDevice(m, clock);
  zcav::AlignedBuffer buf(zcav::kMiB, 4096);
  const auto timed = [&](std::uint64_t offset) {
    const auto before = clock.Now();
    REQUIRE_FALSE(dev->ReadAt(offset, buf.span(zcav::kMiB)));
    return static_cast<double>((clock.Now() - before).count()) * 1e-9;
  };
  const double media = zcav::kMiB / 60e6, interface = zcav::kMiB / 150e6;
  const double one_rev = 60.0 / 7200;
  CHECK(timed(0) == Approx(media).epsilon(1e-6));  // from the media
  // Read once: not cached yet; back to 0 costs a short seek and some rotation.
  const double second = timed(0);
  CHECK(second > media + 1e-3);
  CHECK(second < media + zcav::SeekMs(m, zcav::kMiB) * 1e-3 + one_rev);
  CHECK(timed(0) == Approx(interface).epsilon(1e-6));  // read twice: from the cache
  CHECK(timed(0) == Approx(interface).epsilon(1e-6));
  CHECK(timed(zcav::kMiB) == Approx(media).epsilon(1e-6));  // continues after the hit
  CHECK(clock.StorageReadBytes() == 5 * zcav::kMiB);
  // A sweep's next pass starts with a cold cache and a positioned head.
  REQUIRE_FALSE(dev->PreparePass());
  CHECK(timed(0) == Approx(media).epsilon(1e-6));
  // Beyond the 8 MiB cache nothing is cached.
  (void)timed(20 * zcav::kMiB);
  CHECK(timed(20 * zcav::kMiB) > zcav::kMiB / 60e6);
  // The usb2 bridge caps cache reads too; the ssd has no cache.
  CHECK(zcav::ParseSimSpec("sim:usb2-hdd").ceiling_mb_per_s == Approx(35));
  CHECK(zcav::ParseSimSpec("sim:ssd").cache_bytes == 0);
  CHECK(zcav::ParseSimSpec("sim:hdd?cache=2M&interface=300").interface_mb_per_s == Approx(300));
}
