// Benchmark of DetectZones: a 1,000,000-point curve with 20 zones (falling
// 2:1, 1 % multiplicative noise, 0-1 % droop inside zones, a few outliers),
// timed on one core (std::chrono wall time and getrusage CPU time); prints
// the seconds and the peak RSS (getrusage). Not part of ctest (issue 3
// target: < 0.5 s, memory O(N)); exits 1 if it does not find the 20 zones.
//
// Build against the library and run, from the repository root:
//   cmake --build build --target zcav_lib
//   g++ -O2 -std=c++20 -Ilib tests/bench/zone_bench.cc build/libzcav_lib.a -o /tmp/zone_bench
//   /tmp/zone_bench            # or: /tmp/zone_bench 5000000 to try another N
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "zcav/analysis/zone_detector.h"

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const std::size_t zones = 20;
  std::mt19937_64 rng(42);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<zcav::CurvePoint> curve(n);
  const std::uint64_t block = std::uint64_t{1} << 20;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t zone = i * zones / n;
    const double level = 120.0 * std::pow(0.5, static_cast<double>(zone) / (zones - 1));
    const double within =
        static_cast<double>(i - zone * n / zones) / static_cast<double>(n / zones);
    const double droop = 0.005 * static_cast<double>(zone % 3);  // 0, 0.5, 1 %
    double rate = level * (1 - droop * within) * (1 + noise(rng));
    if (u(rng) < 1e-5) rate *= 0.2;  // an outlier every 100,000 blocks
    curve[i] = {i * block, block, rate};
  }
  auto cpu_seconds = [] {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  };
  const double cpu_start = cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  const zcav::ZoneAnalysis a = zcav::DetectZones(curve, zcav::ZoneOptions{});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = cpu_seconds() - cpu_start;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("N=%zu zones found=%zu (of %zu) outliers=%zu type=%s\n", n, a.zones.size(), zones,
              a.outliers.size(), zcav::CurveTypeName(a.type));
  std::printf("DetectZones: %.3f s wall, %.3f s CPU, peak RSS %.1f MiB (input alone %.1f MiB)\n",
              seconds, cpu, static_cast<double>(usage.ru_maxrss) / 1024.0,
              static_cast<double>(n * sizeof(zcav::CurvePoint)) / (1024.0 * 1024.0));
  return a.zones.size() == zones ? 0 : 1;
}
