// ZoneDetectingSink: see zone_sink.h.
#include "zcav/pipeline/zone_sink.h"

#include "zcav/analysis/adaptive_steps.h"
#include "zcav/analysis/caches.h"
#include "zcav/analysis/result_zones.h"

namespace zcav {

ZoneDetectingSink::ZoneDetectingSink(ResultSink& inner, ZoneOptions options, Media media,
                                     std::optional<Transport> transport,
                                     std::optional<double> burst_mb_per_s)
    : ForwardingSink(inner),
      options_(options),
      media_(media),
      transport_(std::move(transport)),
      burst_mb_per_s_(burst_mb_per_s) {}

void ZoneDetectingSink::OnStart(const RunInfo& run) {
  // A device known not to rotate never has a platter's zones (tiered, not
  // zoned; no platter verdict).
  options_.non_rotational = options_.non_rotational || KnownNotToRotate(run.device);
  context_.source = run.device.path;
  context_.device_bytes = run.device.size_bytes;
  context_.media = media_;
  page_cache_file_ = run.device.page_cache_file;
  write_ = run.plan.write;
  start_bytes_ = run.plan.start_bytes;
  points_.clear();
  points_.reserve(run.plan.block_count);
  inner().OnStart(run);
}

void ZoneDetectingSink::OnBlock(const BlockResult& block) {
  // Blocks with unreadable bytes are left out of the zone statistics: their
  // rate (if any pass read them cleanly) is not the media's, and a block
  // with no clean read has none.
  if (block.passes > 0 && block.unreadable_bytes == 0) {
    points_.push_back({block.offset_bytes, block.length_bytes, block.mb_per_s, block.min_mb_per_s,
                       block.max_mb_per_s});
  }
  inner().OnBlock(block);
}

void ZoneDetectingSink::OnAdaptive(const AdaptiveResult& result) {
  adaptive_ = result;
  inner().OnAdaptive(result);
}

void ZoneDetectingSink::OnFinish(const SweepResult& result) {
  if (adaptive_) {
    context_.notes.push_back(AdaptiveNote(*adaptive_, points_.size()));
    points_ =
        AdaptiveCurve(points_, adaptive_->edges, adaptive_->start_bytes,
                      adaptive_->start_bytes + adaptive_->range_bytes, adaptive_->grid_probes);
    analysis_ = AdaptiveZones(points_, adaptive_->edges, options_, media_ != Media::kNone);
  } else {
    analysis_ = DetectZones(points_, options_, media_ != Media::kNone);
  }
  points_ = Curve();  // the curve is not needed any more: give its memory back
  context_.unreadable = result.unreadable;
  context_.slow_regions = result.slow_regions;
  if (write_) context_.write_cache = AnalyzeWriteCache(analysis_, start_bytes_);
  if (!write_) {
    context_.caches =
        AssessCaches(CacheEvidenceOf(result.passes, result.cached_share_at_end, page_cache_file_));
  }
  if (context_.write_cache && probe_ && !result.partial()) {
    context_.write_cache->recovery = probe_(*context_.write_cache);
  }
  if (transport_) {
    context_.transport = transport_;
    context_.verdict =
        VerdictFor(analysis_, *transport_, burst_mb_per_s_, context_.write_cache, context_.caches);
  }
  inner().OnZones(analysis_, context_);
  inner().OnFinish(result);
}

}  // namespace zcav
