// LinkState: how a block device's link to the host trained, against what it
// could do (PCIe, SATA, USB, and an SD/MMC card's bus mode where debugfs
// gives it). Plain
// data, filled from sysfs by ReadLinkState (posix/sysfs_link.h) and judged
// by the verdict (analysis/verdict.cc), which quotes `reason`.
#pragma once

#include <string>

namespace zcav {

struct LinkState {
  // "pcie", "sata", "usb", "mmc"; "" = no link read (loop, virtio, sim, file).
  std::string transport;
  // The link as it trained and the best the device (and host, where sysfs
  // says) supports, in the kernel's words with units: "8.0 GT/s" (PCIe,
  // per lane), "1.5 Gbps" (SATA), "480 Mb/s" (USB); "" = unknown.
  std::string current;
  std::string max;
  // PCIe lanes as trained and the most the device takes; 0 = unknown / not PCIe.
  unsigned width = 0;
  unsigned max_width = 0;
  // USB: the interface's driver, "uas" or "usb-storage"; "" otherwise.
  std::string driver;
  // MMC/SD: the card's type as sysfs gives it ("SD", "MMC", "SDIO"), and its
  // speed class from the SD status register ("class 10"); "" = unknown.
  std::string card_type;
  std::string speed_class;
  // MMC/SD: the card's UHS speed grade, video speed class and application
  // performance class from the SD status register ("U3, V30, A2"); "" = none.
  std::string card_grades;
  // True when the link runs below what the device and host support, or a
  // USB 3 disk runs on usb-storage (bulk-only) instead of uas.
  bool downgraded = false;
  // One English sentence: what the link is and, when downgraded, what would
  // lift the limit ("this PCIe gen4 x4 drive trained at gen3 x1: 0.98 of
  // 7.88 GB/s; ..."). "" when nothing was read.
  std::string reason;
  // Line rate after encoding, MB/s (10^6 B/s), of the link as trained
  // (the slowest hop) and at the device's best; 0 = unknown.
  double limit_mb_per_s = 0;
  double max_limit_mb_per_s = 0;
};

}  // namespace zcav
