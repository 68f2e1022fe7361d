// Device: what the sweep reads through. The sweep cannot tell a disk, a file
// and a simulated device apart.
//
// Implementations: PosixDevice (posix_device.h: block devices and regular
// files, O_DIRECT) and SimulatedDevice (sim_device.h: `sim:NAME` models on a
// VirtualClock). OpenDevice() picks one from a user-given name.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/device/device_info.h"

namespace zcav {

class Clock;
class Device;
class SimBusSet;
class VirtualClock;

// Reads kept in flight together: the sweep's way to keep a fast device busy.
// A queue owns depth() aligned buffers ("slots") of chunk_bytes each; a read
// goes into one slot, and at most one read per slot is in flight.
// Completions may come back in any order.
class ReadQueue {
 public:
  struct Completion {
    std::uint32_t slot = 0;
    std::error_code error;  // as Device::ReadAt: EIO, ENXIO (data ended), ...
  };

  ReadQueue() = default;
  ReadQueue(const ReadQueue&) = delete;
  ReadQueue& operator=(const ReadQueue&) = delete;
  virtual ~ReadQueue() = default;

  virtual std::uint32_t depth() const = 0;
  // How requests are issued: "io_uring", "pread", "pwrite" or "sim".
  virtual const char* engine() const = 0;
  // The slot's buffer (chunk_bytes long, aligned for O_DIRECT).
  virtual std::span<std::byte> Buffer(std::uint32_t slot) = 0;
  // Queues a read of length_bytes at offset_bytes into `slot`. It may start
  // only at the next Wait() (submissions are batched); never throws: a
  // failure to submit comes back as that slot's completion error.
  // REQUIRES: slot < depth() and not in flight; length_bytes <= chunk_bytes;
  //           offset and length as Device::ReadAt requires.
  virtual void Submit(std::uint32_t slot, std::uint64_t offset_bytes,
                      std::uint64_t length_bytes) noexcept = 0;
  // Starts what was queued and waits until at least one read has finished
  // (short reads and EINTR are continued inside); puts every finished read
  // (up to out.size()) into `out` and returns how many: reads seen finished
  // together cannot be told apart in time.
  // REQUIRES: at least one read in flight; out is not empty.
  virtual std::size_t Wait(std::span<Completion> out) noexcept = 0;
};

// A queue of depth 1 over `device`: Submit reads (or, with `write`, writes
// the slot's buffer) at once through ReadAt/WriteAt; Wait returns its
// result. Throws std::bad_alloc.
std::unique_ptr<ReadQueue> MakeSyncQueue(Device& device, std::uint64_t chunk_bytes, bool write);

class Device {
 public:
  Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  virtual ~Device() = default;

  virtual const DeviceInfo& info() const = 0;

  // Reads exactly buffer.size() bytes at offset_bytes into buffer (short reads
  // and EINTR are continued inside). Never throws: a failed read returns its
  // errno as std::system_category (EIO for a bad sector, ENXIO/ENODEV when the
  // device went away); data ending before the buffer is full (the device or
  // file shrank under us) returns ENXIO.
  // REQUIRES: offset_bytes and buffer.size() are multiples of info().sector_bytes;
  //           buffer.data() is aligned to info().sector_bytes (see aligned_buffer.h);
  //           offset_bytes + buffer.size() <= info().size_bytes.
  virtual std::error_code ReadAt(std::uint64_t offset_bytes,
                                 std::span<std::byte> buffer) noexcept = 0;

  // Writes exactly buffer.size() bytes of `buffer` at offset_bytes (short
  // writes and EINTR are continued inside): the write sweep's counterpart of
  // ReadAt, with the same contract (never throws; errno as
  // std::system_category: EIO, ENOSPC, ENODEV/ENXIO when the device went
  // away). Only devices opened with OpenDeviceForWrite() write; every other
  // device returns EROFS and writes nothing (this default).
  // REQUIRES: as ReadAt.
  virtual std::error_code WriteAt(std::uint64_t offset_bytes,
                                  std::span<const std::byte> buffer) noexcept {
    (void)offset_bytes;
    (void)buffer;
    return {EROFS, std::system_category()};
  }

  // Called before every pass. A device read without O_DIRECT drops its cached
  // pages here (posix_fadvise DONTNEED) so each pass reaches the device.
  virtual std::error_code PreparePass() noexcept { return {}; }

  // Called after a failed read: is the device still there, at its size?
  // Returns ENODEV when it went away (a block device no longer in sysfs, an
  // unplugged USB disk), ENXIO when it shrank (a truncated file), {} when it
  // is still there (the failure was the media's).
  virtual std::error_code CheckPresent() noexcept { return {}; }

  // The share (0..1) of info().page_cache_file's pages in the page cache
  // now: nullopt when the reads bypass the page cache (that name is "") or
  // the share cannot be read.
  virtual std::optional<double> CachedShare() noexcept { return std::nullopt; }

  // The drive's temperature, C, when the device object itself knows it (a
  // simulated drive); nullopt otherwise. Real drives' temperatures come from
  // hwmon or smartctl, outside the device (zcav/app_util.h).
  virtual std::optional<double> TemperatureC() noexcept { return std::nullopt; }

  // Discards (TRIMs) every block of the device before a write test, so that
  // an SSD starts from empty cells and an empty write cache (--discard).
  // Only a block device opened with OpenDeviceForWrite() discards (BLKDISCARD
  // over its whole size; a simulated SSD with a write cache empties it);
  // every other device returns EOPNOTSUPP and discards nothing (this
  // default). REQUIRES: the user's consent to destroy the data.
  virtual std::error_code DiscardAll() noexcept { return {EOPNOTSUPP, std::system_category()}; }

  // A queue of up to `depth` reads of up to chunk_bytes each, for the sweep.
  // This default reads one at a time through ReadAt (MakeSyncQueue: depth 1
  // whatever is asked); PosixDevice gives an io_uring queue when
  // info().read_engine is "io_uring".
  // Throws std::bad_alloc, or Error(kRuntime) when io_uring cannot be set up.
  // REQUIRES: depth >= 1; chunk_bytes a multiple of info().sector_bytes.
  virtual std::unique_ptr<ReadQueue> OpenReadQueue(std::uint32_t depth, std::uint64_t chunk_bytes) {
    (void)depth;
    return MakeSyncQueue(*this, chunk_bytes, false);
  }

  // The same for writes (the random-access write test): each Submit writes
  // the slot's buffer. This default writes one at a time through WriteAt
  // (MakeSyncQueue); PosixDevice, opened for writing with io_uring, keeps
  // `depth` writes in flight.
  // REQUIRES: as OpenReadQueue; a device opened with OpenDeviceForWrite().
  virtual std::unique_ptr<ReadQueue> OpenWriteQueue(std::uint32_t depth,
                                                    std::uint64_t chunk_bytes) {
    (void)depth;
    return MakeSyncQueue(*this, chunk_bytes, true);
  }
};

// Opens `name`: "sim:MODEL[?k=v&...]" gives a SimulatedDevice advancing
// `virtual_clock` (on the bus= it names from `buses`, when given: devices
// opened with one set share their buses); anything else is a path opened read-only with O_DIRECT
// (falling back to buffered reads with a note when O_DIRECT is refused).
// Throws Error(kBadInput) with a message a user can act on: no such file, a
// directory, an empty file, permission denied, unknown sim model.
std::unique_ptr<Device> OpenDevice(const std::string& name, VirtualClock& virtual_clock,
                                   SimBusSet* buses = nullptr);

// The file a write test creates on a mounted file system, zcav's own: either
// `bytes` long (--create-size), or `free_share` of the file system's free
// space (--fill; statvfs f_bavail, so never the blocks reserved for root).
// A fill is refused when it would leave less free than kFillReserveShare of
// the file system's size or kFillReserveBytes, whichever is smaller.
struct NewTestFile {
  std::uint64_t bytes = 0;  // used when free_share is 0
  double free_share = 0;    // (0, kMaxFillShare]
};
inline constexpr double kMaxFillShare = 0.95;
inline constexpr double kFillReserveShare = 0.10;
inline constexpr std::uint64_t kFillReserveBytes = 256ULL << 20;  // 256 MiB

// Opens `name` for a write sweep, which destroys its data, after the checks
// of write_safety.h: "sim:MODEL..." (nothing real is written), a block device
// nothing else uses (others having it open: refused unless `allow_in_use`),
// or, with `new_file`, a new file zcav creates and unlinks at once. Throws
// Error(kBadInput) with one line naming the reason (nothing written then),
// Error(kRuntime) when the system fails during a correct open.
// REQUIRES: the caller has the user's consent to destroy the data.
// Specification: docs/devices.md#opening-a-device-for-a-write-test
std::unique_ptr<Device> OpenDeviceForWrite(const std::string& name,
                                           std::optional<NewTestFile> new_file,
                                           VirtualClock& virtual_clock, bool allow_in_use = false);

// True when `name` names a simulated device ("sim:...").
bool IsSimulatedName(const std::string& name);

}  // namespace zcav
