#include "zcav/device/posix/posix_device.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"
#include "zcav/device/posix/page_cache.h"
#include "zcav/device/posix/read_throttle.h"
#include "zcav/device/posix/signature_probe.h"
#include "zcav/device/posix/sysfs_info.h"
#include "zcav/device/posix/uring_queue.h"
#include "zcav/device/posix/write_safety.h"
#include "zcav/device/write_stamp.h"

namespace zcav {
namespace {

// Sector size used for a regular file read with O_DIRECT when the file system
// does not report its direct-I/O alignment (statx STATX_DIOALIGN, Linux 6.1+):
// the page size satisfies every file system we know of.
constexpr std::uint32_t kFallbackFileDirectSector = 4096;
// Buffered reads need no alignment; 512 keeps block sizes free.
constexpr std::uint32_t kBufferedSector = 512;

std::string ErrnoText(int err) { return std::generic_category().message(err); }

// An owned file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }

 private:
  void Reset() {
    // close() is not retried on EINTR: on Linux the descriptor is released
    // either way, and a retry could close a descriptor another thread opened.
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd_ = -1;
};

// open(2), continued across EINTR (possible when opening slow devices).
int OpenRetrying(const std::string& path, int flags) {
  int fd;
  do {
    fd = ::open(path.c_str(), flags);
  } while (fd < 0 && errno == EINTR);
  return fd;
}

// Moves `size_bytes` in as many calls of `transfer(done_bytes)` as it takes
// (each one pread(2) or pwrite(2) of the rest, from `done_bytes` on,
// returning what the call returned): continues after EINTR and short
// transfers; the error `at_end` (an errno value) when a call moves nothing.
template <typename Transfer>
std::error_code TransferFully(std::size_t size_bytes, int at_end, Transfer transfer) noexcept {
  std::size_t done = 0;
  while (done < size_bytes) {
    const ssize_t n = transfer(done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return {errno, std::system_category()};
    }
    if (n == 0) return {at_end, std::system_category()};
    done += static_cast<std::size_t>(n);
  }
  return {};
}

// pread(2) of exactly buffer.size() bytes: continues after EINTR and short
// reads; ENXIO when the data ends first.
std::error_code PreadFully(int fd, std::uint64_t offset_bytes,
                           std::span<std::byte> buffer) noexcept {
  return TransferFully(buffer.size(), ENXIO, [&](std::size_t done) {
    return ::pread(fd, buffer.data() + done, buffer.size() - done,
                   static_cast<off_t>(offset_bytes + done));
  });
}

// pwrite(2) of exactly buffer.size() bytes: continues after EINTR and short
// writes; ENOSPC when the device takes nothing more.
std::error_code PwriteFully(int fd, std::uint64_t offset_bytes,
                            std::span<const std::byte> buffer) noexcept {
  return TransferFully(buffer.size(), ENOSPC, [&](std::size_t done) {
    return ::pwrite(fd, buffer.data() + done, buffer.size() - done,
                    static_cast<off_t>(offset_bytes + done));
  });
}

std::string OpenFailureMessage(const std::string& path, int err, bool is_block_device) {
  std::string message = "open " + path + ": " + ErrnoText(err);
  if ((err == EACCES || err == EPERM) && ::geteuid() == 0) {
    message += " (denied even to root: a security module or the devices cgroup blocks it)";
  } else if (err == EACCES || err == EPERM) {
    message += is_block_device ? " (run as root or join the 'disk' group)"
                               : " (run as root or make the file readable)";
  } else if (err == ENOMEDIUM) {
    message += " (insert a disc or medium)";
  }
  return message;
}

// What the path is, for the rejection message; "" for what we accept.
std::string RejectedKind(mode_t mode) {
  if (S_ISREG(mode) || S_ISBLK(mode)) return "";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Direct-I/O offset alignment the file system reports for `fd`, 0 if unknown.
std::uint32_t FileDirectIoAlignment([[maybe_unused]] int fd) {
#ifdef STATX_DIOALIGN
  struct statx stx {};
  if (::statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
      (stx.stx_mask & STATX_DIOALIGN) != 0 && stx.stx_dio_offset_align != 0) {
    return std::max({kBufferedSector, stx.stx_dio_offset_align, stx.stx_dio_mem_align});
  }
#endif
  return 0;
}

class PosixDevice final : public Device {
 public:
  // `cached`: the file whose pages the reads pass through (a loop device's
  // backing file), when not `fd` itself; info.page_cache_file names it.
  PosixDevice(Fd fd, DeviceInfo info, bool writable = false, bool read_throttled = false,
              Fd cached = Fd())
      : fd_(std::move(fd)),
        cached_(std::move(cached)),
        info_(std::move(info)),
        writable_(writable),
        // Writes go through io_uring when this kernel allows it (asked once).
        write_uring_(writable && ProbeUring().empty()),
        read_throttled_(read_throttled) {}

  const DeviceInfo& info() const override { return info_; }

  std::error_code WriteAt(std::uint64_t offset_bytes,
                          std::span<const std::byte> buffer) noexcept override {
    if (!writable_) return {EROFS, std::system_category()};
    return PwriteFully(fd_.get(), offset_bytes, buffer);
  }

  std::error_code ReadAt(std::uint64_t offset_bytes,
                         std::span<std::byte> buffer) noexcept override {
    return PreadFully(fd_.get(), offset_bytes, buffer);
  }

  // BLKDISCARD over the whole block device, only when opened for writing
  // (after write_safety.h's checks, held O_EXCL). A file zcav created is new
  // and preallocated: nothing to discard there.
  std::error_code DiscardAll() noexcept override {
    struct stat st {};
    if (!writable_ || ::fstat(fd_.get(), &st) != 0 || !S_ISBLK(st.st_mode)) {
      return {EOPNOTSUPP, std::system_category()};
    }
    std::uint64_t range[2] = {0, info_.size_bytes};
    if (::ioctl(fd_.get(), BLKDISCARD, &range) != 0) return {errno, std::system_category()};
    return {};
  }

  // Gone: fstat fails (an unmounted FUSE file system, a stale handle), the
  // block device left sysfs (an unplugged USB disk) or reports no size.
  // Shrunk: the file or device is now smaller than when it was opened.
  std::error_code CheckPresent() noexcept override {
    const std::error_code gone(ENODEV, std::system_category());
    const std::error_code shrunk(ENXIO, std::system_category());
    struct stat st {};
    if (::fstat(fd_.get(), &st) != 0) return gone;
    if (S_ISREG(st.st_mode)) {
      return static_cast<std::uint64_t>(st.st_size) < info_.size_bytes ? shrunk : std::error_code();
    }
    if (S_ISBLK(st.st_mode)) {
      char sys[64];
      std::snprintf(sys, sizeof sys, "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
      struct stat sys_st {};
      if (::stat(sys, &sys_st) != 0) return gone;
      std::uint64_t size = 0;
      if (::ioctl(fd_.get(), BLKGETSIZE64, &size) != 0) return gone;
      if (size < info_.size_bytes) return size == 0 ? gone : shrunk;
    }
    return {};
  }

  std::unique_ptr<ReadQueue> OpenReadQueue(std::uint32_t depth,
                                           std::uint64_t chunk_bytes) override {
    if (info_.read_engine != "io_uring") return MakeSyncQueue(*this, chunk_bytes, false);
    return OpenUringQueue(fd_.get(), depth, chunk_bytes, DirectIoAlignment(info_.sector_bytes),
                          read_throttled_);
  }

  std::unique_ptr<ReadQueue> OpenWriteQueue(std::uint32_t depth,
                                            std::uint64_t chunk_bytes) override {
    // Writes go through io_uring when this kernel allows it (write_uring_),
    // whatever read engine was chosen.
    if (!write_uring_) return MakeSyncQueue(*this, chunk_bytes, true);
    return OpenUringQueue(fd_.get(), depth, chunk_bytes, DirectIoAlignment(info_.sector_bytes),
                          false, true);
  }

  std::optional<double> CachedShare() noexcept override {
    if (info_.page_cache_file.empty()) return std::nullopt;
    return zcav::CachedShare(cached_.valid() ? cached_.get() : fd_.get());
  }

  std::error_code PreparePass() noexcept override {
    if (info_.direct_io) return {};
    // Buffered reads: drop this file's clean cached pages so the pass reads
    // the device, not RAM. posix_fadvise returns the error instead of setting errno.
    const int err = ::posix_fadvise(fd_.get(), 0, 0, POSIX_FADV_DONTNEED);
    if (err != 0) return {err, std::system_category()};
    return {};
  }

 private:
  Fd fd_;
  Fd cached_;  // the loop device's backing file, read through the page cache
  DeviceInfo info_;
  bool writable_;        // opened by OpenPosixDeviceForWrite
  bool write_uring_;     // writable, and io_uring is available for writes
  bool read_throttled_;  // a cgroup read throttle applies: IOSQE_ASYNC
};

// A block device's size (BLKGETSIZE64) and logical sector (BLKSSZGET; left
// as is when not a power of two >= 512). Throws Error(kRuntime) without a size.
void ReadBlockGeometry(int fd, const std::string& path, std::uint64_t& size_bytes,
                       std::uint32_t& sector_bytes) {
  if (::ioctl(fd, BLKGETSIZE64, &size_bytes) != 0) {
    throw Error("cannot read the size of " + path + " (BLKGETSIZE64): " + ErrnoText(errno),
                ErrorKind::kRuntime);
  }
  int logical_sector = 0;
  if (::ioctl(fd, BLKSSZGET, &logical_sector) == 0 && logical_sector >= 512 &&
      std::has_single_bit(static_cast<unsigned>(logical_sector))) {
    sector_bytes = static_cast<std::uint32_t>(logical_sector);
  }
}

// Sets info.sector_bytes, and info.size_bytes to `size_bytes` rounded down
// to whole sectors; a tail cut off so (< one sector) gets a note that its
// bytes are not `done` ("read", "written"). REQUIRES: sector_bytes > 0.
void SetWholeSectors(std::uint64_t size_bytes, std::uint32_t sector_bytes, const char* done,
                     DeviceInfo& info) {
  const std::uint64_t rounded = size_bytes / sector_bytes * sector_bytes;
  if (rounded != size_bytes) {
    info.notes.push_back("size " + std::to_string(size_bytes) + " bytes is not a multiple of the " +
                         std::to_string(sector_bytes) + "-byte sector: the last " +
                         std::to_string(size_bytes - rounded) + " bytes are not " + done);
  }
  info.size_bytes = rounded;
  info.sector_bytes = sector_bytes;
}

// The default read shape: that of the block device's own class; for a file,
// and for a loop device over one, that of the disk under the file's file
// system (major 0, as FUSE, tmpfs or NFS: the unknown class; a file on tmpfs
// is read from RAM, where few reads in flight do best). A loop device's
// requests stay no larger than its own maximum.
ReadShape ShapeFor(const struct stat& st, DeviceInfo& info) {
  dev_t under_dev = st.st_dev;  // a file's file system
  std::string under_path = info.path;
  if (S_ISBLK(st.st_mode)) {
    struct stat backing {};
    if (info.transport != "loop" || info.backing_file.empty() ||
        ::stat(info.backing_file.c_str(), &backing) != 0 || !S_ISREG(backing.st_mode)) {
      return DefaultReadShape(major(st.st_rdev), info);
    }
    under_dev = backing.st_dev;
    under_path = info.backing_file;
  }
  DeviceInfo under;
  if (major(under_dev) != 0) FillSysfsInfo(major(under_dev), minor(under_dev), under);
  // What the reads finally reach (device.h: KnownNotToRotate).
  struct statfs fs {};
  if (major(under_dev) == 0 && ::statfs(under_path.c_str(), &fs) == 0 &&
      (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC)) {
    info.storage_transport = "ram";
  } else {
    info.storage_transport = under.transport;
    info.storage_rotational = under.rotational;
  }
  if (S_ISBLK(st.st_mode) && info.max_request_bytes != 0 &&
      (under.max_request_bytes == 0 || info.max_request_bytes < under.max_request_bytes)) {
    under.max_request_bytes = info.max_request_bytes;
  }
  return DefaultReadShape(major(under_dev), under);
}

// How reads will be issued: io_uring when this kernel allows it (else pread,
// with a note why), and the default depth and chunk (ShapeFor).
// Returns true when a cgroup read throttle applies (reads then go with
// IOSQE_ASYNC, read_throttle.h).
bool ChooseReadEngine(const struct stat& st, DeviceInfo& info) {
  if (const std::string why = ProbeUring(); !why.empty()) {
    info.read_engine = "pread";
    info.default_queue_depth = 1;
    info.notes.push_back("io_uring unavailable (" + why +
                         "): reading with pread, one request at a time");
    return false;
  }
  info.read_engine = "io_uring";
  // The device the reads reach: the block device itself, or the disk under
  // a file's file system (major 0: FUSE, tmpfs, NFS...: none).
  const dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  const ReadShape shape = ShapeFor(st, info);
  info.default_queue_depth = shape.queue_depth;
  info.default_chunk_bytes = shape.chunk_bytes;
  if (major(dev) == 0) return false;
  // blk-throttle rules name the whole disk; a partition's reads count there.
  unsigned disk_major = major(dev), disk_minor = minor(dev);
  const std::string sys =
      "/sys/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  if (std::ifstream(sys + "/partition")) {
    std::ifstream parent(sys + "/../dev");
    char colon = 0;
    parent >> disk_major >> colon >> disk_minor;
  }
  std::string throttle = FindReadThrottle(major(dev), minor(dev));
  if (throttle.empty() && (disk_major != major(dev) || disk_minor != minor(dev))) {
    throttle = FindReadThrottle(disk_major, disk_minor);
  }
  if (throttle.empty()) return false;
  info.notes.push_back("a cgroup read throttle applies (" + throttle +
                       "): io_uring reads are queued with IOSQE_ASYNC (the kernel charges a "
                       "throttled non-blocking first attempt twice, halving the rate)");
  return true;
}

std::string BufferedNote() {
  return "O_DIRECT refused by this file system: reading buffered, page cache dropped before "
         "each pass (posix_fadvise DONTNEED); results may still include cache effects; use a "
         "block device or a file system that supports O_DIRECT";
}

}  // namespace

std::unique_ptr<Device> OpenPosixDevice(const std::string& path) {
  // stat() before open(): opening a FIFO would block until a writer appears,
  // and a directory deserves a clearer message than EISDIR/EINVAL.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw Error(OpenFailureMessage(path, errno, false), ErrorKind::kBadInput);
  }
  if (const std::string kind = RejectedKind(st.st_mode); !kind.empty()) {
    throw Error(path + " is " + kind + ", not a device or file", ErrorKind::kBadInput);
  }
  const bool is_block = S_ISBLK(st.st_mode);

  DeviceInfo info;
  info.path = path;
  info.kind = is_block ? "block" : "file";
  info.direct_io = true;

  Fd fd(OpenRetrying(path, O_RDONLY | O_DIRECT | O_CLOEXEC));
  if (!fd.valid() && errno == EINVAL) {
    info.direct_io = false;  // tmpfs (before Linux 6.6), some FUSE file systems
    fd = Fd(OpenRetrying(path, O_RDONLY | O_CLOEXEC));
  }
  if (!fd.valid()) throw Error(OpenFailureMessage(path, errno, is_block), ErrorKind::kBadInput);

  // The path may have changed between stat() and open(): trust the descriptor.
  if (::fstat(fd.get(), &st) != 0) {
    throw Error("stat " + path + ": " + ErrnoText(errno), ErrorKind::kRuntime);
  }
  if (const std::string kind = RejectedKind(st.st_mode); !kind.empty()) {
    throw Error(path + " is " + kind + ", not a device or file", ErrorKind::kBadInput);
  }

  std::uint64_t size_bytes = 0;
  std::uint32_t sector_bytes = kBufferedSector;
  if (S_ISBLK(st.st_mode)) {
    ReadBlockGeometry(fd.get(), path, size_bytes, sector_bytes);
    FillSysfsInfo(major(st.st_rdev), minor(st.st_rdev), info);
  } else {
    size_bytes = static_cast<std::uint64_t>(st.st_size);
    info.transport = "file";
    if (info.direct_io) {
      const std::uint32_t alignment = FileDirectIoAlignment(fd.get());
      sector_bytes = alignment != 0 ? alignment : kFallbackFileDirectSector;
    }
  }

  if (size_bytes == 0) {
    throw Error(
        path + " is empty (0 bytes)" + (is_block ? ": no medium, or an unbound loop device" : ""),
        ErrorKind::kBadInput);
  }

  // Some file systems accept O_DIRECT at open() and refuse it at the first
  // read (EINVAL): probe one sector now, while falling back is still cheap.
  if (info.direct_io && size_bytes >= sector_bytes) {
    AlignedBuffer probe(sector_bytes, sector_bytes);
    const std::error_code ec = PreadFully(fd.get(), 0, probe.span(sector_bytes));
    if (ec == std::error_code(EINVAL, std::system_category())) {
      Fd buffered(OpenRetrying(path, O_RDONLY | O_CLOEXEC));
      if (!buffered.valid()) {
        throw Error(OpenFailureMessage(path, errno, is_block), ErrorKind::kBadInput);
      }
      fd = std::move(buffered);
      info.direct_io = false;
    }
    // Other errors (EIO on the first sector) are left to the sweep: a bad
    // sector is data, reported with its offset.
  }
  if (!info.direct_io) {
    info.notes.push_back(BufferedNote());
    if (!is_block) sector_bytes = kBufferedSector;
  }

  // The readable size is a whole number of sectors. For a regular file the
  // tail (< one sector) is skipped rather than read with a short O_DIRECT
  // read: the sweep reads whole sectors only, and a few bytes cannot change a
  // throughput curve.
  SetWholeSectors(size_bytes, sector_bytes, "read", info);
  if (info.size_bytes == 0) {
    throw Error(path + " is too small to profile: " + std::to_string(size_bytes) +
                    " bytes, less than one " + std::to_string(sector_bytes) + "-byte sector",
                ErrorKind::kBadInput);
  }
  const bool throttled = ChooseReadEngine(st, info);
  // What the reads pass through in the page cache: the device itself read
  // buffered, or a loop device's backing file when the loop reads it
  // buffered (its page cache then serves our O_DIRECT reads).
  Fd cached;
  if (!info.direct_io) {
    info.page_cache_file = path;
  } else if (info.transport == "loop" && !info.backing_file.empty()) {
    cached = Fd(OpenCachedBackingFile(fd.get(), info.backing_file.c_str()));
    if (cached.valid()) info.page_cache_file = info.backing_file;
  }
  return std::make_unique<PosixDevice>(std::move(fd), std::move(info), false, throttled,
                                       std::move(cached));
}

namespace {

// Reads in flight at most, as a read sweep's (measure/sweep.h kMaxQueueDepth).
constexpr std::uint64_t kMaxReadBackDepth = 256;

// A device opened for writing is read back (zcav verify) with the engine a
// read sweep would use and as many bytes in flight, in chunks of its own
// default (1 MiB: the write sweep's chunk and everything else stay the write
// path's). Returns ChooseReadEngine's.
bool ChooseReadBackEngine(const struct stat& st, DeviceInfo& info) {
  DeviceInfo read = info;
  const bool throttled = ChooseReadEngine(st, read);
  info.read_engine = read.read_engine;
  const std::uint64_t in_flight =
      std::uint64_t{read.default_queue_depth} * read.default_chunk_bytes;
  const std::uint64_t chunk = std::max<std::uint64_t>(info.default_chunk_bytes, 1);
  info.default_queue_depth = static_cast<std::uint32_t>(
      std::clamp<std::uint64_t>((in_flight + chunk - 1) / chunk, 1, kMaxReadBackDepth));
  return throttled;
}

// The file a write test creates: `path` itself, or a name of zcav's in it
// when it is a directory (--fill DIR).
std::string NewTestFilePath(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return path;
  return path + (path.ends_with('/') ? "" : "/") + "zcav-write-test." + std::to_string(::getpid());
}

// --fill: share x the free space (for users, not root's reserve), rounded
// down to `sector`; refused when it would leave too little free.
std::uint64_t FillBytes(int fd, const std::string& path, double share, std::uint32_t sector) {
  struct statvfs vfs {};
  if (::fstatvfs(fd, &vfs) != 0) {
    throw Error("statvfs " + path + ": " + ErrnoText(errno), ErrorKind::kRuntime);
  }
  const std::uint64_t free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  const std::uint64_t fs_bytes = static_cast<std::uint64_t>(vfs.f_blocks) * vfs.f_frsize;
  const std::uint64_t bytes = static_cast<std::uint64_t>(static_cast<double>(free_bytes) * share);
  const std::uint64_t size = bytes - bytes % sector;
  const std::uint64_t reserve = std::min<std::uint64_t>(
      kFillReserveBytes,
      static_cast<std::uint64_t>(static_cast<double>(fs_bytes) * kFillReserveShare));
  if (free_bytes - size < reserve) {
    throw Error("refusing to fill " + FormatFixed(share * 100, 0) +
                    " % of the free space of the file system of " + path + ": it would leave " +
                    FormatBytes(free_bytes - size) + " of " + FormatBytes(free_bytes) +
                    " free, under the " + FormatBytes(reserve) +
                    " zcav keeps free (choose a smaller --fill); nothing written",
                ErrorKind::kBadInput);
  }
  if (size == 0) {
    throw Error("nothing to fill on " + path + ": " + FormatBytes(free_bytes) + " free",
                ErrorKind::kBadInput);
  }
  return size;
}

// --create-size, --fill: a new file, zcav's own, so writing it destroys nothing.
std::unique_ptr<Device> CreateFileForWrite(const std::string& given, const NewTestFile& spec) {
  const std::string path = NewTestFilePath(given);
  const std::string flag = spec.free_share > 0 ? "--fill" : "--create-size";
  int raw;
  do {
    raw = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  } while (raw < 0 && errno == EINTR);
  if (raw < 0 && errno == EEXIST) {
    throw Error("refusing to write " + path + ": it exists (" + flag +
                    " writes only a new file "
                    "that zcav creates for the test: name one that does not exist)",
                ErrorKind::kBadInput);
  }
  if (raw < 0) throw Error(OpenFailureMessage(path, errno, false), ErrorKind::kBadInput);
  Fd fd(raw);
  // The file is zcav's from here on: unlink it at once so that it never
  // outlives the run (its blocks are freed when the descriptor closes), even
  // when zcav is killed.
  ::unlink(path.c_str());

  DeviceInfo info;
  info.path = path;
  info.kind = "file";
  info.transport = "file";
  info.direct_io = true;
  // A write test through the page cache measures RAM: O_DIRECT or nothing.
  const std::string no_direct = "refusing to write-test " + path +
                                ": its file system refuses O_DIRECT, so the writes would measure "
                                "the page cache (create the file on a file system that supports "
                                "O_DIRECT)";
  const int flags = ::fcntl(fd.get(), F_GETFL);
  if (flags < 0 || ::fcntl(fd.get(), F_SETFL, flags | O_DIRECT) != 0) {
    throw Error(no_direct, ErrorKind::kBadInput);
  }
  const std::uint32_t alignment = FileDirectIoAlignment(fd.get());
  const std::uint32_t sector = alignment != 0 ? alignment : kFallbackFileDirectSector;
  const std::uint64_t create_bytes =
      spec.free_share > 0 ? FillBytes(fd.get(), given, spec.free_share, sector) : spec.bytes;
  const std::uint64_t size_bytes = RoundUp(create_bytes, sector);
  if (spec.free_share > 0) {
    info.notes.push_back("--fill " + FormatFixed(spec.free_share * 100, 0) +
                         " %: " + FormatBytes(size_bytes) + " of the file system's free space");
  } else if (size_bytes != create_bytes) {
    info.notes.push_back("--create-size " + std::to_string(create_bytes) + " bytes rounded up to " +
                         std::to_string(size_bytes) + " (a multiple of the " +
                         std::to_string(sector) + "-byte direct-I/O alignment)");
  }
  // Preallocated, so that the sweep measures writing rather than block
  // allocation (where the file system can).
  int err = ::fallocate(fd.get(), 0, 0, static_cast<off_t>(size_bytes));
  if (err != 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) {
    err = ::ftruncate(fd.get(), static_cast<off_t>(size_bytes));
    info.notes.push_back("the file system cannot preallocate: the writes also allocate its blocks");
  }
  if (err != 0) {
    // No room for the size asked: the user's --create-size is too large here.
    // Any other failure is the file system's.
    const int e = errno;
    const bool too_large = e == ENOSPC || e == EFBIG;
    throw Error("cannot make " + path + " " + FormatBytes(size_bytes) + " long: " + ErrnoText(e) +
                    (too_large ? " (choose a smaller " + flag + ")" : ""),
                too_large ? ErrorKind::kBadInput : ErrorKind::kRuntime);
  }
  // Some file systems take the flag and fail the first I/O with EINVAL.
  AlignedBuffer probe(sector, sector);
  StampWrite(probe.span(sector), 0, NewStampRunId());
  if (const std::error_code ec = PwriteFully(fd.get(), 0, probe.span(sector))) {
    if (ec == std::error_code(EINVAL, std::system_category())) {
      throw Error(no_direct, ErrorKind::kBadInput);
    }
    throw Error("write " + path + ": " + ec.message(), ErrorKind::kRuntime);
  }
  info.size_bytes = size_bytes;
  info.sector_bytes = sector;
  info.notes.push_back(path + " was created by zcav for this write test (" +
                       FormatBytes(size_bytes) +
                       ") and unlinked at once: it is gone when zcav ends");
  struct stat created {};
  const bool throttled = ::fstat(fd.get(), &created) == 0 && ChooseReadBackEngine(created, info);
  return std::make_unique<PosixDevice>(std::move(fd), std::move(info), true, throttled);
}

// The device node `path` leads to, CleanText'ed; "" when it cannot be resolved.
std::string RealPath(const std::string& path) {
  std::string real;
  if (char* r = ::realpath(path.c_str(), nullptr)) {
    real = CleanText(r, kMaxNoteBytes);
    std::free(r);
  }
  return real;
}

// "PATH -> NODE" when `path` is a symlink to the node, else `path`.
std::string ResolvedName(const std::string& path) {
  const std::string real = RealPath(path);
  return real.empty() || real == path ? path : path + " -> " + real;
}

// What the write test of block device `id` (open on nothing yet that
// writes) would destroy and who else has it open: `path` resolved, the
// signatures libblkid finds (on a read-only descriptor of its own: the write
// descriptor is O_DIRECT, which libblkid's reads do not suit), the other
// processes that have it or a partition open.
WriteTarget InspectWriteTarget(const std::string& path, dev_t rdev, BlockId id) {
  WriteTarget target;
  target.resolved_path = RealPath(path);
  Fd probe_fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat pst {};
  if (!probe_fd.valid()) {
    target.signature_note = std::string("open read-only: ") + std::strerror(errno);
  } else if (::fstat(probe_fd.get(), &pst) != 0 || pst.st_rdev != rdev) {
    target.signature_note = "the node changed while it was being read";
  } else {
    target.signatures = ProbeSignatures(probe_fd.get(), target.signature_note);
  }
  std::vector<BlockNode> family = ReadBlockFamily(id);
  if (family.empty()) family.push_back({"", id, {}});
  OpenerScan scan = ScanOpeners(family);
  target.openers = std::move(scan.openers);
  target.unchecked_processes = scan.unchecked;
  return target;
}

// The refusal of a device other processes have open, naming the device as
// typed and resolved, which drive, its size, its signatures and the
// processes.
std::string InUseRefusal(const std::string& path, const DeviceInfo& info) {
  const WriteTarget& t = info.write_target;
  std::string text = "refusing to write " + WriteTargetName(path, t) + " (" +
                     WriteTargetIdentity(info) + "; " + SignaturesText(t) + "): open in " +
                     OpenersText(t.openers);
  if (t.unchecked_processes > 0) {
    text += " (and " + std::to_string(t.unchecked_processes) +
            " processes whose open files could not be read)";
  }
  return text +
         "; nothing written (end those programs first, or add --force-in-use to write anyway)";
}

}  // namespace

std::vector<DeviceOpener> PosixOpenersNow(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return {};
  const BlockId id{major(st.st_rdev), minor(st.st_rdev)};
  std::vector<BlockNode> family = ReadBlockFamily(id);
  if (family.empty()) family.push_back({"", id, {}});
  return ScanOpeners(family).openers;
}

std::unique_ptr<Device> OpenPosixDeviceForWrite(const std::string& path,
                                                std::optional<NewTestFile> new_file,
                                                bool allow_in_use) {
  if (new_file) return CreateFileForWrite(path, *new_file);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    throw Error(
        OpenFailureMessage(path, err, false) +
            (err == ENOENT ? " (to write-test a file system, give --create-size SIZE and a new "
                             "file name)"
                           : ""),
        ErrorKind::kBadInput);
  }
  if (S_ISREG(st.st_mode)) {
    throw Error("refusing to write " + path +
                    ": a regular file zcav did not create (to write-test "
                    "a file system, give --create-size SIZE and a new file name: zcav creates it)",
                ErrorKind::kBadInput);
  }
  if (!S_ISBLK(st.st_mode)) {
    throw Error(path + " is " + RejectedKind(st.st_mode) + ", not a block device",
                ErrorKind::kBadInput);
  }
  const BlockId id{major(st.st_rdev), minor(st.st_rdev)};
  // The refusals name the device as typed and, for a symlink such as
  // /dev/disk/by-id/..., the node it leads to.
  const std::string named = ResolvedName(path);
  if (const std::optional<std::string> refusal = WriteRefusal(GatherWriteFacts(named, id))) {
    throw Error(*refusal, ErrorKind::kBadInput);
  }
  // O_EXCL on a block device: an exclusive claim, refused (EBUSY) while
  // anyone else holds one (a mount, swap, device mapper, md, or a program
  // that opened it with O_EXCL). Held until zcav closes it, so nothing can
  // mount the device while it is being written.
  Fd fd(OpenRetrying(path, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC));
  if (!fd.valid()) {
    const int err = errno;
    if (err == EBUSY) {
      const std::vector<std::string> users = ProcessesUsing(id);
      throw Error("refusing to write " + named + ": held open exclusively by " +
                      (users.empty() ? std::string("the kernel or another program")
                                     : "another program (open in " + Join(users) + ")") +
                      "; nothing written",
                  ErrorKind::kBadInput);
    }
    throw Error(OpenFailureMessage(path, err, true) +
                    (err == EROFS ? " (the device is read-only or write-protected)" : ""),
                ErrorKind::kBadInput);
  }
  // The node may have been replaced between stat() and open(): trust the descriptor.
  struct stat fst {};
  if (::fstat(fd.get(), &fst) != 0 || !S_ISBLK(fst.st_mode) || fst.st_rdev != st.st_rdev) {
    throw Error(path + " changed while it was being opened; nothing written", ErrorKind::kRuntime);
  }
  DeviceInfo info;
  info.path = path;
  info.kind = "block";
  // From the descriptor, not from the flags asked for: what the writes use.
  const int open_flags = ::fcntl(fd.get(), F_GETFL);
  info.direct_io = open_flags >= 0 && (open_flags & O_DIRECT) != 0;
  if (!info.direct_io) {
    throw Error("refusing to write-test " + path + ": O_DIRECT is not in effect on it",
                ErrorKind::kRuntime);
  }
  std::uint64_t size_bytes = 0;
  std::uint32_t sector_bytes = kBufferedSector;
  ReadBlockGeometry(fd.get(), path, size_bytes, sector_bytes);
  FillSysfsInfo(id.major, id.minor, info);
  if (size_bytes == 0) {
    throw Error(path + " is empty (0 bytes): no medium, or an unbound loop device",
                ErrorKind::kBadInput);
  }
  SetWholeSectors(size_bytes, sector_bytes, "written", info);
  // Scanned with the exclusive claim held: nothing can mount the device or
  // claim it from now on; a program that opened it without O_EXCL, before or
  // after, is seen only here (a later one only by its own failures).
  info.write_target = InspectWriteTarget(path, st.st_rdev, id);
  if (!info.write_target.openers.empty()) {
    if (!allow_in_use) throw Error(InUseRefusal(path, info), ErrorKind::kBadInput);
    info.notes.push_back("written while open in " + OpenersText(info.write_target.openers) +
                         " (--force-in-use): their I/O may disturb the rates, and they see "
                         "the data destroyed");
  }
  const bool throttled = ChooseReadBackEngine(fst, info);
  return std::make_unique<PosixDevice>(std::move(fd), std::move(info), true, throttled);
}

// The classes (see the table in posix_device.h), and why:
// - An optical drive streams one request at a time.
// - A rotational disk gets 2, so the next request waits in the drive while
//   one is read (no idle revolution between requests) without reordering.
// - SSDs and NVMe need many requests in flight to reach their rate: 16,
//   fio's usual depth for them.
// - A virtual disk (virtio, loop; its "rotational" flag is often a default,
//   not a fact) is served by a host or a backing file: reads as large as
//   it takes whole, 8 MiB of them in flight. On this project's test
//   machine (a VM), with huge-page buffers (AlignedBuffer), a 4 GiB file
//   on the virtio disk (max request 4 MiB) read at 8570 MB/s with 2 reads
//   of 4 MiB, 7240 with 4, 6390 with 16, 6700 with 64; a loop device over
//   it (max request 1280 KiB) at 7850 with 8 reads of 1 MiB, 7380 with 4,
//   6850 with 16, 6780 with 64, 1650 with 1 (tests/bench/bench_read.sh,
//   ZCAV_QDS, medians of 5 alternating rounds). Deeper queues only paid
//   while the buffers were 4 KiB pages, one segment each. Few blocks in
//   flight also keep the per-block curve sharp. (A loop device over a file
//   on tmpfs is not virtual in this sense: RAM answers at once; it gets
//   the unknown class's 4, within 5 % of the best there.)
// - Anything else (FUSE, network file systems: no sysfs queue) 4.
// Reads above 4 MiB gain little and cost pinned memory; below 1 MiB the
// kernel's splitting is cheaper than more system calls.
ReadShape DefaultReadShape(unsigned major_number, const DeviceInfo& info) {
  constexpr std::uint64_t kMaxChunk = 4 * kMiB;
  constexpr std::uint64_t kVirtualInFlight = 8 * kMiB;
  if (major_number == 11) return {1, kMiB};
  const std::uint64_t whole = info.max_request_bytes >= kMiB
                                  ? std::bit_floor(std::min(info.max_request_bytes, kMaxChunk))
                                  : kMiB;
  if (info.transport == "virtio" || info.transport == "loop") {
    return {static_cast<std::uint32_t>(kVirtualInFlight / whole), whole};
  }
  if (info.transport == "nvme" || info.rotational == std::optional<bool>(false)) return {16, whole};
  if (info.rotational == std::optional<bool>(true)) return {2, kMiB};
  return {4, kMiB};
}

}  // namespace zcav
