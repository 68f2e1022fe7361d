// AlignedBuffer: a heap buffer whose start is aligned for O_DIRECT.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace zcav {

class AlignedBuffer {
 public:
  // A buffer of kHugeFromBytes or more is mapped on its own, on whole
  // 2 MiB pages (kHugePageBytes), 2 MiB-aligned, and asked for transparent
  // huge pages (madvise MADV_HUGEPAGE; advisory: a kernel without them, or
  // short of free huge pages, gives 4 KiB pages). On huge pages a read's
  // buffer is physically contiguous, so a request reaches the device as one
  // or a few segments instead of one per 4 KiB page (16 for 64 KiB, 256 for
  // the default 1 MiB block, over virtio's limit of 254): on a virtual disk
  // (virtio, and a loop device over a file on it) the host's cost per
  // segment otherwise caps the rate at half or less, and varies with how
  // fragmented free memory happens to be. The price is memory: up to 2 MiB
  // for a small buffer.
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
  static constexpr std::size_t kHugeFromBytes = std::size_t{64} << 10;

  // Allocates `size_bytes` (rounded up to `alignment`) aligned to `alignment`.
  // REQUIRES: alignment is a power of two >= sizeof(void*). Throws std::bad_alloc.
  AlignedBuffer(std::size_t size_bytes, std::size_t alignment);
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer();

  std::span<std::byte> span(std::size_t n) { return {data_, n}; }
  std::size_t size() const { return size_; }

 private:
  std::size_t size_;
  std::byte* data_ = nullptr;
  void* mapping_ = nullptr;  // the mmap of a huge-page buffer, else null
  std::size_t mapping_bytes_ = 0;
};

// The alignment of a buffer that reads or writes a device of `sector_bytes`
// sectors with O_DIRECT: its sector, and at least 4096 bytes (a page).
constexpr std::size_t DirectIoAlignment(std::uint32_t sector_bytes) {
  return sector_bytes > 4096 ? std::size_t{sector_bytes} : std::size_t{4096};
}

}  // namespace zcav
