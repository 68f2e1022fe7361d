// WriteUndoLog: what a non-destructive write test (zcav verify --quick
// --keep-data) keeps of the places it writes, to put the data back after.
//
// Before each write the caller saves the range it will write; the log reads
// and keeps, in memory, the parts of it no earlier save covered (the first
// write to a place is the one whose before-image matters). Restore() writes
// the kept ranges back, the last saved first.
//
// Why the reverse order is right, also on a fake that wraps (two logical
// places on one physical place P): the last write that reaches P is the
// undo of the earliest saved range that maps to P, and nothing had touched
// P before that range was saved (an earlier write to any place mapping to P
// would have been saved earlier), so what it writes back is P's original
// data. Writing back in the order saved would leave the data of a later
// write there instead. This holds for any fixed mapping of logical to
// physical places and whatever the device caches, as long as a place holds
// what was written to it last. A crash (power loss, kill -9) before
// Restore() loses what was kept: the data of the places written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/device/device.h"

namespace zcav {

class WriteUndoLog {
 public:
  struct Saved {
    std::uint64_t offset_bytes = 0;
    std::vector<std::byte> data;  // what the place held before the first write
  };
  struct RestoreReport {
    std::uint64_t restored_bytes = 0;
    std::vector<std::string> failures;  // one line per range not written back
  };

  // Keeps at most `limit_bytes` in memory.
  explicit WriteUndoLog(std::uint64_t limit_bytes) : limit_bytes_(limit_bytes) {}
  WriteUndoLog(const WriteUndoLog&) = delete;
  WriteUndoLog& operator=(const WriteUndoLog&) = delete;

  // Reads and keeps what [offset_bytes, offset_bytes + bytes) of `device`
  // holds now, for the parts not saved before. Returns the read's error, or
  // std::errc::not_enough_memory past the limit: then the caller must not
  // write the range (parts kept before the failure are harmless: writing
  // back data a place already holds). Throws std::bad_alloc.
  // REQUIRES: offset and bytes multiples of the device's sector.
  std::error_code Save(Device& device, std::uint64_t offset_bytes, std::uint64_t bytes);

  // Writes every kept range back, the last saved first; a failed write is
  // reported and the others still written; a device gone ends it. The log
  // is emptied. Never throws but std::bad_alloc.
  RestoreReport Restore(Device& device);

  std::uint64_t saved_bytes() const { return saved_bytes_; }
  // What is kept, in the order saved (for tests and reports).
  const std::vector<Saved>& saved() const { return saved_; }

 private:
  const std::uint64_t limit_bytes_;
  std::uint64_t saved_bytes_ = 0;
  std::vector<Saved> saved_;
  std::map<std::uint64_t, std::uint64_t> covered_;  // start -> end of what is saved; disjoint
};

}  // namespace zcav
