#include "zcav/analysis/step_origin.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "testutil.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/base/clock.h"
#include "zcav/device/sim_device.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/sweep.h"
#include "zcav/pipeline/pass_curves.h"
#include "zcav/pipeline/zone_sink.h"

namespace {

// A sweep of a simulated device: the median curve (as ZoneDetectingSink
// keeps it), its zones, and one curve per pass built from the samples.
struct PassRun {
  zcav::SweepPlan plan;
  zcav::Curve median;
  zcav::ZoneAnalysis analysis;
  std::vector<zcav::Curve> passes;
};

PassRun SweepPasses(const std::string& spec, std::uint32_t passes) {
  const zcav::SimModel model = zcav::ParseSimSpec(spec);
  zcav::VirtualClock clock;
  auto device = zcav::MakeSimulatedDevice(model, clock);
  zcav::RunInfo run;
  run.device = device->info();
  zcav::SweepOptions options;
  options.passes = passes;
  run.plan = zcav::PlanSweep(run.device, options);
  zcav::test::RecordingSink sink;
  const zcav::SweepResult result = zcav::RunSweep(*device, run, clock, sink, nullptr);
  REQUIRE(result.status == zcav::SweepStatus::kComplete);
  PassRun out;
  out.plan = run.plan;
  for (const zcav::BlockResult& b : sink.blocks) {
    out.median.push_back(
        {b.offset_bytes, b.length_bytes, b.mb_per_s, b.min_mb_per_s, b.max_mb_per_s});
  }
  out.passes.resize(passes);
  // Samples come in read order: pass by pass, block by block.
  for (const zcav::Sample& s : sink.samples) {
    const double seconds = static_cast<double>(s.elapsed.count()) * 1e-9;
    out.passes[s.pass].push_back({s.offset_bytes, s.length_bytes,
                                  static_cast<double>(s.length_bytes) / seconds / 1e6, 0, 0});
  }
  zcav::ZoneOptions zone_options;
  zone_options.non_rotational = model.info.rotational == false;
  out.analysis = zcav::DetectZones(out.median, zone_options);
  return out;
}

// A synthetic pass: `blocks` blocks of 1 MB at `high` MB/s up to block
// `edge`, then at `low`, with relative gaussian noise `noise` and a share
// `outliers` of blocks read at a random 10-300 % of their rate.
zcav::Curve NoisyStep(std::size_t blocks, std::size_t edge, double high, double low, double noise,
                      double outliers, std::mt19937_64& rng) {
  std::normal_distribution<double> gauss(0, 1);
  std::uniform_real_distribution<double> unit(0, 1);
  zcav::Curve curve;
  for (std::size_t i = 0; i < blocks; ++i) {
    double r = (i < edge ? high : low) * (1 + noise * gauss(rng));
    if (unit(rng) < outliers) r *= 0.1 + 2.9 * unit(rng);
    curve.push_back({i * 1'000'000, 1'000'000, std::max(r, 0.1), 0, 0});
  }
  return curve;
}

}  // namespace

TEST_CASE("Two passes over a throttling NVMe drive show its drop as a time step, not a zone",
          "[step_origin]") {
  // 64 GB at 3000 MB/s: the drive throttles after 10 s (30 GB) of the first
  // pass and stays hot through the second.
  const PassRun r = SweepPasses("sim:nvme-throttle?size=64G&throttle_after=10", 2);
  REQUIRE(r.analysis.zones.size() >= 2);
  const std::vector<zcav::Step> steps = zcav::ClassifySteps(r.analysis, r.passes);
  REQUIRE(steps.size() == r.analysis.zones.size() - 1);
  // The drop: the step into the zone starting near 30 GB.
  std::size_t drop = 0;
  for (const zcav::Step& s : steps) {
    const std::uint64_t at = r.analysis.zones[s.zone].start_bytes;
    if (at > 29'000'000'000ULL && at < 31'000'000'000ULL) drop = s.zone;
  }
  REQUIRE(drop > 0);
  const zcav::Step& step = steps[drop - 1];
  CHECK(step.origin == zcav::StepOrigin::kTime);
  REQUIRE(step.pass_offsets_bytes.size() == 2);
  // Pass 1 drops at 30 GB (within a block or two); pass 2 is throttled throughout.
  CHECK(std::abs(static_cast<double>(step.pass_offsets_bytes[0]) - 30e9) <
        2.0 * static_cast<double>(r.plan.block_bytes));
  CHECK(step.pass_offsets_bytes[1] == -1);
  for (const zcav::Step& s : steps) CHECK(s.origin == zcav::StepOrigin::kTime);

  zcav::ZoneAnalysis merged = r.analysis;
  zcav::ApplyStepOrigins(r.median, steps, merged);
  CHECK(merged.zones.size() == 1);
  CHECK(merged.zones.front().start_bytes == r.median.front().offset_bytes);
  CHECK(merged.zones.front().end_bytes ==
        r.median.back().offset_bytes + r.median.back().length_bytes);
  CHECK(zcav::HasTimeSteps(merged));
  for (const zcav::Step& s : merged.steps) CHECK(s.zone < merged.zones.size());
}

TEST_CASE("Two passes over a zoned disk show every step at the same position", "[step_origin]") {
  const PassRun r = SweepPasses("sim:hdd?seed=5", 2);
  REQUIRE(r.analysis.zones.size() == 16);
  const std::vector<zcav::Step> steps = zcav::ClassifySteps(r.analysis, r.passes);
  REQUIRE(steps.size() == 15);
  for (const zcav::Step& s : steps) {
    CAPTURE(s.zone);
    CHECK(s.origin == zcav::StepOrigin::kPosition);
    REQUIRE(s.pass_offsets_bytes.size() == 2);
    const double edge = static_cast<double>(r.analysis.zones[s.zone].start_bytes);
    for (const std::int64_t at : s.pass_offsets_bytes) {
      CHECK(std::abs(static_cast<double>(at) - edge) <=
            3.0 * static_cast<double>(r.plan.block_bytes));
    }
  }
  zcav::ZoneAnalysis applied = r.analysis;
  zcav::ApplyStepOrigins(r.median, steps, applied);
  CHECK(applied.zones.size() == 16);
  CHECK(applied.steps.size() == 15);
  CHECK_FALSE(zcav::HasTimeSteps(applied));
}

TEST_CASE("One pass cannot tell position from time", "[step_origin]") {
  const PassRun r = SweepPasses("sim:hdd?seed=5&size=20G", 1);
  REQUIRE(r.analysis.zones.size() >= 2);
  const std::vector<zcav::Step> steps = zcav::ClassifySteps(r.analysis, r.passes);
  REQUIRE(steps.size() == r.analysis.zones.size() - 1);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    CHECK(steps[i].zone == i + 1);
    CHECK(steps[i].origin == zcav::StepOrigin::kUnknown);
    CHECK(steps[i].pass_offsets_bytes.empty());
  }
  zcav::ZoneAnalysis applied = r.analysis;
  zcav::ApplyStepOrigins(r.median, steps, applied);
  CHECK(applied.zones.size() == r.analysis.zones.size());
  // No passes at all: the same.
  for (const zcav::Step& s : zcav::ClassifySteps(r.analysis, {})) {
    CHECK(s.origin == zcav::StepOrigin::kUnknown);
  }
}

TEST_CASE("The cached region of ssd-dips is a position step in every pass", "[step_origin]") {
  const PassRun r = SweepPasses("sim:ssd-dips?size=64G", 2);
  REQUIRE(r.analysis.zones.size() >= 2);
  const std::vector<zcav::Step> steps = zcav::ClassifySteps(r.analysis, r.passes);
  bool found = false;
  for (const zcav::Step& s : steps) {
    const double at = static_cast<double>(r.analysis.zones[s.zone].start_bytes);
    const double cached_end = 0.1 * static_cast<double>(r.plan.end_bytes);
    if (std::abs(at - cached_end) > 2.0 * static_cast<double>(r.plan.block_bytes)) continue;
    found = true;
    CHECK(s.origin == zcav::StepOrigin::kPosition);
  }
  CHECK(found);
}

TEST_CASE("Noisy passes with outliers agree on a step at the same place and not on a moved one",
          "[step_origin]") {
  const std::uint64_t seed = 20261202;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 20; ++trial) {
    CAPTURE(trial);
    // 1000 blocks, a 6 % step at block 400, 2 % noise and 3 % wild blocks.
    const zcav::Curve a = NoisyStep(1000, 400, 100, 94, 0.02, 0.03, rng);
    const zcav::Curve b = NoisyStep(1000, 401, 100, 94, 0.02, 0.03, rng);
    const zcav::Curve moved = NoisyStep(1000, 460, 100, 94, 0.02, 0.03, rng);
    zcav::ZoneAnalysis analysis;
    analysis.zones = {{0, 400, 0, 400'000'000, 100, 100, 0, 0, 0},
                      {400, 1000, 400'000'000, 1'000'000'000, 94, 94, 0, 0, 0}};
    const std::vector<zcav::Step> same = zcav::ClassifySteps(analysis, {a, b});
    REQUIRE(same.size() == 1);
    CHECK(same[0].origin == zcav::StepOrigin::kPosition);
    const std::vector<zcav::Step> apart = zcav::ClassifySteps(analysis, {a, moved});
    REQUIRE(apart.size() == 1);
    CHECK(apart[0].origin == zcav::StepOrigin::kTime);
    REQUIRE(apart[0].pass_offsets_bytes.size() == 2);
    // Each pass names where its step is, within the tolerance (1 % of the
    // curve: a 6 % step in 2 % noise is placed within a few blocks).
    CHECK(std::abs(same[0].pass_offsets_bytes[0] - 400'000'000) <= 10'000'000);
    CHECK(std::abs(same[0].pass_offsets_bytes[1] - 401'000'000) <= 10'000'000);
    CHECK(std::abs(apart[0].pass_offsets_bytes[1] - 460'000'000) <= 10'000'000);
  }
}

TEST_CASE("A pass that read nothing on one side of a step does not vote", "[step_origin]") {
  std::mt19937_64 rng(7);
  const zcav::Curve a = NoisyStep(1000, 500, 100, 80, 0.01, 0, rng);
  const zcav::Curve b = NoisyStep(1000, 500, 100, 80, 0.01, 0, rng);
  zcav::Curve partial;  // an interrupted pass: the first 300 blocks
  for (std::size_t i = 0; i < 300; ++i) partial.push_back(a[i]);
  zcav::ZoneAnalysis analysis;
  analysis.zones = {{0, 500, 0, 500'000'000, 100, 100, 0, 0, 0},
                    {500, 1000, 500'000'000, 1'000'000'000, 80, 80, 0, 0, 0}};
  const std::vector<zcav::Step> three = zcav::ClassifySteps(analysis, {a, b, partial});
  REQUIRE(three.size() == 1);
  CHECK(three[0].origin == zcav::StepOrigin::kPosition);
  CHECK(three[0].pass_offsets_bytes[2] == -1);
  const std::vector<zcav::Step> two = zcav::ClassifySteps(analysis, {a, partial});
  CHECK(two[0].origin == zcav::StepOrigin::kUnknown);
}

TEST_CASE("PassCurveSink passes on zones with the time steps merged away", "[step_origin]") {
  const zcav::SimModel model = zcav::ParseSimSpec("sim:nvme-throttle?size=64G&throttle_after=10");
  zcav::VirtualClock clock;
  auto device = zcav::MakeSimulatedDevice(model, clock);
  zcav::RunInfo run;
  run.device = device->info();
  zcav::SweepOptions options;
  options.passes = 2;
  run.plan = zcav::PlanSweep(run.device, options);

  // Records what reaches the writers.
  struct ZonesSink final : zcav::ResultSink {
    void OnZones(const zcav::ZoneAnalysis& a, const zcav::ZoneReportContext& c) override {
      analysis = a;
      verdict = c.verdict.has_value();
    }
    zcav::ZoneAnalysis analysis;
    bool verdict = false;
  } writers;
  zcav::PassCurveSink origins(writers);
  zcav::ZoneOptions zone_options;
  zone_options.non_rotational = true;
  zcav::ZoneDetectingSink zones(origins, zone_options, zcav::Media::kNone,
                                zcav::TransportFromDevice(run.device));
  REQUIRE(zcav::RunSweep(*device, run, clock, zones, nullptr).status ==
          zcav::SweepStatus::kComplete);
  REQUIRE(zones.analysis().zones.size() >= 2);  // the detector saw the drop
  CHECK(writers.analysis.zones.size() == 1);
  CHECK(zcav::HasTimeSteps(writers.analysis));
  CHECK(writers.verdict);
  CHECK(origins.analysis().zones.size() == 1);
}

TEST_CASE("One odd pass among five leaves a step at its position; two make it follow the time",
          "[step_origin]") {
  const std::uint64_t seed = 7;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  zcav::ZoneAnalysis analysis;
  analysis.zones = {{0, 400, 0, 400'000'000, 100, 100, 0, 0, 0},
                    {400, 1000, 400'000'000, 1'000'000'000, 80, 80, 0, 0, 0}};
  std::vector<zcav::Curve> passes;
  for (int p = 0; p < 4; ++p) passes.push_back(NoisyStep(1000, 400, 100, 80, 0.01, 0, rng));
  passes.push_back(NoisyStep(1000, 400, 80, 80, 0.01, 0, rng));  // no step at all
  const std::vector<zcav::Step> one_odd = zcav::ClassifySteps(analysis, passes);
  REQUIRE(one_odd.size() == 1);
  CHECK(one_odd[0].origin == zcav::StepOrigin::kPosition);
  CHECK(one_odd[0].pass_offsets_bytes[4] == -1);
  passes[3] = NoisyStep(1000, 400, 80, 80, 0.01, 0, rng);
  const std::vector<zcav::Step> two_odd = zcav::ClassifySteps(analysis, passes);
  REQUIRE(two_odd.size() == 1);
  CHECK(two_odd[0].origin == zcav::StepOrigin::kTime);
}

TEST_CASE("Passes too noisy to show a step do not vote it a step in time", "[step_origin]") {
  // A busy host: each pass 25 % noisy, the median (of many blocks per
  // window) still shows a clear 10 % step. No pass can show or deny a 10 %
  // step in that noise at the window size, so none votes: the step is not
  // called a step in time. A clean pass without the step still votes time.
  const std::uint64_t seed = 20261205;
  CAPTURE(seed);
  std::mt19937_64 rng(seed);
  zcav::ZoneAnalysis analysis;
  analysis.zones = {{0, 60, 0, 60'000'000, 100, 100, 0, 0, 0},
                    {60, 120, 60'000'000, 120'000'000, 90, 90, 0, 0, 0}};
  for (int trial = 0; trial < 20; ++trial) {
    CAPTURE(trial);
    std::vector<zcav::Curve> noisy;
    for (int p = 0; p < 3; ++p) noisy.push_back(NoisyStep(120, 60, 100, 90, 0.25, 0, rng));
    const std::vector<zcav::Step> steps = zcav::ClassifySteps(analysis, noisy);
    REQUIRE(steps.size() == 1);
    CHECK(steps[0].origin != zcav::StepOrigin::kTime);
  }
  std::vector<zcav::Curve> clean;
  for (int p = 0; p < 3; ++p) clean.push_back(NoisyStep(120, 60, 95, 95, 0.005, 0, rng));
  const std::vector<zcav::Step> flat = zcav::ClassifySteps(analysis, clean);
  REQUIRE(flat.size() == 1);
  CHECK(flat[0].origin == zcav::StepOrigin::kTime);
}
