// Benchmark of StampWrite (write_stamp.h): how fast zcav stamps the data it
// writes, per MiB of chunk, for a chunk restamped for the same run (only
// each sector's 8-byte offset: what a write sweep does for each chunk after
// the first) and for a full stamp (headers and pseudo-random bodies). Prints
// GB/s (10^9 B/s) of each and the time per 1 MiB chunk; compare it with the
// time a 1 MiB write takes on the device (1 MiB at 2,000 MB/s: 524 us). Not
// part of ctest.
//
// From the repository root:
//   cmake --build build --target zcav_lib
//   g++ -O2 -std=c++20 -Ilib tests/bench/stamp_bench.cc build/libzcav_lib.a -o /tmp/stamp_bench
//   /tmp/stamp_bench
#include <chrono>
#include <cstdio>

#include "zcav/base/aligned_buffer.h"
#include "zcav/device/write_stamp.h"

int main() {
  using Clock = std::chrono::steady_clock;
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  constexpr int kRounds = 4000;  // 4,000 MiB stamped per way
  zcav::AlignedBuffer buffer(kChunk, 4096);
  const std::uint64_t run = zcav::NewStampRunId();
  zcav::StampMemo memo;
  zcav::StampWrite(buffer.span(kChunk), 0, run, memo);
  const auto time = [&](bool restamp) {
    const auto t0 = Clock::now();
    for (int i = 0; i < kRounds; ++i) {
      const std::uint64_t offset = std::uint64_t(i) * kChunk;
      if (restamp) {
        zcav::StampWrite(buffer.span(kChunk), offset, run, memo);
      } else {
        zcav::StampWrite(buffer.span(kChunk), offset, run);
      }
    }
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  for (const bool restamp : {true, false}) {
    const double s = time(restamp);
    std::printf("%-32s %8.1f GB/s  %7.1f us per 1 MiB chunk\n",
                restamp ? "restamp (offsets only)" : "full stamp (every byte)",
                double(kChunk) * kRounds / s / 1e9, s / kRounds * 1e6);
  }
  return 0;
}
