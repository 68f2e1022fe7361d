// Device metadata from sysfs and the udev database: vendor, model,
// rotational flag, largest request, transport, link, and which drive it is
// (serial, WWN, firmware, physical sector size, rotation rate, by-id names).
#pragma once

#include <string>

#include "zcav/device/device.h"

namespace zcav {

// Fills vendor, model, rotational, max_request_bytes, transport, link and the
// drive's identity (serial, WWN, firmware, physical sector size, rotation
// rate, by-id names; always the whole disk's) of `info` for the block device
// `major`:`minor`, reading under `sysfs_root`, `udev_root` (udev's database)
// and `dev_root` (tests pass fake trees). Unknown fields are left empty.
// Never throws.
// Specification: docs/devices.md#what-sysfs-and-udev-tell
void FillSysfsInfo(unsigned major, unsigned minor, DeviceInfo& info,
                   const std::string& sysfs_root = "/sys",
                   const std::string& udev_root = "/run/udev/data",
                   const std::string& dev_root = "/dev");

}  // namespace zcav
