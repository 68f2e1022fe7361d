// Transport: the bus a device is read through and the practical ceiling of
// its throughput.
//
// A table of buses (USB 1.1-3.2, FireWire 400/800, PATA UDMA modes, SATA
// 1.5/3/6 Gb/s, SAS 3/6/12 Gb/s, PCIe gen1-5 x width) gives, for each, the
// theoretical payload rate and a practical ceiling: what real transfers of
// long sequential reads reach (the sources are noted in transport.cc). The
// verdict (verdict.h) compares a sweep curve with the ceiling.
// Pure functions over values; nothing here reads the system.
#pragma once

#include <string>

#include "zcav/device/device_info.h"

namespace zcav {

struct Transport {
  // usb, ata, nvme, firewire, pata, sas, scsi, virtio, loop, sim, file, unknown.
  std::string kind = "unknown";
  // Human-readable link, e.g. "USB 2.0 (480 Mb/s)", "SATA 6 Gb/s",
  // "PCIe gen3 x4"; empty when unknown.
  std::string link;
  // Practical ceiling of sequential reads, MB/s (10^6 B/s); 0 = unknown.
  double ceiling_mb_per_s = 0;
  // Theoretical payload rate after line coding and framing, MB/s; 0 = unknown.
  double theoretical_mb_per_s = 0;
  // Where the figures came from: "sysfs" (the device's link as the kernel
  // reports it), "sim" (the simulated model's stated link), "--bus" (the
  // user), or "unknown".
  std::string source = "unknown";
  // What the link diagnosis (LinkState, link_state.h) says the verdict
  // should add: its reason when the link is downgraded, or names an SD/MMC
  // card; "" otherwise.
  std::string link_diagnosis;
};

// The transport of `device` from its `transport` and `link` fields (see
// sysfs_info.h): "USB 480 Mb/s" (USB speeds 1.5, 12, 480, 5000, 10000, 20000
// Mb/s), "SATA 6.0 Gbps" (1.5, 3.0, 6.0), "PCIe 8.0 GT/s x4" (2.5, 5, 8, 16,
// 32 GT/s; width 1 when not given). The kind follows the link when the link
// names a bus (a sim model that states "USB 480 Mb/s" gives kind "usb"),
// otherwise the device's transport ("loop", "virtio", "sim", ...; "file" for
// a regular file), with an unknown ceiling. Never throws.
Transport TransportFromDevice(const DeviceInfo& device);

// The transport named by the user with `--bus NAME` (case-insensitive):
// usb1, usb2, usb3, usb3.1, usb3.2, fw400, fw800, udma33, udma66, udma100,
// udma133, sata1 (sata1.5), sata2 (sata3g), sata3 (sata6g), sas3, sas6,
// sas12, pcieGxW (G = 1..5, W = 1, 2, 4, 8, 16; e.g. pcie3x4), and the
// aliases BusNames() lists (usb1.1, usb3.0, firewire400, ata133, sas6g, ...).
// Throws Error(kBadInput) naming the accepted names for anything else.
Transport TransportFromName(const std::string& bus);

// The accepted --bus names with their ceilings, one per line, for help text
// and error messages (e.g. "  usb2   USB 2.0 (480 Mb/s)   ~40 MB/s").
std::string BusNames();

}  // namespace zcav
