// A drive's temperature from the kernel's hwmon sensors in sysfs: no root,
// no smartctl, cheap enough to read during a sweep.
//
// SATA and SAS drives have one when the drivetemp module is loaded
// (Documentation/hwmon/drivetemp.rst): it hangs off the SCSI device,
// /sys/block/sda/device/hwmon/hwmonN/temp1_input. NVMe drives have one since
// Linux 5.5 (drivers/nvme/host/hwmon.c, the composite temperature): it hangs
// off the controller, /sys/class/nvme/nvme0/hwmonN/temp1_input (Linux 5.5 to
// 5.x registered it on the controller's PCI device,
// /sys/class/nvme/nvme0/device/hwmon/hwmonN). Both report millidegrees
// Celsius.
#pragma once

#include <optional>
#include <string>

namespace zcav {

// The current temperature, in degrees Celsius, of the drive holding block
// device `block_name` ("sda", "nvme0n1"; a partition, "sda1", is resolved to
// its disk), read under `sys_root` (normally "/sys"; tests pass a fake
// tree). Looked for, first found wins, where DEV is
// SYS_ROOT/block/DISK/device:
//   DEV/hwmon/hwmon*/temp1_input         drivetemp (SATA, SAS)
//   DEV/hwmon*/temp1_input               NVMe, DEV is the controller
//   DEV/device/hwmon/hwmon*/temp1_input  NVMe, older kernels (PCI device)
//   DEV/nvme*/hwmon*/temp1_input         NVMe multipath: DEV is the
//                                        subsystem, nvme* its controllers
//   SYS_ROOT/class/nvme/nvmeX/hwmon*/temp1_input  for "nvmeXnY"
// nullopt when there is no such sensor (no drivetemp module, a loop, virtio
// or USB device, an old kernel) or it cannot be read (some drives refuse
// while asleep). Never throws (but std::bad_alloc).
std::optional<double> ReadDriveTemperatureC(const std::string& block_name,
                                            const std::string& sys_root = "/sys");

}  // namespace zcav
