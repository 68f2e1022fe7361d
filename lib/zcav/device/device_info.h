// DeviceInfo: the facts about a device that every output records, and what
// they say (KnownNotToRotate). Plain data, apart from the Device seam
// (device.h), so that the analysis can read them without the devices.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zcav/device/link_state.h"
#include "zcav/device/write_target.h"

namespace zcav {

// Facts about a device, recorded in every output header. Empty strings and
// nullopt mean "not known".
struct DeviceInfo {
  std::string path;                  // as given by the user, e.g. "/dev/sdb", "sim:hdd"
  std::string kind;                  // "block", "file" or "sim"
  std::uint64_t size_bytes = 0;      // readable size, a multiple of sector_bytes
  std::uint32_t sector_bytes = 512;  // logical sector size: the unit of alignment
  std::string vendor;                // sysfs vendor, e.g. "ATA"
  std::string model;                 // sysfs model, e.g. "ST4000DM004-2CV1"
  std::optional<bool> rotational;    // sysfs queue/rotational
  // Which drive it is, so that results of the same drive can be told apart
  // from its siblings' and merged across days and hosts (/dev/sdX names
  // move between boots). From sysfs and the udev database; simulated
  // devices have their own. "" / 0 / nullopt / empty: not known.
  std::string serial;    // e.g. "ZDH1ABCD" (udev ID_SERIAL_SHORT, sysfs device/serial)
  std::string wwn;       // world wide name, e.g. "0x5000c500a1b2c3d4" (udev ID_WWN, sysfs wwid)
  std::string firmware;  // firmware revision (udev ID_REVISION, sysfs device/firmware_rev, rev)
  std::uint32_t physical_sector_bytes = 0;  // sysfs queue/physical_block_size
  // Spindle speed (udev ID_ATA_ROTATION_RATE_RPM): 0 for a solid-state drive.
  std::optional<std::uint32_t> rotation_rpm;
  // The device's names under /dev/disk/by-id, e.g. "ata-ST4000DM004-2CV1_ZDH1ABCD",
  // "wwn-0x5000c500a1b2c3d4" (sorted).
  std::vector<std::string> by_id;
  std::string transport;  // usb, ata, nvme, scsi, virtio, loop, file, sim
  std::string link;       // e.g. "USB 480 Mb/s", "SATA 6.0 Gbps"
  // How that link trained against its best (link_state.h); transport "" =
  // not read (loop, virtio, sim, file, or a host without sysfs).
  LinkState link_state;
  std::string backing_file;  // a loop device's file (sysfs loop/backing_file), else ""
  // What the reads finally reach, for a file or a loop device over a file:
  // the disk under the file system (its transport, e.g. "virtio", "nvme",
  // or "ram" for tmpfs and other memory file systems, and its sysfs
  // rotational flag). "" / nullopt: not a file, or not known.
  std::string storage_transport;
  std::optional<bool> storage_rotational;
  bool direct_io = true;  // true: reads bypass the page cache (O_DIRECT)
  // The file whose pages the reads pass through in the page cache (RAM): a
  // loop device's backing file when the loop does not use direct I/O, the
  // device itself when read buffered; "" = the reads bypass the page cache.
  std::string page_cache_file;
  // How reads can be issued: "io_uring" (several in flight, OpenReadQueue),
  // "pread" (one at a time: io_uring unavailable, with a note saying why) or
  // "sim" (a simulated device: one at a time on its virtual clock).
  std::string read_engine = "pread";
  // The largest read the device takes whole (sysfs queue/max_sectors_kb, in
  // bytes; the kernel splits larger ones); 0 = not known.
  std::uint64_t max_request_bytes = 0;
  // Reads in flight by default (the sweep's queue depth when not given):
  // 1 for one-at-a-time engines; with io_uring by device class (see
  // DefaultReadShape in posix_device.h): 2 for rotational disks, 16 for
  // SSDs and NVMe, 8 MiB in flight for virtual disks (virtio, loop), 4
  // when the class is not known.
  std::uint32_t default_queue_depth = 1;
  // Bytes per read by default (the sweep's chunk when not given, see
  // SweepOptions::chunk_bytes): 1 MiB, or for SSDs, NVMe and virtual disks
  // the largest request they take whole, up to 4 MiB (DefaultReadShape).
  std::uint64_t default_chunk_bytes = 1024 * 1024;
  // Things the user should know about how the device is read (rounding,
  // buffered fallback); written to stderr and the header as "# note: ...".
  std::vector<std::string> notes;
  // A block device opened for a write test (OpenDeviceForWrite): what the
  // test would destroy and who else has the device open, for the
  // confirmation (write_target.h). Empty for any other device; never
  // written to an output.
  WriteTarget write_target;
};

// True when the device, or the disk under a file or a loop device's file, is
// known not to rotate: sysfs says so, or it is NVMe, a virtual disk
// (virtio: the host decides what a position means) or RAM. A rotational or
// unknown device gives false. A loop device is judged by the storage under
// its file alone (its own sysfs flag says nothing about that).
bool KnownNotToRotate(const DeviceInfo& info);

}  // namespace zcav
