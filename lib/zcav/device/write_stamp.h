// The data zcav writes (a write sweep, the random-access write test, the
// write-cache probe): every 512-byte sector stamped with the run and its own
// place, so that no two sectors of a run are alike (a deduplicating
// controller has to store each one), no page compresses (the rest of each
// sector is pseudo-random), and a read-back tells a sector written here by
// this run from one written elsewhere (a device that wraps around) or lost.
// Layout of a sector: docs/write-data.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace zcav {

inline constexpr std::size_t kStampSectorBytes = 512;
// The first bytes of every sector, for a person who looks at the device.
inline constexpr char kWritePatternTag[] = "zcav write test: data destroyed\n";

// What a buffer was last stamped for, so that a restamp for another offset
// rewrites only each sector's offset (8 bytes of 512).
struct StampMemo {
  std::size_t bytes = 0;     // how much of the buffer holds whole stamps
  std::uint64_t run_id = 0;  // their run; 0: none yet
};

// Makes `buffer` the data of run `run_id` written at offset_bytes, which is
// a multiple of 512 (a last sector shorter than 512 gets the start of its
// stamp). Only the offsets are rewritten when `memo` says the buffer holds
// this run's stamps; `memo` is updated.
void StampWrite(std::span<std::byte> buffer, std::uint64_t offset_bytes, std::uint64_t run_id,
                StampMemo& memo);
// The same for a buffer stamped once (every byte written).
void StampWrite(std::span<std::byte> buffer, std::uint64_t offset_bytes, std::uint64_t run_id);

// A run id: random (std::random_device), never 0.
std::uint64_t NewStampRunId();

// What a sector read back holds, against what run `run_id` wrote there.
enum class SectorState {
  kGood,     // this run's data for this offset
  kMoved,    // this run's data for another offset (source_bytes): the device wraps or remaps
  kStale,    // zcav data of another run (a write that never reached the media)
  kBlank,    // every byte the same (0x00 or 0xff: erased or never written)
  kGarbage,  // anything else, a damaged stamp included
};
struct SectorCheck {
  SectorState state = SectorState::kGarbage;
  std::uint64_t source_bytes = 0;  // kMoved, kStale: the offset the data was written for
};
// REQUIRES: sector.size() == kStampSectorBytes, offset_bytes a multiple of 512.
SectorCheck CheckSector(std::span<const std::byte> sector, std::uint64_t offset_bytes,
                        std::uint64_t run_id);

// What a sector's header names: the run and the offset it was written for.
struct StampHeader {
  std::uint64_t run_id = 0;
  std::uint64_t offset_bytes = 0;
};
// The header of a sector that starts with zcav's tag (its first 48 bytes;
// the body is not looked at: CheckSector judges a read-back), nullopt for
// anything else or a sector shorter than the header. For models of a device
// that keep where their data came from (sim_storage.h).
std::optional<StampHeader> ReadStampHeader(std::span<const std::byte> sector);

}  // namespace zcav
