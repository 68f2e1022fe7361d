// The sweep's read pipeline with several reads in flight (a queue that
// completes in batches, out of order), the io_uring queue on a real file,
// the engine and depth choice, and the cgroup read-throttle lookup.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "testutil.h"
#include "zcav/base/aligned_buffer.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/posix/posix_device.h"
#include "zcav/device/posix/read_throttle.h"
#include "zcav/device/posix/uring_queue.h"
#include "zcav/device/sim_device.h"
#include "zcav/format/data_reader.h"
#include "zcav/format/writers.h"
#include "zcav/measure/estimate.h"
#include "zcav/measure/sweep.h"

using zcav::kMiB;
using zcav::test::RecordingSink;

namespace {

// A simulated device that takes `depth` reads at once: Wait() reads every
// queued chunk (in submission order, on the virtual clock) and reports them
// all as one batch, last submitted first.
class BatchingDevice final : public zcav::Device {
 public:
  explicit BatchingDevice(zcav::Device& inner) : inner_(inner), info_(inner.info()) {
    info_.read_engine = "io_uring";  // so that PlanSweep gives it a queue
    info_.default_queue_depth = 4;
  }
  const zcav::DeviceInfo& info() const override { return info_; }
  std::error_code ReadAt(std::uint64_t offset, std::span<std::byte> buffer) noexcept override {
    return inner_.ReadAt(offset, buffer);
  }
  std::error_code CheckPresent() noexcept override { return inner_.CheckPresent(); }
  std::unique_ptr<zcav::ReadQueue> OpenReadQueue(std::uint32_t depth,
                                                 std::uint64_t chunk_bytes) override {
    return std::make_unique<Queue>(*this, depth, chunk_bytes);
  }

  std::uint32_t max_in_flight = 0;
  // The offsets of the reads of each batch (one Wait), and of every read
  // submitted, in order.
  std::vector<std::vector<std::uint64_t>> batches;
  std::vector<std::uint64_t> submitted;

 private:
  class Queue final : public zcav::ReadQueue {
   public:
    Queue(BatchingDevice& device, std::uint32_t depth, std::uint64_t chunk_bytes)
        : device_(device), depth_(depth), buffer_(chunk_bytes, 4096), chunk_bytes_(chunk_bytes) {}
    std::uint32_t depth() const override { return depth_; }
    const char* engine() const override { return "batching test queue"; }
    std::span<std::byte> Buffer(std::uint32_t) override { return buffer_.span(chunk_bytes_); }
    void Submit(std::uint32_t slot, std::uint64_t offset, std::uint64_t length) noexcept override {
      queued_.push_back({slot, offset, length});
      device_.submitted.push_back(offset);
      device_.max_in_flight =
          std::max(device_.max_in_flight, static_cast<std::uint32_t>(queued_.size()));
    }
    std::size_t Wait(std::span<Completion> out) noexcept override {
      std::vector<Completion> done;
      device_.batches.emplace_back();
      for (const Read& r : queued_) {
        done.push_back({r.slot, device_.inner_.ReadAt(r.offset, buffer_.span(r.length))});
        device_.batches.back().push_back(r.offset);
      }
      queued_.clear();
      std::reverse(done.begin(), done.end());
      std::copy(done.begin(), done.end(), out.begin());
      return done.size();
    }

   private:
    struct Read {
      std::uint32_t slot;
      std::uint64_t offset, length;
    };
    BatchingDevice& device_;
    std::uint32_t depth_;
    zcav::AlignedBuffer buffer_;
    std::uint64_t chunk_bytes_;
    std::vector<Read> queued_;
  };

  zcav::Device& inner_;
  zcav::DeviceInfo info_;
};

struct QueuedRun {
  zcav::VirtualClock clock;
  std::unique_ptr<zcav::Device> sim;
  BatchingDevice device;
  zcav::RunInfo run;
  RecordingSink sink;
  zcav::SweepResult result;

  QueuedRun(const std::string& spec, zcav::SweepOptions options,
            const std::atomic<bool>* stop = nullptr)
      : sim(zcav::MakeSimulatedDevice(zcav::ParseSimSpec(spec), clock)), device(*sim) {
    run.device = device.info();
    run.plan = zcav::PlanSweep(run.device, options);
    result = zcav::RunSweep(device, run, clock, sink, stop);
  }
};

zcav::SweepOptions Blocks(std::uint64_t block_bytes, std::uint32_t depth) {
  zcav::SweepOptions o;
  o.block_bytes = block_bytes;
  o.queue_depth = depth;
  return o;
}

}  // namespace

TEST_CASE("Reads in flight together give the curve of reads one at a time", "[sweep][queue]") {
  // 4-chunk blocks; depth 3 makes every batch straddle a block boundary.
  const std::string spec = "sim:hdd?size=256M&noise=0&zones=4";
  QueuedRun one(spec, Blocks(4 * kMiB, 1));
  REQUIRE(one.run.plan.queue_depth == 1);
  for (std::uint32_t depth : {3U, 4U, 8U}) {
    CAPTURE(depth);
    QueuedRun many(spec, Blocks(4 * kMiB, depth));
    REQUIRE(many.result.status == zcav::SweepStatus::kComplete);
    CHECK(many.run.plan.engine == "io_uring");
    CHECK(many.run.plan.queue_depth == depth);
    CHECK(many.device.max_in_flight == depth);  // the queue was kept full
    REQUIRE(many.sink.blocks.size() == one.sink.blocks.size());
    // Time is shared out, never lost or counted twice: the same average
    // (each share is rounded down to whole nanoseconds).
    CHECK(many.result.avg_mb_per_s == Approx(one.result.avg_mb_per_s).epsilon(1e-6));
    // Block by block the same, except for the blocks a batch spanning a
    // zone boundary touches (a batch covers depth chunks: at most
    // depth / 4 + 1 blocks of 4 chunks, plus one it straddles into).
    int differ = 0;
    for (std::size_t i = 0; i < many.sink.blocks.size(); ++i) {
      const double a = one.sink.blocks[i].mb_per_s, b = many.sink.blocks[i].mb_per_s;
      if (std::abs(a - b) / a > 0.001) ++differ;
    }
    CHECK(differ <= 3 * static_cast<int>((depth + 3) / 4 + 1));  // 3 zone boundaries
    // Up to a block in flight (depth 3, 4): drained per block, each block's
    // rate exactly its own.
    if (depth <= 4) CHECK(differ == 0);
    // Samples in block order, each once.
    for (std::size_t i = 0; i < many.sink.samples.size(); ++i) {
      CHECK(many.sink.samples[i].block_index == i);
    }
  }
}

TEST_CASE("With reads in flight, bad sectors are mapped as one at a time",
          "[sweep][queue][errors]") {
  const std::string spec = "sim:hdd?size=64M&bad=21M+4k,42M+3000000&noise=0";
  QueuedRun one(spec, Blocks(4 * kMiB, 1));
  QueuedRun many(spec, Blocks(4 * kMiB, 8));
  REQUIRE(many.result.status == zcav::SweepStatus::kComplete);
  REQUIRE(many.result.unreadable.size() == one.result.unreadable.size());
  for (std::size_t i = 0; i < one.result.unreadable.size(); ++i) {
    CHECK(many.result.unreadable[i].offset_bytes == one.result.unreadable[i].offset_bytes);
    CHECK(many.result.unreadable[i].length_bytes == one.result.unreadable[i].length_bytes);
  }
  REQUIRE(many.sink.blocks.size() == 16);
  for (std::size_t i = 0; i < 16; ++i) {
    CHECK(many.sink.blocks[i].passes == one.sink.blocks[i].passes);
    CHECK(many.sink.blocks[i].unreadable_bytes == one.sink.blocks[i].unreadable_bytes);
  }
}

TEST_CASE("With reads in flight, a device gone stops at the lowest failed chunk",
          "[sweep][queue][errors]") {
  QueuedRun many("sim:hdd?size=64M&gone=41M", Blocks(4 * kMiB, 8));
  CHECK(many.result.status == zcav::SweepStatus::kDeviceGone);
  CHECK(many.result.error_offset_bytes == 41 * kMiB);
  REQUIRE(many.sink.blocks.size() == 10);  // 0..40 MiB, all measured
  for (const auto& b : many.sink.blocks) CHECK(b.passes == 1);
}

TEST_CASE("With reads in flight, --stop-on-error stops at the first bad chunk",
          "[sweep][queue][errors]") {
  zcav::SweepOptions o = Blocks(4 * kMiB, 8);
  o.stop_on_error = true;
  QueuedRun many("sim:hdd?size=64M&bad=21M,30M", o);
  CHECK(many.result.status == zcav::SweepStatus::kReadError);
  CHECK(many.result.error_offset_bytes == 21 * kMiB);
  CHECK(many.sink.blocks.size() == 5);
}

TEST_CASE("A stop request with reads in flight keeps every whole block, in order",
          "[sweep][queue]") {
  std::atomic<bool> stop{false};
  struct StopAt : zcav::SampleSink {
    std::atomic<bool>& stop;
    explicit StopAt(std::atomic<bool>& s) : stop(s) {}
    void OnStart(const zcav::RunInfo&) override {}
    void OnSample(const zcav::Sample&) override {}
    void OnBlock(const zcav::BlockResult&) override {}
    void OnPassDone(const zcav::PassSummary&) override {}
    void OnFinish(const zcav::SweepResult&) override {}
  };
  // The virtual clock runs only with reads: stop from the sink after 5 samples.
  zcav::VirtualClock clock;
  auto sim = zcav::MakeSimulatedDevice(zcav::ParseSimSpec("sim:hdd?size=64M"), clock);
  BatchingDevice device(*sim);
  zcav::RunInfo run;
  run.device = device.info();
  run.plan = zcav::PlanSweep(run.device, Blocks(2 * kMiB, 6));
  struct Counting final : zcav::SampleSink {
    std::atomic<bool>& stop;
    RecordingSink rec;
    explicit Counting(std::atomic<bool>& s) : stop(s) {}
    void OnStart(const zcav::RunInfo& r) override { rec.OnStart(r); }
    void OnSample(const zcav::Sample& s) override {
      rec.OnSample(s);
      if (rec.samples.size() == 5) stop = true;
    }
    void OnBlock(const zcav::BlockResult& b) override { rec.OnBlock(b); }
    void OnPassDone(const zcav::PassSummary& p) override { rec.OnPassDone(p); }
    void OnFinish(const zcav::SweepResult& r) override { rec.OnFinish(r); }
  } sink(stop);
  const zcav::SweepResult result = zcav::RunSweep(device, run, clock, sink, &stop);
  CHECK(result.status == zcav::SweepStatus::kInterrupted);
  REQUIRE(sink.rec.samples.size() >= 5);
  REQUIRE(sink.rec.blocks.size() == sink.rec.samples.size());
  for (std::size_t i = 0; i < sink.rec.blocks.size(); ++i) {
    CHECK(sink.rec.blocks[i].index == i);
    CHECK(sink.rec.blocks[i].passes == 1);
  }
  CHECK(sink.rec.samples.size() < run.plan.block_count);
}

TEST_CASE("The engine and queue depth follow the device and the options", "[sweep][queue]") {
  zcav::DeviceInfo dev;
  dev.path = "/dev/x";
  dev.size_bytes = 1024 * kMiB;
  dev.read_engine = "io_uring";
  dev.default_queue_depth = 16;
  zcav::SweepOptions o;
  auto plan = zcav::PlanSweep(dev, o);
  CHECK(plan.engine == "io_uring");
  CHECK(plan.queue_depth == 16);
  o.queue_depth = 3;
  CHECK(zcav::PlanSweep(dev, o).queue_depth == 3);
  o.queue_depth = zcav::kMaxQueueDepth + 1;
  CHECK_THROWS_AS(zcav::PlanSweep(dev, o), zcav::Error);
  o.queue_depth = 4;
  o.engine = zcav::ReadEngineChoice::kPread;
  CHECK_THROWS_WITH(zcav::PlanSweep(dev, o), Catch::Contains("needs io_uring"));
  o.queue_depth = 0;
  plan = zcav::PlanSweep(dev, o);
  CHECK(plan.engine == "pread");
  CHECK(plan.queue_depth == 1);
  // Where io_uring is unavailable: pread, one at a time, the depth noted.
  dev.read_engine = "pread";
  o.engine = zcav::ReadEngineChoice::kAuto;
  o.queue_depth = 8;
  plan = zcav::PlanSweep(dev, o);
  CHECK(plan.engine == "pread");
  CHECK(plan.queue_depth == 1);
  REQUIRE_FALSE(plan.notes.empty());
  CHECK_THAT(plan.notes.back(), Catch::Contains("queue depth 8 ignored"));
  o.engine = zcav::ReadEngineChoice::kIoUring;
  CHECK_THROWS_WITH(zcav::PlanSweep(dev, o), Catch::Contains("not available"));
  // A simulated device and a write sweep go one chunk at a time.
  dev.read_engine = "sim";
  o.engine = zcav::ReadEngineChoice::kAuto;
  plan = zcav::PlanSweep(dev, o);
  CHECK(plan.engine == "sim");
  CHECK(plan.queue_depth == 1);
  dev.read_engine = "io_uring";
  o.write = true;
  plan = zcav::PlanSweep(dev, o);
  CHECK(plan.engine == "pwrite");
  CHECK(plan.queue_depth == 1);
}

TEST_CASE("The default read shape follows the device class and its largest request",
          "[sweep][queue]") {
  const auto shape = [](unsigned major, std::string transport, std::optional<bool> rotational,
                        std::uint64_t max_request_bytes) {
    zcav::DeviceInfo d;
    d.transport = std::move(transport);
    d.rotational = rotational;
    d.max_request_bytes = max_request_bytes;
    const zcav::ReadShape s = zcav::DefaultReadShape(major, d);
    return std::pair{s.queue_depth, s.chunk_bytes};
  };
  using P = std::pair<std::uint32_t, std::uint64_t>;
  CHECK(shape(11, "scsi", true, 512 * 1024) == P{1, kMiB});   // optical
  CHECK(shape(8, "ata", true, 1280 * 1024) == P{2, kMiB});    // hard disk
  CHECK(shape(8, "usb", true, 32 * kMiB) == P{2, kMiB});      // its request size is not used
  CHECK(shape(8, "ata", false, 1280 * 1024) == P{16, kMiB});  // SATA SSD
  CHECK(shape(259, "nvme", std::nullopt, 2 * kMiB) == P{16, 2 * kMiB});
  CHECK(shape(259, "nvme", false, 128 * 1024) == P{16, kMiB});     // small requests: 1 MiB reads
  CHECK(shape(254, "virtio", true, 4 * kMiB) == P{2, 4 * kMiB});   // 8 MiB in flight
  CHECK(shape(254, "virtio", true, 32 * kMiB) == P{2, 4 * kMiB});  // at most 4 MiB a read
  CHECK(shape(254, "virtio", true, 3 * kMiB) == P{4, 2 * kMiB});   // a power of two
  CHECK(shape(7, "loop", true, 1280 * 1024) == P{8, kMiB});
  CHECK(shape(7, "loop", true, 0) == P{8, kMiB});      // not known: 1 MiB
  CHECK(shape(0, "", std::nullopt, 0) == P{4, kMiB});  // FUSE, NFS
}

namespace {
// A 4 GiB io_uring device that prefers 16 reads of 4 MiB (an SSD taking 4 MiB requests).
zcav::DeviceInfo FourGiBDeepQueue() {
  zcav::DeviceInfo dev;
  dev.path = "/dev/x";
  dev.size_bytes = 4096 * kMiB;
  dev.read_engine = "io_uring";
  dev.default_queue_depth = 16;
  dev.default_chunk_bytes = 4 * kMiB;
  return dev;
}
}  // namespace

TEST_CASE("The default chunk is the device's preferred read where it divides the block",
          "[sweep][queue]") {
  zcav::DeviceInfo dev = FourGiBDeepQueue();
  zcav::SweepOptions o;
  CHECK(zcav::PlanSweep(dev, o).block_bytes == 64 * kMiB);  // the 16 x 4 MiB in flight
  CHECK(zcav::PlanSweep(dev, o).chunk_bytes == 4 * kMiB);
  const auto chunk_for = [&](std::uint64_t block_bytes) {
    o.block_bytes = block_bytes;
    return zcav::PlanSweep(dev, o).chunk_bytes;
  };
  CHECK(chunk_for(256 * kMiB) == 4 * kMiB);
  CHECK(chunk_for(6 * kMiB) == 2 * kMiB);  // 4 MiB would leave 2 MiB reads
  CHECK(chunk_for(5 * kMiB) == kMiB);
  CHECK(chunk_for(kMiB) == kMiB);
  CHECK(chunk_for(512 * 1024) == 512 * 1024);  // a block smaller than 1 MiB: one read
  o.chunk_bytes = 64 * 1024;                   // given: kept
  CHECK(chunk_for(256 * kMiB) == 64 * 1024);
  o.chunk_bytes = 0;
  dev.default_chunk_bytes = kMiB;  // rotational, optical, unknown
  CHECK(chunk_for(256 * kMiB) == kMiB);
}

TEST_CASE("Blocks much smaller than the bytes in flight come with a note on their blur",
          "[sweep][queue]") {
  zcav::DeviceInfo dev = FourGiBDeepQueue();
  const auto scatter_note = [&](const zcav::SweepOptions& o) {
    for (const std::string& n : zcav::PlanSweep(dev, o).notes) {
      if (n.find("blurs the per-block rates") != std::string::npos) return n;
    }
    return std::string();
  };
  zcav::SweepOptions o;  // the default: 64 MiB blocks, drained
  CHECK(scatter_note(o).empty());
  o.block_bytes = 4 * kMiB;  // forced: 16 x 4 MiB in flight over 4 MiB blocks
  CHECK(scatter_note(o) ==
        "16 reads of 4 MiB in flight (64 MiB) span 16 blocks of 4 MiB: a device that completes "
        "reads in bursts blurs the per-block rates over up to 64 MiB (the average is exact); "
        "--block-size 64M or more, or --queue-depth 1, for a sharp curve");
  o.block_bytes = 32 * kMiB;  // two blocks in flight: blurred over two
  CHECK_THAT(scatter_note(o), Catch::StartsWith("16 reads of 4 MiB in flight (64 MiB) span 2 "));
  o.block_bytes = 64 * kMiB;  // one block in flight: drained, no note
  CHECK(scatter_note(o).empty());
  o.block_bytes = 4 * kMiB;
  o.queue_depth = 1;
  CHECK(scatter_note(o).empty());
  o.queue_depth = 0;
  dev.read_engine = "sim";  // one read at a time
  CHECK(scatter_note(o).empty());
}

namespace {
// A device of `size_bytes` read through io_uring in the given default shape.
zcav::DeviceInfo QueuedDevice(std::uint64_t size_bytes, std::uint32_t depth,
                              std::uint64_t chunk_bytes) {
  zcav::DeviceInfo dev;
  dev.path = "/dev/x";
  dev.size_bytes = size_bytes;
  dev.read_engine = "io_uring";
  dev.default_queue_depth = depth;
  dev.default_chunk_bytes = chunk_bytes;
  return dev;
}
}  // namespace

TEST_CASE("The default shape never puts more than one block in flight", "[sweep][queue]") {
  // The classes of DefaultReadShape (2 x 1 MiB rotational, 16 x 4 MiB NVMe,
  // 2 x 4 MiB virtio, 8 x 1 MiB loop, 4 x 1 MiB unknown), on devices from a
  // 16 MiB stick to 20 TiB, rate known or not, full and quick.
  const std::pair<std::uint32_t, std::uint64_t> shapes[] = {
      {2, kMiB}, {16, 4 * kMiB}, {2, 4 * kMiB}, {8, kMiB}, {4, kMiB}, {1, kMiB}};
  for (const auto& [depth, chunk] : shapes) {
    for (std::uint64_t size :
         {16 * kMiB, 192 * kMiB, 384 * kMiB, 4096 * kMiB, 2 * zcav::kTiB, 20 * zcav::kTiB}) {
      for (double rate : {0.0, 36.0, 40.0, 3500.0, 10000.0}) {
        for (bool quick : {false, true}) {
          CAPTURE(depth, chunk, size, rate, quick);
          zcav::SweepOptions o;
          o.expected_mb_per_s = rate;
          o.quick = quick;
          const zcav::SweepPlan plan = zcav::PlanSweep(QueuedDevice(size, depth, chunk), o);
          const zcav::BlockTiming timing = zcav::BlockTimingOf(plan);
          CHECK(timing.drained_per_block);
          CHECK(timing.bytes_in_flight <= plan.block_bytes);
          CHECK(timing.blur_blocks() == 0);
          CHECK(plan.block_bytes % plan.chunk_bytes == 0);
          // Never fewer than kMinDefaultBlocks points; ~1000 where the
          // blocks are long enough at that count.
          CHECK(plan.block_count >= zcav::kMinDefaultBlocks);
          CHECK(plan.block_count <= 1250);
          for (const std::string& n : plan.notes) CHECK(n.find("blurs") == std::string::npos);
        }
      }
    }
  }
}

TEST_CASE("The default block gets 100 ms of reading at the expected rate, within 64-1000 blocks",
          "[sweep][queue]") {
  const auto plan = [](std::uint64_t size, double rate, std::uint32_t depth = 2,
                       std::uint64_t chunk = kMiB) {
    zcav::SweepOptions o;
    o.expected_mb_per_s = rate;
    return zcav::PlanSweep(QueuedDevice(size, depth, chunk), o);
  };
  // 4 GiB at 200 MB/s: 20 MB a block (19 whole MiB), not 4 MiB.
  CHECK(plan(4096 * kMiB, 200).block_bytes == 19 * kMiB);
  CHECK(plan(4096 * kMiB, 0).block_bytes == 4 * kMiB);  // rate not known: by size
  // A virtio file of 4 GiB at 3.5 GB/s: 350 MB would be 11 blocks; 64 of 64 MiB.
  CHECK(plan(4096 * kMiB, 3500, 2, 4 * kMiB).block_bytes == 64 * kMiB);
  CHECK(plan(4096 * kMiB, 3500, 2, 4 * kMiB).block_count == 64);
  // A 4 TB disk at 200 MB/s: 1000 blocks of 4 GB are long enough already.
  CHECK(plan(4000 * zcav::kGiB, 200).block_count >= 1000);
  // The flat 36 MB/s FUSE fixture (192 MiB, 4 x 1 MiB): 3.6 MB is past the
  // 64-block cap of 3 MiB, so 3 MiB blocks and 3 reads in flight.
  const zcav::SweepPlan fuse = plan(192 * kMiB, 36, 4, kMiB);
  CHECK(fuse.block_bytes == 3 * kMiB);
  CHECK(fuse.queue_depth == 3);
  CHECK(fuse.block_count == 64);
  // Explained in a note.
  REQUIRE_FALSE(fuse.notes.empty());
  CHECK_THAT(fuse.notes.back(),
             Catch::StartsWith("default block size 3 MiB (64 blocks, about 87 ms "
                               "each at the start's 36.0 MB/s)"));
  // A simulated device (one read at a time, no rate): 1000 points as ever.
  const auto sim = zcav::ParseSimSpec("sim:ssd?size=3M");
  CHECK(zcav::PlanSweep(sim.info, {}).block_count >= 1000);
  zcav::SweepOptions bad;
  bad.expected_mb_per_s = -1;
  CHECK_THROWS_AS(zcav::PlanSweep(sim.info, bad), zcav::Error);
}

TEST_CASE("A forced shape with more than a block in flight is blurred over that many blocks",
          "[sweep][queue]") {
  const zcav::DeviceInfo loop = QueuedDevice(384 * kMiB, 8, kMiB);  // 8 x 1 MiB
  zcav::SweepOptions o;
  o.block_bytes = kMiB;  // zcav sweep -b 1
  zcav::SweepPlan plan = zcav::PlanSweep(loop, o);
  CHECK(plan.queue_depth == 8);  // the user's block keeps the device's depth
  zcav::BlockTiming t = zcav::BlockTimingOf(plan);
  CHECK_FALSE(t.drained_per_block);
  CHECK(t.bytes_in_flight == 8 * kMiB);
  CHECK(t.blocks_spanned == 8);
  CHECK(t.blur_blocks() == 8);
  o.block_bytes = 0;
  o.queue_depth = 64;  // --queue-depth 64 over the default blocks
  plan = zcav::PlanSweep(loop, o);
  t = zcav::BlockTimingOf(plan);
  CHECK(t.blur_blocks() == Approx(64.0 * kMiB / static_cast<double>(plan.block_bytes)));
  o.queue_depth = 0;
  o.chunk_bytes = 256 * 1024;  // --chunk-size 256K: 8 x 256 KiB, inside the block
  t = zcav::BlockTimingOf(zcav::PlanSweep(loop, o));
  CHECK(t.drained_per_block);
  CHECK(t.blur_blocks() == 0);
  // A recorded plan of a simulated sweep: one read at a time.
  zcav::SweepPlan one;
  one.block_bytes = 2 * kMiB;
  one.chunk_bytes = kMiB;
  one.queue_depth = 1;
  CHECK(zcav::BlockTimingOf(one).drained_per_block);
  CHECK(zcav::BlockTimingOf(one).blocks_spanned == 0.5);
}

TEST_CASE("On a device that completes in bursts, each default block is timed on its own",
          "[sweep][queue]") {
  // 8 zones of different rates, no noise: a block's rate is exact only if
  // its time is its own. BatchingDevice completes everything queued in one
  // batch, as a FUSE server or a virtual disk's host may.
  const std::string spec = "sim:hdd?size=256M&noise=0&zones=8";
  const zcav::SimModel model = zcav::ParseSimSpec(spec);
  zcav::SweepOptions defaults;
  defaults.warmup = false;  // the warm-up read would move the simulated head off block 0
  QueuedRun run(spec, defaults);
  REQUIRE(run.result.status == zcav::SweepStatus::kComplete);
  const zcav::SweepPlan& plan = run.run.plan;
  CHECK(zcav::BlockTimingOf(plan).drained_per_block);
  // No batch holds reads of two blocks...
  for (const auto& batch : run.device.batches) {
    REQUIRE_FALSE(batch.empty());
    const std::uint64_t block = (batch.front() - plan.start_bytes) / plan.block_bytes;
    for (std::uint64_t offset : batch)
      CHECK((offset - plan.start_bytes) / plan.block_bytes == block);
  }
  // ...and every block reads at its zone's rate (a block's reads all in
  // one zone), however the zones change.
  REQUIRE(run.sink.blocks.size() == plan.block_count);
  for (const auto& b : run.sink.blocks) {
    const double expected = zcav::ExpectedMbPerS(model, b.offset_bytes, b.length_bytes);
    CAPTURE(b.offset_bytes, b.mb_per_s, expected);
    CHECK(b.mb_per_s == Approx(expected).epsilon(1e-6));
  }
  // The same device with a forced blurring shape: batches span blocks.
  zcav::SweepOptions forced;
  forced.block_bytes = kMiB;  // 4 x 1 MiB in flight over 1 MiB blocks
  QueuedRun blurred(spec, forced);
  CHECK(zcav::BlockTimingOf(blurred.run.plan).blur_blocks() == 4);
  bool spans = false;
  for (const auto& batch : blurred.device.batches) {
    spans = spans || batch.front() / kMiB != batch.back() / kMiB;
  }
  CHECK(spans);
}

TEST_CASE("The block estimate reads the start at the sweep's depth, briefly",
          "[sweep][queue][estimate]") {
  zcav::VirtualClock clock;
  auto sim = zcav::MakeSimulatedDevice(zcav::ParseSimSpec("sim:ssd?size=4G&noise=0"), clock);
  BatchingDevice device(*sim);  // io_uring-like, 4 x 1 MiB by default
  const zcav::SweepPlan plan = zcav::PlanSweep(device.info(), {});
  const zcav::StartRateOptions e = zcav::BlockEstimateOptions(plan);
  CHECK(e.queue_depth == plan.queue_depth);
  CHECK(e.chunk_bytes == plan.chunk_bytes);
  CHECK(e.max_bytes == 256 * kMiB);
  CHECK(e.max_time == zcav::kBlockEstimateTime);
  const zcav::StartRate rate = zcav::MeasureStartRate(device, clock, e);
  CHECK(rate.mb_per_s == Approx(530).epsilon(0.001));
  CHECK(device.max_in_flight == 4);  // the queue was used, full
  CHECK(rate.time <= zcav::kBlockEstimateTime + std::chrono::milliseconds(10));
  // WithStartRate sets it for a default block, and only then.
  zcav::SweepOptions o;
  CHECK(zcav::WithStartRate(device, clock, o).expected_mb_per_s == Approx(530).epsilon(0.001));
  o.block_bytes = kMiB;
  CHECK(zcav::WithStartRate(device, clock, o).expected_mb_per_s == 0);
  o.block_bytes = 0;
  const auto reads_before = device.submitted.size();
  CHECK(zcav::WithStartRate(*sim, clock, o).expected_mb_per_s == 0);  // simulated: not measured
  CHECK(device.submitted.size() == reads_before);
}

TEST_CASE("How sharp the blocks are is written to the raw and JSON files and read back",
          "[sweep][queue][data_reader]") {
  zcav::RunInfo run;
  run.device = QueuedDevice(384 * kMiB, 8, kMiB);
  run.version = "test";
  zcav::SweepOptions o;
  o.block_bytes = kMiB;
  o.end_bytes = 4 * kMiB;
  run.plan = zcav::PlanSweep(run.device, o);  // 8 x 1 MiB in flight over 1 MiB blocks
  const auto written = [&](zcav::OutputFormat format) {
    std::ostringstream out;
    const auto writer = zcav::MakeWriter(format, out, false);
    writer->OnStart(run);
    for (std::uint64_t i = 0; i < 4; ++i) {
      zcav::BlockResult b;
      b.index = i;
      b.offset_bytes = i * kMiB;
      b.length_bytes = kMiB;
      b.passes = 1;
      b.mb_per_s = b.mean_mb_per_s = b.min_mb_per_s = b.max_mb_per_s = 40;
      writer->OnBlock(b);
    }
    zcav::SweepResult result;
    writer->OnFinish(result);
    return out.str();
  };
  const auto blur = [](const std::string& text) {
    std::istringstream in(text);
    return zcav::ParseProfile(in, "x").blur_blocks;
  };
  const std::string raw = written(zcav::OutputFormat::kRaw);
  CHECK_THAT(raw, Catch::Contains("# timing: bytes_in_flight=8388608 blocks_spanned=8 "
                                  "drained_per_block=no blur_blocks=8\n"));
  CHECK(blur(raw) == 8);
  const std::string json = written(zcav::OutputFormat::kJson);
  CHECK_THAT(json, Catch::Contains("\"timing\":{\"bytes_in_flight\":8388608,\"blocks_spanned\":8.0,"
                                   "\"drained_per_block\":false,\"blur_blocks\":8.0}"));
  CHECK(blur(json) == 8);
  // Files written before the timing was recorded: unknown, taken as sharp.
  std::string old_raw = raw;
  old_raw.erase(old_raw.find("# timing:"),
                old_raw.find('\n', old_raw.find("# timing:")) + 1 - old_raw.find("# timing:"));
  CHECK(blur(old_raw) == 0);
  std::string old_json = json;
  const std::size_t t = old_json.find(",\"timing\":");
  old_json.erase(t, old_json.find('}', t) + 1 - t);
  CHECK(blur(old_json) == 0);
  // A damaged value is named.
  std::string bad = raw;
  bad.replace(bad.find("blur_blocks=8"), 13, "blur_blocks=x");
  std::istringstream in(bad);
  CHECK_THROWS_WITH(zcav::ParseProfile(in, "x"), Catch::Contains("blur_blocks 'x'"));
}

TEST_CASE("The io_uring queue reads a real file in any order, as pread does", "[queue][real]") {
  if (!zcav::ProbeUring().empty()) {
    zcav::test::NotRunHere("io_uring unavailable: " + zcav::ProbeUring());
    return;
  }
  zcav::test::TempDir dir;
  const auto path = dir.path() / "data.bin";
  std::string bytes(3 * kMiB + 4096, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 7919) >> 8);
  zcav::test::WriteFile(path, bytes);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  {
    auto queue = zcav::OpenUringQueue(fd, 4, kMiB, 4096, false);
    REQUIRE(queue->depth() == 4);
    const std::uint64_t offsets[4] = {2 * kMiB, 0, 3 * kMiB, kMiB};
    const std::uint64_t lengths[4] = {kMiB, kMiB, 4096, kMiB};
    for (std::uint32_t slot = 0; slot < 4; ++slot)
      queue->Submit(slot, offsets[slot], lengths[slot]);
    std::vector<zcav::ReadQueue::Completion> out(4);
    std::vector<bool> seen(4, false);
    for (int got = 0; got < 4;) {
      const std::size_t n = queue->Wait(out);
      REQUIRE(n >= 1);
      for (std::size_t i = 0; i < n; ++i) {
        const auto slot = out[i].slot;
        REQUIRE(slot < 4);
        CHECK_FALSE(out[i].error);
        CHECK_FALSE(seen[slot]);
        seen[slot] = true;
        CHECK(std::memcmp(queue->Buffer(slot).data(), bytes.data() + offsets[slot],
                          lengths[slot]) == 0);
        ++got;
      }
    }
    // Past the end: ENXIO, as ReadAt.
    queue->Submit(0, 4 * kMiB, 4096);
    CHECK(queue->Wait(out) == 1);
    CHECK(out[0].error == std::error_code(ENXIO, std::system_category()));
  }
  ::close(fd);
}

TEST_CASE("A cgroup read throttle on the device is found, v1 and v2", "[queue]") {
  zcav::test::TempDir dir;
  const auto root = dir.path() / "cgroup";
  std::filesystem::create_directories(root / "blkio" / "a" / "b");
  zcav::test::WriteFile(root / "blkio" / "a" / "blkio.throttle.read_bps_device",
                        "8:0 1000\n7:3 40000000\n");
  zcav::test::WriteFile(dir.path() / "v1", "9:pids:/\n7:blkio:/a/b\n0::/\n");
  // Set on an ancestor of the process's cgroup, for 7:3 only.
  CHECK_THAT(zcav::FindReadThrottle(7, 3, (dir.path() / "v1").string(), root.string()),
             Catch::Contains("7:3 40000000"));
  CHECK(zcav::FindReadThrottle(7, 4, (dir.path() / "v1").string(), root.string()).empty());
  // v2: io.max with a read limit; a write-only limit does not count.
  std::filesystem::create_directories(root / "svc");
  zcav::test::WriteFile(root / "svc" / "io.max",
                        "7:3 rbps=max wbps=1000 riops=max wiops=max\n7:5 rbps=35000000 wbps=max "
                        "riops=max wiops=max\n");
  zcav::test::WriteFile(dir.path() / "v2", "0::/svc\n");
  CHECK(zcav::FindReadThrottle(7, 3, (dir.path() / "v2").string(), root.string()).empty());
  CHECK_THAT(zcav::FindReadThrottle(7, 5, (dir.path() / "v2").string(), root.string()),
             Catch::Contains("rbps=35000000"));
  CHECK(zcav::FindReadThrottle(7, 5, (dir.path() / "missing").string(), root.string()).empty());
}

TEST_CASE("An io_uring ring the kernel refuses to set up is a runtime error", "[queue]") {
  zcav::test::TempDir dir;
  const auto path = dir.path() / "data.bin";
  zcav::test::WriteFile(path, std::string(4096, 'x'));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  // 2 x 16385 entries, above the kernel's limit of 32768 (EINVAL); where
  // io_uring is refused altogether the setup fails as well.
  CHECK_THROWS_MATCHES(zcav::OpenUringQueue(fd, 16385, 512, 512, false), zcav::Error,
                       zcav::test::HasKind(zcav::ErrorKind::kRuntime));
  ::close(fd);
}
