#include "zcav/base/aligned_buffer.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using zcav::AlignedBuffer;

std::uintptr_t Address(AlignedBuffer& b) {
  return reinterpret_cast<std::uintptr_t>(b.span(0).data());
}

// The VmFlags line of the /proc/self/smaps mapping that holds `address`.
std::string VmFlagsAt(std::uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= address && address < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

TEST_CASE("AlignedBuffer below 64 KiB: aligned as asked, size rounded up to the alignment") {
  AlignedBuffer b(5000, 4096);
  CHECK(b.size() == 8192);
  CHECK(Address(b) % 4096 == 0);
  b.span(b.size())[b.size() - 1] = std::byte{7};
  CHECK(VmFlagsAt(Address(b)).find(" hg") == std::string::npos);
}

TEST_CASE("AlignedBuffer from 64 KiB up: on a 2 MiB boundary, asked for huge pages") {
  // A 1 MiB request on 4 KiB pages would be 256 segments (over virtio's 254).
  for (const std::size_t bytes : {AlignedBuffer::kHugeFromBytes, std::size_t{1} << 20}) {
    CAPTURE(bytes);
    AlignedBuffer b(bytes, 4096);
    CHECK(b.size() == bytes);
    CHECK(Address(b) % AlignedBuffer::kHugePageBytes == 0);
    b.span(b.size())[b.size() - 1] = std::byte{7};
    if (std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
      const std::string flags = VmFlagsAt(Address(b));
      INFO(flags);
      CHECK(flags.find(" hg") != std::string::npos);
    }
  }
}

TEST_CASE("AlignedBuffer of 2 MiB or more: on 2 MiB boundaries, asked for huge pages") {
  AlignedBuffer b(3 * AlignedBuffer::kHugePageBytes / 2 + 5, 4096);
  CHECK(b.size() == 3 * AlignedBuffer::kHugePageBytes / 2 + 4096);
  CHECK(Address(b) % AlignedBuffer::kHugePageBytes == 0);
  for (std::size_t i = 0; i < b.size(); i += 4096)
    b.span(b.size())[i] = std::byte{1};  // all writable
  if (std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
    // "hg": madvise(MADV_HUGEPAGE) took (whether huge pages come is the kernel's call).
    const std::string flags = VmFlagsAt(Address(b));
    INFO(flags);
    CHECK(flags.find(" hg") != std::string::npos);
  }
  AlignedBuffer sector_aligned(4 * AlignedBuffer::kHugePageBytes, 65536);
  CHECK(Address(sector_aligned) % AlignedBuffer::kHugePageBytes == 0);
}

}  // namespace

TEST_CASE("A direct-I/O buffer is aligned to the sector, and to at least 4096 bytes") {
  CHECK(zcav::DirectIoAlignment(512) == 4096);
  CHECK(zcav::DirectIoAlignment(4096) == 4096);
  CHECK(zcav::DirectIoAlignment(65536) == 65536);
}
