#include "zcav/pipeline/resume.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "zcav/base/error.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

void Same(const std::string& what, std::uint64_t recorded, std::uint64_t now) {
  if (recorded != now) {
    throw Error("cannot resume: the partial result was made with " + what + " " +
                    std::to_string(recorded) + ", this sweep has " + std::to_string(now) +
                    " (give the same options as the interrupted run)",
                ErrorKind::kBadInput);
  }
}

}  // namespace

ResumePoint PrepareResume(const SavedResult& partial, const SweepPlan& plan,
                          const DeviceInfo& device) {
  const std::string& source = partial.source;
  if (!partial.plan) {
    throw Error("cannot resume from " + source +
                    ": it records no sweep plan (only zcav's raw and JSON results can be resumed)",
                ErrorKind::kBadInput);
  }
  if (partial.status == "complete") {
    throw Error("nothing to resume: " + source + " is a complete result", ErrorKind::kBadInput);
  }
  const SweepPlan& was = *partial.plan;
  if (partial.device_bytes != 0 && partial.device_bytes != device.size_bytes) {
    throw Error("cannot resume: " + source + " was made on a device of " +
                    std::to_string(partial.device_bytes) + " bytes, " + device.path + " has " +
                    std::to_string(device.size_bytes) + " bytes (another device?)",
                ErrorKind::kBadInput);
  }
  Same("start_bytes", was.start_bytes, plan.start_bytes);
  Same("end_bytes", was.end_bytes, plan.end_bytes);
  Same("block_bytes", was.block_bytes, plan.block_bytes);
  Same("chunk_bytes", was.chunk_bytes, plan.chunk_bytes);
  Same("passes", was.passes, plan.passes);
  Same("skip", was.skip, plan.skip);
  if (was.quick != plan.quick) {
    throw Error(std::string("cannot resume: the partial result was made ") +
                    (was.quick ? "with" : "without") + " --quick, this sweep is " +
                    (plan.quick ? "quick" : "not quick"),
                ErrorKind::kBadInput);
  }

  ResumePoint point;
  point.unreadable = partial.unreadable;
  point.slow_regions = partial.slow_regions;
  const auto fill = [&](Sample s) {
    if (s.block_index >= plan.block_count || s.pass >= plan.passes) {
      throw Error("cannot resume: " + source + " has a sample of block " +
                      std::to_string(s.block_index) + " pass " + std::to_string(s.pass + 1) +
                      ", outside this sweep's " + std::to_string(plan.block_count) + " blocks x " +
                      std::to_string(plan.passes) + " passes",
                  ErrorKind::kBadInput);
    }
    s.offset_bytes = plan.BlockOffset(s.block_index);
    s.length_bytes = plan.BlockLength(s.block_index);
    point.samples.push_back(s);
  };
  if (plan.passes == 1) {
    const std::uint64_t step = plan.block_bytes * plan.skip;
    for (const CurvePoint& p : partial.points) {
      if (p.offset_bytes < plan.start_bytes || (p.offset_bytes - plan.start_bytes) % step != 0 ||
          !(p.mb_per_s > 0)) {
        throw Error("cannot resume: " + source + " has a block at offset " +
                        std::to_string(p.offset_bytes) + " that is not on this sweep's grid",
                    ErrorKind::kBadInput);
      }
      Sample s;
      s.block_index = (p.offset_bytes - plan.start_bytes) / step;
      const double seconds =
          static_cast<double>(plan.BlockLength(std::min(s.block_index, plan.block_count - 1))) /
          (p.mb_per_s * kMB);
      s.elapsed = std::chrono::nanoseconds(std::llround(seconds * 1e9));
      fill(s);
    }
  } else {
    if (partial.samples.empty() && !partial.points.empty()) {
      throw Error(
          "cannot resume: " + source + " is a multi-pass result without its per-pass samples",
          ErrorKind::kBadInput);
    }
    for (const Sample& s : partial.samples) fill(s);
  }
  std::sort(point.samples.begin(), point.samples.end(), [](const Sample& a, const Sample& b) {
    return a.pass != b.pass ? a.pass < b.pass : a.block_index < b.block_index;
  });
  for (std::size_t i = 1; i < point.samples.size(); ++i) {
    if (point.samples[i].pass == point.samples[i - 1].pass &&
        point.samples[i].block_index == point.samples[i - 1].block_index) {
      throw Error("cannot resume: " + source + " has block " +
                      std::to_string(point.samples[i].block_index) + " twice in one pass",
                  ErrorKind::kBadInput);
    }
  }
  if (!point.samples.empty()) {
    const Sample& last = point.samples.back();
    point.pass = last.pass;
    point.block = last.block_index + 1;
    if (point.block == plan.block_count) {
      point.block = 0;
      ++point.pass;
    }
  }
  if (point.pass >= plan.passes) {
    throw Error("nothing to resume: every block of " + source + " has all its passes",
                ErrorKind::kBadInput);
  }
  return point;
}

}  // namespace zcav
