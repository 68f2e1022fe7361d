// Tests of the result-size estimate (format/result_size.h) and of keeping a
// sweep's results when writing fails (pipeline/result_recorder.h): the estimate
// against what the writers really write for simulated sweeps, a replayed
// recording against the writer's own output, and the guard against a
// stream that fails midway.
#include "zcav/format/result_size.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <streambuf>
#include <string>

#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/device/device.h"
#include "zcav/format/writers.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/sweep.h"
#include "zcav/pipeline/result_recorder.h"
#include "zcav/pipeline/zone_sink.h"

namespace zcav {
namespace {

// A sweep of `spec` with `options`, its events sent to `sinks` through the
// zone detector (as `zcav sweep` does). Returns the plan.
SweepPlan SweepInto(const std::string& spec, const SweepOptions& options,
                    std::vector<SampleSink*> sinks) {
  VirtualClock clock;
  const std::unique_ptr<Device> device = OpenDevice(spec, clock);
  RunInfo run;
  run.device = device->info();
  run.plan = PlanSweep(run.device, options);
  run.version = "test";
  run.command_line = "zcav sweep " + spec;
  run.start_time_utc = "2026-12-02T00:00:00Z";
  ResultTee tee(std::move(sinks));
  ZoneDetectingSink zones(tee, ZoneOptions{}, Media::kNone);
  RunSweep(*device, run, clock, zones);
  return run.plan;
}

const char* Name(OutputFormat f) {
  return f == OutputFormat::kRaw ? "raw" : f == OutputFormat::kCsv ? "csv" : "json";
}

TEST_CASE("The estimate holds what the writers write, and not many times more", "[result_size]") {
  for (const OutputFormat format : {OutputFormat::kRaw, OutputFormat::kCsv, OutputFormat::kJson}) {
    for (const std::uint32_t passes : {1u, 3u}) {
      for (const char* spec : {"sim:hdd?size=2T", "sim:hdd?size=256M&bad=100M+64K"}) {
        CAPTURE(Name(format), passes, spec);
        SweepOptions options;
        options.passes = passes;
        std::ostringstream out;
        const std::unique_ptr<ResultSink> writer = MakeWriter(format, out, false);
        const SweepPlan plan = SweepInto(spec, options, {writer.get()});
        const std::uint64_t written = out.str().size();
        const std::uint64_t estimate = EstimateResultBytes(format, plan);
        CHECK(written <= estimate);
        // Not so far above that a sweep that fits is refused: the fixed part
        // (64 KiB) dominates small sweeps, the lines large ones.
        CHECK(estimate <= 2 * written + kResultFixedBytes);
      }
    }
  }
}

TEST_CASE("The estimate grows with blocks and passes and saturates", "[result_size]") {
  SweepPlan plan;
  plan.block_count = 1000;
  plan.passes = 1;
  const std::uint64_t one = EstimateResultBytes(OutputFormat::kRaw, plan);
  CHECK(one == kResultFixedBytes + kPassLineBytes + 1000 * kRawBlockLineBytes);
  plan.passes = 3;
  // 3 passes: every sample is a line too (what --resume reads).
  CHECK(EstimateResultBytes(OutputFormat::kRaw, plan) == kResultFixedBytes + 3 * kPassLineBytes +
                                                             1000 * kRawBlockLineBytes +
                                                             3000 * kRawSampleLineBytes);
  // CSV has no sample lines.
  CHECK(EstimateResultBytes(OutputFormat::kCsv, plan) ==
        kResultFixedBytes + 3 * kPassLineBytes + 1000 * kCsvRowBytes);
  CHECK(EstimateResultBytes(OutputFormat::kJson, plan) ==
        kResultFixedBytes + 3 * kPassLineBytes + 1000 * kJsonBlockBytes + 3000 * kJsonSampleBytes);
  // A profile: both results, the plot data, the access samples, the rest.
  CHECK(EstimateProfileBytes(plan, 1000) ==
        kProfileFixedBytes + EstimateResultBytes(OutputFormat::kJson, plan) +
            EstimateResultBytes(OutputFormat::kRaw, plan) + 1000 * kPlotDataLineBytes +
            1000 * kAccessSampleBytes);
  plan.block_count = std::numeric_limits<std::uint64_t>::max() / 2;
  plan.passes = 1000;
  CHECK(EstimateResultBytes(OutputFormat::kJson, plan) ==
        std::numeric_limits<std::uint64_t>::max());
  CHECK(EstimateProfileBytes(plan, 1000) == std::numeric_limits<std::uint64_t>::max());
}

TEST_CASE("A recorded sweep replayed into a writer gives the writer's own output",
          "[result_size]") {
  for (const OutputFormat format : {OutputFormat::kRaw, OutputFormat::kCsv, OutputFormat::kJson}) {
    CAPTURE(Name(format));
    SweepOptions options;
    options.passes = 2;
    std::ostringstream direct;
    const std::unique_ptr<ResultSink> writer = MakeWriter(format, direct, false);
    ResultRecorder recorder;
    SweepInto("sim:hdd?size=512M&bad=300M+8K&noise=1%", options, {writer.get(), &recorder});
    std::ostringstream replayed;
    const std::unique_ptr<ResultSink> again = MakeWriter(format, replayed, false);
    recorder.Replay(*again);
    CHECK(replayed.str() == direct.str());
    CHECK(direct.str().find("unreadable") != std::string::npos);  // every kind of event
  }
}

// A stream buffer that takes `room` bytes, then fails as a full disk does.
class FullAfter final : public std::streambuf {
 public:
  explicit FullAfter(std::size_t room) : room_(room) {}
  std::string taken;

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    if (taken.size() >= room_) return traits_type::eof();
    taken.push_back(traits_type::to_char_type(c));
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::streamsize put = 0;
    while (put < n && taken.size() < room_) taken.push_back(s[put++]);
    return put;
  }

 private:
  std::size_t room_;
};

TEST_CASE("A write guard keeps a failing writer from ending the sweep", "[result_size]") {
  FullAfter full(20000);
  std::ostream out(&full);
  const std::unique_ptr<ResultSink> writer = MakeWriter(OutputFormat::kRaw, out, false);
  WriteGuard guard(*writer);
  ResultRecorder recorder;
  // Without the guard the writer's Error(kRuntime) would end RunSweep.
  CHECK_THROWS_AS(
      [&] {
        FullAfter again(20000);
        std::ostream o(&again);
        const std::unique_ptr<ResultSink> w = MakeWriter(OutputFormat::kRaw, o, false);
        SweepInto("sim:hdd?size=256M", SweepOptions{}, {w.get()});
      }(),
      Error);
  SweepInto("sim:hdd?size=256M", SweepOptions{}, {&guard, &recorder});
  CHECK(guard.failed());
  CHECK(guard.message().find("writing the raw data failed") != std::string::npos);
  CHECK(full.taken.size() == 20000);
  // Everything was still recorded: a replay writes the whole result.
  std::ostringstream whole;
  const std::unique_ptr<ResultSink> again = MakeWriter(OutputFormat::kRaw, whole, false);
  recorder.Replay(*again);
  CHECK(whole.str().size() > 20000);
  CHECK(whole.str().substr(0, 20000) == full.taken);
  CHECK(whole.str().find("# status: complete") != std::string::npos);
}

TEST_CASE("A write guard passes through what is not a write failure", "[result_size]") {
  class Refusing final : public ResultSink {
   public:
    void OnStart(const RunInfo&) override { throw Error("bad", ErrorKind::kBadInput); }
  } refusing;
  WriteGuard guard(refusing);
  CHECK_THROWS_AS(guard.OnStart(RunInfo{}), Error);
  CHECK_FALSE(guard.failed());
}

}  // namespace
}  // namespace zcav
