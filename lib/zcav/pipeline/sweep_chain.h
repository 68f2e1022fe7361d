// The chain of sinks a sweep emits into, built in one place from what a
// command asks for (SweepChainSpec), and the sweep run through it:
//
//   sweep -> [HealthSink] -> [ZoneDetectingSink -> [PassCurveSink]] -> ResultTee
//   ResultTee -> each writer behind a WriteGuard, the recorder, the curve, the
//                timeline, the live view, the observers, the progress line
//
// Commands configure a spec and read the results from the chain's parts;
// they construct no sinks.
#pragma once

#include <atomic>
#include <cstddef>
#include <iosfwd>
#include <memory>
#include <optional>
#include <vector>

#include "zcav/analysis/transport.h"
#include "zcav/analysis/zone_detector.h"
#include "zcav/base/clock.h"
#include "zcav/device/device.h"
#include "zcav/format/result_sink.h"
#include "zcav/format/writers.h"
#include "zcav/format/zone_table.h"
#include "zcav/measure/adaptive.h"
#include "zcav/measure/concurrent.h"
#include "zcav/measure/progress.h"
#include "zcav/measure/resume_point.h"
#include "zcav/measure/sweep.h"
#include "zcav/pipeline/health_sink.h"
#include "zcav/pipeline/pass_curves.h"
#include "zcav/pipeline/result_recorder.h"
#include "zcav/pipeline/zone_sink.h"
#include "zcav/report/live_view.h"

namespace zcav {

// Keeps each block's figures for the plot drawn after the sweep, compactly
// (curve.h: 8 bytes per block for one pass, 24 for several).
class CurveSink final : public SampleSink {
 public:
  void OnStart(const RunInfo&) override {}
  void OnSample(const Sample&) override {}
  void OnBlock(const BlockResult& b) override;
  void OnPassDone(const PassSummary&) override {}
  void OnFinish(const SweepResult&) override {}

  Curve points;
  std::vector<float> worst_chunk_ms;  // parallel to points (SavedResult::worst_chunk_ms)
};

// A result writer the chain makes (format/writers.h) on a stream it does
// not own (the stream must outlive the chain).
struct WriterSpec {
  OutputFormat format = OutputFormat::kRaw;
  std::ostream* out = nullptr;
  bool seekable = false;
  // JSON whose members after "blocks" wait for the command
  // (JsonDocumentWriter; format must be kJson).
  bool json_document = false;
};

struct SweepChainSpec {
  // The result writers, in order, each behind a WriteGuard: a failed write
  // stops that writer, not the sweep.
  std::vector<WriterSpec> writers;
  bool record = false;                 // a ResultRecorder: the result kept for a failed write
  bool keep_curve = false;             // a CurveSink: each block's figures, for plots
  bool timeline = false;               // a TimelineSink: each read's time (several devices at once)
  std::unique_ptr<LiveView> live;      // owned when given
  std::vector<ResultSink*> observers;  // not owned: every event (--events), after the live view
  // A progress line on *progress_out, paced by *progress_clock (both not
  // owned); none when progress_out is null.
  std::ostream* progress_out = nullptr;
  Clock* progress_clock = nullptr;
  bool progress_tty = false;
  // One lane of a shared progress line (several devices): none when null.
  SeveralProgress* shared_progress = nullptr;
  std::size_t shared_progress_lane = 0;
  // The zones at the end (ZoneDetectingSink), with the time steps of 2+
  // passes merged away first when pass_curves (PassCurveSink).
  bool detect_zones = true;
  bool pass_curves = true;
  ZoneOptions zones;
  Media media = Media::kNone;
  std::optional<Transport> transport;    // decides the verdict when set
  std::optional<double> burst_mb_per_s;  // MB/s (10^6 B/s), weighed by the verdict
  std::optional<HealthSources> health;   // a HealthSink in front when set
};

class SweepChain {
 public:
  explicit SweepChain(SweepChainSpec spec);
  SweepChain(const SweepChain&) = delete;
  SweepChain& operator=(const SweepChain&) = delete;

  // Where the sweep emits its events.
  SampleSink& head() { return *head_; }
  // Runs a full sweep (RunSweep) or an adaptive one (RunAdaptiveSweep, its
  // steps found on the grid with the spec's zone options) into head().
  SweepResult Run(Device& device, const RunInfo& run, Clock& clock,
                  const std::atomic<bool>* stop = nullptr, const ResumePoint* resume = nullptr);
  SweepResult RunAdaptive(Device& device, const RunInfo& run, Clock& clock,
                          const AdaptiveOptions& options, const std::atomic<bool>* stop = nullptr);

  // The parts, for what they hold after the sweep; null/absent when not asked for.
  const WriteGuard& guard(std::size_t writer) const { return *guards_.at(writer); }
  // Writer `writer` of the spec as a JsonDocumentWriter. REQUIRES: it was
  // asked for with json_document.
  JsonDocumentWriter& json_document(std::size_t writer);
  ResultRecorder& recorder() { return recorder_; }
  CurveSink& curve() { return curve_; }
  const TimelineSink& timeline() const { return timeline_; }
  LiveView* live() const { return spec_.live.get(); }
  ZoneDetectingSink* zones() { return zones_.get(); }
  const PassCurveSink* pass_curves() const { return pass_curves_.get(); }
  const HealthSink* health() const { return health_.get(); }
  // The zones and their context as the writers got them (valid after the
  // sweep, with detect_zones; else empty).
  const ZoneAnalysis& analysis() const;
  const ZoneReportContext& context() const;

 private:
  SweepChainSpec spec_;
  std::vector<std::unique_ptr<ResultSink>> writers_;
  std::vector<JsonDocumentWriter*> json_documents_;  // parallel to writers_; null if not one
  std::vector<std::unique_ptr<WriteGuard>> guards_;
  ResultRecorder recorder_;
  CurveSink curve_;
  TimelineSink timeline_;
  std::unique_ptr<ProgressSink> progress_;
  std::unique_ptr<LaneProgressSink> lane_progress_;
  std::unique_ptr<ResultTee> tee_;
  std::unique_ptr<PassCurveSink> pass_curves_;
  std::unique_ptr<ZoneDetectingSink> zones_;
  std::unique_ptr<HealthSink> health_;
  SampleSink* head_ = nullptr;
};

}  // namespace zcav
