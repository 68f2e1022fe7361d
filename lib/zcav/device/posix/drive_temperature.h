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
// device `block_name` ("sda", "nvme0n1"; a partition is resolved to its disk),
// from the hwmon sensors under `sys_root` (normally "/sys"; tests pass a fake
// tree). nullopt when there is no such sensor or it cannot be read. Never
// throws (but std::bad_alloc).
// Specification: docs/devices.md#drive-temperature
std::optional<double> ReadDriveTemperatureC(const std::string& block_name,
                                            const std::string& sys_root = "/sys");

}  // namespace zcav
