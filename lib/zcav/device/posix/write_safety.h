// Write safety: may a write sweep overwrite this block device?
//
// A write sweep destroys every byte it writes, so before a block device is
// opened for writing (OpenDeviceForWrite, device.h) zcav gathers what the
// system says about it and refuses when the device, or any of its
// partitions, is mounted (/proc/self/mountinfo, by major:minor and by the
// mount's source device), is an active swap area (/proc/swaps), or has
// holders (sysfs NAME/holders: device-mapper, LVM, dm-crypt, md RAID built on
// it). The exclusive open that follows (O_EXCL: EBUSY when anyone holds the
// device exclusively) closes the gap between this check and the first write.
//
// Parsing and judging are pure functions over text and values so the unit
// tests can feed fake mountinfo, swaps and sysfs trees; GatherWriteFacts
// reads the real ones.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "zcav/device/write_target.h"

namespace zcav {

struct BlockId {
  unsigned major = 0;
  unsigned minor = 0;
  bool operator==(const BlockId&) const = default;
};

// One line of /proc/self/mountinfo: the mounted device (field 3, major:minor;
// 0:N for file systems without one, such as btrfs subvolumes, tmpfs), the
// mount point (field 5) and the mount source (after " - " and the type).
// `source_id` is the source's device when the source is a block device node
// (filled by GatherWriteFacts, which stats it; the parser leaves it empty).
struct MountEntry {
  BlockId id;
  std::string mount_point;
  std::string source;
  std::optional<BlockId> source_id;
};

// Parses mountinfo text (octal escapes such as \040 decoded). Malformed
// lines are skipped.
std::vector<MountEntry> ParseMountinfo(const std::string& text);

// One active swap area of /proc/swaps: its file name and, for a block device
// node, its device (filled by GatherWriteFacts).
struct SwapEntry {
  std::string path;
  std::optional<BlockId> id;
};

// Parses /proc/swaps text (the header line skipped, escapes decoded).
std::vector<SwapEntry> ParseSwaps(const std::string& text);

// A block device as sysfs shows it: its kernel name ("loop3", "sda1"), its
// major:minor and the names in its holders/ directory ("dm-0", "md127").
struct BlockNode {
  std::string name;
  BlockId id;
  std::vector<std::string> holders;
};

// The device `id` followed by its partitions, read under `sysfs_root`
// (normally "/sys"): dev/block/MAJ:MIN, the partitions as its
// subdirectories holding a "partition" attribute, each one's "dev" and
// holders/. Empty when sysfs does not know the device. Never throws.
std::vector<BlockNode> ReadBlockFamily(BlockId id, const std::string& sysfs_root = "/sys");

// What GatherWriteFacts found about one block device.
struct WriteFacts {
  std::string path;  // as the user gave it, for messages
  BlockId id;
  std::vector<BlockNode> family;   // the device and its partitions
  std::vector<MountEntry> mounts;  // every mount of the system
  std::vector<SwapEntry> swaps;    // every active swap area
};

// Why the device of `facts` must not be written, as one line naming the
// reason ("/dev/loop3 is mounted at /mnt/data (loop3p1)", "... is in use as
// swap", "... is held by dm-0 (device mapper, LVM, dm-crypt or md RAID)");
// nullopt when nothing forbids it. Checks the device itself and each
// partition in facts.family (the device alone when family is empty).
std::optional<std::string> WriteRefusal(const WriteFacts& facts);

// Reads proc_root/self/mountinfo, proc_root/swaps and the sysfs family of
// `id` for `path`, stat()ing mount sources and swap files that are block
// device nodes. Unreadable files count as empty. Never throws.
WriteFacts GatherWriteFacts(const std::string& path, BlockId id,
                            const std::string& proc_root = "/proc",
                            const std::string& sysfs_root = "/sys");

// The other processes that have a device of `family` (a device and its
// partitions, as ReadBlockFamily gives them) open: every numeric directory of
// proc_root but zcav's own, each of its fd/ links that leads to a block
// device of the family (stat()ed through the link with AT_STATX_DONT_SYNC,
// so a file on a hung FUSE or network file system answers from its cache
// instead of hanging the scan), its access mode from fdinfo/ and its name
// from comm (cleaned: untrusted). One entry per process and family member,
// writable when any of its descriptors there can write. A process whose fd/
// cannot be read (another user's, when zcav is not root) counts in
// `unchecked`; one that ends meanwhile does not. Never throws.
struct OpenerScan {
  std::vector<DeviceOpener> openers;  // by pid, then the device before its partitions
  std::size_t unchecked = 0;
};
OpenerScan ScanOpeners(const std::vector<BlockNode>& family,
                       const std::string& proc_root = "/proc");

// The processes that have block device `id` open ("python3 (pid 4242)"),
// from proc_root/PID/fd: for the message when the exclusive open fails with
// EBUSY. Processes whose fds cannot be read are left out. Never throws.
std::vector<std::string> ProcessesUsing(BlockId id, const std::string& proc_root = "/proc");

}  // namespace zcav
