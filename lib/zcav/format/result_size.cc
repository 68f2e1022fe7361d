#include "zcav/format/result_size.h"

#include <limits>

namespace zcav {

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

std::uint64_t Mul(std::uint64_t a, std::uint64_t b) {
  return a != 0 && b > kMax / a ? kMax : a * b;
}

std::uint64_t Add(std::uint64_t a, std::uint64_t b) { return b > kMax - a ? kMax : a + b; }

}  // namespace

std::uint64_t EstimateResultBytes(OutputFormat format, const SweepPlan& plan) {
  const std::uint64_t blocks = plan.block_count;
  const std::uint64_t samples = plan.passes > 1 ? Mul(blocks, plan.passes) : 0;
  std::uint64_t bytes = Add(kResultFixedBytes, Mul(plan.passes, kPassLineBytes));
  switch (format) {
    case OutputFormat::kRaw:
      bytes = Add(bytes, Mul(blocks, kRawBlockLineBytes));
      return Add(bytes, Mul(samples, kRawSampleLineBytes));
    case OutputFormat::kCsv:
      return Add(bytes, Mul(blocks, kCsvRowBytes));
    case OutputFormat::kJson:
      bytes = Add(bytes, Mul(blocks, kJsonBlockBytes));
      return Add(bytes, Mul(samples, kJsonSampleBytes));
  }
  return bytes;
}

std::uint64_t EstimateProfileBytes(const SweepPlan& plan, std::uint64_t access_samples) {
  std::uint64_t bytes = kProfileFixedBytes;
  bytes = Add(bytes, EstimateResultBytes(OutputFormat::kJson, plan));
  bytes = Add(bytes, EstimateResultBytes(OutputFormat::kRaw, plan));
  bytes = Add(bytes, Mul(plan.block_count, kPlotDataLineBytes));
  return Add(bytes, Mul(access_samples, kAccessSampleBytes));
}

}  // namespace zcav
