// zcav verify's core (verify.h) on simulated fakes (sim_storage.h): a
// genuine device, a stick that wraps, one that drops what lies beyond its
// real size, one that loses a range; the verdict, the usable size and the
// ranges exact to the sector; the curve; a stop.
#include "zcav/measure/verify.h"

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/clock.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/format/verify_format.h"
#include "zcav/measure/estimate.h"
#include "zcav/measure/sweep.h"

namespace zcav {
namespace {

VerifyResult Verify(const std::string& spec, const std::atomic<bool>* stop = nullptr) {
  VirtualClock clock;
  const std::unique_ptr<Device> device = MakeSimulatedDevice(ParseSimSpec(spec), clock);
  return RunVerify(*device, clock, VerifyOptions{}, stop);
}

}  // namespace

TEST_CASE("A genuine device verifies genuine, every byte good, with both curves", "[verify]") {
  const VerifyResult r = Verify("sim:ssd?size=64M&noise=0");
  CHECK(r.verdict == VerifyVerdict::kGenuine);
  CHECK(r.claimed_bytes == 64 * kMiB);
  CHECK(r.usable_bytes == 64 * kMiB);
  CHECK(r.written_bytes == 64 * kMiB);
  CHECK(r.read_bytes == 64 * kMiB);
  REQUIRE(r.ranges.size() == 1);
  CHECK(r.ranges[0].state == VerifyState::kGood);
  CHECK(r.ranges[0].end_bytes == 64 * kMiB);
  REQUIRE(r.blocks.size() == 64);  // about 1000 blocks of whole chunks: 1 MiB here
  for (const VerifyBlock& b : r.blocks) {
    CHECK(b.write_mb_per_s > 0);
    CHECK(b.read_mb_per_s > 0);
  }
  CHECK(r.notes.empty());
  CHECK(r.run_id != 0);
  CHECK(std::string(VerifyVerdictName(r.verdict)) == "genuine");
  CHECK(std::string(VerifyStateName(r.ranges[0].state)) == "good");
}

TEST_CASE("A stick that wraps at its real size is a fake; the usable size is the real one",
          "[verify]") {
  // 1 GiB claimed, 128 MiB real: data read at x was written for the last
  // y = x + k * 128 MiB, so the first 7/8 come back wrapped, the last 1/8 good.
  const VerifyResult r = Verify("sim:ssd?size=1G&real=128M&noise=0");
  CHECK(r.verdict == VerifyVerdict::kFakeCapacity);
  CHECK(std::string(VerifyVerdictName(r.verdict)) == "fake capacity");
  CHECK(r.usable_bytes == 128 * kMiB);
  REQUIRE(r.ranges.size() == 8);
  for (std::size_t i = 0; i < 7; ++i) {
    CAPTURE(i);
    CHECK(r.ranges[i].state == VerifyState::kWrapped);
    CHECK(r.ranges[i].start_bytes == i * 128 * kMiB);
    CHECK(r.ranges[i].source_bytes == 7 * 128 * kMiB);
  }
  CHECK(r.ranges[7].state == VerifyState::kGood);
  CHECK(r.ranges[7].start_bytes == 7 * 128 * kMiB);
}

TEST_CASE("A stick that drops writes beyond its real size is a fake, usable to the byte",
          "[verify]") {
  const VerifyResult r = Verify("sim:ssd?size=512M&real=200M&fake=drop&noise=0");
  CHECK(r.verdict == VerifyVerdict::kFakeCapacity);
  CHECK(r.usable_bytes == 200 * kMiB);
  REQUIRE(r.ranges.size() == 2);
  CHECK(r.ranges[1].state == VerifyState::kLost);
  CHECK(r.ranges[1].lost_as == SectorState::kBlank);
  CHECK(r.ranges[1].start_bytes == 200 * kMiB);
  CHECK(r.ranges[1].end_bytes == 512 * kMiB);
}

TEST_CASE("A device that loses one 4 MiB range is data loss, the range found exactly", "[verify]") {
  const VerifyResult r = Verify("sim:ssd?size=256M&lose=100M-104M&noise=0");
  CHECK(r.verdict == VerifyVerdict::kDataLoss);
  CHECK(r.usable_bytes == 100 * kMiB);
  REQUIRE(r.ranges.size() == 3);
  CHECK(r.ranges[1].state == VerifyState::kLost);
  CHECK(r.ranges[1].start_bytes == 100 * kMiB);
  CHECK(r.ranges[1].end_bytes == 104 * kMiB);
  CHECK(r.ranges[2].state == VerifyState::kGood);
  // Garbage instead of zeros: the same range, said so.
  const VerifyResult g = Verify("sim:ssd?size=256M&lose=100M-104M:garbage&noise=0");
  REQUIRE(g.ranges.size() == 3);
  CHECK(g.ranges[1].lost_as == SectorState::kGarbage);
  CHECK(g.ranges[1].start_bytes == 100 * kMiB);
  CHECK(g.ranges[1].end_bytes == 104 * kMiB);
}

TEST_CASE("Blocks of the curve are whole chunks", "[verify]") {
  VirtualClock clock;
  const std::unique_ptr<Device> device =
      MakeSimulatedDevice(ParseSimSpec("sim:ssd?size=10M&noise=0"), clock);
  VerifyOptions o;
  o.block_bytes = 3 * kMiB / 2;  // 1.5 MiB: 2 chunks of 1 MiB
  const VerifyResult r = RunVerify(*device, clock, o);
  REQUIRE(r.blocks.size() == 5);
  for (const VerifyBlock& b : r.blocks) {
    CHECK(b.length_bytes == 2 * kMiB);
    CHECK(b.write_mb_per_s > 0);
    CHECK(b.read_mb_per_s > 0);
  }
  CHECK(r.verdict == VerifyVerdict::kGenuine);
}

TEST_CASE("A stop before the run ends leaves it interrupted", "[verify]") {
  std::atomic<bool> stop{true};
  const VerifyResult r = Verify("sim:ssd?size=64M&noise=0", &stop);
  CHECK(r.interrupted);
  CHECK(r.written_bytes == 0);
  CHECK(r.ranges.empty());
}

TEST_CASE("The verdict of ranges: a short bad end is loss, read errors alone unreadable",
          "[verify]") {
  VerifyResult r;
  r.claimed_bytes = 1000 * kMiB;
  // The last 5 % lost: a failing end, not a fake (under 10 % of the device).
  r.ranges = {{0, 950 * kMiB, VerifyState::kGood}, {950 * kMiB, 1000 * kMiB, VerifyState::kLost}};
  JudgeVerify(r);
  CHECK(r.verdict == VerifyVerdict::kDataLoss);
  CHECK(r.usable_bytes == 950 * kMiB);
  // The last 20 % lost: a fake.
  r.ranges = {{0, 800 * kMiB, VerifyState::kGood}, {800 * kMiB, 1000 * kMiB, VerifyState::kLost}};
  JudgeVerify(r);
  CHECK(r.verdict == VerifyVerdict::kFakeCapacity);
  CHECK(r.usable_bytes == 800 * kMiB);
  // Unreadable chunks and nothing lost.
  r.ranges = {{0, 10 * kMiB, VerifyState::kGood},
              {10 * kMiB, 11 * kMiB, VerifyState::kUnreadable},
              {11 * kMiB, 1000 * kMiB, VerifyState::kGood}};
  JudgeVerify(r);
  CHECK(r.verdict == VerifyVerdict::kUnreadable);
  CHECK(r.usable_bytes == 10 * kMiB);
}

}  // namespace zcav

namespace zcav {

TEST_CASE("A run stopped mid-way and resumed ends as one run would", "[verify]") {
  VirtualClock clock;
  const std::unique_ptr<Device> device =
      MakeSimulatedDevice(ParseSimSpec("sim:ssd?size=256M&real=64M&noise=0"), clock);
  // Stop in the read pass, after 100 of its blocks (256 blocks of 1 MiB).
  std::atomic<bool> stop{false};
  VerifyOptions o;
  o.progress = [&stop](bool writing, std::uint64_t done) {
    if (!writing && done >= 100 * kMiB) stop = true;
  };
  const VerifyResult part = RunVerify(*device, clock, o, &stop);
  REQUIRE(part.interrupted);
  CHECK(part.write_done_bytes == 256 * kMiB);
  CHECK(part.read_done_bytes == 100 * kMiB);
  CHECK_NOTHROW(CheckVerifyResume(part, 256 * kMiB, 1 * kMiB));

  VerifyOptions again;
  again.resume = &part;
  std::uint64_t first_done = 0;
  again.progress = [&first_done](bool writing, std::uint64_t done) {
    if (first_done == 0) first_done = done + (writing ? 1 : 0);
  };
  const VerifyResult whole = RunVerify(*device, clock, again, nullptr);
  CHECK(first_done == 101 * kMiB);  // no second write pass, reading from block 101
  CHECK_FALSE(whole.interrupted);
  CHECK(whole.run_id == part.run_id);
  CHECK(whole.verdict == VerifyVerdict::kFakeCapacity);
  CHECK(whole.usable_bytes == 64 * kMiB);
  REQUIRE(whole.ranges.size() == 4);  // 3 wrapped quarters, the last good
  CHECK(whole.ranges[3].state == VerifyState::kGood);
  CHECK(whole.ranges[3].start_bytes == 192 * kMiB);
  CHECK(whole.ranges[3].end_bytes == 256 * kMiB);
  for (const VerifyBlock& b : whole.blocks) CHECK(b.read_mb_per_s > 0);
}

TEST_CASE("A run is not resumed on another device, chunk or a finished run", "[verify]") {
  VirtualClock clock;
  const std::unique_ptr<Device> device =
      MakeSimulatedDevice(ParseSimSpec("sim:ssd?size=64M&noise=0"), clock);
  std::atomic<bool> stop{false};
  VerifyOptions o;
  o.progress = [&stop](bool writing, std::uint64_t done) {
    if (writing && done >= 10 * kMiB) stop = true;
  };
  VerifyResult part = RunVerify(*device, clock, o, &stop);
  REQUIRE(part.interrupted);
  CHECK(part.write_done_bytes == 10 * kMiB);
  CHECK(part.read_done_bytes == 0);
  CHECK_NOTHROW(CheckVerifyResume(part, 64 * kMiB, kMiB));
  CHECK_THROWS_WITH(CheckVerifyResume(part, 128 * kMiB, kMiB),
                    Catch::Contains("the device has 134217728"));
  CHECK_THROWS_WITH(CheckVerifyResume(part, 64 * kMiB, 2 * kMiB), Catch::Contains("--chunk-size"));
  VerifyResult odd = part;
  odd.write_done_bytes = 10 * kMiB + 512;
  CHECK_THROWS_WITH(CheckVerifyResume(odd, 64 * kMiB, kMiB), Catch::Contains("end of a block"));
  VerifyResult gap = part;
  gap.ranges.push_back({5, 9, VerifyState::kGood, 5, SectorState::kGood});
  CHECK_THROWS_WITH(CheckVerifyResume(gap, 64 * kMiB, kMiB), Catch::Contains("follow each other"));
  const VerifyResult done = RunVerify(*device, clock, VerifyOptions{}, nullptr);
  CHECK_THROWS_WITH(CheckVerifyResume(done, 64 * kMiB, kMiB), Catch::Contains("it completed"));
}

TEST_CASE("A fake that drops beyond its size and also loses a spot is a fake", "[verify]") {
  VirtualClock clock;
  const std::unique_ptr<Device> device = MakeSimulatedDevice(
      ParseSimSpec("sim:ssd?size=1G&real=300M&fake=drop&lose=100M-104M:garbage&noise=0"), clock);
  const VerifyResult r = RunVerify(*device, clock, VerifyOptions{}, nullptr);
  CHECK(r.verdict == VerifyVerdict::kFakeCapacity);
  CHECK(r.usable_bytes == 300 * kMiB);
  REQUIRE(r.ranges.size() == 4);
  CHECK(r.ranges[1].state == VerifyState::kLost);
  CHECK(r.ranges[1].lost_as == SectorState::kGarbage);
  CHECK(r.ranges[1].start_bytes == 100 * kMiB);
  CHECK(r.ranges[1].end_bytes == 104 * kMiB);
}

}  // namespace zcav

namespace zcav {
namespace {

// A simulated device whose read queue holds `depth` reads, each slot its own
// buffer, and completes all queued reads in one batch, the last submitted
// first: the read pass must check every chunk before its slot is used again
// and put the ranges in order. Records the most reads in flight and whether
// any batch held reads of two blocks.
class ReversingDevice final : public Device {
 public:
  ReversingDevice(Device& inner, std::uint32_t depth) : inner_(inner), info_(inner.info()) {
    info_.read_engine = "io_uring";
    info_.default_queue_depth = depth;
  }
  const DeviceInfo& info() const override { return info_; }
  std::error_code ReadAt(std::uint64_t at, std::span<std::byte> b) noexcept override {
    return inner_.ReadAt(at, b);
  }
  std::error_code WriteAt(std::uint64_t at, std::span<const std::byte> b) noexcept override {
    return inner_.WriteAt(at, b);
  }
  std::unique_ptr<ReadQueue> OpenReadQueue(std::uint32_t depth, std::uint64_t chunk) override {
    return std::make_unique<Queue>(*this, depth, chunk);
  }

  std::uint32_t max_in_flight = 0;
  std::uint64_t block_bytes = 0;  // to tell blocks apart
  bool crossed_block = false;
  // Set to true once this many reads have completed (0: never).
  std::atomic<bool>* stop = nullptr;
  std::uint64_t stop_after_reads = 0;
  std::uint64_t reads = 0;
  void SetDefaultChunk(std::uint64_t bytes) { info_.default_chunk_bytes = bytes; }

 private:
  class Queue final : public ReadQueue {
   public:
    Queue(ReversingDevice& d, std::uint32_t depth, std::uint64_t chunk)
        : d_(d), depth_(depth), chunk_(chunk), buffers_(depth * chunk, 4096) {}
    std::uint32_t depth() const override { return depth_; }
    const char* engine() const override { return "reversing test queue"; }
    std::span<std::byte> Buffer(std::uint32_t slot) override {
      return buffers_.span(depth_ * chunk_).subspan(slot * chunk_, chunk_);
    }
    void Submit(std::uint32_t slot, std::uint64_t at, std::uint64_t n) noexcept override {
      // A slot submitted again before its data was looked at would be
      // overwritten here: scribble so that such a check fails.
      const std::span<std::byte> b = Buffer(slot);
      std::fill(b.begin(), b.end(), std::byte{0x5a});
      queued_.push_back({slot, at, n});
      d_.max_in_flight = std::max(d_.max_in_flight, static_cast<std::uint32_t>(queued_.size()));
      if (d_.block_bytes != 0 && queued_.front().at / d_.block_bytes != at / d_.block_bytes) {
        d_.crossed_block = true;
      }
    }
    std::size_t Wait(std::span<Completion> out) noexcept override {
      std::size_t k = 0;
      for (auto r = queued_.rbegin(); r != queued_.rend(); ++r) {
        out[k++] = {r->slot, d_.inner_.ReadAt(r->at, Buffer(r->slot).first(r->n))};
      }
      queued_.clear();
      d_.reads += k;
      if (d_.stop != nullptr && d_.stop_after_reads != 0 && d_.reads >= d_.stop_after_reads) {
        *d_.stop = true;
      }
      return k;
    }

   private:
    struct Read {
      std::uint32_t slot;
      std::uint64_t at, n;
    };
    ReversingDevice& d_;
    std::uint32_t depth_;
    std::uint64_t chunk_;
    AlignedBuffer buffers_;
    std::vector<Read> queued_;
  };

  Device& inner_;
  DeviceInfo info_;
};

}  // namespace

TEST_CASE("Reads in flight, completed out of order, give the ranges of reads one at a time",
          "[verify]") {
  const std::string spec = "sim:ssd?size=256M&real=100M&lose=40M-41M:garbage&noise=0";
  const VerifyResult one = Verify(spec);
  VirtualClock clock;
  const std::unique_ptr<Device> sim = MakeSimulatedDevice(ParseSimSpec(spec), clock);
  ReversingDevice device(*sim, 4);
  VerifyOptions o;
  o.block_bytes = 6 * kMiB;  // 6 chunks: 4 in flight, then 2
  device.block_bytes = o.block_bytes;
  const VerifyResult queued = RunVerify(device, clock, o);
  CHECK(device.max_in_flight == 4);
  CHECK_FALSE(device.crossed_block);  // a block's time is its own
  CHECK(queued.verdict == one.verdict);
  CHECK(queued.usable_bytes == 100 * kMiB);
  REQUIRE(queued.ranges.size() == one.ranges.size());
  for (std::size_t i = 0; i < one.ranges.size(); ++i) {
    CAPTURE(i);
    CHECK(queued.ranges[i].start_bytes == one.ranges[i].start_bytes);
    CHECK(queued.ranges[i].end_bytes == one.ranges[i].end_bytes);
    CHECK(queued.ranges[i].state == one.ranges[i].state);
    CHECK(queued.ranges[i].source_bytes == one.ranges[i].source_bytes);
  }
  for (const VerifyBlock& b : queued.blocks) CHECK(b.read_mb_per_s > 0);
  // By default a block is a read sweep's: at least the reads in flight and
  // 100 ms at the start's rate, at most 1/64 of the size (8 MiB here; about
  // 1000 blocks would be 0.5 MiB).
  const std::unique_ptr<Device> big =
      MakeSimulatedDevice(ParseSimSpec("sim:ssd?size=512M&noise=0"), clock);
  ReversingDevice deep(*big, 4);
  SweepOptions read;
  read.chunk_bytes = kMiB;
  const std::uint64_t sweep_block =
      PlanSweep(deep.info(), WithStartRate(deep, clock, read)).block_bytes;
  CHECK(sweep_block == 8 * kMiB);
  deep.max_in_flight = 0;
  const VerifyResult d = RunVerify(deep, clock, VerifyOptions{});
  CHECK(d.block_bytes == sweep_block);
  CHECK(deep.max_in_flight == 4);
  CHECK(d.verdict == VerifyVerdict::kGenuine);
  // One read in flight when asked.
  ReversingDevice shallow(*sim, 4);
  o.queue_depth = 1;
  (void)RunVerify(shallow, clock, o);
  CHECK(shallow.max_in_flight == 1);
}

}  // namespace zcav

namespace zcav {

TEST_CASE("A device gone ends the run early, marked so, its verdict of the part done", "[verify]") {
  const VerifyResult r = Verify("sim:ssd?size=64M&gone=40M&noise=0");
  CHECK(r.device_gone);
  CHECK(r.interrupted);
  CHECK(r.write_done_bytes == 40 * kMiB);
  CHECK(r.read_done_bytes == 0);
  CHECK(r.usable_bytes == 0);  // nothing read back: nothing known usable
  REQUIRE(r.notes.size() == 1);
  CHECK_THAT(r.notes[0], Catch::Contains("the device is gone"));
  CHECK_THAT(VerifyReportText(r, "sim"), Catch::Contains("so far (the device went away)"));
  const VerifyResult whole = Verify("sim:ssd?size=64M&noise=0");
  CHECK_FALSE(whole.device_gone);
  CHECK_FALSE(whole.interrupted);
}

}  // namespace zcav

namespace zcav {

TEST_CASE("The read-back keeps a read sweep's bytes in flight, in its own chunks", "[verify]") {
  VirtualClock clock;
  const std::unique_ptr<Device> sim =
      MakeSimulatedDevice(ParseSimSpec("sim:ssd?size=256M&noise=0"), clock);
  ReversingDevice device(*sim, 2);
  device.SetDefaultChunk(4 * kMiB);  // 2 reads of 4 MiB: 8 of verify's 1 MiB
  VerifyOptions o;
  o.block_bytes = 16 * kMiB;
  const VerifyResult r = RunVerify(device, clock, o);
  CHECK(device.max_in_flight == 8);
  CHECK(r.verdict == VerifyVerdict::kGenuine);
}

TEST_CASE("A stop in the middle of a block keeps what was read back in order so far", "[verify]") {
  VirtualClock clock;
  const std::unique_ptr<Device> sim =
      MakeSimulatedDevice(ParseSimSpec("sim:ssd?size=64M&lose=2M-3M&noise=0"), clock);
  ReversingDevice device(*sim, 4);
  std::atomic<bool> stop{false};
  device.stop = &stop;
  device.stop_after_reads = 4;  // the first batch of the read pass: 4 of the block's 8 chunks
  VerifyOptions o;
  o.block_bytes = 8 * kMiB;
  const VerifyResult r = RunVerify(device, clock, o, &stop);
  CHECK(r.interrupted);
  CHECK_FALSE(r.device_gone);
  CHECK(r.write_done_bytes == 64 * kMiB);
  CHECK(r.read_done_bytes == 0);  // the block is read again on a resume
  REQUIRE(r.ranges.size() == 3);  // its first 4 MiB: good, lost, good
  CHECK(r.ranges[1].state == VerifyState::kLost);
  CHECK(r.ranges[1].start_bytes == 2 * kMiB);
  CHECK(r.ranges[2].end_bytes == 4 * kMiB);
  CHECK(r.verdict == VerifyVerdict::kDataLoss);
  CHECK_NOTHROW(CheckVerifyResume(r, 64 * kMiB, kMiB));
}

}  // namespace zcav
