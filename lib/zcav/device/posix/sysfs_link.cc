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
    // (A USB 2.0 descriptor at 12 Mb/s may be a full-speed-only device:
    // only a USB 3 capability, known, makes a slower link a finding.)
    const double best = std::max({bos.value_or(0), usb_version >= 3 ? 5000.0 : 0.0, speed});
    const bool usb3 = best >= 5000;
    s.max = best > 5000 ? Fixed(best, 0) + " Mb/s"
            : usb3      ? "5000 Mb/s or more"
                        : Fixed(best, 0) + " Mb/s";
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
      s.reason = disk + " at " + s.current + ": " + rates + "; a " + Fixed(best / 1000, 0) +
                 " Gb/s port (and cable) would lift it.";
    } else {
      s.reason = disk + " at " + s.current + (s.driver.empty() ? "." : " on " + s.driver + ".");
      if (usb_version >= 2 && speed < 480) {
        s.reason +=
            " A USB 2 device at full speed: if it does high speed, a USB 2 port would "
            "lift the " +
            Fixed(s.limit_mb_per_s, 1) + " MB/s limit to 60.";
      }
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

// SD status register (sysfs "ssr": 128 hex digits, bits 511..0): the field
// of `digits` hex digits whose top bit is `top_bit`; -1 when unreadable.
long SsrField(const std::string& ssr, int top_bit, int digits) {
  if (ssr.size() != 128 || ssr.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    return -1;
  }
  return std::strtol(
      ssr.substr(static_cast<std::size_t>((511 - top_bit) / 4), static_cast<std::size_t>(digits))
          .c_str(),
      nullptr, 16);
}

// SPEED_CLASS (bits 447:440): "class 10".
std::string SpeedClass(const std::string& ssr) {
  const long code = SsrField(ssr, 447, 2);
  const char* names[] = {"class 0", "class 2", "class 4", "class 6", "class 10"};
  return code >= 0 && code <= 4 ? names[code] : "";
}

// The card's other grades from the SSR: UHS_SPEED_GRADE (399:396; U1, U3),
// VIDEO_SPEED_CLASS (391:384; V6 to V90), APP_PERF_CLASS (339:336; A1, A2),
// e.g. "U3, V30, A2"; "" for none.
std::string CardGrades(const std::string& ssr) {
  std::string out;
  const auto add = [&out](const std::string& g) { out += (out.empty() ? "" : ", ") + g; };
  if (const long u = SsrField(ssr, 399, 1); u == 1 || u == 3) add("U" + std::to_string(u));
  if (const long v = SsrField(ssr, 391, 2); v > 0 && v <= 90) add("V" + std::to_string(v));
  if (const long a = SsrField(ssr, 339, 1); a == 1 || a == 2) add("A" + std::to_string(a));
  return out;
}

// The host's bus as it runs now, from debugfs (<sysfs>/kernel/debug/mmcN/ios,
// root only): timing spec, clock and bus width, e.g. "timing spec: 6 (sd
// uhs SDR104)", "clock: 208000000 Hz", "bus width: 2 (4 bits)".
struct MmcIos {
  std::string timing;   // "sd uhs SDR104"; "" = not read
  double clock_hz = 0;  // "actual clock" where given, else "clock"
  int bits = 0;
};
MmcIos ReadIos(const fs::path& file) {
  MmcIos ios;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line) && line.size() < 256;) {
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = line.substr(0, colon);
    const std::string value(Trim(std::string_view(line).substr(colon + 1)));
    const std::size_t open = value.find('('), close = value.rfind(')');
    const std::string inner = open != std::string::npos && close > open
                                  ? CleanText(value.substr(open + 1, close - open - 1), 64)
                                  : "";
    if (key == "timing spec") ios.timing = inner;
    // (Bounded: the text is data. No card bus runs over 1 GHz or 8 bits.)
    const double number = LeadingNumber(value);
    const bool clock_ok = number > 0 && number <= 1e9;
    if (key == "clock" && ios.clock_hz <= 0 && clock_ok) ios.clock_hz = number;
    if (key == "actual clock" && clock_ok) ios.clock_hz = number;
    if (key == "bus width") {
      const double bits = LeadingNumber(inner);
      ios.bits = bits >= 1 && bits <= 8 ? static_cast<int>(bits) : 0;
    }
  }
  return ios;
}

// The host's UHS-I modes from debugfs `caps` (MMC_CAP_UHS_SDR50 1 << 18,
// SDR104 1 << 19, DDR50 1 << 20 in include/linux/mmc/host.h): the fastest
// one's name and rate (MB/s), or {"", 0}.
std::pair<std::string, double> HostUhs(const fs::path& caps_file) {
  const std::string caps = Attr(caps_file);
  if (caps.empty()) return {"", 0};
  const unsigned long bits = std::strtoul(caps.c_str(), nullptr, 16);
  if (bits & (1UL << 19)) return {"SDR104", 104};
  if (bits & (1UL << 20)) return {"DDR50", 50};
  if (bits & (1UL << 18)) return {"SDR50", 50};
  return {"none", 0};
}

std::optional<LinkState> Mmc(const fs::path& root, const std::vector<fs::path>& up) {
  for (const fs::path& card : up) {
    const std::string name = card.filename().string();
    if (!name.starts_with("mmc") || name.find(':') == std::string::npos) continue;
    LinkState s;
    s.transport = "mmc";
    s.card_type = Attr(card / "type");
    if (s.card_type.empty()) s.card_type = "unknown";
    const std::string ssr = Attr(card / "ssr");
    s.speed_class = SpeedClass(ssr);
    s.card_grades = CardGrades(ssr);
    const std::string host = CleanText(card.parent_path().filename().string(), 32);
    const std::string card_name = Attr(card / "name");
    std::string grades = s.speed_class;
    if (!s.card_grades.empty()) grades += (grades.empty() ? "" : ", ") + s.card_grades;
    const std::string what = "an " + s.card_type + " card" +
                             (card_name.empty() ? "" : " (" + card_name + ")") +
                             (grades.empty() ? "" : ", " + grades) + ", behind mmc host " + host;
    const fs::path debug = root / "kernel" / "debug" / host;
    const MmcIos ios = ReadIos(debug / "ios");
    if (ios.timing.empty() || ios.clock_hz <= 0 || ios.bits <= 0) {
      s.current = s.max = "unknown";
      s.reason = what +
                 "; its bus mode is unknown (debugfs mmc ios not readable): the card and the "
                 "reader, not the disk's media, may set the rate.";
      return s;
    }
    // Two transfers a clock: the DDR modes and eMMC's HS400 (200 MHz x 8
    // bits: 400 MB/s).
    const bool ddr = ios.timing.find("DDR") != std::string::npos ||
                     ios.timing.find("HS400") != std::string::npos;
    s.limit_mb_per_s = ios.clock_hz * ios.bits / 8 / 1e6 * (ddr ? 2 : 1);
    s.current = ios.timing + " (" + Fixed(ios.clock_hz / 1e6, 0) + " MHz, " +
                std::to_string(ios.bits) + " bits)";
    const auto [uhs, uhs_mb] = HostUhs(debug / "caps");
    // A UHS card (it has a UHS speed grade) on a host that does UHS-I, not
    // running a UHS mode: the 1.8 V switch or the slot kept it at high speed.
    const bool uhs_card = s.card_grades.starts_with("U");
    s.max = uhs_card && uhs_mb > 0 ? uhs : "unknown";
    s.max_limit_mb_per_s = uhs_card ? uhs_mb : 0;
    s.downgraded =
        uhs_card && uhs_mb > s.limit_mb_per_s * 1.01 && ios.timing.find("uhs") == std::string::npos;
    s.reason = what + " at " + s.current + ": " + Fixed(s.limit_mb_per_s, 0) + " MB/s on the bus";
    if (s.downgraded) {
      s.reason += "; a UHS card on a host that does " + uhs + " (" + Fixed(uhs_mb, 0) +
                  " MB/s) but runs no UHS mode: the 1.8 V switch failed or the slot keeps it "
                  "at high speed; another reader (or re-inserting the card) may lift it.";
    } else if (uhs_card && uhs == "none") {
      s.reason += "; the host does no UHS-I mode: a UHS-I reader would lift the bus limit.";
    } else {
      s.reason += ".";
    }
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
  if (auto s = Mmc(root, up)) return *s;
  if (auto s = Sata(root, up)) return *s;
  if (auto s = Pcie(up)) return *s;
  return {};
}

}  // namespace zcav
