// What a write test is about to destroy, as the user must see it before
// consenting: the device node the typed path leads to, the signatures on it
// (file systems, RAID and LVM members, partition tables; read with libblkid
// by signature_probe.h) and the other processes that have it open (read
// from /proc by write_safety.h). Filled by OpenDeviceForWrite for a block
// device (DeviceInfo::write_target), shown by the command line in the
// confirmation and named in the refusal of a device in use. Plain data and
// pure formatting: nothing here reads the system.
//
// Every string that comes from the device (labels, UUIDs, types) or from
// another process (its command name) is cleaned (CleanText: no control
// characters, capped) where it is read, so the text below fits one line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace zcav {

struct DeviceInfo;

// One signature found on a device: what wipefs(8) would list and erase.
struct DeviceSignature {
  // blkid's USAGE ("filesystem", "raid", "crypto", "other") or
  // "partition table" for a partition table (PTTYPE).
  std::string usage;
  std::string type;   // TYPE or PTTYPE: "ext4", "swap", "LVM2_member", "gpt", "dos"
  std::string label;  // LABEL; "" when it has none
  std::string uuid;   // UUID or PTUUID; "" when it has none
};

// Another process that has the device, or one of its partitions, open.
struct DeviceOpener {
  int pid = 0;
  std::string command;    // its /proc/PID/comm, cleaned; "?" when unreadable
  std::string node;       // the partition it has open ("loop3p1"); "" for the device itself
  bool writable = false;  // an open file description with write access (O_WRONLY or O_RDWR)
};

// What a write test would overwrite.
struct WriteTarget {
  // The device node the typed path leads to (realpath(3): symlinks such as
  // /dev/disk/by-id/... resolved), e.g. "/dev/loop3".
  std::string resolved_path;
  std::vector<DeviceSignature> signatures;  // in the order libblkid found them
  std::string signature_note;               // why they could not be read; "" when they were
  std::vector<DeviceOpener> openers;        // other processes; zcav itself is never one
  // Processes whose open files could not be read (another user's, when zcav
  // is not root): they may have the device open unseen.
  std::size_t unchecked_processes = 0;
};

// The device as typed and as resolved: "/dev/disk/by-id/x -> /dev/loop3", or
// "/dev/loop3" when the typed path is the device node itself.
std::string WriteTargetName(const std::string& typed, const WriteTarget& target);

// Which drive and how large: `model "ST4000DM004", serial "ZDH1ABCD", 4000787030016
// bytes = 4000.8 GB = 3726.0 GiB (GB = 10^9 B, GiB = 2^30 B)`; "no model or
// serial known" when sysfs has neither, and a loop device's backing file.
std::string WriteTargetIdentity(const DeviceInfo& device);

// The size in bytes and in the largest decimal and binary units it reaches,
// each unit defined: "67108864 bytes = 67.1 MB = 64.0 MiB (MB = 10^6 B, MiB = 2^20 B)".
std::string SizeWithUnits(std::uint64_t bytes);

// The signatures, "; " between them: `ext4 filesystem (LABEL "data", UUID
// "3e6b...")`, `dos partition table (PTUUID "1234abcd")`; "no file system,
// RAID or partition table signature found" when there is none; the note
// ("signatures not read: ...") when they could not be read.
std::string SignaturesText(const WriteTarget& target);

// The openers, ", " between them: "bash (pid 4242, read-write)",
// "qemu-system-x86 (pid 77, read-write, loop3p1)", "blkid (pid 9, read-only)".
std::string OpenersText(const std::vector<DeviceOpener>& openers);

}  // namespace zcav
