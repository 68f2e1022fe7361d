#include "zcav/report/live_view.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <sstream>
#include <thread>

#include "zcav/analysis/step_origin.h"
#include "zcav/base/clock.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/measure/sweep.h"
#include "zcav/report/plot.h"

namespace zcav {
namespace {

// Forwards to a LiveView and, halfway through the sweep, waits (up to 60 s)
// until the view has drawn two frames: the frames drawn while reading do not
// then depend on how fast a busy host runs gnuplot.
class HalfwayWait final : public SampleSink {
 public:
  explicit HalfwayWait(LiveView& view) : view_(view) {}
  void OnStart(const RunInfo& run) override {
    halfway_ = run.plan.block_count / 2;
    view_.OnStart(run);
  }
  void OnSample(const Sample& x) override {
    view_.OnSample(x);
    if (x.block_index != halfway_ || waited_) return;
    waited_ = true;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (view_.frames() < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  void OnFinish(const SweepResult& r) override { view_.OnFinish(r); }

 private:
  LiveView& view_;
  std::uint64_t halfway_ = 0;
  bool waited_ = false;
};

TEST_CASE("LiveView draws a paced sweep in the terminal, frame after frame", "[live]") {
  if (!GnuplotAvailable()) {
    WARN("gnuplot is not installed: the live view cannot be drawn here");
    return;
  }
  VirtualClock clock;
  // 4 GB read at 100 x the simulated disk's speed: about 0.3 s.
  auto dev = MakeSimulatedDevice(ParseSimSpec("sim:hdd?size=4G&pace=100"), clock);
  RunInfo run;
  run.device = dev->info();
  SweepOptions o;
  o.block_bytes = 32 * kMiB;
  o.passes = 1;
  run.plan = PlanSweep(run.device, o);
  std::ostringstream screen;
  LiveViewOptions lo;
  lo.mode = LiveViewOptions::Mode::kTerminal;
  lo.columns = 90;
  lo.rows = 30;
  lo.out = &screen;
  lo.every = std::chrono::milliseconds(50);
  lo.label = "sim:hdd";
  SteadyClock steady;
  LiveView view(lo, steady);
  HalfwayWait sink(view);
  RunSweep(*dev, run, clock, sink);
  // Frames while it read (two by halfway), and the last one at the end.
  CHECK(view.frames() >= 3);
  const std::string text = screen.str();
  CHECK(text.rfind("\x1b[2J", 0) == 0);  // a clear screen first
  const std::size_t last = text.rfind("\x1b[H");
  REQUIRE(last != std::string::npos);
  const std::string frame = text.substr(last);
  CHECK(frame.find("+----------") != std::string::npos);  // the chart's frame
  CHECK(frame.find("zones so far") != std::string::npos);
  CHECK(frame.find("position (GB, 10^9 B)") != std::string::npos);
  CHECK(frame.find("pass 1/1  4.29 of 4.29 GB (100.0 %)") != std::string::npos);
  CHECK(frame.find("done") != std::string::npos);
}

SweepPlan PlanOf(std::uint64_t blocks) {
  DeviceInfo d;
  d.size_bytes = blocks * kMiB;
  SweepOptions o;
  o.block_bytes = kMiB;
  return PlanSweep(d, o);
}

TEST_CASE("The live curve shows each block's latest read; the zones' curve its median so far",
          "[live]") {
  const SweepPlan plan = PlanOf(4);
  // Pass 3 is under way (blocks 0 and 1 read), and pass 2 read block 2 at a
  // fifth of its rate (one slow pass); block 3 is not read yet.
  const LiveRates rates = {{100, 90, 80, 0}, {102, 91, 16, 0}, {98, 89, 0, 0}};
  const Curve latest = LiveLatestCurve(rates, plan);
  REQUIRE(latest.size() == 3);
  CHECK(latest[0].mb_per_s == 98);
  CHECK(latest[1].mb_per_s == 89);
  CHECK(latest[2].mb_per_s == 16);
  CHECK(latest[2].offset_bytes == 2 * kMiB);
  CHECK(latest[2].length_bytes == kMiB);
  const Curve median = LiveMedianCurve(rates, plan);
  REQUIRE(median.size() == 3);
  CHECK(median[0].mb_per_s == 100);
  CHECK(median[1].mb_per_s == 90);
  CHECK(median[0].min_mb_per_s == 98);
  CHECK(median[0].max_mb_per_s == 102);
  CHECK(median[2].mb_per_s == Approx(48));  // (80 + 16) / 2: two reads so far
  CHECK(LiveMedianCurve({{0, 0, 0, 0}}, plan).empty());
}

// Two passes over 200 blocks at 100 MB/s (a little ripple); `step` makes the
// second half 60 MB/s in pass 1 (when `in_first`) and pass 2.
LiveRates TwoPasses(bool in_first) {
  LiveRates rates(2, std::vector<float>(200));
  for (std::size_t p = 0; p < 2; ++p) {
    for (std::size_t i = 0; i < 200; ++i) {
      const bool slow = i >= 100 && (p == 1 || in_first);
      rates[p][i] = static_cast<float>((slow ? 60 : 100) +
                                       0.3 * (static_cast<int>((i * 37 + p * 11) % 7) - 3));
    }
  }
  return rates;
}

TEST_CASE("The live zones keep a step every pass shows, and merge one that only a pass has",
          "[live]") {
  const SweepPlan plan = PlanOf(200);
  const ZoneAnalysis both = LiveZones(TwoPasses(true), plan, ZoneOptions{}, false);
  REQUIRE(both.zones.size() == 2);
  CHECK(both.zones[1].start_bytes == 100 * kMiB);
  CHECK_FALSE(HasTimeSteps(both));
  // The second pass slowed down halfway (a cache ran out): a change in time.
  // The medians alone hold that step; the passes show it is not a zone.
  CHECK(DetectZones(LiveMedianCurve(TwoPasses(false), plan), ZoneOptions{}).zones.size() == 2);
  const ZoneAnalysis one = LiveZones(TwoPasses(false), plan, ZoneOptions{}, false);
  CHECK(one.zones.size() == 1);
  CHECK(HasTimeSteps(one));
}

}  // namespace
}  // namespace zcav
