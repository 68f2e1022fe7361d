#include "zcav/measure/progress.h"

#include <catch2/catch.hpp>
#include <sstream>

#include "zcav/base/clock.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/measure/sweep.h"

namespace {

std::string RunWithProgress(bool tty) {
  zcav::VirtualClock clock;
  auto dev = zcav::MakeSimulatedDevice(zcav::ParseSimSpec("sim:ssd?size=53G&noise=0"), clock);
  zcav::RunInfo run;
  run.device = dev->info();
  zcav::SweepOptions o;
  o.block_bytes = 1 * zcav::kGiB;
  o.passes = 2;
  run.plan = zcav::PlanSweep(run.device, o);
  std::ostringstream err;
  zcav::ProgressSink progress(err, clock, tty);
  zcav::RunSweep(*dev, run, clock, progress);
  return err.str();
}

}  // namespace

TEST_CASE("Plain progress prints a line every 10 s and one per pass", "[progress]") {
  // 53 GiB at 530 MB/s: about 107 s per pass, so ~10 periodic lines per pass.
  const std::string out = RunWithProgress(false);
  CHECK(out.find('\r') == std::string::npos);
  std::size_t periodic = 0;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("ETA") != std::string::npos) ++periodic;
  }
  CHECK(periodic >= 18);
  CHECK(periodic <= 24);
  CHECK(out.find("pass 1/2 done: 530.000 MB/s") != std::string::npos);
  CHECK(out.find("pass 2/2 done") != std::string::npos);
  CHECK(out.find("complete: min 530.000") != std::string::npos);
}

TEST_CASE("TTY progress rewrites one line in place", "[progress]") {
  const std::string out = RunWithProgress(true);
  CHECK(out.find('\r') != std::string::npos);
  CHECK(out.find("(MB = 10^6 B)") != std::string::npos);
}
