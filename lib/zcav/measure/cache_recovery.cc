#include "zcav/measure/cache_recovery.h"

#include <algorithm>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/units.h"
#include "zcav/device/write_stamp.h"

namespace zcav {

CacheRecovery ProbeCacheRecovery(Device& device, Clock& clock, const CacheRecoveryOptions& options,
                                 const std::atomic<bool>* stop) {
  CacheRecovery r;
  const std::uint64_t size = device.info().size_bytes;
  const std::uint64_t end = std::min(size, options.start_bytes + options.limit_bytes);
  AlignedBuffer buffer(options.chunk_bytes,
                       std::max<std::uint64_t>(device.info().sector_bytes, 4096));
  const std::uint64_t run_id = NewStampRunId();
  StampMemo stamp;
  std::chrono::nanoseconds fast_time{0};
  for (std::uint64_t at = options.start_bytes; at + options.chunk_bytes <= end;
       at += options.chunk_bytes) {
    if (stop != nullptr && stop->load()) return r;
    StampWrite(buffer.span(options.chunk_bytes), at, run_id, stamp);
    const auto t0 = clock.Now();
    r.error = device.WriteAt(at, buffer.span(options.chunk_bytes));
    const auto took = clock.Now() - t0;
    if (r.error) return r;
    r.written_bytes += options.chunk_bytes;
    if (MbPerS(options.chunk_bytes, took) < options.cache_threshold_mb_per_s) return r;
    r.regained_bytes += options.chunk_bytes;
    fast_time += took;
    r.cache_mb_per_s = MbPerS(r.regained_bytes, fast_time);
  }
  r.limited = true;
  return r;
}

}  // namespace zcav
