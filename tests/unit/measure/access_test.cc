#include "zcav/measure/access.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <string>

#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/measure/random_access.h"

namespace {

struct SimAccess {
  zcav::SimModel model;
  zcav::VirtualClock clock;
  std::unique_ptr<zcav::Device> device;
  zcav::AccessResult result;

  SimAccess(const std::string& spec, const zcav::AccessOptions& options,
            const std::atomic<bool>* stop = nullptr)
      : model(zcav::ParseSimSpec(spec)), device(zcav::MakeSimulatedDevice(model, clock)) {
    result = zcav::MeasureAccess(*device, clock, options, stop);
  }

  // Mean time to transfer one read at the positions sampled, ms.
  double MeanTransferMs(std::uint64_t length) const {
    double sum = 0;
    for (const auto& s : result.samples) {
      sum +=
          static_cast<double>(length) / (zcav::ExpectedMbPerS(model, s.offset_bytes, length) * 1e3);
    }
    return sum / static_cast<double>(result.samples.size());
  }
};

}  // namespace

TEST_CASE("Access time on the hdd model matches its seek curve and rotational latency",
          "[access]") {
  zcav::AccessOptions options;
  options.samples = 2000;
  const SimAccess run("sim:hdd?noise=0", options);
  REQUIRE(run.result.samples.size() == 2000);
  // For independent uniform positions U1, U2 the distance |U1 - U2| has
  // density 2(1 - x) on [0, 1], so E[sqrt(|U1 - U2|)] =
  // integral of 2(1 - x) sqrt(x) dx = 2 (2/3 - 2/5) = 8/15. The mean seek is
  // 1 + 17 * 8/15 = 10.07 ms; half a revolution at 7200 rpm is 4.17 ms.
  const double seek_ms = 1 + (18 - 1) * 8.0 / 15.0;
  const double rotation_ms = 0.5 * 60e3 / 7200;
  CHECK(zcav::MeanRotationalMs(run.model) == Approx(rotation_ms));
  const double expected = seek_ms + rotation_ms + run.MeanTransferMs(4096);
  CAPTURE(expected, run.result.mean_ms);
  CHECK(run.result.mean_ms == Approx(expected).epsilon(0.03));
  CHECK(run.result.mean_ms > 14.0);
  CHECK(run.result.mean_ms < 14.7);
  // No read is faster than a track-to-track seek, none slower than a full
  // stroke plus a whole revolution (plus the transfer).
  CHECK(run.result.min_ms >= 1.0);
  CHECK(run.result.max_ms <= 18 + 2 * rotation_ms + 0.2);
  CHECK(run.result.min_ms <= run.result.median_ms);
  CHECK(run.result.median_ms <= run.result.p95_ms);
  CHECK(run.result.p95_ms <= run.result.max_ms);
  CHECK(run.result.cpu_percent == 0);  // the virtual clock spends no CPU
  CHECK_FALSE(run.result.error);
  CHECK_FALSE(run.result.interrupted);
}

TEST_CASE("Access times grow with the distance from the previous read on the hdd model",
          "[access]") {
  zcav::AccessOptions options;
  options.samples = 2000;
  const SimAccess run("sim:hdd?noise=0", options);
  double near_sum = 0, far_sum = 0;
  int near_n = 0, far_n = 0;
  const auto size = static_cast<double>(run.model.info.size_bytes);
  for (const auto& s : run.result.samples) {
    const double frac = static_cast<double>(s.distance_bytes) / size;
    if (frac < 0.1) near_sum += s.ms, ++near_n;
    if (frac > 0.7) far_sum += s.ms, ++far_n;
  }
  REQUIRE(near_n > 50);
  REQUIRE(far_n > 50);
  // Seek curve: 1 + 17 sqrt(d) ms; near reads average below 1 + 17 sqrt(0.1)
  // + a revolution's mean, far ones above 1 + 17 sqrt(0.7) + ... .
  CHECK(near_sum / near_n < 1 + 17 * std::sqrt(0.1) + 4.17 + 0.5);
  CHECK(far_sum / far_n > 1 + 17 * std::sqrt(0.7) + 4.17 - 1.5);
}

TEST_CASE("Access time on the ssd model is its fixed latency plus the transfer", "[access]") {
  const SimAccess run("sim:ssd?noise=0", {});
  REQUIRE(run.result.samples.size() == 1000);
  const double expected = 0.05 + 4096 / 530e3;
  CHECK(run.result.mean_ms == Approx(expected).epsilon(0.01));
  CHECK(run.result.min_ms == Approx(expected).epsilon(0.01));
  CHECK(run.result.max_ms == Approx(expected).epsilon(0.01));
}

TEST_CASE("Access takes the asked number of aligned samples inside the device", "[access]") {
  zcav::AccessOptions options;
  options.samples = 300;
  options.read_bytes = 3000;  // rounded up to two 2048-byte sectors on the cd model
  const SimAccess run("sim:cd", options);
  REQUIRE(run.result.samples.size() == 300);
  const std::uint64_t size = run.model.info.size_bytes;
  std::uint64_t previous = 0;
  bool first = true;
  std::uint64_t lowest = size, highest = 0;
  for (const auto& s : run.result.samples) {
    CHECK(s.offset_bytes % 2048 == 0);
    CHECK(s.offset_bytes + 4096 <= size);
    CHECK(s.distance_bytes == (first ? 0
                                     : (s.offset_bytes > previous ? s.offset_bytes - previous
                                                                  : previous - s.offset_bytes)));
    CHECK(s.ms > 0);
    lowest = std::min(lowest, s.offset_bytes);
    highest = std::max(highest, s.offset_bytes);
    previous = s.offset_bytes;
    first = false;
  }
  // Uniform over the whole device: both ends are visited.
  CHECK(lowest < size / 50);
  CHECK(highest > size - size / 50);
}

TEST_CASE("Access positions are the same for a seed and differ between seeds", "[access]") {
  const auto offsets = [](std::uint64_t seed) {
    zcav::AccessOptions options;
    options.samples = 50;
    options.seed = seed;
    const SimAccess run("sim:hdd", options);
    std::vector<std::uint64_t> out;
    for (const auto& s : run.result.samples) out.push_back(s.offset_bytes);
    return out;
  };
  CHECK(offsets(7) == offsets(7));
  CHECK(offsets(7) != offsets(8));
}

TEST_CASE("An access read error stops the test with its offset", "[access]") {
  // Bad from 1 GiB to the end of a 2 GiB disk: about half the reads land there.
  const SimAccess run("sim:hdd?size=2G&bad=1G+1G", {});
  REQUIRE(run.result.error == std::error_code(EIO, std::system_category()));
  CHECK(run.result.error_offset_bytes >= zcav::kGiB);
  CHECK(run.result.samples.size() < 1000);
  for (const auto& s : run.result.samples) CHECK(s.offset_bytes + 4096 <= zcav::kGiB);
  CHECK_FALSE(run.result.interrupted);
}

TEST_CASE("Access stops when asked to and when the time budget is spent", "[access]") {
  const std::atomic<bool> stop{true};
  const SimAccess stopped("sim:hdd", {}, &stop);
  CHECK(stopped.result.interrupted);
  CHECK(stopped.result.samples.empty());
  CHECK(stopped.result.mean_ms == 0);

  zcav::AccessOptions options;
  options.time_budget = std::chrono::milliseconds(200);  // about 14 reads of 14 ms
  const SimAccess budget("sim:hdd", options);
  CHECK(budget.result.interrupted);
  CHECK(budget.result.samples.size() > 5);
  CHECK(budget.result.samples.size() < 30);
}

TEST_CASE("Access rejects a zero read size and one larger than the device", "[access]") {
  zcav::VirtualClock clock;
  auto device = zcav::MakeSimulatedDevice(zcav::ParseSimSpec("sim:hdd?size=1M"), clock);
  zcav::AccessOptions zero;
  zero.read_bytes = 0;
  CHECK_THROWS_AS(zcav::MeasureAccess(*device, clock, zero), zcav::Error);
  zcav::AccessOptions huge;
  huge.read_bytes = 2 * zcav::kMiB;
  CHECK_THROWS_AS(zcav::MeasureAccess(*device, clock, huge), zcav::Error);
}

TEST_CASE("The nearest-rank percentile picks a sample value", "[access]") {
  std::vector<double> v;
  for (int i = 1; i <= 20; ++i) v.push_back(21 - i);  // 20 .. 1
  CHECK(zcav::NearestRankPercentile(v, 95) == 19);
  CHECK(zcav::NearestRankPercentile(v, 100) == 20);
  CHECK(zcav::NearestRankPercentile(v, 50) == 10);
  CHECK(zcav::NearestRankPercentile({}, 95) == 0);
  CHECK(zcav::NearestRankPercentile({4.5}, 95) == 4.5);
}

namespace zcav {
namespace {

TEST_CASE("Random access by size and depth: one cell each, IOPS and MB/s from its requests",
          "[random_access]") {
  VirtualClock clock;
  auto dev = MakeSimulatedDevice(ParseSimSpec("sim:ssd?size=8G&noise=0"), clock);
  RandomAccessOptions o;
  o.sizes = {4096, 1048576};
  o.depths = {1, 8};
  o.cell_time = std::chrono::milliseconds(200);
  const RandomAccessResult r = MeasureRandomAccess(*dev, clock, o);
  REQUIRE_FALSE(r.error);
  REQUIRE(r.cells.size() == 4);
  CHECK(r.engine == "sim");
  for (const RandomAccessCell& c : r.cells) {
    CAPTURE(c.size_bytes, c.queue_depth);
    CHECK(c.engine_depth == 1);  // a simulated device reads one at a time
    CHECK(c.ops > 10);
    CHECK(c.seconds >= 0.2);
    CHECK(c.iops == Approx(static_cast<double>(c.ops) / c.seconds));
    CHECK(c.mb_per_s == Approx(c.iops * static_cast<double>(c.size_bytes) / 1e6));
    CHECK(c.p50_ms <= c.p99_ms);
    CHECK(c.p99_ms <= c.max_ms);
    // One request at a time: the mean latency is the time per request.
    CHECK(c.mean_ms == Approx(1000 / c.iops).epsilon(0.01));
  }
  CHECK(r.cells[0].size_bytes == 4096);
  CHECK(r.cells[1].queue_depth == 8);
  // A 1 MiB request takes longer than a 4 KiB one, and moves more bytes per second.
  CHECK(r.cells[2].mean_ms > r.cells[0].mean_ms);
  CHECK(r.cells[2].mb_per_s > r.cells[0].mb_per_s);
  o.sizes = {0};
  CHECK_THROWS_AS(MeasureRandomAccess(*dev, clock, o), Error);
  o.sizes = {4096};
  o.depths = {0};
  CHECK_THROWS_AS(MeasureRandomAccess(*dev, clock, o), Error);
}

}  // namespace
}  // namespace zcav
