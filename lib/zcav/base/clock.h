// Clock: the seam for time and for the process's own resource counters.
//
// SteadyClock reads the OS (CLOCK_MONOTONIC, getrusage, /proc/self/io);
// VirtualClock is advanced by hand (by simulated devices and tests), so a
// simulated sweep of terabytes takes no real time and is deterministic.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

namespace zcav {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time since an arbitrary epoch.
  virtual std::chrono::nanoseconds Now() = 0;
  // User + system CPU time consumed by this process so far.
  virtual std::chrono::nanoseconds ProcessCpuTime() = 0;
  // Bytes this process has caused to be fetched from storage so far
  // (/proc/self/io read_bytes): page-cache hits do not count, so it proves
  // whether a sweep really reached the device. nullopt when unknown.
  virtual std::optional<std::uint64_t> StorageReadBytes() { return std::nullopt; }
  // The whole system's CPU time so far, in clock ticks of all CPUs together
  // (/proc/stat "cpu" line): busy = all but idle and iowait. nullopt when
  // unknown. The busy share between two readings is the system's CPU usage.
  struct SystemCpu {
    std::uint64_t busy_ticks = 0;
    std::uint64_t total_ticks = 0;
  };
  virtual std::optional<SystemCpu> SystemCpuTicks() { return std::nullopt; }
};

// The system's busy share in % between two readings; nullopt when either is
// unknown or no time passed.
std::optional<double> SystemBusyPercent(const std::optional<Clock::SystemCpu>& before,
                                        const std::optional<Clock::SystemCpu>& after);

// This process's CPU use over a stretch of time in % of one CPU: 100 * `cpu`
// (ProcessCpuTime() consumed) / `wall` (Now() elapsed); above 100 when
// several threads ran. 0 when no wall time passed.
double CpuPercent(std::chrono::nanoseconds cpu, std::chrono::nanoseconds wall);

// This process's CPU use from construction on: reads `clock` (not owned; must
// outlive it) Now() then ProcessCpuTime() when constructed, and again when
// asked for Percent().
class CpuMeter {
 public:
  explicit CpuMeter(Clock& clock)
      : clock_(clock), wall_start_(clock.Now()), cpu_start_(clock.ProcessCpuTime()) {}
  // The Now() reading at construction.
  std::chrono::nanoseconds wall_start() const { return wall_start_; }
  // CpuPercent over the time since construction.
  double Percent() const {
    const std::chrono::nanoseconds wall = clock_.Now() - wall_start_;
    return CpuPercent(clock_.ProcessCpuTime() - cpu_start_, wall);
  }

 private:
  Clock& clock_;
  std::chrono::nanoseconds wall_start_;  // before cpu_start_: read first
  std::chrono::nanoseconds cpu_start_;
};

class SteadyClock final : public Clock {
 public:
  std::chrono::nanoseconds Now() override;
  std::chrono::nanoseconds ProcessCpuTime() override;
  std::optional<std::uint64_t> StorageReadBytes() override;
  std::optional<SystemCpu> SystemCpuTicks() override;
};

// Time moves only when Advance() is called. CPU time is reported as zero and
// storage bytes as the sum of Advance(…, bytes) calls.
class VirtualClock final : public Clock {
 public:
  std::chrono::nanoseconds Now() override { return now_; }
  std::chrono::nanoseconds ProcessCpuTime() override { return std::chrono::nanoseconds{0}; }
  std::optional<std::uint64_t> StorageReadBytes() override { return storage_bytes_; }
  // REQUIRES: d >= 0.
  void Advance(std::chrono::nanoseconds d, std::uint64_t bytes_read = 0) {
    now_ += d;
    storage_bytes_ += bytes_read;
  }

 private:
  std::chrono::nanoseconds now_{0};
  std::uint64_t storage_bytes_ = 0;
};

}  // namespace zcav
