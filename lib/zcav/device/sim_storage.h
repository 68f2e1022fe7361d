// SimStorage: what a simulated device (sim_device.h) keeps of the data
// written to it, so that a read-back gives it again, and the fakes a flash
// device may play on it (sim: keys real=, fake=, lose=, dedup=): a stick that
// claims more than it holds and wraps around or drops what lies beyond, a
// range that loses its data, a controller that stores a page it has seen
// before for free.
//
// The model is compact: an interval map of physical byte ranges to what they
// hold, zcav's stamps (write_stamp.h: the run and the offset the data was
// stamped for, continuing sector after sector) or foreign data (anything
// else, given back as garbage, the same bytes for the same place every
// time; sectors of zeros read back as zeros, as if never written). A write
// of stamps that continue the range before it extends that range, so a
// device written in order holds one entry per run, whatever its size. A read
// synthesizes the data: the stamps again (StampWrite, whole), zeros where
// nothing was written (a new or trimmed flash device reads 0x00), zeros or
// garbage where a range was lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace zcav {

// The fakes of a simulated device; the default is a genuine device.
struct SimFakes {
  enum class Beyond {
    kWrap,  // physical = logical mod real_bytes: a write beyond overwrites the start
    kDrop,  // writes at or beyond real_bytes are accepted and discarded; reads there give zeros
  };
  struct Lost {
    std::uint64_t start_bytes = 0;  // physical, [start, end)
    std::uint64_t end_bytes = 0;
    bool garbage = false;  // reads give garbage there; false: zeros
  };
  std::uint64_t real_bytes = 0;  // the real capacity; 0: all of the device is real
  std::optional<Beyond> beyond;  // fake=; none given: kWrap
  std::vector<Lost> lost;        // data written there is lost
  bool dedup = false;            // a page seen before is stored for free (SimStorage::NewBytes)
};

// Applies one of the fake keys (real, fake, lose, dedup; the file comment
// of sim_device.h) to `fakes`; false when `key` is none of them. Throws
// Error(kBadInput) for a bad value.
bool ApplySimFakeKey(SimFakes& fakes, const std::string& key, const std::string& value);
// Checks the fake keys against the device's size once all are applied
// (real at most size, fake= only with real=, lost ranges within the device);
// throws Error(kBadInput).
void CheckSimFakes(const SimFakes& fakes, std::uint64_t size_bytes);

class SimStorage {
 public:
  explicit SimStorage(SimFakes fakes) : fakes_(std::move(fakes)) {}
  SimStorage(const SimStorage&) = delete;
  SimStorage& operator=(const SimStorage&) = delete;

  // Keeps what `data`, written at logical offset_bytes, leaves on the media
  // (through the fakes). REQUIRES: the range lies within the device.
  void Write(std::uint64_t offset_bytes, std::span<const std::byte> data);
  // Fills `buffer` with what a read at logical offset_bytes gives. Leaves it
  // untouched when nothing was ever written (a read then costs nothing).
  void Read(std::uint64_t offset_bytes, std::span<std::byte> buffer) const;
  // Forgets every byte written (a TRIM of the whole device): reads give zeros.
  void Clear();
  // dedup: the bytes of `data`'s 4 KiB pages (the last one may be shorter)
  // that are not equal to a page written before (a 64-bit hash of each; the
  // first 2^20 distinct pages, 4 GiB, are remembered), remembering them; the
  // whole size without dedup. What a deduplicating controller has to store.
  std::uint64_t NewBytes(std::span<const std::byte> data);

  bool ever_written() const { return ever_written_; }
  // How many ranges the map holds (a measure of its compactness).
  std::size_t extent_count() const { return extents_.size(); }

 private:
  enum class Kind : std::uint8_t { kStamped, kGarbage };
  struct Extent {
    std::uint64_t end = 0;  // physical, exclusive; the key is the start
    Kind kind = Kind::kGarbage;
    std::uint64_t run_id = 0;
    std::uint64_t source_bytes = 0;  // kStamped: the offset stamped at the start
  };

  // Whether b, starting at b_start, continues a (starting at a_start): the
  // same kind, and for stamps the same run and the offsets following on.
  static bool Continues(std::uint64_t a_start, const Extent& a, std::uint64_t b_start,
                        const Extent& b);
  // Records `data` at physical offset `at`, parsed into stamped and foreign ranges.
  void Record(std::uint64_t at, std::span<const std::byte> data);
  // Makes [start, end) hold `e` (e.end == end), merging with neighbours it continues.
  void Assign(std::uint64_t start, Extent e);
  // Makes [start, end) never written.
  void Erase(std::uint64_t start, std::uint64_t end);
  // Applies the lost ranges to a physical range just written.
  void Lose(std::uint64_t start, std::uint64_t end);
  // Fills `buffer` with what physical offset `at` holds.
  void ReadPhysical(std::uint64_t at, std::span<std::byte> buffer) const;

  SimFakes fakes_;
  std::map<std::uint64_t, Extent> extents_;  // by physical start; disjoint
  bool ever_written_ = false;
  std::unordered_set<std::uint64_t> pages_;  // dedup: hashes of the pages written
};

}  // namespace zcav
