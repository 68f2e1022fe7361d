#include "zcav/device/posix/sysfs_link.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/base/text.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

// A small sysfs attribute, trimmed and cleaned (sysfs text is data); "" when absent.
std::string Attr(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::string text(256, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return CleanText(Trim(text), kMaxIdentityBytes);
}

// The leading number of "8.0 GT/s PCIe", "6.0 Gbps", "480"; 0 when none.
double LeadingNumber(const std::string& text) {
  if (text.empty() || (text[0] < '0' || text[0] > '9')) return 0;
  return std::strtod(text.c_str(), nullptr);
}

std::string Fixed(double value, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, value);
  return buf;
}

// The ancestors of `dir` below `root`, nearest first.
std::vector<fs::path> Ancestors(const fs::path& root, const fs::path& dir) {
  std::vector<fs::path> out;
  for (fs::path d = dir; d.native().size() > root.native().size(); d = d.parent_path()) {
    out.push_back(d);
  }
  return out;
}

// PCIe: GT/s per lane -> MB/s per lane after line coding (8b/10b up to
// 5 GT/s, 128b/130b from 8 GT/s), and the generation.
double PcieLaneMbPerS(double gt_per_s) {
  return gt_per_s * 1000.0 / 8.0 * (gt_per_s < 8 ? 0.8 : 128.0 / 130.0);
}
int PcieGen(double gt_per_s) {
  const double gens[] = {2.5, 5, 8, 16, 32, 64};
  for (int i = 0; i < 6; ++i) {
    if (gt_per_s > 0 && gt_per_s <= gens[i] * 1.01) return i + 1;
  }
  return 0;
}
std::string GenWidth(double gt_per_s, unsigned width) {
  return "gen" + std::to_string(PcieGen(gt_per_s)) + " x" + std::to_string(width);
}
std::string GbPerS(double mb_per_s) { return Fixed(mb_per_s / 1000.0, 2); }

std::string StripSuffix(std::string text, const std::string& suffix) {
  if (text.size() > suffix.size() && text.ends_with(suffix))
    text.erase(text.size() - suffix.size());
  return text;
}

std::optional<LinkState> Pcie(const std::vector<fs::path>& up) {
  LinkState s;
  bool found = false;
  double device_gt = 0;
  unsigned device_width = 0;
  std::string limiting;  // the hop that limits, when it is not the device
  for (const fs::path& dir : up) {
    const double gt = LeadingNumber(Attr(dir / "current_link_speed"));
    const unsigned width = static_cast<unsigned>(LeadingNumber(Attr(dir / "current_link_width")));
    if (gt <= 0 || width == 0) continue;
    const double mb = PcieLaneMbPerS(gt) * width;
    if (!found) {
      found = true;
      device_gt = gt;
      device_width = width;
      s.current = StripSuffix(Attr(dir / "current_link_speed"), " PCIe");
      s.max = StripSuffix(Attr(dir / "max_link_speed"), " PCIe");
      s.width = width;
      s.max_width = static_cast<unsigned>(LeadingNumber(Attr(dir / "max_link_width")));
      s.limit_mb_per_s = mb;
      const double max_gt = LeadingNumber(s.max);
      if (max_gt > 0 && s.max_width > 0)
        s.max_limit_mb_per_s = PcieLaneMbPerS(max_gt) * s.max_width;
    } else if (mb < s.limit_mb_per_s * 0.99) {
      s.limit_mb_per_s = mb;
      limiting = dir.filename().string() + " (" + GenWidth(gt, width) + ")";
    }
  }
  if (!found) return std::nullopt;
  s.transport = "pcie";
  s.downgraded = s.max_limit_mb_per_s > 0 && s.limit_mb_per_s < s.max_limit_mb_per_s * 0.99;
  const std::string best = s.max_limit_mb_per_s > 0 ? GenWidth(LeadingNumber(s.max), s.max_width)
                                                    : GenWidth(device_gt, device_width);
  if (s.downgraded) {
    s.reason = "this PCIe " + best + " drive trained at " + GenWidth(device_gt, device_width) +
               (limiting.empty() ? "" : " behind port " + limiting) + ": " +
               GbPerS(s.limit_mb_per_s) + " of " + GbPerS(s.max_limit_mb_per_s) +
               " GB/s; a slot wired for " + best + " (or reseating the drive) would lift it.";
  } else {
    s.reason = "PCIe " + GenWidth(device_gt, device_width) +
               " at its best: " + GbPerS(s.limit_mb_per_s) + " GB/s.";
  }
  return s;
}

// SATA line rate: Gbps with 8b/10b coding, MB/s.
double SataMbPerS(double gbps) { return gbps * 1000.0 / 8.0 * 0.8; }

std::optional<LinkState> Sata(const fs::path& root, const std::vector<fs::path>& up) {
  for (const fs::path& port : up) {
    const std::string name = port.filename().string();
    if (!name.starts_with("ata") || name.size() < 4 ||
        name.find_first_not_of("0123456789", 3) != std::string::npos) {
      continue;
    }
    // port/linkN/ata_link/linkN (sysfs-ata), or class/ata_link/linkN.
    fs::path link = port / ("link" + name.substr(3)) / "ata_link" / ("link" + name.substr(3));
    std::error_code ec;
    if (!fs::exists(link / "sata_spd", ec))
      link = root / "class" / "ata_link" / ("link" + name.substr(3));
    LinkState s;
    s.transport = "sata";
    s.current = Attr(link / "sata_spd");
    s.max = Attr(link / "hw_sata_spd_limit");
    if (LeadingNumber(s.max) <= 0) s.max = Attr(link / "sata_spd_limit");
    const double cur = LeadingNumber(s.current), best = LeadingNumber(s.max);
    if (cur <= 0) s.current = "unknown";
    if (best <= 0) s.max = "unknown";
    s.limit_mb_per_s = cur > 0 ? SataMbPerS(cur) : 0;
    s.max_limit_mb_per_s = best > 0 ? SataMbPerS(best) : 0;
    s.downgraded = cur > 0 && best > cur * 1.01;
    if (s.downgraded) {
      s.reason =
          "a SATA " + s.max + " drive on a " + s.current + " link: " + Fixed(s.limit_mb_per_s, 0) +
          " of " + Fixed(s.max_limit_mb_per_s, 0) +
          " MB/s; another cable or port (or a host port's speed limit lifted) would lift it.";
    } else {
      s.reason = "SATA link at " + s.current + " (best " + s.max + ").";
    }
    return s;
  }
  return std::nullopt;
}

// USB line rate: Mb/s with 8b/10b at 5 Gb/s, 128b/132b above; MB/s.
double UsbMbPerS(double mbit) {
  if (mbit <= 480) return mbit / 8.0;
  return mbit / 8.0 * (mbit <= 5000 ? 0.8 : 128.0 / 132.0);
}

// The best USB speed (Mb/s) the device's BOS descriptor names: 5000 for a
// SuperSpeed capability (type 3), 10000 for SuperSpeedPlus (type 0x0A), 0
// for neither; nullopt where sysfs has no bos_descriptors (kernels before
// 6.9, devices under USB 2.01). The file is the device's, so its bytes are
// data: each descriptor walked by its own length, within the file.
std::optional<double> BosBestMbit(const fs::path& dev) {
  std::ifstream in(dev / "bos_descriptors", std::ios::binary);
  if (!in) return std::nullopt;
  std::string b(4096, '\0');
  in.read(b.data(), static_cast<std::streamsize>(b.size()));
  b.resize(static_cast<std::size_t>(in.gcount()));
  const auto at = [&](std::size_t i) { return static_cast<unsigned char>(b[i]); };
  if (b.size() < 5 || at(1) != 0x0F || at(0) < 5) return 0.0;
  const std::size_t total = std::min<std::size_t>(b.size(), at(2) | (at(3) << 8));
  double best = 0;
  for (std::size_t pos = at(0); pos + 3 <= total && at(pos) >= 3 && pos + at(pos) <= total;
       pos += at(pos)) {
    if (at(pos + 1) != 0x10) continue;  // not a device capability
    if (at(pos + 2) == 0x03) best = std::max(best, 5000.0);
    if (at(pos + 2) == 0x0A) best = std::max(best, 10000.0);
  }
  return best;
}

// Where a USB 3 disk below 5000 Mb/s is plugged in: the port's SuperSpeed
// peer (sysfs `port/peer`, the port's other half on the USB 3 root hub) says
// the port itself does USB 3, so the cable or the contacts fell back to USB 2.
std::string SlowUsbPlace(const fs::path& dev, double hub_speed) {
  std::error_code ec;
  if (fs::exists(dev / "port", ec)) {
    return fs::exists(dev / "port" / "peer", ec) ? "a USB 3 port that trained at USB 2"
                                                 : "a USB 2 port";
  }
  return hub_speed > 0 && hub_speed < 5000 ? "a USB 2 port" : "a USB 2 link";
}

std::optional<LinkState> Usb(const std::vector<fs::path>& up) {
  for (std::size_t i = 0; i < up.size(); ++i) {
    const double speed = LeadingNumber(Attr(up[i] / "speed"));
    if (speed <= 0 || Attr(up[i] / "version").empty()) continue;
    LinkState s;
    s.transport = "usb";
    const double usb_version = LeadingNumber(Attr(up[i] / "version"));
    s.current = Fixed(speed, 0) + " Mb/s";
    // The interface below the device ("2-1:1.0") names the driver.
    if (i > 0) {
      std::error_code ec;
      const fs::path target = fs::read_symlink(up[i - 1] / "driver", ec);
      if (!ec) s.driver = CleanText(target.filename().string(), kMaxIdentityBytes);
    }
    const double hub = i + 1 < up.size() ? LeadingNumber(Attr(up[i + 1] / "speed")) : 0;
    // A USB 3 device on a USB 2 link reports version 2.10; its BOS
    // descriptor still names SuperSpeed (what USBView calls "High (is
    // SuperSpeed or higher capable)").
    const std::optional<double> bos = BosBestMbit(up[i]);
    const double best = std::max({bos.value_or(0), usb_version >= 3 ? 5000.0 : 480.0, speed});
    const bool usb3 = best >= 5000;
    s.max = best > 5000 ? Fixed(best, 0) + " Mb/s" : usb3 ? "5000 Mb/s or more" : "480 Mb/s";
    s.limit_mb_per_s = UsbMbPerS(speed);
    s.max_limit_mb_per_s = UsbMbPerS(best);
    const bool slow_link = speed < best;
    const bool bot = usb3 && s.driver == "usb-storage";
    s.downgraded = slow_link || bot;
    const std::string disk = best > 5000 ? "a USB 3 disk of " + Fixed(best / 1000, 0) + " Gb/s"
                             : usb3      ? "a USB 3 disk"
                                         : "a USB " + Fixed(usb_version, 1) + " disk";
    const std::string rates =
        Fixed(s.limit_mb_per_s, 0) + " of " + Fixed(s.max_limit_mb_per_s, 0) + " MB/s";
    if (slow_link && usb3 && speed < 5000) {
      s.reason = disk + " on " + SlowUsbPlace(up[i], hub) + " (" + s.current + "): " + rates +
                 "; a USB 3 port (and cable) would lift it.";
    } else if (slow_link) {
      s.reason = disk + " at " + s.current + ": " + rates + "; a " +
                 (usb3 ? Fixed(best / 1000, 0) + " Gb/s" : std::string("USB 2 (480 Mb/s)")) +
                 " port (and cable) would lift it.";
    } else {
      s.reason = disk + " at " + s.current + (s.driver.empty() ? "." : " on " + s.driver + ".");
    }
    // Version 2.10 without a BOS descriptor to read: USB 3 or not is unknown.
    if (!bos && !usb3 && usb_version > 2.05) {
      s.reason += " It reports USB " + Fixed(usb_version, 2) +
                  ", as a USB 3 disk on a USB 2 link does; if it is one, a USB 3 port and cable "
                  "would lift the " +
                  Fixed(s.limit_mb_per_s, 0) +
                  " MB/s limit (this kernel's sysfs has no BOS descriptor to tell).";
    }
    if (bot) {
      s.reason +=
          " It runs on usb-storage (BOT), not uas: one command at a time; a "
          "uas-capable enclosure would lift it.";
    }
    return s;
  }
  return std::nullopt;
}

// SD status register (sysfs "ssr", 128 hex digits = bits 511..0): SPEED_CLASS is
// bits 447:440, i.e. byte 8 from the top.
std::string SpeedClass(const std::string& ssr) {
  if (ssr.size() < 18 || ssr.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    return "";
  }
  const long code = std::strtol(ssr.substr(16, 2).c_str(), nullptr, 16);
  const char* names[] = {"class 0", "class 2", "class 4", "class 6", "class 10"};
  return code >= 0 && code <= 4 ? names[code] : "";
}

std::optional<LinkState> Mmc(const std::vector<fs::path>& up) {
  for (const fs::path& card : up) {
    const std::string name = card.filename().string();
    if (!name.starts_with("mmc") || name.find(':') == std::string::npos) continue;
    LinkState s;
    s.transport = "mmc";
    s.card_type = Attr(card / "type");
    if (s.card_type.empty()) s.card_type = "unknown";
    s.speed_class = SpeedClass(Attr(card / "ssr"));
    s.current = "unknown";
    s.max = "unknown";
    const std::string host = card.parent_path().filename().string();
    const std::string card_name = Attr(card / "name");
    s.reason = "an " + s.card_type + " card" + (card_name.empty() ? "" : " (" + card_name + ")") +
               " behind mmc host " + host +
               (s.speed_class.empty() ? "" : ", speed " + s.speed_class) +
               "; its bus mode is unknown (sysfs does not give it): the card and the reader, "
               "not the disk's media, may set the rate.";
    return s;
  }
  return std::nullopt;
}

}  // namespace

LinkState ReadLinkState(const std::string& sysfs_root, const std::string& block_name) {
  std::error_code ec;
  const fs::path root = fs::canonical(sysfs_root, ec);
  if (ec || block_name.empty() || block_name.find('/') != std::string::npos) return {};
  fs::path disk = fs::canonical(root / "class" / "block" / block_name, ec);
  if (ec) return {};
  if (fs::exists(disk / "partition", ec)) disk = disk.parent_path();
  const std::vector<fs::path> up = Ancestors(root, disk);
  // USB and MMC before PCIe: their hosts sit on PCI functions too.
  if (auto s = Usb(up)) return *s;
  if (auto s = Mmc(up)) return *s;
  if (auto s = Sata(root, up)) return *s;
  if (auto s = Pcie(up)) return *s;
  return {};
}

}  // namespace zcav
