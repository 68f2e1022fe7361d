#include "zcav/measure/concurrent.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "testutil.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/measure/sweep.h"

using zcav::kMiB;
using zcav::test::RecordingSink;

namespace {

// Devices swept together, each with its own virtual clock and recorders.
struct Together {
  explicit Together(const std::vector<std::string>& names, std::uint64_t block_bytes = 8 * kMiB) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      clocks.push_back(std::make_unique<zcav::VirtualClock>());
      recorders.push_back(std::make_unique<RecordingSink>());
      timelines.push_back(std::make_unique<zcav::TimelineSink>());
      tees.push_back(std::make_unique<zcav::TeeSink>(
          std::vector<zcav::SampleSink*>{recorders.back().get(), timelines.back().get()}));
      zcav::ConcurrentJob job;
      job.device = zcav::OpenDevice(names[i], *clocks.back(), &buses);
      job.run.device = job.device->info();
      zcav::SweepOptions options;
      options.block_bytes = block_bytes;
      job.run.plan = zcav::PlanSweep(job.run.device, options);
      job.clock = clocks.back().get();
      job.sink = tees.back().get();
      jobs.push_back(std::move(job));
    }
  }
  std::vector<zcav::SweepResult> Run() { return zcav::RunConcurrentSweeps(jobs); }
  zcav::Aggregate Aggregate() const {
    std::vector<std::vector<zcav::TimedRead>> t;
    for (const auto& s : timelines) t.push_back(s->reads());
    return zcav::AggregateTimelines(t);
  }

  zcav::SimBusSet buses;
  std::vector<std::unique_ptr<zcav::VirtualClock>> clocks;
  std::vector<std::unique_ptr<RecordingSink>> recorders;
  std::vector<std::unique_ptr<zcav::TimelineSink>> timelines;
  std::vector<std::unique_ptr<zcav::TeeSink>> tees;
  std::vector<zcav::ConcurrentJob> jobs;
};

// The figures JudgeSharedCeiling compares, from device `i` of `t`.
zcav::DeviceRun RunOf(const Together& t, std::size_t i, const zcav::SweepResult& result) {
  zcav::DeviceRun run;
  run.name = "disk" + std::to_string(i);
  run.avg_mb_per_s = result.avg_mb_per_s;
  for (const auto& b : t.recorders[i]->blocks) {
    run.block_mb_per_s.push_back(b.mb_per_s);
    run.block_bytes.push_back(b.length_bytes);
  }
  return run;
}

// Each of `names` read alone, then all together; judged.
zcav::SharedCeiling AloneAndTogether(const std::vector<std::string>& names) {
  std::vector<zcav::DeviceRun> alone, together;
  for (const auto& name : names) {
    Together one({name});
    const auto r = one.Run();
    alone.push_back(RunOf(one, 0, r[0]));
  }
  Together all(names);
  const auto r = all.Run();
  for (std::size_t i = 0; i < names.size(); ++i) together.push_back(RunOf(all, i, r[i]));
  return zcav::JudgeSharedCeiling(alone, together, all.Aggregate());
}

// A flat 60 MB/s disk of 1 GB on the named bus.
std::string Disk(const std::string& bus, int seed) {
  return "sim:hdd?size=1G&zones=1&outer=60&noise=0.5%&seed=" + std::to_string(seed) +
         (bus.empty() ? "" : "&bus=" + bus);
}

}  // namespace

TEST_CASE("Two simulated disks on one shared bus share its rate", "[concurrent]") {
  Together t({Disk("ide0", 1), Disk("ide0", 2)});
  const auto results = t.Run();
  REQUIRE(results.size() == 2);
  const zcav::Aggregate a = t.Aggregate();
  // The default bus carries 80 MB/s; each 60 MB/s disk gets half of it.
  CHECK(a.aggregate_mb_per_s == Approx(80).epsilon(0.02));
  CHECK(a.device_mb_per_s[0] == Approx(40).epsilon(0.03));
  CHECK(a.device_mb_per_s[1] == Approx(40).epsilon(0.03));
  CHECK(a.peak_mb_per_s <= 80 * 1.05);
  for (const auto& r : results) {
    CHECK(r.status == zcav::SweepStatus::kComplete);
    CHECK(r.avg_mb_per_s == Approx(40).epsilon(0.03));
  }
  // The devices were closed by their threads.
  CHECK(t.jobs[0].device == nullptr);
  CHECK(t.jobs[1].device == nullptr);

  const auto judged = AloneAndTogether({Disk("ide0", 1), Disk("ide0", 2)});
  REQUIRE(judged.shared.has_value());
  CHECK(*judged.shared);
  CHECK(judged.share == Approx(80.0 / 120).epsilon(0.03));
  CHECK(judged.slowed_share[0] == Approx(1.0));
  CHECK_THAT(judged.reason, Catch::Contains("share a ceiling of about 80"));
}

TEST_CASE("Disks on separate buses read together as fast as alone", "[concurrent]") {
  Together t({Disk("ide0", 1), Disk("ide1", 2)});
  t.Run();
  const zcav::Aggregate a = t.Aggregate();
  CHECK(a.aggregate_mb_per_s == Approx(120).epsilon(0.02));
  CHECK(a.device_mb_per_s[0] == Approx(60).epsilon(0.02));
  const auto judged = AloneAndTogether({Disk("ide0", 1), Disk("ide1", 2)});
  REQUIRE(judged.shared.has_value());
  CHECK_FALSE(*judged.shared);
  CHECK(judged.share == Approx(1.0).epsilon(0.02));
  CHECK_THAT(judged.reason, Catch::Contains("no shared ceiling"));
}

TEST_CASE("A ceiling that binds on the outer zones only is found block by block", "[concurrent]") {
  // Two 60 -> 30 MB/s disks on an 80 MB/s bus: slowed where both read over
  // 40 MB/s, as fast as alone further in; the averages alone hide it (~85 %).
  const auto judged =
      AloneAndTogether({"sim:hdd?size=2G&bus=ide", "sim:hdd?size=2G&bus=ide&seed=2"});
  REQUIRE(judged.shared.has_value());
  CHECK(*judged.shared);
  CHECK(judged.share > 0.8);
  CHECK(judged.slowed_share[0] > 0.25);
  CHECK(judged.slowed_share[0] < 0.75);
  CHECK_THAT(judged.reason, Catch::Contains("share a ceiling of about 80"));
}

TEST_CASE("A shared bus slower than the media caps a device read alone", "[concurrent]") {
  Together t({Disk("usb", 1) + "&busrate=30"});
  const auto results = t.Run();
  CHECK(results[0].avg_mb_per_s == Approx(30).epsilon(0.01));
}

TEST_CASE("Simulated devices on a shared bus give the same results on every run", "[concurrent]") {
  std::vector<double> first;
  for (int run = 0; run < 3; ++run) {
    Together t({Disk("ide0", 1), Disk("ide0", 2), Disk("ide0", 3)});
    t.Run();
    std::vector<double> rates;
    for (const auto& r : t.recorders) {
      for (const auto& b : r->blocks) rates.push_back(b.mb_per_s);
    }
    if (run == 0) {
      first = rates;
      // Three on one 80 MB/s bus: about 26.7 MB/s each.
      CHECK(t.Aggregate().device_mb_per_s[2] == Approx(80.0 / 3).epsilon(0.04));
    } else {
      CHECK(rates == first);
    }
  }
}

TEST_CASE("A device that finishes early leaves the bus to the others", "[concurrent]") {
  // The small disk ends first; the big one then reads at its own 60 MB/s.
  Together t({"sim:hdd?size=256M&zones=1&outer=60&noise=0&bus=b",
              "sim:hdd?size=1G&zones=1&outer=60&noise=0&bus=b"});
  t.Run();
  const auto& late = t.recorders[1]->blocks;
  REQUIRE_FALSE(late.empty());
  CHECK(late.front().mb_per_s == Approx(40).epsilon(0.03));
  CHECK(late.back().mb_per_s == Approx(60).epsilon(0.01));
}

TEST_CASE("One bus name with two rates is refused", "[concurrent]") {
  zcav::SimBusSet buses;
  zcav::VirtualClock c1, c2;
  auto d1 = zcav::OpenDevice("sim:hdd?bus=x&busrate=50", c1, &buses);
  CHECK_THROWS_AS(zcav::OpenDevice("sim:hdd?bus=x&busrate=60", c2, &buses), zcav::Error);
  CHECK_THROWS_AS(zcav::ParseSimSpec("sim:hdd?busrate=60"), zcav::Error);
  CHECK_THROWS_AS(zcav::ParseSimSpec("sim:hdd?bus="), zcav::Error);
}

TEST_CASE("Aggregate: window, pro rata bytes and slices", "[concurrent]") {
  using std::chrono::seconds;
  // Device 0 reads 100 MB/s from 0 to 4 s; device 1 reads 50 MB/s from 1 to 3 s.
  std::vector<zcav::TimedRead> d0, d1;
  for (int s = 0; s < 4; ++s) d0.push_back({seconds(s), seconds(s + 1), 100'000'000});
  d1.push_back({seconds(1), seconds(3), 100'000'000});
  const zcav::Aggregate a = zcav::AggregateTimelines({d0, d1}, 4);
  CHECK(a.wall_seconds == Approx(4));
  CHECK(a.overlap_seconds == Approx(2));
  CHECK(a.device_mb_per_s[0] == Approx(100));
  CHECK(a.device_mb_per_s[1] == Approx(50));
  CHECK(a.aggregate_mb_per_s == Approx(150));
  REQUIRE(a.points.size() == 4);
  CHECK(a.points[0].total_mb_per_s == Approx(100));
  CHECK(a.points[1].total_mb_per_s == Approx(150));
  CHECK(a.points[2].total_mb_per_s == Approx(150));
  CHECK(a.points[3].total_mb_per_s == Approx(100));
  CHECK(a.points[1].time_s == Approx(1.5));
  CHECK(a.peak_mb_per_s == Approx(150));

  // Disjoint reads: no common window, so the whole wall time is used.
  const zcav::Aggregate b = zcav::AggregateTimelines(
      {{{seconds(0), seconds(1), 50'000'000}}, {{seconds(1), seconds(2), 50'000'000}}}, 2);
  CHECK(b.overlap_seconds == Approx(2));
  CHECK(b.aggregate_mb_per_s == Approx(50));

  const zcav::Aggregate empty = zcav::AggregateTimelines({{}, {}});
  CHECK(empty.points.empty());
  CHECK(empty.aggregate_mb_per_s == 0);
}

TEST_CASE("Without alone figures the shared ceiling stays open", "[concurrent]") {
  zcav::Aggregate a;
  a.aggregate_mb_per_s = 80;
  a.device_mb_per_s = {40, 40};
  const auto judged = zcav::JudgeSharedCeiling({}, {{}, {}}, a);
  CHECK_FALSE(judged.shared.has_value());
  CHECK_THAT(judged.reason, Catch::Contains("--alone-and-together"));
}
