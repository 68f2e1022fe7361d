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

// A queue of `depth` reads on `fd` (owned by the caller; it must outlive the
// queue), each up to chunk_bytes into its own buffer aligned to `alignment`;
// with `async` flagged IOSQE_ASYNC, with `write` writing instead (`fd` open
// for writing). Throws Error(kRuntime) when the ring cannot be set up (with
// the reason), and std::bad_alloc.
// REQUIRES: depth >= 1; alignment a power of two.
// Specification: docs/devices.md#the-io_uring-queue
std::unique_ptr<ReadQueue> OpenUringQueue(int fd, std::uint32_t depth, std::uint64_t chunk_bytes,
                                          std::size_t alignment, bool async, bool write = false);

}  // namespace zcav
