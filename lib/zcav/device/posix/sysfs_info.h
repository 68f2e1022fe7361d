// Device metadata from sysfs: vendor, model, rotational flag, largest request,
// transport, link.
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
void FillSysfsInfo(unsigned major, unsigned minor, DeviceInfo& info,
                   const std::string& sysfs_root = "/sys");

}  // namespace zcav
