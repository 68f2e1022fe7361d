#include "zcav/io/live_view.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <sstream>

#include "zcav/base/clock.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/io/plot.h"
#include "zcav/measure/sweep.h"

namespace zcav {
namespace {

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
  lo.scratch_dir = "/tmp/zcav-live-view-test-" + std::to_string(::getpid());
  SteadyClock steady;
  LiveView view(lo, steady);
  RunSweep(*dev, run, clock, view);
  // Several frames while it read, and the last one at the end.
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

}  // namespace
}  // namespace zcav
