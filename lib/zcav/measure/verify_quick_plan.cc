// PlanQuickVerify: where zcav verify --quick writes its probes (see
// verify_quick.h).
//
// Why the plan has this shape (f3probe and GRC's ValiDrive answer the same
// question; this is our own design):
// - A fake either drops what lies beyond its real size R (a probe there
//   reads back lost) or wraps (a probe at x >= R lands on x - k R: it reads
//   back good itself, and only the place it landed on shows it). Probes
//   spaced at most `precision` of their offset apart bracket R that closely
//   in one round for either kind: the highest good probe below R and the
//   lowest bad one above it.
// - A wrap shows only where the probe landed. The first probe above R lands
//   in [0, spacing), so with probes at most window_bytes apart everywhere and
//   the window [0, window_bytes) read back (reads cost time, not writes), a
//   wrap at any R is seen, with the exact period: the stamp found at x - R
//   names x. The window is claimed/1024 (1024 probes of spacing), from 4 MiB
//   (so a small device is not probed every few KiB) to 256 MiB (the read
//   stays seconds on a stick that claims terabytes).
// - Probes just below and at each power of two and at the end: real sizes
//   are often powers of two, and a probe at 2^k lands on offset 0's
//   neighbourhood exactly when a fake wraps there.
// - The cache flush goes right after the window, where no probe is, and is
//   written after the probes: by the read-back, a write cache of up to
//   cache_flush_bytes holds only the flush.
// Written in the first round for a 16 GiB claim: 1,642 probes (6.4 MiB) and
// the 16 MiB flush, 22.4 MiB: 2.2 % of a 1 GiB real capacity.
#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/measure/verify_quick.h"

namespace zcav {
namespace {

constexpr std::uint64_t kWindowShare = 1024;  // the window: claimed / 1024 ...
constexpr std::uint64_t kMinWindowBytes = 4 * kMiB;
constexpr std::uint64_t kMaxWindowBytes = 256 * kMiB;
// The first probe: the first MiB holds partition tables and boot code, which
// no fake lacks.
constexpr std::uint64_t kFirstProbeBytes = kMiB;
constexpr std::uint64_t kMaxProbeBytes = kMiB;  // the runner's write buffer
// A device smaller than this many windows plus flushes is refused.
constexpr std::uint64_t kMinDeviceShare = 4;

void Require(bool ok, const std::string& message) {
  if (!ok) throw Error(message, ErrorKind::kBadInput);
}

void CheckOptions(const DeviceInfo& info, const QuickVerifyOptions& o) {
  const std::uint64_t unit = std::max<std::uint64_t>(info.sector_bytes, 512);
  Require(o.probe_bytes > 0 && o.probe_bytes % unit == 0 && o.probe_bytes <= kMaxProbeBytes,
          "invalid quick probe size " + std::to_string(o.probe_bytes) + ": give a multiple of " +
              std::to_string(unit) + " bytes (the device's sector) up to 1 MiB");
  Require(o.precision > 0 && o.precision <= 0.5,
          "invalid quick precision " + std::to_string(o.precision) + ": give 0 < precision <= 0.5");
  Require(o.first_round_precision >= 0 && o.first_round_precision <= 0.5,
          "invalid quick first-round precision: give 0 (the precision) to 0.5");
  Require(o.max_write_share > 0 && o.max_write_share <= 1,
          "invalid quick write share: give 0 < share <= 1");
  Require(o.max_rounds >= 1 && o.max_round_probes >= 1,
          "invalid quick rounds: give at least one round and one probe a round");
}

// The probe offsets of the first round: see the file comment.
std::vector<std::uint64_t> FirstProbes(const QuickVerifyPlan& plan, std::uint64_t end,
                                       double precision) {
  const std::uint64_t l = plan.probe_bytes;
  const std::uint64_t flush_end = plan.flush_offset_bytes + plan.flush_bytes;
  std::vector<std::uint64_t> at;
  for (std::uint64_t x = RoundUp(kFirstProbeBytes, l); x + l <= end;) {
    if (x >= plan.flush_offset_bytes && x < flush_end) {
      x = RoundUp(flush_end, l);
      continue;
    }
    at.push_back(x);
    const auto step = static_cast<std::uint64_t>(precision * static_cast<double>(x));
    x += std::clamp(RoundDown(step, l), l, plan.window_bytes);
  }
  for (std::uint64_t p = std::bit_ceil(kFirstProbeBytes); p < end; p *= 2) {
    at.push_back(RoundDown(p, l) - l);
    at.push_back(RoundDown(p, l));
  }
  at.push_back(end - l);
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  std::erase_if(at, [&](std::uint64_t x) {
    return x + l > end || (x + l > plan.flush_offset_bytes && x < flush_end);
  });
  return at;
}

}  // namespace

QuickVerifyPlan PlanQuickVerify(const DeviceInfo& info, const QuickVerifyOptions& o) {
  CheckOptions(info, o);
  QuickVerifyPlan plan;
  const std::uint64_t l = o.probe_bytes;
  plan.probe_bytes = l;
  const std::uint64_t window = o.window_bytes != 0 ? o.window_bytes
                                                   : std::clamp(info.size_bytes / kWindowShare,
                                                                kMinWindowBytes, kMaxWindowBytes);
  plan.window_bytes = RoundUp(window, l);
  plan.flush_offset_bytes = plan.window_bytes;
  plan.flush_bytes = RoundUp(o.cache_flush_bytes, l);
  const std::uint64_t least = kMinDeviceShare * (plan.window_bytes + plan.flush_bytes);
  Require(info.size_bytes >= least, info.path + " (" + ExactBinarySize(info.size_bytes) +
                                        ") is too small for a quick check (under " +
                                        ExactBinarySize(least) + "): run the full verify");
  plan.probes = FirstProbes(plan, RoundDown(info.size_bytes, l),
                            o.first_round_precision > 0 ? o.first_round_precision : o.precision);
  plan.first_round_write_bytes = plan.probes.size() * l + plan.flush_bytes;
  // A further round: up to max_round_probes between the bounds, two at a
  // wrap's period, and the flush again (the same places: kept once).
  const std::uint64_t rounds_after = o.max_rounds - 1;
  const std::uint64_t further = rounds_after * (std::uint64_t{o.max_round_probes} + 2) * l;
  plan.max_write_bytes = plan.first_round_write_bytes + further + rounds_after * plan.flush_bytes;
  plan.max_keep_bytes = plan.first_round_write_bytes + further;
  return plan;
}

}  // namespace zcav
