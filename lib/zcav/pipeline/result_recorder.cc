#include "zcav/pipeline/result_recorder.h"

#include <cerrno>
#include <memory>
#include <sstream>

#include "zcav/base/error.h"

namespace zcav {

void ResultRecorder::OnStart(const RunInfo& run) {
  order_.push_back(Kind::kStart);
  starts_.push_back(run);
}
void ResultRecorder::OnSample(const Sample& x) {
  order_.push_back(Kind::kSample);
  samples_.push_back(x);
}
void ResultRecorder::OnBlock(const BlockResult& x) {
  order_.push_back(Kind::kBlock);
  blocks_.push_back(x);
}
void ResultRecorder::OnPassDone(const PassSummary& x) {
  order_.push_back(Kind::kPassDone);
  passes_.push_back(x);
}
void ResultRecorder::OnUnreadable(const UnreadableRange& x) {
  order_.push_back(Kind::kUnreadable);
  unreadable_.push_back(x);
}
void ResultRecorder::OnSlowRegion(const SlowRegion& x) {
  order_.push_back(Kind::kSlowRegion);
  slow_.push_back(x);
}
void ResultRecorder::OnHealth(const HealthReport& h) {
  order_.push_back(Kind::kHealth);
  health_.push_back(h);
}

void ResultRecorder::OnZones(const ZoneAnalysis& a, const ZoneReportContext& c) {
  order_.push_back(Kind::kZones);
  zones_.emplace_back(a, c);
}
void ResultRecorder::OnAdaptive(const AdaptiveResult& x) {
  order_.push_back(Kind::kAdaptive);
  adaptive_.push_back(x);
}
void ResultRecorder::OnFinish(const SweepResult& x) {
  order_.push_back(Kind::kFinish);
  finishes_.push_back(x);
}

void ResultRecorder::Replay(ResultSink& sink) const {
  std::size_t start = 0, sample = 0, block = 0, pass = 0, unreadable = 0, slow = 0, zones = 0,
              health = 0, adaptive = 0, finish = 0;
  for (const Kind kind : order_) {
    switch (kind) {
      case Kind::kStart:
        sink.OnStart(starts_[start++]);
        break;
      case Kind::kSample:
        sink.OnSample(samples_[sample++]);
        break;
      case Kind::kBlock:
        sink.OnBlock(blocks_[block++]);
        break;
      case Kind::kPassDone:
        sink.OnPassDone(passes_[pass++]);
        break;
      case Kind::kUnreadable:
        sink.OnUnreadable(unreadable_[unreadable++]);
        break;
      case Kind::kSlowRegion:
        sink.OnSlowRegion(slow_[slow++]);
        break;
      case Kind::kHealth:
        sink.OnHealth(health_[health++]);
        break;
      case Kind::kZones:
        sink.OnZones(zones_[zones].first, zones_[zones].second);
        ++zones;
        break;
      case Kind::kAdaptive:
        sink.OnAdaptive(adaptive_[adaptive++]);
        break;
      case Kind::kFinish:
        sink.OnFinish(finishes_[finish++]);
        break;
    }
  }
}

void ResultRecorder::WriteAs(OutputFormat format, std::ostream& out, bool seekable) const {
  const std::unique_ptr<ResultSink> writer = MakeWriter(format, out, seekable);
  Replay(*writer);
}

std::string ResultRecorder::JsonDocument(
    const std::vector<std::pair<std::string, std::string>>& members,
    const std::vector<std::string>& drop) const {
  std::ostringstream text;
  const std::unique_ptr<JsonDocumentWriter> writer = MakeJsonDocumentWriter(text);
  Replay(*writer);
  text << writer->Closing(members, drop);
  return text.str();
}

template <class Event>
void WriteGuard::Guard(Event event) {
  if (failed_) return;
  errno = 0;
  try {
    event();
  } catch (const Error& e) {
    const int e_number = errno;  // the failed write's, before anything else can change it
    if (e.kind() != ErrorKind::kRuntime) throw;
    failed_ = true;
    error_number_ = e_number;
    message_ = e.what();
  }
}

void WriteGuard::OnStart(const RunInfo& x) {
  Guard([&] { writer_.OnStart(x); });
}
void WriteGuard::OnSample(const Sample& x) {
  Guard([&] { writer_.OnSample(x); });
}
void WriteGuard::OnBlock(const BlockResult& x) {
  Guard([&] { writer_.OnBlock(x); });
}
void WriteGuard::OnPassDone(const PassSummary& x) {
  Guard([&] { writer_.OnPassDone(x); });
}
void WriteGuard::OnUnreadable(const UnreadableRange& x) {
  Guard([&] { writer_.OnUnreadable(x); });
}
void WriteGuard::OnSlowRegion(const SlowRegion& x) {
  Guard([&] { writer_.OnSlowRegion(x); });
}
void WriteGuard::OnHealth(const HealthReport& h) {
  Guard([&] { writer_.OnHealth(h); });
}

void WriteGuard::OnZones(const ZoneAnalysis& a, const ZoneReportContext& c) {
  Guard([&] { writer_.OnZones(a, c); });
}
void WriteGuard::OnAdaptive(const AdaptiveResult& x) {
  Guard([&] { writer_.OnAdaptive(x); });
}
void WriteGuard::OnFinish(const SweepResult& x) {
  Guard([&] { writer_.OnFinish(x); });
}

}  // namespace zcav
