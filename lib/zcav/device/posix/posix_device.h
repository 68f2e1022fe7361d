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
// Throws Error(kRuntime) when the opened descriptor cannot be stat()ed or its
// size read (BLKGETSIZE64).
std::unique_ptr<Device> OpenPosixDevice(const std::string& path);

// Opens `path` for a write sweep (see OpenDeviceForWrite in device.h for the
// rules). A block device: the checks of write_safety.h, then O_RDWR | O_DIRECT
// | O_EXCL (EBUSY: "held open exclusively by another program (open in NAME
// (pid N))"); size and sector as OpenPosixDevice; then what it holds and who
// else has it open (DeviceInfo::write_target, write_target.h): refused
// (kBadInput, naming the device as typed and resolved, its model, serial,
// size, signatures and the processes) when another process has it or a
// partition open, unless `allow_in_use` (--force-in-use: then a note names
// them). With `new_file`: a new
// file created O_EXCL (an existing path is refused; in a directory it is
// named zcav-write-test.PID), unlinked at once, preallocated with
// fallocate(2) to its bytes rounded up, or its share of the free space
// rounded down, to its direct-I/O alignment (a fill that would leave less
// than device.h's reserve free is refused), written with O_DIRECT (a file system refusing O_DIRECT
// is refused: buffered writes would measure RAM). Without it a regular file is refused. Throws
// Error(kBadInput) with one line naming the reason, before anything is written to a block device (a
// created file gets one probe write); ENOSPC or EFBIG when sizing the created file is kBadInput
// (choose a smaller size). Throws Error(kRuntime) when the system fails: the node changed while it
// was being opened, O_DIRECT not in effect on the device, any other failure to size the created
// file, a failed probe write.
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
