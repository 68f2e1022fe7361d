// PosixDevice: a block device or a regular file read with pread(2).
//
// Opened read-only with O_DIRECT so every read reaches the device. When the
// file system refuses O_DIRECT (tmpfs, some FUSE) it falls back to buffered
// reads, says so in DeviceInfo::notes and direct_io=false, and drops the
// file's cached pages with posix_fadvise(POSIX_FADV_DONTNEED) before every
// pass (PreparePass) so a pass never measures RAM.
#pragma once

#include <memory>
#include <string>

#include "zcav/device.h"

namespace zcav {

// Opens `path` read-only. Size: BLKGETSIZE64 for block devices, st_size for
// files. Sector size: BLKSSZGET for block devices; for files read with
// O_DIRECT the file system's direct-I/O alignment (statx STATX_DIOALIGN, at
// least 512; 4096 when not reported), 512 for files read buffered. A size that
// is not a multiple of the sector size is rounded down with a note (the tail,
// less than one sector, is not read). O_DIRECT is verified by reading the
// first sector at open: a file system that accepts the flag but fails the read
// with EINVAL gets the buffered fallback too. Metadata from sysfs_info.h
// (block devices only; files get transport "file").
// Throws Error(kBadInput): "open PATH: No such file or directory", "PATH is a
// directory, not a device or file" (likewise a pipe, a socket, a character
// device), "PATH is empty (0 bytes)", "PATH is too small to profile: ...",
// "open PATH: Permission denied (run as root or join the 'disk' group)".
std::unique_ptr<Device> OpenPosixDevice(const std::string& path);

}  // namespace zcav
