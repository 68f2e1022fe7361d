// A hand-built sweep for the writer tests: the events a two-pass sweep of a
// 3.5 GiB range in 1 GiB blocks (the last one partial) would send, without
// running a sweep. Values are fixed so golden files stay stable.
#pragma once

#include <cerrno>
#include <chrono>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/base/units.h"
#include "zcav/measure/sample_sink.h"

namespace zcav::test {

struct WriterRun {
  RunInfo run;
  std::vector<PassSummary> passes;  // OnPassDone events (pass 0 before the blocks)
  std::vector<BlockResult> blocks;  // OnBlock events, in block order
  SweepResult result;
};

// MB/s (10^6 B/s) of `bytes` in `seconds`.
inline double MbPerSForTest(std::uint64_t bytes, double seconds) {
  return static_cast<double>(bytes) / seconds / kMB;
}

inline BlockResult MakeBlock(std::uint64_t index, std::uint64_t offset_bytes,
                             std::uint64_t length_bytes, std::uint32_t passes, double median,
                             double min, double max) {
  BlockResult b;
  b.index = index;
  b.offset_bytes = offset_bytes;
  b.length_bytes = length_bytes;
  b.passes = passes;
  b.mb_per_s = median;
  b.mean_mb_per_s = (min + max) / 2;
  b.min_mb_per_s = min;
  b.max_mb_per_s = max;
  b.stddev_mb_per_s = passes > 1 ? (max - min) / 2 : 0;
  b.seconds = static_cast<double>(length_bytes) / (median * kMB);
  return b;
}

// A complete two-pass run with full device metadata and notes.
inline WriterRun CompleteRun() {
  WriterRun w;
  DeviceInfo& d = w.run.device;
  d.path = "/dev/sdz";
  d.kind = "block";
  d.size_bytes = 4000787030016;
  d.sector_bytes = 4096;
  d.vendor = "ATA";
  d.model = "ST4000DM004-2CV1";
  d.serial = "ZDH1TEST";
  d.wwn = "0x5000c500a1b2c3d4";
  d.firmware = "0001";
  d.physical_sector_bytes = 4096;
  d.rotation_rpm = 5400;
  d.by_id = {"ata-ST4000DM004-2CV1_ZDH1TEST", "wwn-0x5000c500a1b2c3d4"};
  d.rotational = true;
  d.transport = "ata";
  d.link = "SATA 6.0 Gbps";
  d.direct_io = true;
  d.notes = {"logical sector size 4096 bytes"};

  SweepPlan& p = w.run.plan;
  p.start_bytes = 0;
  p.end_bytes = 3 * kGiB + kGiB / 2;
  p.block_bytes = kGiB;
  p.chunk_bytes = kMiB;
  p.passes = 2;
  p.skip = 1;
  p.quick = false;
  p.warmup = true;
  p.block_count = 4;
  p.notes = {"range limited to the first 3.50 GiB by --end"};

  w.run.version = "0.1.0-test";
  w.run.command_line = "zcav sweep /dev/sdz -c 2 -b 1G --end 3584M";
  w.run.start_time_utc = "2026-11-29T22:30:50Z";
  w.run.host = "testhost";
  w.run.kernel = "Linux 6.1.0-test";

  w.blocks = {
      MakeBlock(0, 0, kGiB, 2, 190.5, 190.25, 190.75),
      MakeBlock(1, kGiB, kGiB, 2, 185.125, 184.5, 185.75),
      MakeBlock(2, 2 * kGiB, kGiB, 2, 170.0, 169.0, 171.0),
      MakeBlock(3, 3 * kGiB, kGiB / 2, 2, 160.25, 160.25, 160.25),
  };
  // Each block's slowest chunk (ms): block 2 held a 160 ms chunk.
  const double worst_ms[] = {6.5, 7.25, 160.5, 8.0};
  for (std::size_t i = 0; i < w.blocks.size(); ++i) w.blocks[i].worst_chunk_ms = worst_ms[i];

  const std::uint64_t pass_bytes = 3 * kGiB + kGiB / 2;
  w.passes = {
      PassSummary{.pass = 0,
                  .bytes = pass_bytes,
                  .read_time = std::chrono::nanoseconds(20'500'000'000),
                  .mb_per_s = MbPerSForTest(pass_bytes, 20.5),
                  .complete = true,
                  .cached_share = std::nullopt,
                  .latency = {kMiB, {3500, 70, 10, 3, 1, 0}, 0}},
      PassSummary{.pass = 1,
                  .bytes = pass_bytes,
                  .read_time = std::chrono::nanoseconds(20'750'000'000),
                  .mb_per_s = MbPerSForTest(pass_bytes, 20.75),
                  .complete = true,
                  .cached_share = std::nullopt,
                  .latency = {kMiB, {3520, 60, 4, 0, 0, 0}, 0}},
  };

  SweepResult& r = w.result;
  r.status = SweepStatus::kComplete;
  r.blocks_measured = 4;
  r.bytes_read = 2 * pass_bytes;
  r.read_time = std::chrono::nanoseconds(41'250'000'000);
  r.min_mb_per_s = 160.25;
  r.max_mb_per_s = 190.5;
  r.avg_mb_per_s = MbPerSForTest(r.bytes_read, 41.25);
  r.wall_seconds = 41.5;
  r.cpu_percent = 3.4;
  r.storage_read_bytes = 2 * pass_bytes + kMiB;
  r.system_busy_percent = 12.5;
  r.passes = w.passes;
  // Its requests: the longest was block 2's 160.5 ms chunk in pass 1, 11.25 s
  // in; the lowest 10 s began at 2 GiB, 11 s in (a read sweep: one part).
  r.requests.window = std::chrono::seconds(10);
  r.requests.requests = 7168;
  r.requests.bytes = 2 * pass_bytes;
  r.requests.time = std::chrono::nanoseconds(41'250'000'000);
  r.requests.worst_stall =
      WorstStall{2 * kGiB + 5 * kMiB, kMiB, 0, std::chrono::nanoseconds(11'250'000'000),
                 std::chrono::nanoseconds(160'500'000)};
  r.requests.parts = {RequestPart{
      0, 0, std::chrono::nanoseconds(0),
      LowestWindow{170.5, 1705000000, 2 * kGiB, 0, std::chrono::nanoseconds(11'000'000'000)}}};
  return w;
}

// The same run stopped by SIGINT during pass 2 after block 1: blocks 0 and 1
// have both passes, blocks 2 and 3 only the first.
inline WriterRun InterruptedRun() {
  WriterRun w = CompleteRun();
  w.blocks[2] = MakeBlock(2, 2 * kGiB, kGiB, 1, 170.0, 170.0, 170.0);
  w.blocks[3] = MakeBlock(3, 3 * kGiB, kGiB / 2, 1, 160.25, 160.25, 160.25);
  const std::uint64_t pass2_bytes = 2 * kGiB;
  w.passes[1] = PassSummary{.pass = 1,
                            .bytes = pass2_bytes,
                            .read_time = std::chrono::nanoseconds(11'000'000'000),
                            .mb_per_s = MbPerSForTest(pass2_bytes, 11.0),
                            .complete = false,
                            .cached_share = std::nullopt,
                            .latency = {kMiB, {2000, 40, 8, 0, 0, 0}, 0}};
  SweepResult& r = w.result;
  r.status = SweepStatus::kInterrupted;
  r.bytes_read = w.passes[0].bytes + pass2_bytes;
  r.read_time = std::chrono::nanoseconds(31'500'000'000);
  r.avg_mb_per_s = MbPerSForTest(r.bytes_read, 31.5);
  r.wall_seconds = 31.75;
  r.storage_read_bytes.reset();
  r.system_busy_percent.reset();
  r.passes = w.passes;
  return w;
}

// The run ended by EIO in block 2 of pass 1 (the only pass).
inline WriterRun ReadErrorRun() {
  WriterRun w = CompleteRun();
  w.run.plan.passes = 1;
  w.blocks.resize(2);
  for (BlockResult& b : w.blocks) b.passes = 1;
  w.passes.resize(1);
  w.passes[0].complete = false;
  SweepResult& r = w.result;
  r.status = SweepStatus::kReadError;
  r.error_offset_bytes = 2 * kGiB + 3 * kMiB;
  r.error = std::error_code(EIO, std::system_category());
  r.blocks_measured = 2;
  r.passes = w.passes;
  return w;
}

// Sends `w`'s events to `sink` in sweep order: OnStart, the first pass's
// OnPassDone, the blocks (during the last pass), the last OnPassDone, OnFinish.
inline void Drive(SampleSink& sink, const WriterRun& w) {
  sink.OnStart(w.run);
  for (std::size_t i = 0; i + 1 < w.passes.size(); ++i) sink.OnPassDone(w.passes[i]);
  for (const BlockResult& b : w.blocks) sink.OnBlock(b);
  if (!w.passes.empty()) sink.OnPassDone(w.passes.back());
  sink.OnFinish(w.result);
}

}  // namespace zcav::test
