// Keeping a sweep's results when their output fails: a WriteGuard stands in
// front of a writer and turns the writer's write failure (disk full, I/O
// error, a closed pipe) into a note instead of an exception that would end
// the sweep; a ResultRecorder keeps every event in memory, so that the whole
// result can be written again, by a fresh writer, somewhere else.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "zcav/format/result_sink.h"
#include "zcav/format/writers.h"
#include "zcav/format/zone_table.h"

namespace zcav {

// Keeps a copy of every event, in order, and gives them back with Replay.
// Memory: about 48 bytes per sample, 100 per block, plus the run's record,
// the zones and the result (a 1000-block sweep of 3 passes: ~250 KB).
class ResultRecorder final : public ResultSink {
 public:
  void OnStart(const RunInfo& run) override;
  void OnSample(const Sample& x) override;
  void OnBlock(const BlockResult& x) override;
  void OnPassDone(const PassSummary& x) override;
  void OnUnreadable(const UnreadableRange& x) override;
  void OnSlowRegion(const SlowRegion& x) override;
  void OnZones(const ZoneAnalysis& a, const ZoneReportContext& c) override;
  void OnHealth(const HealthReport& h) override;
  void OnAdaptive(const AdaptiveResult& x) override;
  void OnFinish(const SweepResult& x) override;

  // Sends every event kept so far to `sink`, in the order they came. A
  // writer given them writes what it would have written during the sweep.
  // Throws what `sink` throws.
  void Replay(ResultSink& sink) const;
  // Writes the events kept so far as `format` to `out`, by a fresh writer
  // (MakeWriter). Throws what the writer throws.
  void WriteAs(OutputFormat format, std::ostream& out, bool seekable) const;
  // The events kept so far as a whole JSON document, its members after
  // "blocks" completed as JsonDocumentWriter::Closing does with `members`
  // and `drop`. Throws what the writer throws.
  std::string JsonDocument(const std::vector<std::pair<std::string, std::string>>& members,
                           const std::vector<std::string>& drop) const;

 private:
  enum class Kind : std::uint8_t {
    kStart,
    kSample,
    kBlock,
    kPassDone,
    kUnreadable,
    kSlowRegion,
    kZones,
    kHealth,
    kAdaptive,
    kFinish
  };
  std::vector<Kind> order_;
  std::vector<RunInfo> starts_;
  std::vector<Sample> samples_;
  std::vector<BlockResult> blocks_;
  std::vector<PassSummary> passes_;
  std::vector<UnreadableRange> unreadable_;
  std::vector<SlowRegion> slow_;
  std::vector<std::pair<ZoneAnalysis, ZoneReportContext>> zones_;
  std::vector<HealthReport> health_;
  std::vector<AdaptiveResult> adaptive_;
  std::vector<SweepResult> finishes_;
};

// Forwards every event to `writer` (not owned; must outlive it) until the
// writer throws Error(kRuntime) (a write that failed: writers.h); from then
// on it forwards nothing and failed() is true. Other exceptions pass through.
class WriteGuard final : public ResultSink {
 public:
  explicit WriteGuard(ResultSink& writer) : writer_(writer) {}
  void OnStart(const RunInfo& x) override;
  void OnSample(const Sample& x) override;
  void OnBlock(const BlockResult& x) override;
  void OnPassDone(const PassSummary& x) override;
  void OnUnreadable(const UnreadableRange& x) override;
  void OnSlowRegion(const SlowRegion& x) override;
  void OnZones(const ZoneAnalysis& a, const ZoneReportContext& c) override;
  void OnHealth(const HealthReport& h) override;
  void OnAdaptive(const AdaptiveResult& x) override;
  void OnFinish(const SweepResult& x) override;

  bool failed() const { return failed_; }
  // The errno of the failed write (e.g. ENOSPC), 0 when not known.
  int error_number() const { return error_number_; }
  // The writer's message.
  const std::string& message() const { return message_; }

 private:
  template <class Event>
  void Guard(Event event);

  ResultSink& writer_;
  bool failed_ = false;
  int error_number_ = 0;
  std::string message_;
};

}  // namespace zcav
