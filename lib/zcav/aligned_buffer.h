// AlignedBuffer: a heap buffer whose start is aligned for O_DIRECT.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <span>

namespace zcav {

class AlignedBuffer {
 public:
  // Allocates `size_bytes` (rounded up to `alignment`) aligned to `alignment`.
  // REQUIRES: alignment is a power of two >= sizeof(void*). Throws std::bad_alloc.
  AlignedBuffer(std::size_t size_bytes, std::size_t alignment)
      : size_((size_bytes + alignment - 1) / alignment * alignment) {
    data_ = static_cast<std::byte*>(std::aligned_alloc(alignment, size_ == 0 ? alignment : size_));
    if (data_ == nullptr) throw std::bad_alloc();
  }
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(data_); }

  std::span<std::byte> span(std::size_t n) { return {data_, n}; }
  std::size_t size() const { return size_; }

 private:
  std::size_t size_;
  std::byte* data_;
};

}  // namespace zcav
