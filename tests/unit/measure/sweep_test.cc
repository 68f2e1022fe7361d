#include "zcav/measure/sweep.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "testutil.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"

using zcav::kMiB;
using zcav::test::RecordingSink;

namespace {

// Wraps a device and records every read it is asked for.
class RecordingDevice final : public zcav::Device {
 public:
  explicit RecordingDevice(zcav::Device& inner) : inner_(inner) {}
  const zcav::DeviceInfo& info() const override { return inner_.info(); }
  std::error_code ReadAt(std::uint64_t offset, std::span<std::byte> buffer) noexcept override {
    reads.push_back({offset, buffer.size()});
    return inner_.ReadAt(offset, buffer);
  }
  std::error_code PreparePass() noexcept override {
    ++prepared;
    return {};
  }
  struct Read {
    std::uint64_t offset, length;
  };
  std::vector<Read> reads;
  int prepared = 0;

 private:
  zcav::Device& inner_;
};

struct SimRun {
  zcav::SimModel model;
  zcav::VirtualClock clock;
  std::unique_ptr<zcav::Device> device;
  zcav::RunInfo run;
  RecordingSink sink;
  zcav::SweepResult result;

  SimRun(const std::string& spec, const zcav::SweepOptions& options,
         const std::atomic<bool>* stop = nullptr, zcav::SampleSink* extra = nullptr)
      : model(zcav::ParseSimSpec(spec)), device(zcav::MakeSimulatedDevice(model, clock)) {
    run.device = device->info();
    run.plan = zcav::PlanSweep(run.device, options);
    if (extra != nullptr) {
      zcav::TeeSink tee({&sink, extra});
      result = zcav::RunSweep(*device, run, clock, tee, stop);
    } else {
      result = zcav::RunSweep(*device, run, clock, sink, stop);
    }
  }
};

}  // namespace

TEST_CASE("Per-block rates reproduce the simulated zone table within 0.5 %", "[sweep]") {
  for (const char* spec : {"sim:hdd?noise=0.5%&seed=11", "sim:usb2-hdd?noise=0.5%",
                           "sim:cd?noise=0.2%", "sim:dvd?noise=0.2%", "sim:ssd?size=64G"}) {
    CAPTURE(spec);
    zcav::SweepOptions o;
    o.passes = 3;
    SimRun r(spec, o);
    REQUIRE(r.result.status == zcav::SweepStatus::kComplete);
    REQUIRE(r.sink.blocks.size() == r.run.plan.block_count);
    for (const auto& b : r.sink.blocks) {
      const double expected = zcav::ExpectedMbPerS(r.model, b.offset_bytes, b.length_bytes);
      CAPTURE(b.offset_bytes, b.mb_per_s, expected);
      REQUIRE(std::abs(b.mb_per_s - expected) / expected < 0.005);
    }
  }
}

TEST_CASE("Sweep emits one sample per block per pass and one result per block", "[sweep]") {
  zcav::SweepOptions o;
  o.passes = 4;
  o.block_bytes = 64 * kMiB;
  SimRun r("sim:hdd?size=10G&noise=2%", o);
  const std::uint64_t blocks = r.run.plan.block_count;
  CHECK(blocks == 160);
  CHECK(r.sink.samples.size() == blocks * 4);
  REQUIRE(r.sink.blocks.size() == blocks);
  REQUIRE(r.sink.passes.size() == 4);
  for (std::uint64_t i = 0; i < blocks; ++i) {
    CHECK(r.sink.blocks[i].index == i);
    CHECK(r.sink.blocks[i].passes == 4);
    CHECK(r.sink.blocks[i].min_mb_per_s <= r.sink.blocks[i].mb_per_s);
    CHECK(r.sink.blocks[i].mb_per_s <= r.sink.blocks[i].max_mb_per_s);
    CHECK(r.sink.blocks[i].stddev_mb_per_s > 0);  // 2 % noise: passes differ
  }
  for (const auto& p : r.sink.passes) CHECK(p.complete);
  CHECK(r.sink.finished);
}

TEST_CASE("Every pass reaches the device and is read in chunks", "[sweep]") {
  zcav::VirtualClock clock;
  const auto model = zcav::ParseSimSpec("sim:ssd?size=100M&noise=0");
  auto sim = zcav::MakeSimulatedDevice(model, clock);
  RecordingDevice dev(*sim);
  zcav::SweepOptions o;
  o.passes = 2;
  o.block_bytes = 10 * kMiB;
  o.chunk_bytes = 2 * kMiB;
  zcav::RunInfo run;
  run.device = dev.info();
  run.plan = zcav::PlanSweep(run.device, o);
  RecordingSink sink;
  zcav::RunSweep(dev, run, clock, sink);
  CHECK(dev.prepared == 2);
  // One warm-up chunk, then 10 blocks x 5 chunks x 2 passes.
  REQUIRE(dev.reads.size() == 1 + 100);
  CHECK(dev.reads[0].offset == 0);
  CHECK(dev.reads[1].offset == 0);
  CHECK(dev.reads[2].offset == 2 * kMiB);
  for (const auto& rd : dev.reads) CHECK(rd.length == 2 * kMiB);
}

TEST_CASE("The warm-up read can be switched off", "[sweep]") {
  zcav::VirtualClock clock;
  auto sim = zcav::MakeSimulatedDevice(zcav::ParseSimSpec("sim:ssd?size=16M"), clock);
  RecordingDevice dev(*sim);
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  o.warmup = false;
  zcav::RunInfo run;
  run.device = dev.info();
  run.plan = zcav::PlanSweep(run.device, o);
  RecordingSink sink;
  zcav::RunSweep(dev, run, clock, sink);
  CHECK(dev.reads.size() == 16);
}

TEST_CASE("The trailing partial block is measured", "[sweep]") {
  zcav::SweepOptions o;
  o.block_bytes = 3 * kMiB;
  SimRun r("sim:ssd?size=10M", o);
  REQUIRE(r.sink.blocks.size() == 4);
  CHECK(r.sink.blocks[3].offset_bytes == 9 * kMiB);
  CHECK(r.sink.blocks[3].length_bytes == kMiB);
  CHECK(r.sink.blocks[3].mb_per_s > 0);
  CHECK(r.result.bytes_read == 10 * kMiB);
}

TEST_CASE("A range reads only from its start to its end", "[sweep]") {
  zcav::SweepOptions o;
  o.block_bytes = kMiB;
  o.start_bytes = 5 * kMiB;
  o.end_bytes = 15 * kMiB;
  SimRun r("sim:hdd?size=1G", o);
  REQUIRE(r.sink.blocks.size() == 10);
  CHECK(r.sink.blocks.front().offset_bytes == 5 * kMiB);
  CHECK(r.sink.blocks.back().offset_bytes + r.sink.blocks.back().length_bytes == 15 * kMiB);
}

TEST_CASE("Skip reads every Nth block", "[sweep]") {
  zcav::SweepOptions o;
  o.block_bytes = kMiB;
  o.skip = 4;
  SimRun r("sim:ssd?size=10M", o);
  REQUIRE(r.sink.blocks.size() == 3);  // slots 0, 4, 8
  CHECK(r.sink.blocks[1].offset_bytes == 4 * kMiB);
  CHECK(r.sink.blocks[2].offset_bytes == 8 * kMiB);
}

TEST_CASE("Quick mode reads an evenly spaced tenth of the surface", "[sweep]") {
  zcav::SweepOptions o;
  o.quick = true;
  SimRun r("sim:hdd?size=2T", o);
  const auto& blocks = r.sink.blocks;
  CHECK(blocks.size() >= 900);
  CHECK(blocks.size() <= 1100);
  const double covered = static_cast<double>(r.result.bytes_read) / (2.0 * zcav::kTiB);
  CHECK(covered == Approx(0.1).epsilon(0.05));
  CHECK(blocks.back().offset_bytes > zcav::kTiB * 19 / 10);  // reaches the inner end
  CHECK(blocks[1].offset_bytes - blocks[0].offset_bytes ==
        blocks[2].offset_bytes - blocks[1].offset_bytes);
}

TEST_CASE("The default block size gives about 1000 points on any size of device", "[sweep]") {
  for (const char* spec : {"sim:cd", "sim:dvd", "sim:hdd", "sim:hdd?size=20T", "sim:ssd?size=3M"}) {
    CAPTURE(spec);
    const auto model = zcav::ParseSimSpec(spec);
    const zcav::SweepPlan plan = zcav::PlanSweep(model.info, {});
    CHECK(plan.block_bytes % model.info.sector_bytes == 0);
    CHECK(plan.chunk_bytes <= plan.block_bytes);
    CHECK(plan.block_count >= 1000);
    CHECK(plan.block_count <= 1250);
    if (plan.block_bytes >= kMiB) CHECK(plan.block_bytes % kMiB == 0);
  }
}

TEST_CASE("Sizes off the sector grid are rounded, with a note", "[sweep]") {
  const auto model = zcav::ParseSimSpec("sim:cd");  // 2048-byte sectors
  zcav::SweepOptions o;
  o.block_bytes = 1000000;
  o.chunk_bytes = 65000;
  o.start_bytes = 1000;
  const zcav::SweepPlan plan = zcav::PlanSweep(model.info, o);
  CHECK(plan.block_bytes % 2048 == 0);
  CHECK(plan.chunk_bytes % 2048 == 0);
  CHECK(plan.start_bytes == 0);
  CHECK(plan.notes.size() == 3);
}

TEST_CASE("Impossible plans are refused before any read", "[sweep]") {
  const auto info = zcav::ParseSimSpec("sim:ssd?size=1G").info;
  const auto refuses = [&](zcav::SweepOptions o) {
    CHECK_THROWS_AS(zcav::PlanSweep(info, o), zcav::Error);
  };
  zcav::SweepOptions o;
  o.end_bytes = 2 * zcav::kGiB;
  refuses(o);  // beyond the end
  o = {};
  o.start_bytes = 500 * kMiB;
  o.end_bytes = 100 * kMiB;
  refuses(o);  // reversed
  o = {};
  o.start_bytes = zcav::kGiB;
  refuses(o);  // empty
  o = {};
  o.block_bytes = 2 * zcav::kGiB;
  refuses(o);  // block larger than the device
  o = {};
  o.block_bytes = kMiB;
  o.chunk_bytes = 2 * kMiB;
  refuses(o);  // chunk larger than block
  o = {};
  o.passes = 0;
  refuses(o);
  o = {};
  o.skip = 0;
  refuses(o);
  o = {};
  o.quick = true;
  o.skip = 3;
  refuses(o);
}

TEST_CASE("The average is bytes over reading time, not a mean of block rates", "[sweep]") {
  zcav::SweepOptions o;
  o.block_bytes = 50 * kMiB;
  // Two halves: 100 MB/s and 25 MB/s; equal bytes, the slow half takes 4x as long.
  SimRun r("sim:hdd?size=100M&zones=2&outer=100&inner=25&noise=0", o);
  REQUIRE(r.sink.blocks.size() == 2);
  const double t = static_cast<double>(r.result.read_time.count()) * 1e-9;
  CHECK(r.result.avg_mb_per_s == Approx(100.0 * kMiB / 1e6 / t));
  CHECK(r.result.avg_mb_per_s < (r.sink.blocks[0].mb_per_s + r.sink.blocks[1].mb_per_s) / 2);
  CHECK(r.result.min_mb_per_s == Approx(r.sink.blocks[1].mb_per_s));
  CHECK(r.result.max_mb_per_s == Approx(r.sink.blocks[0].mb_per_s));
}

TEST_CASE("With --stop-on-error a read error ends the sweep at its offset, data kept", "[sweep]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  o.stop_on_error = true;
  SimRun r("sim:hdd?size=64M&bad=21M", o);
  CHECK(r.result.status == zcav::SweepStatus::kReadError);
  CHECK(r.result.error_offset_bytes == 21 * kMiB);
  CHECK(r.result.error == std::error_code(EIO, std::system_category()));
  REQUIRE(r.sink.blocks.size() == 5);  // 0..20 MiB measured; the block at 20 MiB failed
  CHECK(r.sink.blocks.back().offset_bytes == 16 * kMiB);
  CHECK(r.result.partial());
  CHECK(r.result.StatusText().find("read error at offset 22020096") != std::string::npos);
}

TEST_CASE("A bad sector is mapped to the sector and the sweep goes on", "[sweep][errors]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  SimRun r("sim:hdd?size=64M&bad=21M+4k&noise=0", o);
  CHECK(r.result.status == zcav::SweepStatus::kComplete);
  REQUIRE(r.result.unreadable.size() == 1);
  CHECK(r.result.unreadable[0].offset_bytes == 21 * kMiB);
  CHECK(r.result.unreadable[0].length_bytes == 4096);
  CHECK(r.result.unreadable[0].errno_value == EIO);
  CHECK_FALSE(r.result.unreadable[0].bounded_by_budget);
  REQUIRE(r.sink.unreadable.size() == 1);
  REQUIRE(r.sink.blocks.size() == 16);
  for (const auto& b : r.sink.blocks) {
    const bool hit = b.offset_bytes == 20 * kMiB;
    CHECK(b.passes == (hit ? 0U : 1U));
    CHECK(b.unreadable_bytes == (hit ? 4096U : 0U));
  }
  // Every other block is measured as the model says.
  CHECK(r.sink.blocks[6].mb_per_s ==
        Approx(zcav::ExpectedMbPerS(r.model, 24 * kMiB, 4 * kMiB)).epsilon(0.001));
  CHECK(r.result.blocks_measured == 15);
  CHECK(r.result.UnreadableBytes() == 4096);
}

TEST_CASE("A long bad region across chunks is one range with exact ends", "[sweep][errors]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  // 20.5 MiB .. 23.25 MiB: starts and ends inside chunks, spans four.
  const std::uint64_t lo = 20 * kMiB + 512 * 1024, len = 2 * kMiB + 768 * 1024;
  SimRun r("sim:hdd?size=64M&noise=0&bad=" + std::to_string(lo) + "+" + std::to_string(len), o);
  CHECK(r.result.status == zcav::SweepStatus::kComplete);
  REQUIRE(r.result.unreadable.size() == 1);
  CHECK(r.result.unreadable[0].offset_bytes == lo);
  CHECK(r.result.unreadable[0].length_bytes == len);
  CHECK(r.sink.blocks[5].unreadable_bytes == len);
  CHECK(r.sink.blocks[5].passes == 0);
  CHECK(r.sink.blocks[6].passes == 1);
}

TEST_CASE("Separate bad spots inside one chunk are found separately", "[sweep][errors]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  const std::uint64_t a = 21 * kMiB + 4096, b = 21 * kMiB + 600 * 1024;
  SimRun r(
      "sim:hdd?size=64M&noise=0&bad=" + std::to_string(a) + "+1024," + std::to_string(b) + "+512",
      o);
  REQUIRE(r.result.unreadable.size() == 2);
  CHECK(r.result.unreadable[0].offset_bytes == a);
  CHECK(r.result.unreadable[0].length_bytes == 1024);
  CHECK(r.result.unreadable[1].offset_bytes == b);
  CHECK(r.result.unreadable[1].length_bytes == 512);
}

TEST_CASE("A bad range seen in every pass is reported once", "[sweep][errors]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  o.passes = 3;
  SimRun r("sim:hdd?size=32M&bad=9M+512&noise=0", o);
  CHECK(r.result.status == zcav::SweepStatus::kComplete);
  CHECK(r.sink.unreadable.size() == 1);
  CHECK(r.result.unreadable.size() == 1);
  REQUIRE(r.sink.blocks.size() == 8);
  CHECK(r.sink.blocks[2].passes == 0);
  CHECK(r.sink.blocks[3].passes == 3);
  // Each pass's summary counts only the clean blocks.
  REQUIRE(r.result.passes.size() == 3);
  CHECK(r.result.passes[1].bytes == 28 * kMiB);
}

TEST_CASE("A device that goes away ends the sweep with what was measured", "[sweep][errors]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  SimRun r("sim:hdd?size=64M&gone=41M", o);
  CHECK(r.result.status == zcav::SweepStatus::kDeviceGone);
  CHECK(r.result.error == std::error_code(ENODEV, std::system_category()));
  CHECK(r.result.error_offset_bytes == 41 * kMiB);  // the first chunk reaching 41 MiB
  CHECK(r.result.partial());
  REQUIRE(r.sink.blocks.size() == 10);
  CHECK(r.sink.blocks.back().offset_bytes == 36 * kMiB);
  CHECK(r.result.unreadable.empty());
  CHECK(r.result.StatusText().find("device gone") != std::string::npos);
}

TEST_CASE("Slow chunks are reported as slow regions, not errors", "[sweep][errors]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  SimRun r("sim:hdd?size=64M&slow=30M+2M&noise=1%", o);
  CHECK(r.result.status == zcav::SweepStatus::kComplete);
  CHECK(r.result.unreadable.empty());
  REQUIRE(r.result.slow_regions.size() == 1);
  const zcav::SlowRegion& s = r.result.slow_regions[0];
  CHECK(s.offset_bytes == 30 * kMiB);
  CHECK(s.length_bytes == 2 * kMiB);
  // 30x the media time; the expectation comes from the faster zones before.
  CHECK(s.ms / s.expected_ms > 25);
  CHECK(s.ms / s.expected_ms < 40);
  CHECK(r.sink.slow.size() == 1);
  // The block holding it is measured (slowly): the data is kept.
  CHECK(r.sink.blocks[7].passes == 1);
  CHECK(r.sink.blocks[7].mb_per_s < r.sink.blocks[6].mb_per_s / 5);

  SECTION("switched off") {
    o.slow_factor = 0;
    SimRun off("sim:hdd?size=64M&slow=30M+2M", o);
    CHECK(off.result.slow_regions.empty());
  }
  SECTION("noise alone makes none") {
    SimRun noisy("sim:hdd?size=1G&noise=10%", o);
    CHECK(noisy.result.slow_regions.empty());
  }
}

TEST_CASE("Every chunk is counted in a latency class, per pass; blocks keep their worst chunk",
          "[sweep][errors][latency]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  o.chunk_bytes = kMiB;
  o.passes = 2;
  SimRun r("sim:hdd?size=64M&slow=30M+2M&bad=21M+4k&noise=0", o);
  REQUIRE(r.result.passes.size() == 2);
  // The slow chunks' time: 30x the media time of a 1 MiB read there.
  const double slow_ms = 30.0 * 1e3 * static_cast<double>(kMiB) /
                         (zcav::ExpectedMbPerS(r.model, 30 * kMiB, kMiB) * 1e6);
  const auto slow_class = static_cast<std::size_t>(zcav::LatencyClassOf(slow_ms));
  REQUIRE(slow_class > static_cast<std::size_t>(zcav::LatencyClass::kBelow20));
  for (const zcav::PassSummary& p : r.result.passes) {
    CHECK(p.latency.chunk_bytes == kMiB);
    CHECK(p.latency.Total() == 64);  // every chunk of the pass, once
    CHECK(p.latency.unreadable_chunks == 1);
    CHECK(p.latency.chunks[slow_class] == 2);
    // The other 61 are ordinary media reads (about 10-20 ms per MiB here).
    CHECK(p.latency.chunks[0] + p.latency.chunks[1] + p.latency.chunks[2] == 61);
  }
  const zcav::LatencyClasses total = r.result.LatencyTotals();
  CHECK(total.Total() == 128);
  CHECK(total.unreadable_chunks == 2);
  REQUIRE(r.sink.blocks.size() == 16);
  CHECK(r.sink.blocks[7].worst_chunk_ms == Approx(slow_ms).epsilon(0.05));
  CHECK(r.sink.blocks[6].worst_chunk_ms < slow_ms / 10);
  CHECK(r.sink.blocks[6].worst_chunk_ms > 0);
  // The block with the bad sector keeps the worst of its clean chunks.
  CHECK(r.sink.blocks[5].worst_chunk_ms > 0);
  CHECK(r.sink.blocks[5].worst_chunk_ms < slow_ms / 10);
}

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

}  // namespace

TEST_CASE("An interrupted sweep reports every measured block once, in order", "[sweep]") {
  zcav::SweepOptions o;
  o.block_bytes = kMiB;
  o.passes = 3;
  SECTION("in a middle pass") {
    std::atomic<bool> stop{false};
    StopAfter stopper(stop, 10 + 4);  // all of pass 1, 4 blocks of pass 2
    SimRun r("sim:ssd?size=10M", o, &stop, &stopper);
    CHECK(r.result.status == zcav::SweepStatus::kInterrupted);
    REQUIRE(r.sink.blocks.size() == 10);
    for (std::uint64_t i = 0; i < 10; ++i) {
      CHECK(r.sink.blocks[i].index == i);
      CHECK(r.sink.blocks[i].passes == (i < 4 ? 2u : 1u));
    }
    REQUIRE(r.sink.passes.size() == 2);
    CHECK(r.sink.passes[1].complete == false);
  }
  SECTION("in the last pass") {
    std::atomic<bool> stop{false};
    StopAfter stopper(stop, 20 + 6);
    SimRun r("sim:ssd?size=10M", o, &stop, &stopper);
    REQUIRE(r.sink.blocks.size() == 10);
    for (std::uint64_t i = 0; i < 10; ++i) {
      CHECK(r.sink.blocks[i].index == i);
      CHECK(r.sink.blocks[i].passes == (i < 6 ? 3u : 2u));
    }
  }
  SECTION("before the first block") {
    std::atomic<bool> stop{true};
    SimRun r("sim:ssd?size=10M", o, &stop);
    CHECK(r.result.status == zcav::SweepStatus::kInterrupted);
    CHECK(r.sink.blocks.empty());
    CHECK(r.sink.finished);
  }
}

TEST_CASE("A simulated sweep counts the bytes it fetched from the device", "[sweep]") {
  zcav::SweepOptions o;
  o.passes = 2;
  o.warmup = false;
  SimRun r("sim:ssd?size=1G", o);
  REQUIRE(r.result.storage_read_bytes.has_value());
  CHECK(*r.result.storage_read_bytes == 2 * zcav::kGiB);
}

TEST_CASE("Impossible plans and engines are bad input", "[sweep]") {
  const auto info = zcav::ParseSimSpec("sim:ssd?size=1G").info;
  const auto bad_input = zcav::test::HasKind(zcav::ErrorKind::kBadInput);
  zcav::SweepOptions o;
  o.end_bytes = 2 * zcav::kGiB;
  CHECK_THROWS_MATCHES(zcav::PlanSweep(info, o), zcav::Error, bad_input);
  o = {};
  o.queue_depth = zcav::kMaxQueueDepth + 1;
  CHECK_THROWS_MATCHES(zcav::PlanSweep(info, o), zcav::Error, bad_input);
  o = {};
  o.engine = zcav::ReadEngineChoice::kIoUring;  // a simulated device has no io_uring
  CHECK_THROWS_MATCHES(zcav::PlanSweep(info, o), zcav::Error, bad_input);
}

TEST_CASE("With --max-errors N the sweep gives up at the Nth unreadable range, data kept",
          "[sweep][errors]") {
  zcav::SweepOptions o;
  o.block_bytes = 4 * kMiB;
  o.max_errors = 2;
  SimRun r("sim:hdd?size=64M&bad=10M+4k,21M+4k,40M+4k&noise=0", o);
  CHECK(r.result.status == zcav::SweepStatus::kTooManyErrors);
  CHECK(r.result.partial());
  CHECK(r.result.StatusText() == "partial: gave up after 2 unreadable ranges (--max-errors)");
  // The first two ranges are mapped; the third is never reached.
  REQUIRE(r.result.unreadable.size() == 2);
  CHECK(r.result.unreadable[0].offset_bytes == 10 * kMiB);
  CHECK(r.result.unreadable[1].offset_bytes == 21 * kMiB);
  CHECK(r.sink.unreadable.size() == 2);
  CHECK(r.result.error_offset_bytes == 21 * kMiB);  // the chunk that reached the limit
  // 0..20 MiB reported, the block with the first range among them (no clean read).
  REQUIRE(r.sink.blocks.size() == 5);
  CHECK(r.sink.blocks.back().offset_bytes == 16 * kMiB);
  CHECK(r.sink.blocks[2].passes == 0);
  CHECK(r.sink.blocks[2].unreadable_bytes == 4096);
  CHECK(r.result.blocks_measured == 4);
  CHECK(r.sink.finished);

  SECTION("a limit above the ranges found changes nothing") {
    o.max_errors = 4;
    SimRun all("sim:hdd?size=64M&bad=10M+4k,21M+4k,40M+4k&noise=0", o);
    CHECK(all.result.status == zcav::SweepStatus::kComplete);
    CHECK(all.result.unreadable.size() == 3);
    CHECK(all.result.blocks_measured == 13);
  }
  SECTION("a limit of one gives up at the first") {
    o.max_errors = 1;
    SimRun first("sim:hdd?size=64M&bad=10M+4k,21M+4k,40M+4k&noise=0", o);
    CHECK(first.result.status == zcav::SweepStatus::kTooManyErrors);
    CHECK(first.result.unreadable.size() == 1);
    CHECK(first.result.StatusText() == "partial: gave up after 1 unreadable range (--max-errors)");
  }
}

TEST_CASE("With --max-time the sweep stops once that much clock time has passed", "[sweep]") {
  zcav::SweepOptions o;
  o.block_bytes = 16 * kMiB;
  o.max_time = std::chrono::seconds(10);
  SimRun r("sim:hdd?size=4G&noise=0", o);  // 60 MB/s at the start: ~600 MB in 10 s
  CHECK(r.result.status == zcav::SweepStatus::kTimeLimit);
  CHECK(r.result.partial());
  CHECK(r.result.StatusText() == "partial: time limit of 10s reached (--max-time)");
  REQUIRE(!r.sink.samples.empty());
  // The virtual clock starts at 0 with the sweep: every block began before the
  // limit, and the sweep stopped at the first block boundary after it.
  for (const zcav::Sample& s : r.sink.samples) CHECK(s.started_at < o.max_time);
  const zcav::Sample& last = r.sink.samples.back();
  CHECK(last.started_at + last.elapsed >= o.max_time);
  CHECK(r.result.blocks_measured == r.sink.samples.size());
  CHECK(r.result.blocks_measured > 30);
  CHECK(r.result.blocks_measured < 40);
  CHECK(r.result.wall_seconds == Approx(10).margin(0.5));
  CHECK(r.sink.finished);

  SECTION("a limit longer than the sweep changes nothing") {
    o.max_time = std::chrono::hours(1);
    SimRun all("sim:hdd?size=1G&noise=0", o);
    CHECK(all.result.status == zcav::SweepStatus::kComplete);
    CHECK(all.result.blocks_measured == all.run.plan.block_count);
  }
}
