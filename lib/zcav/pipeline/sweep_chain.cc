// SweepChain: see sweep_chain.h.
#include "zcav/pipeline/sweep_chain.h"

#include <cassert>
#include <utility>

#include "zcav/analysis/adaptive_steps.h"

namespace zcav {

void CurveSink::OnBlock(const BlockResult& b) {
  if (b.passes == 0) return;  // no clean read: no rate to draw
  points.push_back({b.offset_bytes, b.length_bytes, b.mb_per_s, b.min_mb_per_s, b.max_mb_per_s});
  worst_chunk_ms.push_back(static_cast<float>(b.worst_chunk_ms));
}

SweepChain::SweepChain(SweepChainSpec spec) : spec_(std::move(spec)) {
  std::vector<SampleSink*> sinks;
  for (const WriterSpec& w : spec_.writers) {
    assert(w.out != nullptr && (!w.json_document || w.format == OutputFormat::kJson));
    JsonDocumentWriter* document = nullptr;
    if (w.json_document) {
      std::unique_ptr<JsonDocumentWriter> made = MakeJsonDocumentWriter(*w.out);
      document = made.get();
      writers_.push_back(std::move(made));
    } else {
      writers_.push_back(MakeWriter(w.format, *w.out, w.seekable));
    }
    json_documents_.push_back(document);
    guards_.push_back(std::make_unique<WriteGuard>(*writers_.back()));
    sinks.push_back(guards_.back().get());
  }
  if (spec_.record) sinks.push_back(&recorder_);
  if (spec_.keep_curve) sinks.push_back(&curve_);
  if (spec_.timeline) sinks.push_back(&timeline_);
  if (spec_.live) sinks.push_back(spec_.live.get());
  for (ResultSink* observer : spec_.observers) sinks.push_back(observer);
  if (spec_.progress_out != nullptr && spec_.progress_clock != nullptr) {
    progress_ = std::make_unique<ProgressSink>(*spec_.progress_out, *spec_.progress_clock,
                                               spec_.progress_tty);
    sinks.push_back(progress_.get());
  }
  if (spec_.shared_progress != nullptr) {
    lane_progress_ =
        std::make_unique<LaneProgressSink>(*spec_.shared_progress, spec_.shared_progress_lane);
    sinks.push_back(lane_progress_.get());
  }
  tee_ = std::make_unique<ResultTee>(sinks);
  ResultSink* front = tee_.get();
  if (spec_.detect_zones) {
    if (spec_.pass_curves) {
      pass_curves_ = std::make_unique<PassCurveSink>(*front, spec_.burst_mb_per_s);
      front = pass_curves_.get();
    }
    zones_ = std::make_unique<ZoneDetectingSink>(*front, spec_.zones, spec_.media, spec_.transport,
                                                 spec_.burst_mb_per_s);
    front = zones_.get();
  }
  if (spec_.health) {
    health_ = std::make_unique<HealthSink>(*front, *spec_.health);
    front = health_.get();
  }
  head_ = front;
}

JsonDocumentWriter& SweepChain::json_document(std::size_t writer) {
  JsonDocumentWriter* document = json_documents_.at(writer);
  assert(document != nullptr);
  return *document;
}

SweepResult SweepChain::Run(Device& device, const RunInfo& run, Clock& clock,
                            const std::atomic<bool>* stop, const ResumePoint* resume) {
  return RunSweep(device, run, clock, head(), stop, resume);
}

SweepResult SweepChain::RunAdaptive(Device& device, const RunInfo& run, Clock& clock,
                                    const AdaptiveOptions& options, const std::atomic<bool>* stop) {
  const bool optical = spec_.media != Media::kNone;
  return RunAdaptiveSweep(
      device, run, clock, options,
      [&](const std::vector<AdaptiveProbe>& grid) { return GridSteps(grid, spec_.zones, optical); },
      head(), stop);
}

const ZoneAnalysis& SweepChain::analysis() const {
  static const ZoneAnalysis kNone;
  if (pass_curves_) return pass_curves_->analysis();
  return zones_ ? zones_->analysis() : kNone;
}

const ZoneReportContext& SweepChain::context() const {
  static const ZoneReportContext kNone;
  if (pass_curves_) return pass_curves_->context();
  return zones_ ? zones_->context() : kNone;
}

}  // namespace zcav
