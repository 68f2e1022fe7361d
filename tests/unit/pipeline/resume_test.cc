#include "zcav/pipeline/resume.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <sstream>
#include <string>

#include "testutil.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/format/data_reader.h"
#include "zcav/format/writers.h"
#include "zcav/measure/sweep.h"

using zcav::kMiB;
using zcav::test::RecordingSink;

namespace {

// Requests a stop once it has seen `after` samples.
class StopAfter final : public zcav::SampleSink {
 public:
  StopAfter(std::atomic<bool>& flag, std::size_t after) : flag_(flag), after_(after) {}
  void OnSample(const zcav::Sample&) override {
    if (++seen_ == after_) flag_ = true;
  }

 private:
  std::atomic<bool>& flag_;
  std::size_t after_;
  std::size_t seen_ = 0;
};

struct Outcome {
  RecordingSink sink;
  std::string text;  // the writer's output
  zcav::SweepResult result;
};

// Sweeps `spec` into a writer of `format`; stops after `stop_after` samples
// (0 = never); resumes from `from` when given.
void Sweep(const std::string& spec, const zcav::SweepOptions& options, zcav::OutputFormat format,
           std::size_t stop_after, const zcav::ResumePoint* from, Outcome& out) {
  zcav::VirtualClock clock;
  const auto device = zcav::OpenDevice(spec, clock);
  zcav::RunInfo run;
  run.device = device->info();
  run.plan = zcav::PlanSweep(run.device, options);
  std::ostringstream text;
  const auto writer = zcav::MakeWriter(format, text, false);
  std::atomic<bool> stop{false};
  StopAfter stopper(stop, stop_after == 0 ? ~std::size_t{0} : stop_after);
  zcav::TeeSink tee({&out.sink, writer.get(), &stopper});
  out.result = zcav::RunSweep(*device, run, clock, tee, &stop, from);
  out.text = text.str();
}

zcav::ResumePoint PointFrom(const std::string& spec, const zcav::SweepOptions& options,
                            const std::string& partial, const std::string& name) {
  std::istringstream in(partial);
  const zcav::SavedResult profile = zcav::ParseProfile(in, name);
  zcav::VirtualClock clock;
  const auto device = zcav::OpenDevice(spec, clock);
  return zcav::PrepareResume(profile, zcav::PlanSweep(device->info(), options), device->info());
}

void ExpectSameBlocks(const RecordingSink& a, const RecordingSink& b, double epsilon) {
  REQUIRE(a.blocks.size() == b.blocks.size());
  for (std::size_t i = 0; i < a.blocks.size(); ++i) {
    CHECK(a.blocks[i].offset_bytes == b.blocks[i].offset_bytes);
    CHECK(a.blocks[i].length_bytes == b.blocks[i].length_bytes);
    CHECK(a.blocks[i].passes == b.blocks[i].passes);
    CHECK(a.blocks[i].mb_per_s == Approx(b.blocks[i].mb_per_s).epsilon(epsilon));
  }
}

constexpr char kDisk[] = "sim:hdd?size=64M&noise=0";

}  // namespace

TEST_CASE("A one-pass sweep resumed from its raw partial equals a fresh sweep", "[resume]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  Outcome fresh, partial, resumed;
  Sweep(kDisk, o, zcav::OutputFormat::kRaw, 0, nullptr, fresh);
  Sweep(kDisk, o, zcav::OutputFormat::kRaw, 6, nullptr, partial);
  REQUIRE(partial.result.status == zcav::SweepStatus::kInterrupted);
  REQUIRE(partial.sink.blocks.size() == 6);
  const zcav::ResumePoint point = PointFrom(kDisk, o, partial.text, "partial.dat");
  CHECK(point.pass == 0);
  CHECK(point.block == 6);
  CHECK(point.samples.size() == 6);
  Sweep(kDisk, o, zcav::OutputFormat::kRaw, 0, &point, resumed);
  CHECK(resumed.result.status == zcav::SweepStatus::kComplete);
  // Raw rates carry 3 decimals (10^-3 MB/s of ~50): the replayed blocks match to that.
  ExpectSameBlocks(resumed.sink, fresh.sink, 1e-4);
  CHECK(resumed.result.bytes_read == fresh.result.bytes_read);
  CHECK(resumed.text.find("# status: complete") != std::string::npos);
}

TEST_CASE("A multi-pass sweep resumes exactly from its recorded samples", "[resume]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  o.passes = 3;
  for (const auto format : {zcav::OutputFormat::kRaw, zcav::OutputFormat::kJson}) {
    for (const std::size_t stop_after : {5, 16 + 7, 32 + 15}) {  // passes 1, 2, 3 (the last block)
      Outcome fresh, partial, resumed;
      Sweep(kDisk, o, format, 0, nullptr, fresh);
      Sweep(kDisk, o, format, stop_after, nullptr, partial);
      REQUIRE(partial.result.status == zcav::SweepStatus::kInterrupted);
      const zcav::ResumePoint point = PointFrom(kDisk, o, partial.text, "partial");
      CHECK(point.samples.size() == stop_after);
      CHECK(point.pass == stop_after / 16);
      CHECK(point.block == stop_after % 16);
      Sweep(kDisk, o, format, 0, &point, resumed);
      CHECK(resumed.result.status == zcav::SweepStatus::kComplete);
      ExpectSameBlocks(resumed.sink, fresh.sink, 1e-12);
      REQUIRE(resumed.result.passes.size() == 3);
      for (std::size_t p = 0; p < 3; ++p) {
        CHECK(resumed.result.passes[p].bytes == fresh.result.passes[p].bytes);
        CHECK(resumed.result.passes[p].read_time == fresh.result.passes[p].read_time);
      }
    }
  }
}

TEST_CASE("Unreadable ranges found before the interruption are kept once", "[resume]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  const std::string disk = "sim:hdd?size=64M&noise=0&bad=9M+4k";
  Outcome partial, resumed;
  Sweep(disk, o, zcav::OutputFormat::kJson, 8, nullptr, partial);
  const zcav::ResumePoint point = PointFrom(disk, o, partial.text, "partial.json");
  REQUIRE(point.unreadable.size() == 1);
  Sweep(disk, o, zcav::OutputFormat::kJson, 0, &point, resumed);
  REQUIRE(resumed.result.unreadable.size() == 1);
  CHECK(resumed.result.unreadable[0].offset_bytes == 9 * kMiB);
  CHECK(resumed.sink.blocks.size() == 16);
  CHECK(resumed.sink.blocks[2].passes == 0);
}

TEST_CASE("A partial result of another sweep is refused, naming the difference", "[resume]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  Outcome partial, complete;
  Sweep(kDisk, o, zcav::OutputFormat::kRaw, 6, nullptr, partial);
  Sweep(kDisk, o, zcav::OutputFormat::kRaw, 0, nullptr, complete);
  zcav::SweepOptions other = o;
  other.block_bytes = 8 * kMiB;
  CHECK_THROWS_WITH(PointFrom(kDisk, other, partial.text, "p.dat"),
                    Catch::Contains("block_bytes 4194304, this sweep has 8388608"));
  other = o;
  other.passes = 2;
  CHECK_THROWS_WITH(PointFrom(kDisk, other, partial.text, "p.dat"), Catch::Contains("passes 1"));
  CHECK_THROWS_WITH(PointFrom("sim:hdd?size=128M&noise=0", o, partial.text, "p.dat"),
                    Catch::Contains("another device"));
  CHECK_THROWS_WITH(PointFrom(kDisk, o, complete.text, "c.dat"),
                    Catch::Contains("nothing to resume: c.dat is a complete result"));
  Outcome csv;
  Sweep(kDisk, o, zcav::OutputFormat::kCsv, 6, nullptr, csv);
  CHECK_THROWS_WITH(PointFrom(kDisk, o, csv.text, "p.csv"),
                    Catch::Contains("records no sweep plan"));
}

TEST_CASE("A partial result that does not fit the sweep is bad input", "[resume]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  Outcome partial;
  Sweep(kDisk, o, zcav::OutputFormat::kRaw, 6, nullptr, partial);
  zcav::SweepOptions other = o;
  other.passes = 2;
  CHECK_THROWS_MATCHES(PointFrom(kDisk, other, partial.text, "p.dat"), zcav::Error,
                       zcav::test::HasKind(zcav::ErrorKind::kBadInput));
}
