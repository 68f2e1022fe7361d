// The page cache (RAM) in front of a device's reads: a loop device without
// direct I/O reads its backing file through it, a file read buffered reads
// its own pages. How much of such a file is cached says whether a pass
// measures the storage or the memory.
#pragma once

#include <optional>

namespace zcav {

// The share (0..1) of the file or block device open at `fd` whose pages
// are in the page cache now: cachestat(2) (Linux 6.5+), else mincore(2)
// over read-only mappings of 1 GiB at a time. nullopt when neither can
// tell (empty, not mappable). Never throws.
std::optional<double> CachedShare(int fd) noexcept;

// For the loop device open at `loop_fd`: its backing file opened read-only
// (O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, so a path swapped for a symlink or
// a FIFO is not followed or waited on), when the loop reads it through the
// page cache (sysfs loop/dio is 0) and the opened file is the loop's own by
// device and inode (LOOP_GET_STATUS64). -1 otherwise: direct I/O, no such
// file, another file now at that path. Never throws.
int OpenCachedBackingFile(int loop_fd, const char* backing_file) noexcept;

}  // namespace zcav
