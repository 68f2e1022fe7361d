#include "zcav/analysis/transport.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "zcav/base/error.h"

// The ceilings below are practical figures for long sequential reads, from
// the link rate less line coding and protocol overhead, checked against what
// benchmarks of the era report (HD Tune/AIDA32 runs quoted in the zcav seeds,
// vendor notes, and the USB/SATA/PCIe specifications for the theoretical
// payload). They are round numbers on purpose: the verdict asks "near the
// ceiling?" with a 25 % margin, not "at exactly 40.0 MB/s?". MB/s = 10^6 B/s.

namespace zcav {
namespace {

struct BusEntry {
  const char* name;   // --bus name
  const char* alias;  // second accepted name, or ""
  const char* kind;
  const char* link;
  double theoretical_mb_per_s;
  double ceiling_mb_per_s;
};

// clang-format off
constexpr BusEntry kBuses[] = {
  // USB 1.1 full speed: 12 Mb/s = 1.5 MB/s raw; bulk payload ~1.2 MB/s
  // (19 64-byte packets per 1 ms frame), ~1.0 MB/s real.
  {"usb1",    "usb1.1",  "usb", "USB 1.1 (12 Mb/s)",      1.216,   1.0},
  // USB 2.0 high speed: 480 Mb/s signalling; bulk payload 53.248 MB/s
  // (13 512-byte packets per 125 us microframe). Real mass-storage reads
  // reach 35-42 MB/s (BOT protocol round trips; UASP bridges the top end).
  {"usb2",    "",        "usb", "USB 2.0 (480 Mb/s)",     53.248,  40.0},
  // USB 3.0 / 3.1 Gen 1 / 3.2 Gen 1: 5 Gb/s, 8b/10b = 500 MB/s; ~400 real.
  {"usb3",    "usb3.0",  "usb", "USB 3.0 (5 Gb/s)",       500,     400},
  // USB 3.1 Gen 2: 10 Gb/s, 128b/132b = ~1212 MB/s; ~900-1000 real.
  {"usb3.1",  "usb10g",  "usb", "USB 3.1 Gen 2 (10 Gb/s)", 1212,   900},
  // USB 3.2 Gen 2x2: 20 Gb/s, two lanes; ~1700-2000 real (rough).
  {"usb3.2",  "usb20g",  "usb", "USB 3.2 Gen 2x2 (20 Gb/s)", 2424, 1800},
  // FireWire 400 (IEEE 1394a): 400 Mb/s = 50 MB/s; ~40 MB/s real (SBP-2).
  {"fw400",   "firewire400", "firewire", "FireWire 400",  50,      40},
  // FireWire 800 (IEEE 1394b): 800 Mb/s = 100 MB/s; ~80 MB/s real.
  {"fw800",   "firewire800", "firewire", "FireWire 800",  100,     80},
  // Parallel ATA Ultra DMA modes 2/4/5/6: 33.3/66.7/100/133.3 MB/s burst;
  // about 90 % of that sustained through the interface.
  {"udma33",  "ata33",   "pata", "PATA UDMA/33",          33.3,    30},
  {"udma66",  "ata66",   "pata", "PATA UDMA/66",          66.7,    60},
  {"udma100", "ata100",  "pata", "PATA UDMA/100",         100,     90},
  {"udma133", "ata133",  "pata", "PATA UDMA/133",         133.3,   120},
  // SATA: 1.5/3/6 Gb/s with 8b/10b coding = 150/300/600 MB/s; FIS framing
  // and command overhead leave ~140/280/560 (fast SSDs top out ~550-560).
  {"sata1",   "sata1.5", "ata", "SATA 1.5 Gb/s",          150,     140},
  {"sata2",   "sata3g",  "ata", "SATA 3 Gb/s",            300,     280},
  {"sata3",   "sata6g",  "ata", "SATA 6 Gb/s",            600,     560},
  // SAS: 3/6/12 Gb/s, 8b/10b = 300/600/1200 MB/s per lane; ~93 % real.
  {"sas3",    "sas3g",   "sas", "SAS 3 Gb/s",             300,     280},
  {"sas6",    "sas6g",   "sas", "SAS 6 Gb/s",             600,     560},
  {"sas12",   "sas12g",  "sas", "SAS 12 Gb/s",            1200,    1100},
};
// clang-format on

// PCIe per-lane payload after line coding: gen1 2.5 GT/s 8b/10b = 250 MB/s,
// gen2 5 GT/s = 500, gen3 8 GT/s 128b/130b = 985, gen4 16 GT/s = 1969, gen5
// 32 GT/s = 3938. TLP headers and flow control leave ~85 % for reads.
constexpr double kPcieLaneMbPerS[] = {250, 500, 984.6, 1969.2, 3938.5};
constexpr double kPcieGtPerS[] = {2.5, 5, 8, 16, 32};
constexpr double kPcieEfficiency = 0.85;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Transport FromEntry(const BusEntry& e, std::string source) {
  Transport t;
  t.kind = e.kind;
  t.link = e.link;
  t.theoretical_mb_per_s = e.theoretical_mb_per_s;
  t.ceiling_mb_per_s = e.ceiling_mb_per_s;
  t.source = std::move(source);
  return t;
}

const BusEntry* FindEntry(std::string_view name) {
  for (const BusEntry& e : kBuses) {
    if (name == e.name || (e.alias[0] != '\0' && name == e.alias)) return &e;
  }
  return nullptr;
}

Transport Pcie(int gen, int width, std::string source) {
  Transport t;
  t.kind = "nvme";
  t.link = "PCIe gen" + std::to_string(gen) + " x" + std::to_string(width);
  t.theoretical_mb_per_s = kPcieLaneMbPerS[gen - 1] * width;
  t.ceiling_mb_per_s = t.theoretical_mb_per_s * kPcieEfficiency;
  t.source = std::move(source);
  return t;
}

// The number just before `unit` in `text` ("USB 480 Mb/s", "Mb/s" -> 480), or
// -1 when absent.
double NumberBefore(const std::string& text, const std::string& unit) {
  const std::size_t at = text.find(unit);
  if (at == std::string::npos) return -1;
  std::size_t end = at;
  while (end > 0 && text[end - 1] == ' ') --end;
  std::size_t begin = end;
  while (begin > 0 &&
         (std::isdigit(static_cast<unsigned char>(text[begin - 1])) || text[begin - 1] == '.')) {
    --begin;
  }
  if (begin == end) return -1;
  return std::strtod(text.substr(begin, end - begin).c_str(), nullptr);
}

bool Near(double a, double b) { return std::abs(a - b) <= 0.05 * b; }

struct RateName {
  double rate;       // as the kernel reports it: Mb/s for USB, Gb/s for SATA
  const char* name;  // in kBuses
};
constexpr RateName kUsbSpeeds[] = {
    {12, "usb1"}, {480, "usb2"}, {5000, "usb3"}, {10000, "usb3.1"}, {20000, "usb3.2"}};
constexpr RateName kSataSpeeds[] = {{1.5, "sata1"}, {3.0, "sata2"}, {6.0, "sata3"}};

// The bus name for a reported link rate, or nullptr.
template <std::size_t N>
const char* NameForRate(double rate, const RateName (&table)[N]) {
  for (const RateName& r : table) {
    if (Near(rate, r.rate)) return r.name;
  }
  return nullptr;
}

// The transport of the device's link string (DeviceInfo::link).
Transport FromLinkString(const DeviceInfo& device) {
  const std::string source = device.kind == "sim" ? "sim" : "sysfs";
  const std::string& link = device.link;
  // A named link of a known rate maps to its table entry; an unexpected
  // figure (USB 1.5 Mb/s low speed, say) is that bus with an unknown ceiling.
  const auto by_rate = [&](const char* kind, double rate, const auto& speeds) {
    if (const char* name = NameForRate(rate, speeds)) return FromEntry(*FindEntry(name), source);
    Transport t;
    t.kind = kind;
    t.link = link;
    t.source = source;
    return t;
  };
  if (link.rfind("USB", 0) == 0) return by_rate("usb", NumberBefore(link, "Mb/s"), kUsbSpeeds);
  if (link.rfind("SATA", 0) == 0) return by_rate("ata", NumberBefore(link, "Gbps"), kSataSpeeds);
  if (link.rfind("PCIe", 0) == 0) {
    const double gt = NumberBefore(link, "GT/s");
    int width = 1;
    const std::size_t x = link.rfind(" x");
    if (x != std::string::npos) {
      const int w = std::atoi(link.c_str() + x + 2);
      if (w > 0) width = w;
    }
    for (int gen = 1; gen <= 5; ++gen) {
      if (Near(gt, kPcieGtPerS[gen - 1])) return Pcie(gen, width, source);
    }
    Transport t;
    t.kind = "nvme";
    t.link = link;
    t.source = source;
    return t;
  }
  Transport t;
  t.kind =
      device.transport.empty() ? (device.kind == "file" ? "file" : "unknown") : device.transport;
  t.link = link;
  t.source = device.transport.empty() && link.empty() ? "unknown" : source;
  return t;
}

}  // namespace

Transport TransportFromDevice(const DeviceInfo& device) {
  Transport t = FromLinkString(device);
  const LinkState& state = device.link_state;
  if (state.downgraded || state.transport == "mmc") t.link_diagnosis = state.reason;
  // An SD/MMC bus whose mode debugfs gave: its rate is the ceiling, less the
  // commands between blocks (readers reach about 0.9 of it: 22-23 MB/s in
  // 25 MB/s high-speed mode, 90 in SDR104's 104).
  if (state.transport == "mmc" && state.limit_mb_per_s > 0 && t.ceiling_mb_per_s <= 0) {
    t.theoretical_mb_per_s = state.limit_mb_per_s;
    t.ceiling_mb_per_s = 0.9 * state.limit_mb_per_s;
    t.link = "SD/MMC bus " + state.current;
    t.source = "sysfs";
  }
  return t;
}

Transport TransportFromName(const std::string& bus) {
  const std::string name = Lower(bus);
  if (const BusEntry* e = FindEntry(name)) return FromEntry(*e, "--bus");
  // pcieGxW
  int gen = 0;
  int width = 0;
  char tail = 0;
  if (std::sscanf(name.c_str(), "pcie%dx%d%c", &gen, &width, &tail) == 2 && gen >= 1 && gen <= 5 &&
      (width == 1 || width == 2 || width == 4 || width == 8 || width == 16)) {
    return Pcie(gen, width, "--bus");
  }
  // One line (bad input gets one line on stderr): the names only.
  std::string names;
  for (const BusEntry& e : kBuses) names += (names.empty() ? "" : ", ") + std::string(e.name);
  throw Error("unknown bus '" + bus + "' for --bus (choose one of: " + names + ", pcieGxW)",
              ErrorKind::kBadInput);
}

std::string BusNames() {
  std::string out;
  char line[160];
  for (const BusEntry& e : kBuses) {
    std::string names = e.name;
    if (e.alias[0] != '\0') names += std::string(" (") + e.alias + ")";
    std::snprintf(line, sizeof line, "  %-22s %-26s ~%g MB/s\n", names.c_str(), e.link,
                  e.ceiling_mb_per_s);
    out += line;
  }
  out +=
      "  pcieGxW                PCIe gen G (1-5), W lanes (1, 2, 4, 8, 16), e.g. pcie3x4: "
      "~85 % of 250/500/985/1969/3938 MB/s per lane\n";
  return out;
}

}  // namespace zcav
