#include "zcav/io/result_sink.h"

#include <utility>

namespace zcav {

ResultTee::ResultTee(std::vector<SampleSink*> sinks) : tee_(sinks) {
  for (auto* s : sinks) {
    if (auto* r = dynamic_cast<ResultSink*>(s)) results_.push_back(r);
  }
}

}  // namespace zcav
