// Device metadata from sysfs and the udev database: vendor, model,
// rotational flag, largest request, transport, link, and which drive it is
// (serial, WWN, firmware, physical sector size, rotation rate, by-id names).
#pragma once

#include <string>

#include "zcav/device/device.h"

namespace zcav {

// Fills vendor, model, rotational, max_request_bytes (queue/max_sectors_kb),
// transport and link of `info` for the block device with major:minor
// `major`,`minor`, reading under `sysfs_root`
// (normally "/sys"; tests pass a fake tree). Partitions are resolved to their
// whole disk. Unknown fields are left empty. Never throws.
// transport: "loop" (backing_file, link: "backing file PATH"), "nvme" (link: "PCIe 8.0 GT/s
// x4"), "virtio", "usb" (link: "USB 480 Mb/s", from the nearest USB device),
// "ata" (link: "SATA 6.0 Gbps"), "scsi" (other SCSI disks), read off the
// device's place in the /sys/devices hierarchy in that order.
//
// Also fills the drive's identity, always that of the whole disk (a
// partition reports its disk's). `udev_root` is udev's database (normally
// "/run/udev/data"), whose file "b<MAJOR>:<MINOR>" of the disk holds
// "E:KEY=VALUE" and "S:LINK" lines; `dev_root` is normally "/dev". Values
// are whitespace-trimmed; what no source gives stays empty (loop devices,
// zram, hosts without udev: ATA serials and rotation rates come only from
// udev).
//   serial: udev ID_SERIAL_SHORT, else sysfs device/serial (NVMe, some
//     SCSI), else the disk's own serial attribute (virtio).
//   wwn: udev ID_WWN, else sysfs wwid (NVMe namespaces: "eui.…",
//     "nvme.…") or device/wwid (SCSI), where "naa." followed by 16 hex
//     digits is written as udev writes it ("0x5000c500a1b2c3d4").
//   firmware: sysfs device/firmware_rev (NVMe) or device/rev (SCSI, ATA),
//     else udev ID_REVISION. sysfs first: it exists on every host, so a
//     drive reads the same with and without udev (libata's rev is the last
//     4 characters of an ATA drive's firmware revision).
//   physical_sector_bytes: sysfs queue/physical_block_size.
//   rotation_rpm: udev ID_ATA_ROTATION_RATE_RPM (0: a solid-state drive).
//   by_id: the udev "S:disk/by-id/NAME" names; when the udev file has no
//     such line (containers without udev), the symlinks in
//     `dev_root`/disk/by-id whose target resolves to `dev_root`/DEVNAME
//     (DEVNAME from the disk's sysfs uevent). Sorted, without duplicates,
//     never a partition's ("…-partN").
void FillSysfsInfo(unsigned major, unsigned minor, DeviceInfo& info,
                   const std::string& sysfs_root = "/sys",
                   const std::string& udev_root = "/run/udev/data",
                   const std::string& dev_root = "/dev");

}  // namespace zcav
