// The io_uring read queue of PosixDevice: several chunk reads in flight on
// one file descriptor, into registered (pinned) aligned buffers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "zcav/device/device.h"

namespace zcav {

// Whether io_uring works here: sets up and tears down a tiny ring. Returns
// "" when it does, else why not, for a note ("io_uring_setup: Operation not
// permitted" under a seccomp filter, "Function not implemented" on kernels
// before 5.1). Never throws.
std::string ProbeUring();

// A queue of `depth` reads on `fd` (which stays owned by the caller and must
// outlive the queue), each up to chunk_bytes into its own buffer aligned to
// `alignment`. The buffers are registered with the ring (fixed buffers:
// pinned once, not per read) when the locked-memory limit allows, else read
// into as plain buffers. Short reads are continued inside, EINTR/EAGAIN are
// resubmitted, and a read that returns 0 bytes before its end is ENXIO (as
// Device::ReadAt). With `async`, every read is flagged IOSQE_ASYNC: issued
// from io_uring's worker threads instead of first tried without blocking
// (see read_throttle.h for when that matters).
// Throws Error(kRuntime) when the ring cannot be set up (with the reason), and
// std::bad_alloc.
// With `write`, each request writes its slot's buffer instead (short writes
// continued, a write of 0 bytes ENXIO); `fd` must be open for writing.
// REQUIRES: depth >= 1; alignment a power of two.
std::unique_ptr<ReadQueue> OpenUringQueue(int fd, std::uint32_t depth, std::uint64_t chunk_bytes,
                                          std::size_t alignment, bool async, bool write = false);

}  // namespace zcav
