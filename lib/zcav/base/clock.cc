#include "zcav/base/clock.h"

#include <sys/resource.h>
#include <time.h>

#include <fstream>
#include <string>

namespace zcav {
namespace {

std::chrono::nanoseconds FromTimeval(const timeval& tv) {
  return std::chrono::seconds(tv.tv_sec) + std::chrono::microseconds(tv.tv_usec);
}

}  // namespace

std::chrono::nanoseconds SteadyClock::Now() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

std::chrono::nanoseconds SteadyClock::ProcessCpuTime() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return FromTimeval(usage.ru_utime) + FromTimeval(usage.ru_stime);
}

std::optional<std::uint64_t> SteadyClock::StorageReadBytes() {
  // read_bytes counts what this process made the block layer fetch; page-cache
  // hits are not in it. Absent without CONFIG_TASK_IO_ACCOUNTING.
  std::ifstream io("/proc/self/io");
  std::string key;
  std::uint64_t value = 0;
  while (io >> key >> value) {
    if (key == "read_bytes:") return value;
  }
  return std::nullopt;
}

std::optional<Clock::SystemCpu> SteadyClock::SystemCpuTicks() {
  // First line: "cpu  user nice system idle iowait irq softirq steal ...".
  std::ifstream stat("/proc/stat");
  std::string label;
  if (!(stat >> label) || label != "cpu") return std::nullopt;
  SystemCpu out;
  std::uint64_t value = 0;
  for (int field = 0; field < 8 && stat >> value; ++field) {
    out.total_ticks += value;
    if (field != 3 && field != 4) out.busy_ticks += value;  // idle, iowait
  }
  return out;
}

std::optional<double> SystemBusyPercent(const std::optional<Clock::SystemCpu>& before,
                                        const std::optional<Clock::SystemCpu>& after) {
  if (!before || !after || after->total_ticks <= before->total_ticks) return std::nullopt;
  return 100.0 * static_cast<double>(after->busy_ticks - before->busy_ticks) /
         static_cast<double>(after->total_ticks - before->total_ticks);
}

double CpuPercent(std::chrono::nanoseconds cpu, std::chrono::nanoseconds wall) {
  return wall.count() > 0
             ? 100.0 * static_cast<double>(cpu.count()) / static_cast<double>(wall.count())
             : 0;
}

}  // namespace zcav
