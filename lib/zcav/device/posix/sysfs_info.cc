#include "zcav/device/posix/sysfs_info.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>

#include "zcav/base/text.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

// Contents of a small sysfs attribute, whitespace-trimmed; "" when absent.
std::string ReadAttribute(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return std::string(Trim(s.str()));
}

bool Exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// True when `component` is `prefix` followed by a decimal number: "ata1"
// matches "ata", "atapi" does not; "usb2" matches "usb".
bool IsNumbered(const std::string& component, std::string_view prefix) {
  if (component.size() <= prefix.size() || component.compare(0, prefix.size(), prefix) != 0) {
    return false;
  }
  for (std::size_t i = prefix.size(); i < component.size(); ++i) {
    if (std::isdigit(static_cast<unsigned char>(component[i])) == 0) return false;
  }
  return true;
}

// The first directory on the way from the sysfs root down to `device_dir`
// whose name is `prefix` + a number ("ata3", "usb1", "virtio2"), or nullopt.
std::optional<fs::path> NumberedAncestor(const fs::path& root, const fs::path& device_dir,
                                         std::string_view prefix) {
  fs::path current = root;
  for (const fs::path& part : device_dir.lexically_relative(root)) {
    current /= part;
    if (IsNumbered(part.string(), prefix)) return current;
  }
  return std::nullopt;
}

// "SATA 6.0 Gbps" for the ATA port directory `port` ("…/ata3"): its link is
// port/linkN/ata_link/linkN (also reachable as class/ata_link/linkN).
std::string AtaLink(const fs::path& root, const fs::path& port) {
  const std::string number = port.filename().string().substr(3);
  std::string speed = ReadAttribute(root / "class" / "ata_link" / ("link" + number) / "sata_spd");
  if (speed.empty()) {
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(port, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("link", 0) != 0) continue;
      speed = ReadAttribute(entry.path() / "ata_link" / name / "sata_spd");
      if (!speed.empty()) break;
    }
  }
  if (speed.empty() || speed.find("unknown") != std::string::npos) return "";
  return "SATA " + speed;
}

// "USB 480 Mb/s": the nearest ancestor of `device_dir` with a "speed"
// attribute is the USB device the disk sits behind (value in Mb/s).
std::string UsbLink(const fs::path& root, const fs::path& device_dir) {
  // Both paths are canonical, so every ancestor below the root is longer.
  for (fs::path dir = device_dir; dir.native().size() > root.native().size();
       dir = dir.parent_path()) {
    const std::string speed = ReadAttribute(dir / "speed");
    if (!speed.empty()) return "USB " + speed + " Mb/s";
  }
  return "";
}

// "PCIe 8.0 GT/s x4" from the PCI function behind an NVMe controller.
std::string NvmeLink(const fs::path& disk_dir) {
  const fs::path pci = disk_dir / "device" / "device";
  std::string speed = ReadAttribute(pci / "current_link_speed");
  const std::string width = ReadAttribute(pci / "current_link_width");
  if (speed.empty() || speed.find("Unknown") != std::string::npos) return "";
  constexpr std::string_view kSuffix = " PCIe";  // kernel prints "8.0 GT/s PCIe"
  if (speed.size() > kSuffix.size() &&
      speed.compare(speed.size() - kSuffix.size(), kSuffix.size(), kSuffix) == 0) {
    speed.erase(speed.size() - kSuffix.size());
  }
  std::string link = "PCIe " + speed;
  if (!width.empty() && width != "0") link += " x" + width;
  return link;
}

void Fill(unsigned major, unsigned minor, DeviceInfo& info, const std::string& sysfs_root) {
  std::error_code ec;
  const fs::path root = fs::canonical(sysfs_root, ec);
  if (ec) return;
  // /sys/dev/block/MAJ:MIN is a relative symlink into /sys/devices/….
  fs::path disk = fs::canonical(
      root / "dev" / "block" / (std::to_string(major) + ":" + std::to_string(minor)), ec);
  if (ec) return;
  if (Exists(disk / "partition")) disk = disk.parent_path();  // sdb1 -> sdb
  const std::string name = disk.filename().string();

  info.vendor = ReadAttribute(disk / "device" / "vendor");
  info.model = ReadAttribute(disk / "device" / "model");
  const std::string rotational = ReadAttribute(disk / "queue" / "rotational");
  if (rotational == "0" || rotational == "1") info.rotational = rotational == "1";
  const std::string max_kb = ReadAttribute(disk / "queue" / "max_sectors_kb");
  if (!max_kb.empty() && max_kb.find_first_not_of("0123456789") == std::string::npos &&
      max_kb.size() < 12) {
    info.max_request_bytes = std::stoull(max_kb) * 1024;
  }

  // The transport is read off the device's place in the sysfs hierarchy.
  if (name.rfind("loop", 0) == 0) {
    info.transport = "loop";
    info.backing_file = ReadAttribute(disk / "loop" / "backing_file");
    if (!info.backing_file.empty()) info.link = "backing file " + info.backing_file;
  } else if (name.rfind("nvme", 0) == 0) {
    info.transport = "nvme";
    info.link = NvmeLink(disk);
  } else if (NumberedAncestor(root, disk, "virtio")) {
    info.transport = "virtio";
  } else if (NumberedAncestor(root, disk, "usb")) {
    // USB before ATA: a USB-SATA bridge is a USB device to us.
    info.transport = "usb";
    info.link = UsbLink(root, disk);
  } else if (const std::optional<fs::path> port = NumberedAncestor(root, disk, "ata")) {
    info.transport = "ata";
    info.link = AtaLink(root, *port);
  } else if (Exists(disk / "device" / "scsi_device")) {
    info.transport = "scsi";
  }
}

}  // namespace

void FillSysfsInfo(unsigned major, unsigned minor, DeviceInfo& info,
                   const std::string& sysfs_root) {
  // Metadata is a nicety: no failure here may stop a measurement.
  try {
    Fill(major, minor, info, sysfs_root);
  } catch (...) {
  }
}

}  // namespace zcav
