#include "zcav/device/posix/sysfs_info.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/device/posix/sysfs_link.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

// Contents of a small sysfs attribute (at most its first kMaxNoteBytes),
// whitespace-trimmed and without control characters (CleanText: a device's
// answers are data); "" when absent.
std::string ReadAttribute(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::string text(kMaxNoteBytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return CleanText(Trim(text), kMaxNoteBytes);
}

bool Exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// `text` as a decimal count if it is nothing but (at most 11) digits.
std::optional<std::uint64_t> ParseCount(const std::string& text) {
  if (text.empty() || text.size() >= 12 || text.find_first_not_of("0123456789") != text.npos) {
    return std::nullopt;
  }
  return std::stoull(text);
}

bool HasPrefix(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
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

// What udev's database says about one device: its "E:KEY=VALUE" properties
// and its "S:LINK" symlinks (relative to /dev). Empty when there is no file.
struct UdevRecord {
  std::map<std::string, std::string, std::less<>> properties;
  std::vector<std::string> links;
};

UdevRecord ReadUdevRecord(const fs::path& file) {
  UdevRecord record;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (HasPrefix(line, "E:")) {
      const std::size_t equals = line.find('=');
      if (equals == std::string::npos) continue;
      const std::string value =
          CleanText(Trim(std::string_view(line).substr(equals + 1)), kMaxNoteBytes);
      if (!value.empty()) record.properties[line.substr(2, equals - 2)] = value;
    } else if (HasPrefix(line, "S:")) {
      record.links.push_back(CleanText(Trim(std::string_view(line).substr(2)), kMaxNoteBytes));
    }
  }
  return record;
}

std::string Property(const UdevRecord& record, std::string_view key) {
  const auto it = record.properties.find(key);
  return it == record.properties.end() ? "" : it->second;
}

// The first of `values` that is not empty, else "".
std::string FirstKnown(std::initializer_list<std::string> values) {
  for (const std::string& value : values) {
    if (!value.empty()) return value;
  }
  return "";
}

// True for a partition's by-id name: "…-part" followed by a number.
bool IsPartitionName(const std::string& name) {
  const std::size_t at = name.rfind("-part");
  return at != std::string::npos && IsNumbered(name.substr(at + 1), "part");
}

// sysfs wwid as udev's ID_WWN writes the same drive's: SCSI "naa." + 16 hex
// digits becomes "0x…", so that hosts with and without udev agree; other
// forms (NVMe "eui.…", "nvme.…", longer NAA, "t10.…") stay as they are.
std::string WwnFromWwid(const std::string& wwid) {
  constexpr std::string_view kNaa = "naa.";
  if (wwid.size() == kNaa.size() + 16 && HasPrefix(wwid, kNaa) &&
      wwid.find_first_not_of("0123456789abcdefABCDEF", kNaa.size()) == std::string::npos) {
    return "0x" + wwid.substr(kNaa.size());
  }
  return wwid;
}

// The disk's node name under /dev: DEVNAME in its uevent, else its sysfs name.
std::string DevName(const fs::path& disk) {
  std::ifstream in(disk / "uevent");
  std::string line;
  while (std::getline(in, line)) {
    if (HasPrefix(line, "DEVNAME=")) return std::string(Trim(line.substr(8)));
  }
  return disk.filename().string();
}

// The names in `dev_root`/disk/by-id that lead to the disk's node. A link
// matches when its target resolves to the path `dev_root`/DEVNAME rather than
// when stat() finds the device number on it: udev points every by-id link at
// /dev/DEVNAME, so the two agree on a real /dev, and comparing names needs no
// device node, so the tests' fake trees are plain files (making block nodes
// needs mknod and root).
std::vector<std::string> ScanByIdLinks(const fs::path& dev_root, const std::string& dev_name) {
  std::vector<std::string> names;
  std::error_code ec;
  const fs::path node = fs::weakly_canonical(dev_root / dev_name, ec);
  if (ec) return names;
  for (const fs::directory_entry& entry : fs::directory_iterator(dev_root / "disk" / "by-id", ec)) {
    std::error_code entry_ec;
    if (!entry.is_symlink(entry_ec)) continue;
    const fs::path target = fs::canonical(entry.path(), entry_ec);
    if (!entry_ec && target == node) names.push_back(entry.path().filename().string());
  }
  return names;
}

// Serial, WWN, firmware, physical sector size, rotation rate and by-id names
// of the whole disk `disk` (its sysfs directory), as the header says.
void FillIdentity(const fs::path& disk, const std::string& disk_number, DeviceInfo& info,
                  const std::string& udev_root, const std::string& dev_root) {
  const UdevRecord udev = disk_number.empty()
                              ? UdevRecord{}
                              : ReadUdevRecord(fs::path(udev_root) / ("b" + disk_number));
  info.serial =
      FirstKnown({Property(udev, "ID_SERIAL_SHORT"), ReadAttribute(disk / "device" / "serial"),
                  ReadAttribute(disk / "serial")});
  const std::string wwid =
      FirstKnown({ReadAttribute(disk / "wwid"), ReadAttribute(disk / "device" / "wwid")});
  info.wwn = FirstKnown({Property(udev, "ID_WWN"), WwnFromWwid(wwid)});
  info.firmware =
      FirstKnown({ReadAttribute(disk / "device" / "firmware_rev"),
                  ReadAttribute(disk / "device" / "rev"), Property(udev, "ID_REVISION")});
  if (const auto bytes = ParseCount(ReadAttribute(disk / "queue" / "physical_block_size"));
      bytes && *bytes > 0 && *bytes <= UINT32_MAX) {
    info.physical_sector_bytes = static_cast<std::uint32_t>(*bytes);
  }
  if (const auto rpm = ParseCount(Property(udev, "ID_ATA_ROTATION_RATE_RPM"));
      rpm && *rpm <= UINT32_MAX) {
    info.rotation_rpm = static_cast<std::uint32_t>(*rpm);
  }

  constexpr std::string_view kById = "disk/by-id/";
  std::vector<std::string> by_id;
  for (const std::string& link : udev.links) {
    if (HasPrefix(link, kById)) by_id.push_back(link.substr(kById.size()));
  }
  if (by_id.empty()) by_id = ScanByIdLinks(dev_root, DevName(disk));
  std::erase_if(by_id,
                [](const std::string& name) { return name.empty() || IsPartitionName(name); });
  std::sort(by_id.begin(), by_id.end());
  by_id.erase(std::unique(by_id.begin(), by_id.end()), by_id.end());
  info.by_id = std::move(by_id);
  // The identity strings are names, not text: capped (ReadAttribute and the
  // udev record have already removed control characters).
  for (std::string* identity : {&info.serial, &info.wwn, &info.firmware}) {
    if (identity->size() > kMaxIdentityBytes) *identity = CleanText(*identity, kMaxIdentityBytes);
  }
}

void Fill(unsigned major, unsigned minor, DeviceInfo& info, const std::string& sysfs_root,
          const std::string& udev_root, const std::string& dev_root) {
  std::error_code ec;
  const fs::path root = fs::canonical(sysfs_root, ec);
  if (ec) return;
  // /sys/dev/block/MAJ:MIN is a relative symlink into /sys/devices/….
  fs::path disk = fs::canonical(
      root / "dev" / "block" / (std::to_string(major) + ":" + std::to_string(minor)), ec);
  if (ec) return;
  // The whole disk's MAJ:MIN names its udev record; a partition's own
  // number is no use there.
  std::string disk_number = std::to_string(major) + ":" + std::to_string(minor);
  if (Exists(disk / "partition")) {
    disk = disk.parent_path();  // sdb1 -> sdb
    disk_number.clear();
  }
  if (const std::string dev = ReadAttribute(disk / "dev"); !dev.empty()) disk_number = dev;
  const std::string name = disk.filename().string();

  info.vendor = CleanText(ReadAttribute(disk / "device" / "vendor"), kMaxIdentityBytes);
  info.model = CleanText(ReadAttribute(disk / "device" / "model"), kMaxIdentityBytes);
  const std::string rotational = ReadAttribute(disk / "queue" / "rotational");
  if (rotational == "0" || rotational == "1") info.rotational = rotational == "1";
  if (const auto max_kb = ParseCount(ReadAttribute(disk / "queue" / "max_sectors_kb"))) {
    info.max_request_bytes = *max_kb * 1024;
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
  info.link_state = ReadLinkState(root.string(), name);
  FillIdentity(disk, disk_number, info, udev_root, dev_root);
}

}  // namespace

void FillSysfsInfo(unsigned major, unsigned minor, DeviceInfo& info, const std::string& sysfs_root,
                   const std::string& udev_root, const std::string& dev_root) {
  // Metadata is a nicety: no failure here may stop a measurement.
  try {
    Fill(major, minor, info, sysfs_root, udev_root, dev_root);
  } catch (...) {
  }
}

}  // namespace zcav
