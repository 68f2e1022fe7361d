#include "zcav/format/result_sink.h"

#include <utility>

namespace zcav {

ResultTee::ResultTee(std::vector<SampleSink*> sinks)
    : ResultTee(std::make_unique<TeeSink>(sinks), sinks) {}

ResultTee::ResultTee(std::unique_ptr<TeeSink> tee, const std::vector<SampleSink*>& sinks)
    : SampleForwardingSink(*tee), tee_(std::move(tee)) {
  for (auto* s : sinks) {
    if (auto* r = dynamic_cast<ResultSink*>(s)) results_.push_back(r);
  }
}

}  // namespace zcav
