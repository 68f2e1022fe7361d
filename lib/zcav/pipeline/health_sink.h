// HealthSink: sits in front of the result sinks, reads the drive's SMART at
// the start and the end of the sweep and its temperature while it runs, and
// hands the health conclusion (analysis/health.h) to the sinks behind it
// just before the sweep's OnFinish. With a temperature source it also keeps
// the rates read (RateTimeline) and looks for throughput drops that came
// with a temperature rise (analysis/thermal.h).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "zcav/analysis/health.h"
#include "zcav/format/result_sink.h"

namespace zcav {

// Where the drive's own figures come from; an empty function = not read.
struct HealthSources {
  // SMART now (measure/smart.h ReadSmart, or a note saying why not).
  std::function<SmartSnapshot()> smart;
  // The drive's temperature now, C; nullopt when it cannot be read.
  std::function<std::optional<double>()> temperature;
  std::string temperature_source;  // "hwmon", "smartctl"
  // Clock time between temperature readings (the sweep's clock).
  std::chrono::nanoseconds temperature_every{std::chrono::seconds(60)};
};

class HealthSink final : public ForwardingSink {
 public:
  // `inner` is not owned and must outlive the sink.
  HealthSink(ResultSink& inner, HealthSources sources)
      : ForwardingSink(inner), sources_(std::move(sources)) {}

  // SMART before (when asked for) and the first temperature reading.
  void OnStart(const RunInfo& run) override;
  // A temperature reading when temperature_every has passed on the clock.
  void OnSample(const Sample& x) override;
  // An adaptive run: the share of the range its probes read.
  void OnAdaptive(const AdaptiveResult& result) override;
  // SMART after, the last temperature, the conclusion: inner.OnHealth, then
  // inner.OnFinish.
  void OnFinish(const SweepResult& r) override;

  // Valid after OnFinish.
  const HealthReport& report() const { return report_; }

 private:
  void ReadTemperature(std::chrono::nanoseconds at, std::uint64_t offset_bytes, std::uint32_t pass);

  HealthSources sources_;
  HealthReport report_;
  std::uint64_t device_bytes_ = 0;
  std::optional<bool> rotational_;
  std::optional<std::chrono::nanoseconds> first_read_;
  std::optional<std::chrono::nanoseconds> last_reading_;
  std::uint64_t last_offset_ = 0;
  std::uint32_t last_pass_ = 0;
  std::optional<double> adaptive_share_read_;
  // The rates read, for the drops that come with a temperature rise (kept
  // only when there is a temperature to read).
  RateTimeline timeline_;
};

}  // namespace zcav
