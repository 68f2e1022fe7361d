// The sink that finds the zones at the end of a sweep (ZoneDetectingSink).
#pragma once

#include <functional>
#include <optional>

#include "zcav/analysis/transport.h"
#include "zcav/analysis/write_cache.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/format/result_sink.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/adaptive.h"

namespace zcav {

// Wraps a sink: forwards every event, keeps each block's median, and at the
// end of the sweep runs DetectZones and calls inner.OnZones() just before
// inner.OnFinish(). `inner` is not owned.
class ZoneDetectingSink final : public ForwardingSink {
 public:
  // `transport`: when set, the verdict is decided too and passed in the
  // context, weighing `burst_mb_per_s` (MB/s) when measured (VerdictFor).
  ZoneDetectingSink(ResultSink& inner, ZoneOptions options, Media media,
                    std::optional<Transport> transport = std::nullopt,
                    std::optional<double> burst_mb_per_s = std::nullopt);
  void OnStart(const RunInfo& run) override;
  void OnBlock(const BlockResult& block) override;
  // An adaptive run: the zones are found on its probes stretched to the
  // edges (AdaptiveCurve), and the context's notes say how much was read.
  void OnAdaptive(const AdaptiveResult& result) override;
  void OnFinish(const SweepResult& result) override;

  // A write sweep's cache found, before the zones go on: `probe` may write
  // again (--idle-probe) and returns what came back; it is put into the
  // context's write_cache. Not called for a partial sweep.
  using WriteCacheProbe =
      std::function<std::optional<WriteCacheRecovery>(const WriteCacheAnalysis&)>;
  void ProbeWriteCacheWith(WriteCacheProbe probe) { probe_ = std::move(probe); }

  // Valid after OnFinish.
  const ZoneAnalysis& analysis() const { return analysis_; }
  const ZoneReportContext& context() const { return context_; }
  // The adaptive run's result (probes left empty), after OnAdaptive.
  const std::optional<AdaptiveResult>& adaptive() const { return adaptive_; }

 private:
  ZoneOptions options_;
  Media media_;
  std::optional<Transport> transport_;
  std::optional<double> burst_mb_per_s_;
  Curve points_;                   // compact: 8 bytes per block (zone_detector.h)
  bool write_ = false;             // a write sweep: its cache is looked for
  std::uint64_t start_bytes_ = 0;  // where it began
  WriteCacheProbe probe_;
  std::optional<AdaptiveResult> adaptive_;
  std::string page_cache_file_;  // the device's (DeviceInfo::page_cache_file)
  ZoneAnalysis analysis_;
  ZoneReportContext context_;
};

}  // namespace zcav
