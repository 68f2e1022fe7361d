// Link diagnosis from sysfs: walks from a block device up its device path
// and reads how its link trained (see LinkState, link_state.h). The
// attributes read are those of the kernel's sysfs ABI documents
// (Documentation/ABI/testing/sysfs-bus-pci, sysfs-ata, sysfs-bus-usb,
// sysfs-bus-mmc).
#pragma once

#include <string>

#include "zcav/device/link_state.h"

namespace zcav {

// The link of block device `block_name` ("nvme0n1", "sda", "mmcblk0"; a
// partition is resolved to its disk), found as `sysfs_root`/class/block/NAME
// (normally "/sys"; tests pass a fake tree). Never throws except
// std::bad_alloc; a device without a known link gives transport "".
//   PCIe: every ancestor with current_link_speed (the controller's function,
//     then the ports above it); the slowest hop (speed x width) limits;
//     max is the controller's max_link_speed / max_link_width.
//   SATA: the ataN port's link: sata_spd vs hw_sata_spd_limit (the drive and
//     host's best), else sata_spd_limit (libata's limit).
//   USB: the nearest USB device's speed (Mb/s) and version, its parent
//     hub's speed, and the interface's driver (uas or usb-storage).
//   MMC/SD: the card's type and the speed class in its SD status register
//     (ssr); sysfs has no bus mode (that is in debugfs), so it is "unknown".
LinkState ReadLinkState(const std::string& sysfs_root, const std::string& block_name);

}  // namespace zcav
