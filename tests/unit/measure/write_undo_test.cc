// WriteUndoLog (write_undo.h): what a non-destructive write test keeps and
// writes back; each place kept once; the reverse order that a fake that
// wraps needs (shown against the order saved, which gets it wrong).
#include "zcav/measure/write_undo.h"

#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/clock.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"
#include "zcav/device/write_stamp.h"

namespace zcav {
namespace {

constexpr std::uint64_t kOriginal = 0x4f524947;  // "ORIG"
constexpr std::uint64_t kProbe = 0x50524f42;     // "PROB"

struct Sim {
  explicit Sim(const std::string& spec) : dev(MakeSimulatedDevice(ParseSimSpec(spec), clock)) {}
  VirtualClock clock;
  std::unique_ptr<Device> dev;
};

void Stamp(Device& dev, std::uint64_t at, std::uint64_t bytes, std::uint64_t run) {
  AlignedBuffer b(bytes, 4096);
  StampWrite(b.span(bytes), at, run);
  REQUIRE(!dev.WriteAt(at, b.span(bytes)));
}

// What the first sector read at `at` holds, against run `run`.
SectorCheck ReadBack(Device& dev, std::uint64_t at, std::uint64_t run) {
  AlignedBuffer b(4096, 4096);
  REQUIRE(!dev.ReadAt(at, b.span(4096)));
  return CheckSector(b.span(512), at, run);
}

// The test's writes on a fake that wraps at 1 MiB: the original data at 0,
// then a probe at 0 and a probe at 1 MiB (the same physical place), each
// saved first in `log`.
void ProbeTwice(Device& dev, WriteUndoLog& log) {
  REQUIRE(!log.Save(dev, 0, 4096));
  Stamp(dev, 0, 4096, kProbe);
  REQUIRE(!log.Save(dev, kMiB, 4096));  // holds the probe written at 0
  Stamp(dev, kMiB, 4096, kProbe);
}

}  // namespace

TEST_CASE("WriteUndoLog writes back, last saved first, what a wrap overwrote twice",
          "[write_undo]") {
  Sim sim("sim:ssd?noise=0&size=8M&real=1M");
  Stamp(*sim.dev, 0, 4096, kOriginal);
  WriteUndoLog log(kMiB);
  ProbeTwice(*sim.dev, log);
  REQUIRE(log.saved().size() == 2);
  CHECK(log.saved_bytes() == 8192);
  const WriteUndoLog::RestoreReport r = log.Restore(*sim.dev);
  CHECK(r.failures.empty());
  CHECK(r.restored_bytes == 8192);
  CHECK(ReadBack(*sim.dev, 0, kOriginal).state == SectorState::kGood);
  CHECK(log.saved_bytes() == 0);

  // The order saved would leave the first probe's data there instead.
  Sim other("sim:ssd?noise=0&size=8M&real=1M");
  Stamp(*other.dev, 0, 4096, kOriginal);
  WriteUndoLog forward(kMiB);
  ProbeTwice(*other.dev, forward);
  for (const WriteUndoLog::Saved& s : forward.saved()) {
    AlignedBuffer b(s.data.size(), 4096);
    std::memcpy(b.span(s.data.size()).data(), s.data.data(), s.data.size());
    REQUIRE(!other.dev->WriteAt(s.offset_bytes, b.span(s.data.size())));
  }
  const SectorCheck wrong = ReadBack(*other.dev, 0, kProbe);
  CHECK(wrong.state == SectorState::kGood);  // the probe written at 0, not the original
}

TEST_CASE("WriteUndoLog keeps each place once and refuses past its limit", "[write_undo]") {
  Sim sim("sim:ssd?noise=0&size=8M");
  WriteUndoLog log(64 * kKiB);
  REQUIRE(!log.Save(*sim.dev, 0, 16 * kKiB));
  REQUIRE(!log.Save(*sim.dev, 8 * kKiB, 16 * kKiB));  // only [16, 24) KiB is new
  CHECK(log.saved_bytes() == 24 * kKiB);
  REQUIRE(log.saved().size() == 2);
  CHECK(log.saved()[1].offset_bytes == 16 * kKiB);
  CHECK(log.saved()[1].data.size() == 8 * kKiB);
  REQUIRE(!log.Save(*sim.dev, 4 * kKiB, 8 * kKiB));  // nothing new
  CHECK(log.saved().size() == 2);
  CHECK(log.Save(*sim.dev, kMiB, 64 * kKiB) == std::errc::not_enough_memory);
  CHECK(log.saved_bytes() == 24 * kKiB);
}

}  // namespace zcav
