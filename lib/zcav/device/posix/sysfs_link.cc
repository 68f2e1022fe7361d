#include "zcav/device/posix/sysfs_link.h"

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

std::optional<LinkState> Usb(const std::vector<fs::path>& up) {
  for (std::size_t i = 0; i < up.size(); ++i) {
    const double speed = LeadingNumber(Attr(up[i] / "speed"));
    if (speed <= 0 || Attr(up[i] / "version").empty()) continue;
    LinkState s;
    s.transport = "usb";
    const std::string version = Attr(up[i] / "version");
    const double usb_version = LeadingNumber(version);
    s.current = Fixed(speed, 0) + " Mb/s";
    // The interface below the device ("2-1:1.0") names the driver.
    if (i > 0) {
      std::error_code ec;
      const fs::path target = fs::read_symlink(up[i - 1] / "driver", ec);
      if (!ec) s.driver = CleanText(target.filename().string(), kMaxIdentityBytes);
    }
    const double port = i + 1 < up.size() ? LeadingNumber(Attr(up[i + 1] / "speed")) : 0;
    const double best = usb_version >= 3 ? 5000 : 480;  // the least a USB 3 device does
    s.max = usb_version >= 3 ? "5000 Mb/s or more" : "480 Mb/s";
    s.limit_mb_per_s = UsbMbPerS(speed);
    s.max_limit_mb_per_s = UsbMbPerS(best);
    const bool slow_port = usb_version >= 3 && speed < 5000;
    const bool bot = usb_version >= 3 && s.driver == "usb-storage";
    s.downgraded = slow_port || bot;
    const std::string disk = "a USB " + Fixed(usb_version, usb_version >= 3 ? 0 : 1) + " disk";
    if (slow_port) {
      s.reason = disk + " on a USB " + std::string(port > 0 && port < 5000 ? "2 port" : "2 link") +
                 " (" + s.current + "): " + Fixed(s.limit_mb_per_s, 0) + " of " +
                 Fixed(s.max_limit_mb_per_s, 0) + " MB/s; a USB 3 port (and cable) would lift it.";
    } else {
      s.reason = disk + " at " + s.current;
      s.reason += s.driver.empty() ? "." : " on " + s.driver + ".";
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
