#include "zcav/device/posix/page_cache.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace zcav {
namespace {

// cachestat(2): the same number on every Linux architecture (added in 6.5,
// after the tables were unified); glibc 2.36 does not name it yet.
constexpr long kSysCachestat = 451;
struct CachestatRange {
  std::uint64_t off = 0;
  std::uint64_t len = 0;  // 0: to the end of the file
};
struct Cachestat {
  std::uint64_t nr_cache = 0;  // pages in the page cache
  std::uint64_t nr_dirty = 0;
  std::uint64_t nr_writeback = 0;
  std::uint64_t nr_evicted = 0;
  std::uint64_t nr_recently_evicted = 0;
};

constexpr std::uint64_t kMincoreWindowBytes = std::uint64_t{1} << 30;

std::uint64_t SizeOf(int fd) noexcept {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return 0;
  if (S_ISREG(st.st_mode)) return static_cast<std::uint64_t>(st.st_size);
  std::uint64_t size = 0;
  if (S_ISBLK(st.st_mode) && ::ioctl(fd, BLKGETSIZE64, &size) == 0) return size;
  return 0;
}

// Cached pages by mincore(2), one window at a time; nullopt when a window
// cannot be mapped.
std::optional<std::uint64_t> MincorePages(int fd, std::uint64_t size, std::uint64_t page) {
  std::uint64_t cached = 0;
  std::vector<unsigned char> resident;
  for (std::uint64_t off = 0; off < size; off += kMincoreWindowBytes) {
    const std::uint64_t len = std::min(kMincoreWindowBytes, size - off);
    void* map = ::mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(off));
    if (map == MAP_FAILED) return std::nullopt;
    resident.assign((len + page - 1) / page, 0);
    const int rc = ::mincore(map, len, resident.data());
    ::munmap(map, len);
    if (rc != 0) return std::nullopt;
    for (const unsigned char r : resident) cached += r & 1U;
  }
  return cached;
}

}  // namespace

std::optional<double> CachedShare(int fd) noexcept {
  try {
    const std::uint64_t size = SizeOf(fd);
    const long page_size = ::sysconf(_SC_PAGESIZE);
    if (size == 0 || page_size <= 0) return std::nullopt;
    const auto page = static_cast<std::uint64_t>(page_size);
    const std::uint64_t pages = (size + page - 1) / page;
    CachestatRange range;
    Cachestat stat;
    std::optional<std::uint64_t> cached;
    if (::syscall(kSysCachestat, fd, &range, &stat, 0) == 0) {
      cached = stat.nr_cache;
    } else {
      cached = MincorePages(fd, size, page);
    }
    if (!cached) return std::nullopt;
    return std::min(1.0, static_cast<double>(*cached) / static_cast<double>(pages));
  } catch (...) {  // std::bad_alloc from the mincore vector
    return std::nullopt;
  }
}

int OpenCachedBackingFile(int loop_fd, const char* backing_file) noexcept {
  struct stat loop {};
  if (::fstat(loop_fd, &loop) != 0 || !S_ISBLK(loop.st_mode)) return -1;
  char dio_path[96];
  std::snprintf(dio_path, sizeof dio_path, "/sys/dev/block/%u:%u/loop/dio", major(loop.st_rdev),
                minor(loop.st_rdev));
  if (FILE* f = std::fopen(dio_path, "re")) {
    const int c = std::fgetc(f);
    std::fclose(f);
    if (c != '0') return -1;  // direct I/O: the backing file's cache is bypassed
  }
  loop_info64 status{};
  if (::ioctl(loop_fd, LOOP_GET_STATUS64, &status) != 0) return -1;
  const int fd = ::open(backing_file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::uint64_t>(st.st_dev) != status.lo_device ||
      static_cast<std::uint64_t>(st.st_ino) != status.lo_inode) {
    ::close(fd);
    return -1;
  }
  return fd;
}

}  // namespace zcav
