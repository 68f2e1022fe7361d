#include "zcav/pipeline/health_sink.h"

#include <algorithm>

namespace zcav {

void HealthSink::OnStart(const RunInfo& run) {
  device_bytes_ = run.device.size_bytes;
  rotational_ = run.device.rotational;
  report_.smart_requested = static_cast<bool>(sources_.smart);
  if (sources_.smart) report_.smart_before = sources_.smart();
  report_.temperature_source = sources_.temperature ? sources_.temperature_source : "";
  ForwardingSink::OnStart(run);
}

void HealthSink::ReadTemperature(std::chrono::nanoseconds at, std::uint64_t offset_bytes,
                                 std::uint32_t pass) {
  last_reading_ = at;
  const std::optional<double> c = sources_.temperature();
  if (!c) return;
  const std::chrono::nanoseconds since = at - first_read_.value_or(at);
  report_.temperatures.push_back(
      {static_cast<double>(since.count()) * 1e-9, offset_bytes, *c, pass});
}

void HealthSink::OnSample(const Sample& x) {
  if (!first_read_) first_read_ = x.started_at;
  last_offset_ = x.offset_bytes + x.length_bytes;
  last_pass_ = x.pass;
  if (sources_.temperature) {
    if (!last_reading_ || x.started_at - *last_reading_ >= sources_.temperature_every) {
      ReadTemperature(x.started_at, x.offset_bytes, x.pass);
    }
    timeline_.Add(x.pass, static_cast<double>((x.started_at - *first_read_).count()) * 1e-9,
                  x.offset_bytes, x.length_bytes, static_cast<double>(x.elapsed.count()) * 1e-9);
  }
  ForwardingSink::OnSample(x);
}

void HealthSink::OnAdaptive(const AdaptiveResult& result) {
  if (result.range_bytes > 0) {
    adaptive_share_read_ =
        static_cast<double>(result.bytes_read) / static_cast<double>(result.range_bytes);
  }
  ForwardingSink::OnAdaptive(result);
}

void HealthSink::OnFinish(const SweepResult& r) {
  if (sources_.temperature && last_reading_) {
    const std::chrono::nanoseconds end =
        first_read_.value_or(std::chrono::nanoseconds{0}) +
        std::chrono::nanoseconds(static_cast<std::int64_t>(r.wall_seconds * 1e9));
    ReadTemperature(std::max(end, *last_reading_), last_offset_, last_pass_);
    report_.thermal_drops = FindThermalDrops(timeline_.Passes(), report_.temperatures);
  }
  if (sources_.smart) {
    report_.smart_after = sources_.smart();
    if (report_.smart_before.available && report_.smart_after.available) {
      report_.smart_increases = SmartIncreases(report_.smart_before, report_.smart_after);
    }
  }
  HealthInputs in;
  in.device_bytes = device_bytes_;
  in.rotational = rotational_;
  in.unreadable = r.unreadable;
  in.slow_regions = r.slow_regions;
  in.latency = r.LatencyTotals();
  in.smart_before = report_.smart_before;
  in.smart_after = report_.smart_after;
  for (const TemperatureReading& t : report_.temperatures) {
    in.max_temperature_c = std::max(in.max_temperature_c.value_or(t.celsius), t.celsius);
  }
  in.thermal_drops = report_.thermal_drops;
  in.adaptive_share_read = adaptive_share_read_;
  report_.health = AssessHealth(in);
  inner().OnHealth(report_);
  ForwardingSink::OnFinish(r);
}

}  // namespace zcav
