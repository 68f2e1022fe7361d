// PosixDevice: a block device or a regular file read with pread(2) (and,
// opened by OpenPosixDeviceForWrite for a write sweep, written with pwrite(2)).
//
// Opened read-only with O_DIRECT so every read reaches the device. When the
// file system refuses O_DIRECT (tmpfs, some FUSE) it falls back to buffered
// reads, says so in DeviceInfo::notes and direct_io=false, and drops the
// file's cached pages with posix_fadvise(POSIX_FADV_DONTNEED) before every
// pass (PreparePass) so a pass never measures RAM.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "zcav/device/device.h"

namespace zcav {

// Opens `path` (a block device or regular file) read-only with O_DIRECT,
// verified by a first read (buffered fallback with a note); size and sector
// size from the device or file system, metadata from sysfs_info.h. Throws
// Error(kBadInput) with a message a user can act on (no such file, not a
// device or file, empty, too small, permission denied), Error(kRuntime) when
// the opened descriptor cannot be stat()ed or sized.
// Specification: docs/devices.md#opening-a-device-for-reading
std::unique_ptr<Device> OpenPosixDevice(const std::string& path);

// Opens `path` for a write sweep, as OpenDeviceForWrite (device.h) says: a
// block device O_RDWR | O_DIRECT | O_EXCL after the checks of write_safety.h,
// or with `new_file` a new file, created O_EXCL, unlinked, preallocated.
// Throws Error(kBadInput) with one line naming the reason, before anything is
// written to a block device; Error(kRuntime) when the system fails.
// Specification: docs/devices.md#opening-a-device-for-a-write-test
std::unique_ptr<Device> OpenPosixDeviceForWrite(const std::string& path,
                                                std::optional<NewTestFile> new_file,
                                                bool allow_in_use = false);

// The other processes that have block device `path` or one of its
// partitions open (ScanOpeners, write_safety.h); empty when `path` is not a
// block device. Never throws.
std::vector<DeviceOpener> PosixOpenersNow(const std::string& path);

// How a device of `info`'s class is read by default: reads in flight and
// bytes per read (DeviceInfo::default_queue_depth, default_chunk_bytes).
struct ReadShape {
  std::uint32_t queue_depth = 4;
  std::uint64_t chunk_bytes = 1024 * 1024;
};
// `major_number` is the device's (11: a SCSI CD-ROM); `info` has the
// transport, rotational flag and max_request_bytes of FillSysfsInfo.
// (OpenPosixDevice asks this for the disk under a file, and for a loop
// device over a file for the disk under that file with the loop's largest
// request: a loop over a file on tmpfs gets the unknown class's 4 reads.)
//   optical (major 11)               1 read  of 1 MiB
//   rotational disk                  2 reads of 1 MiB
//   SSD, NVMe (rotational=0, nvme)  16 reads of C
//   virtual disk (virtio, loop)      8 MiB / C reads of C
//   not known (FUSE, NFS: no sysfs)  4 reads of 1 MiB
// where C is the largest power of two of at most max_request_bytes, between
// 1 MiB and 4 MiB (1 MiB when max_request_bytes is not known).
ReadShape DefaultReadShape(unsigned major_number, const DeviceInfo& info);

}  // namespace zcav
