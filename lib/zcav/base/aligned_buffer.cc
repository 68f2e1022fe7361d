#include "zcav/base/aligned_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>

#include "zcav/base/units.h"

namespace zcav {

AlignedBuffer::AlignedBuffer(std::size_t size_bytes, std::size_t alignment)
    : size_(RoundUp(size_bytes, alignment)) {
  if (size_ < kHugeFromBytes) {
    data_ = static_cast<std::byte*>(std::aligned_alloc(alignment, size_ == 0 ? alignment : size_));
    if (data_ == nullptr) throw std::bad_alloc();
    return;
  }
  // Whole huge pages, from a mapping one alignment larger so that they can
  // start on a boundary (mmap aligns to 4 KiB only).
  const std::size_t align = std::max(alignment, kHugePageBytes);
  const std::size_t bytes = RoundUp(size_, kHugePageBytes);
  mapping_bytes_ = bytes + align;
  mapping_ =
      ::mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping_ == MAP_FAILED) {
    mapping_ = nullptr;
    throw std::bad_alloc();
  }
  const auto base = reinterpret_cast<std::uintptr_t>(mapping_);
  data_ = reinterpret_cast<std::byte*>(RoundUp(base, align));
  (void)::madvise(data_, bytes, MADV_HUGEPAGE);  // advisory, see the header
}

AlignedBuffer::~AlignedBuffer() {
  if (mapping_ != nullptr) {
    ::munmap(mapping_, mapping_bytes_);
  } else {
    std::free(data_);
  }
}

}  // namespace zcav
