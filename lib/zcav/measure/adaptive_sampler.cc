// The adaptive sampler's probe reads at the drift the reference shows
// (adaptive_internal.h Sampler): the reader's probe I/O, the drift
// reference read when due, and the read booked divided by its drift.
#include <cstdint>
#include <optional>

#include "zcav/measure/adaptive_internal.h"

namespace zcav::adaptive {

const AdaptiveProbe* Sampler::ReadMore(std::uint64_t k) {
  if (drift_.Due()) {
    // (A change of speed seen: the probe reads since the reference's read
    // before it are suspect.)
    if (const std::optional<SuspectReads> s = drift_.ReadDue(book_.Seq())) book_.MarkSuspect(*s);
  }
  const bool read_before = book_.Prepare(k, reader_.OffsetOf(k), reader_.probe_bytes());
  const std::uint64_t before = result_.bytes_read;
  const std::optional<Timed> read = reader_.ReadOnce(k);
  if (read_before) result_.reread_bytes += result_.bytes_read - before;
  if (!read || !(read->mb_per_s > 0)) return nullptr;  // (no time measured: no rate)
  drift_.CountProbeRead();
  return book_.Add(k, *read);
}

void Sampler::CloseReference() { drift_.Close(book_.Seq()); }

void Sampler::Redrift() {
  drift_.FixFrame();
  result_.largest_drift = book_.Redrift();
}

double Sampler::Reframe() {
  const double before = drift_.ReleaseFrame();
  Redrift();
  return drift_.FrameFactor(before);
}

}  // namespace zcav::adaptive
