#include "zcav/device/sim_device.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

constexpr double kCdSpeed1x = 153600;    // B/s: 75 sectors of 2048 B per second
constexpr double kDvdSpeed1x = 1385000;  // B/s
// A shared bus's rate when bus= gives none: about what Coker's two IDE disks
// reached together on one system (~80 MB/s).
constexpr double kDefaultBusMbPerS = 80;
// How much slower a slow= range reads.
constexpr double kSlowTimes = 30;

// A disk of `zones` zones of equal radial width: rates fall linearly from
// outer to inner, and a zone's share of the capacity is proportional to its
// rate (sectors per track grow with the radius; every zone has as many
// cylinders).
std::vector<SimZone> LinearZones(int zones, double outer, double inner) {
  std::vector<SimZone> out;
  double total = 0;
  for (int k = 0; k < zones; ++k) {
    const double t = zones == 1 ? 0 : static_cast<double>(k) / (zones - 1);
    const double rate = outer + (inner - outer) * t;
    out.push_back({0, 0, rate});
    total += rate;
  }
  double start = 0;
  for (auto& z : out) {
    z.start_frac = start;
    start += z.mb_per_s / total;
    z.end_frac = start;
  }
  out.back().end_frac = 1.0;
  return out;
}

// What every preset states first: its size, sector size, whether it
// rotates, its model and its link ("" when it names none).
void SetIdentity(SimModel& m, std::uint64_t size_bytes, std::uint32_t sector_bytes, bool rotational,
                 std::string model, std::string link) {
  m.info.size_bytes = size_bytes;
  m.info.sector_bytes = sector_bytes;
  m.info.rotational = rotational;
  m.info.model = std::move(model);
  m.info.link = std::move(link);
}

// Positioning time: a seek over a distance near 0 and over the whole device,
// and the spindle speed (0: no rotational latency).
void SetSeek(SimModel& m, double track_to_track_ms, double full_stroke_ms, double rpm) {
  m.track_to_track_ms = track_to_track_ms;
  m.full_stroke_ms = full_stroke_ms;
  m.rpm = rpm;
}

// A 250 GB 7200 rpm disk of the USB2 era: 60 MB/s outer, 30 MB/s inner;
// `usb2` puts it behind a USB2 bridge.
void SetHdd(SimModel& m, bool usb2) {
  SetIdentity(m, 250059350016ULL, 512, true, "simulated 250 GB 7200 rpm 16-zone disk", "");
  m.zones = LinearZones(16, 60, 30);
  SetSeek(m, 1, 18, 7200);
  // An 8 MiB buffer on a SATA 1.5 Gb/s link (150 MB/s after 8b/10b).
  m.cache_bytes = 8 * kMiB;
  m.interface_mb_per_s = 150;
  if (usb2) {
    // Real USB2 bulk transfers top out around 35 MB/s of the 60 MB/s
    // signalling rate: the outer zones are capped flat.
    m.ceiling_mb_per_s = 35;
    m.info.model += " behind a USB2 bridge";
    m.info.link = "USB 480 Mb/s";
  }
}

// A CAV optical disc of `sectors` sectors of 2048 B whose data lies from
// `inner_mm` to `outer_mm`, read at `outer_mb_per_s` at the outer edge while
// spinning at `rpm`, behind a 2 MiB buffer on an ATAPI UDMA-2 link (33 MB/s).
void SetOpticalCav(SimModel& m, std::uint64_t sectors, std::string model, double inner_mm,
                   double outer_mm, double outer_mb_per_s, double rpm) {
  SetIdentity(m, sectors * 2048, 2048, true, std::move(model), "");
  m.cav = true;
  m.radius_inner_mm = inner_mm;
  m.radius_outer_mm = outer_mm;
  m.outer_mb_per_s = outer_mb_per_s;
  m.noise = 0.01;
  SetSeek(m, 20, 150, rpm);
  m.cache_bytes = 2 * kMiB;
  m.interface_mb_per_s = 33;
}

void SetCd(SimModel& m) {
  // 80-minute CD: 360000 sectors of 2048 B; program area from 25 to 58 mm.
  // 1x is about 214 rpm at the outer edge (1.3 m/s at 58 mm): 40x ~ 8500.
  SetOpticalCav(m, 360000, "simulated 40x CAV CD-ROM", 25, 58, 40 * kCdSpeed1x / kMB, 8500);
}

void SetDvd(SimModel& m) {
  // Single-layer DVD: 2295104 sectors of 2048 B; data from 24 to 58 mm.
  // 1x is about 575 rpm at the outer edge (3.49 m/s at 58 mm): 16x ~ 9200.
  SetOpticalCav(m, 2295104, "simulated 16x CAV DVD-ROM", 24, 58, 16 * kDvdSpeed1x / kMB, 9200);
}

void SetSsd(SimModel& m) {
  SetIdentity(m, 512110190592ULL, 512, false, "simulated 512 GB SATA SSD", "SATA 6.0 Gbps");
  m.zones = {{0, 1, 530}};
  // No seek curve: a fixed 50 us to reach any page; the SATA link is
  // 550 MB/s but there is no cache to read faster than the flash.
  SetSeek(m, 0.05, 0.05, 0);
  m.interface_mb_per_s = 550;
}

void SetNvmeThrottle(SimModel& m) {
  // 256 GB keeps a default sweep quick (64 Ki reads of 4 MiB) and long
  // enough (85 s cool) for the default 30 s throttle to strike mid-pass.
  SetIdentity(m, 256'000'000'000ULL, 512, false,
              "simulated 256 GB NVMe SSD that throttles when hot", "PCIe 3.0 x4");
  m.info.default_chunk_bytes = 4 * kMiB;
  m.zones = {{0, 1, 3000}};
  SetSeek(m, 0.02, 0.02, 0);
  m.throttle_after_s = 30;
  m.throttled_mb_per_s = 1200;
  m.cool_after_s = 60;
}

void SetSsdDips(SimModel& m) {
  SetIdentity(m, 256'000'000'000ULL, 512, false,
              "simulated 256 GB SATA SSD with an SLC cache and garbage collection",
              "SATA 6.0 Gbps");
  m.zones = {{0, 0.1, 1060}, {0.1, 1, 530}};
  SetSeek(m, 0.05, 0.05, 0);
  m.dip_every_s = 20;
  m.dip_for_s = 2;
  m.dip_share = 0.3;
}

void SetBandedHdd(SimModel& m) {
  // A modern drive: 250 MB/s outer, 125 inner, serpentine bands of 4 GB
  // alternating +-4 % (a few GB per band is what such drives show; 4 GB
  // keeps several blocks of a default sweep in each band).
  SetIdentity(m, 500'000'000'000ULL, 4096, true, "simulated 500 GB 7200 rpm banded disk",
              "SATA 6.0 Gbps");
  m.zones = LinearZones(16, 250, 125);
  SetSeek(m, 1, 18, 7200);
  m.cache_bytes = 8 * kMiB;
  m.interface_mb_per_s = 600;
  m.band_bytes = 4'000'000'000ULL;
  m.band_amplitude = 0.04;
}

SimModel BaseModel(const std::string& model) {
  SimModel m;
  m.info.kind = "sim";
  m.info.transport = "sim";
  m.info.vendor = "zcav-sim";
  m.info.direct_io = true;
  m.info.read_engine = "sim";
  if (model == "hdd" || model == "usb2-hdd") {
    SetHdd(m, model == "usb2-hdd");
  } else if (model == "cd") {
    SetCd(m);
  } else if (model == "dvd") {
    SetDvd(m);
  } else if (model == "ssd") {
    SetSsd(m);
  } else if (model == "nvme-throttle") {
    SetNvmeThrottle(m);
  } else if (model == "ssd-dips") {
    SetSsdDips(m);
  } else if (model == "banded-hdd") {
    SetBandedHdd(m);
  } else {
    throw Error("unknown simulated device model '" + model +
                    "' (choose one of: hdd, usb2-hdd, cd, dvd, ssd, nvme-throttle, ssd-dips, "
                    "banded-hdd)",
                ErrorKind::kBadInput);
  }
  return m;
}

double ParseNumber(const std::string& key, const std::string& value) {
  const std::optional<double> v = ParseDecimal(value);
  if (!v || *v < 0) {
    throw Error("invalid sim: parameter " + key + "='" + value + "': not a non-negative number",
                ErrorKind::kBadInput);
  }
  return *v;
}

// A rate in MB/s: a number above 0. Throws Error(kBadInput) "invalid sim:
// <what> must be above 0 MB/s" when it is 0 (and as ParseNumber does when it
// is no non-negative number).
double ParseRate(const std::string& key, const std::string& value, const std::string& what) {
  const double mb_per_s = ParseNumber(key, value);
  if (mb_per_s <= 0) {
    throw Error("invalid sim: " + what + " must be above 0 MB/s", ErrorKind::kBadInput);
  }
  return mb_per_s;
}

// A share given as a fraction ("0.3") or a percentage ("30%").
double ParseFraction(const std::string& key, const std::string& value) {
  const bool pct = !value.empty() && value.back() == '%';
  return ParseNumber(key, pct ? value.substr(0, value.size() - 1) : value) / (pct ? 100 : 1);
}

// ssd-dips: a cached first region, then the device's own rate.
std::vector<SimZone> CachedZones(double cached_share, double cached_mb_per_s, double mb_per_s) {
  if (cached_share <= 0) return {{0, 1, mb_per_s}};
  if (cached_share >= 1) return {{0, 1, cached_mb_per_s}};
  return {{0, cached_share, cached_mb_per_s}, {cached_share, 1, mb_per_s}};
}

// A weak region (weak=START-END:FACTOR), its ends as given: resolved
// against the size when the whole spec is read.
struct WeakSpec {
  std::string start, end;
  double factor = 1;
};

std::vector<WeakSpec> ParseWeak(const std::string& value) {
  std::vector<WeakSpec> out;
  std::stringstream ss(value);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto dash = item.find('-');
    const auto colon = item.find(':', dash == std::string::npos ? 0 : dash);
    if (dash == std::string::npos || colon == std::string::npos) {
      throw Error("invalid sim: weak '" + item +
                      "': not START-END:FACTOR (e.g. weak=40%-60%:0.8 or weak=10G-20G:80%)",
                  ErrorKind::kBadInput);
    }
    WeakSpec w{item.substr(0, dash), item.substr(dash + 1, colon - dash - 1), 1};
    w.factor = ParseFraction("weak", item.substr(colon + 1));
    if (!(w.factor > 0)) {
      throw Error("invalid sim: weak '" + item + "': the factor must be above 0",
                  ErrorKind::kBadInput);
    }
    out.push_back(std::move(w));
  }
  return out;
}

// A weak region's end as a share of `size`: "40%" or a size ("10G").
double WeakEnd(const std::string& text, std::uint64_t size) {
  if (!text.empty() && text.back() == '%') return ParseFraction("weak", text);
  return static_cast<double>(ParseSize(text, "sim: weak= position", true)) /
         static_cast<double>(size);
}

// `zones` with the rate of [start, end) (shares of the device) times
// `factor`: the zones it crosses are split at its ends.
std::vector<SimZone> WeakenZones(const std::vector<SimZone>& zones, double start, double end,
                                 double factor) {
  std::vector<SimZone> out;
  for (const SimZone& z : zones) {
    const double lo = std::max(z.start_frac, start);
    const double hi = std::min(z.end_frac, end);
    if (lo >= hi) {
      out.push_back(z);
      continue;
    }
    if (z.start_frac < lo) out.push_back({z.start_frac, lo, z.mb_per_s});
    out.push_back({lo, hi, z.mb_per_s * factor});
    if (hi < z.end_frac) out.push_back({hi, z.end_frac, z.mb_per_s});
  }
  return out;
}

std::vector<SimModel::Range> ParseRanges(const std::string& value) {
  std::vector<SimModel::Range> out;
  std::stringstream ss(value);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto plus = item.find('+');
    const std::string off = item.substr(0, plus);
    const std::uint64_t length =
        plus == std::string::npos ? 512 : ParseSize(item.substr(plus + 1), "sim: bad= length");
    out.push_back({ParseSize(off, "sim: bad= offset", true), length});
  }
  return out;
}

// ParseSimSpec's state: the model being built from its base model, and the
// zone facts that parameters change one at a time and that are applied
// together at the end (outer=, inner= and zones= rebuild the zone table).
class SimSpecParser {
 public:
  // `name` is the whole spec (the device's path); `model_name` its model.
  SimSpecParser(const std::string& name, std::string model_name)
      : model_name_(std::move(model_name)),
        m_(BaseModel(model_name_)),
        dips_model_(model_name_ == "ssd-dips"),
        throttle_model_(model_name_ == "nvme-throttle"),
        banded_model_(model_name_ == "banded-hdd"),
        ssd_model_(model_name_ == "ssd") {
    m_.info.path = name;
    // ssd-dips: outer= is the device's own rate (after its cached region).
    outer_ = m_.cav             ? m_.outer_mb_per_s
             : dips_model_      ? m_.zones.back().mb_per_s
             : m_.zones.empty() ? 0
                                : m_.zones.front().mb_per_s;
    inner_ = m_.zones.empty() ? 0 : m_.zones.back().mb_per_s;
    zones_ = static_cast<int>(m_.zones.size());
    cached_share_ = dips_model_ ? m_.zones.front().end_frac : 0;
    cached_mb_per_s_ = dips_model_ ? m_.zones.front().mb_per_s : 0;
    zoned_keys_ = !m_.cav && zones_ > 1 && !dips_model_;
  }

  // One key=value parameter; throws for a bad value or a key the model has not.
  void Apply(const std::string& key, const std::string& value) {
    if (!ApplyCommon(key, value) && !ApplyRate(key, value) &&
        !(throttle_model_ && ApplyThrottle(key, value)) &&
        !(dips_model_ && ApplyDips(key, value)) && !(banded_model_ && ApplyBand(key, value)) &&
        !(ssd_model_ && ApplyWriteCache(key, value)) && !ApplySimFakeKey(m_.fakes, key, value)) {
      FailUnknown(key);
    }
  }

  // A simulated drive's identity: serial SIM-MODEL-SEED (two sims of one
  // model and seed are the same drive), firmware "zcav-sim", the physical
  // sector as the logical one, and the spindle speed of a disk (0 for a
  // solid-state one; optical drives spin at a varying speed: none).
  void SetSimIdentity() {
    std::string upper;
    for (const char c : model_name_)
      upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    m_.info.serial = serial_ ? *serial_ : "SIM-" + upper + "-" + std::to_string(m_.seed);
    m_.info.firmware = "zcav-sim";
    m_.info.physical_sector_bytes = m_.info.sector_bytes;
    if (!m_.cav) m_.info.rotation_rpm = static_cast<std::uint32_t>(m_.rpm);
  }

  // The model with every parameter applied; throws for parameters that do
  // not go together.
  SimModel Finish() {
    if (m_.bus_mb_per_s > 0 && m_.bus_name.empty()) {
      throw Error("invalid sim: busrate without bus=NAME (name the shared bus)",
                  ErrorKind::kBadInput);
    }
    if (rezone_) {
      if (outer_ <= 0 || (!m_.cav && inner_ <= 0)) {
        throw Error("invalid sim: rates must be above 0 MB/s", ErrorKind::kBadInput);
      }
      if (m_.cav) {
        m_.outer_mb_per_s = outer_;
      } else if (!dips_model_) {
        m_.zones = LinearZones(zones_, outer_, zones_ == 1 ? outer_ : inner_);
      }
    }
    if (dips_model_) m_.zones = CachedZones(cached_share_, cached_mb_per_s_, outer_);
    if (m_.dip_every_s > 0 && m_.dip_for_s >= m_.dip_every_s) {
      throw Error("invalid sim: dip_for must be shorter than dip_every (a dip within each period)",
                  ErrorKind::kBadInput);
    }
    if (!m_.cav && m_.zones.size() > 1 && !dips_model_) NameZonedDisk();
    ApplyWeak();  // after the name: a weak drive is still its model
    FinishWriteCache();
    CheckSimFakes(m_.fakes, m_.info.size_bytes);
    SetSimIdentity();
    return std::move(m_);
  }

 private:
  // The keys every model has, but for the rates: size, seed, noise, the
  // faults, seek, cache and the bus.
  bool ApplyCommon(const std::string& key, const std::string& value) {
    if (key == "size") {
      m_.info.size_bytes = RoundDown(ParseSize(value, "sim: size"), m_.info.sector_bytes);
      if (m_.info.size_bytes == 0) {
        throw Error("invalid sim: size '" + value + "': below one sector", ErrorKind::kBadInput);
      }
    } else if (key == "seed") {
      m_.seed = static_cast<std::uint64_t>(ParseNumber(key, value));
    } else if (key == "serial") {
      // What a drive may answer (tests of how zcav takes a device's strings):
      // as data, as from sysfs (CleanText).
      serial_ = CleanText(value, kMaxIdentityBytes);
    } else if (key == "noise") {
      m_.noise = ParseFraction(key, value);
    } else if (key == "corr") {
      m_.noise_corr = ParseNumber(key, value);
      if (m_.noise_corr >= 1) {
        throw Error("invalid sim: corr '" + value +
                        "': the noise's correlation must be below 1 (e.g. corr=0.5)",
                    ErrorKind::kBadInput);
      }
    } else if (key == "hiccups") {
      m_.hiccup_share = ParseFraction(key, value);
      if (m_.hiccup_share > 1) {
        throw Error(
            "invalid sim: hiccups '" + value + "': a share of the reads and writes, at most 100%",
            ErrorKind::kBadInput);
      }
    } else if (key == "drift") {
      // F:ON:EVERY (ms of virtual time).
      const std::size_t a = value.find(':');
      const std::size_t b = a == std::string::npos ? a : value.find(':', a + 1);
      const auto bad = [&] {
        return Error("invalid sim: drift '" + value +
                         "': not F:ON:EVERY (F from 0.1 to 1; ON at most EVERY ms, EVERY above 0)",
                     ErrorKind::kBadInput);
      };
      if (b == std::string::npos) throw bad();
      const std::optional<double> f = ParseDecimal(value.substr(0, a));
      const std::optional<double> on = ParseDecimal(value.substr(a + 1, b - a - 1));
      const std::optional<double> every = ParseDecimal(value.substr(b + 1));
      if (!f || !on || !every || !(*f >= 0.1 && *f <= 1) || !(*on >= 0) || !(*every > 0) ||
          *on > *every || *every > 1e9) {
        throw bad();
      }
      m_.drift_factor = *f;
      m_.drift_on_ms = *on;
      m_.drift_every_ms = *every;
    } else if (key == "hiccup") {
      m_.hiccup_ms = ParseNumber(key, value);
      if (!(m_.hiccup_ms > 0) || m_.hiccup_ms > 1e6) {
        throw Error("invalid sim: hiccup '" + value + "': not a stall of over 0 ms, at most 1e6",
                    ErrorKind::kBadInput);
      }
    } else if (key == "pace") {
      m_.pace = ParseNumber(key, value);
      if (!(m_.pace > 0)) {
        throw Error("invalid sim: pace '" + value + "': not a speed-up above 0",
                    ErrorKind::kBadInput);
      }
    } else if (key == "bad") {
      m_.bad = ParseRanges(value);
    } else if (key == "slow") {
      m_.slow = ParseRanges(value);
    } else if (key == "weak") {
      weak_ = ParseWeak(value);
    } else if (key == "gone") {
      m_.gone_at_bytes = ParseSize(value, "sim: gone offset", true);
    } else if (key == "seek") {
      m_.full_stroke_ms = ParseNumber(key, value);
      m_.track_to_track_ms = std::min(m_.track_to_track_ms, m_.full_stroke_ms);
      if (m_.full_stroke_ms == 0) m_.rpm = 0;  // no positioning time at all
    } else if (key == "cache") {
      m_.cache_bytes = RoundDown(ParseSize(value, "sim: cache", true), m_.info.sector_bytes);
    } else if (key == "bus") {
      if (value.empty()) throw Error("invalid sim: bus name: empty", ErrorKind::kBadInput);
      m_.bus_name = value;
      if (m_.bus_mb_per_s == 0) m_.bus_mb_per_s = kDefaultBusMbPerS;
    } else if (key == "busrate") {
      m_.bus_mb_per_s = ParseRate(key, value, "busrate");
    } else {
      return false;
    }
    return true;
  }

  // The rates: outer=, ceiling= and interface= for every model; inner= and
  // zones= for zoned disks.
  bool ApplyRate(const std::string& key, const std::string& value) {
    if (key == "outer") {
      outer_ = ParseNumber(key, value);
      rezone_ = true;
    } else if (key == "inner" && zoned_keys_) {
      inner_ = ParseNumber(key, value);
      rezone_ = true;
    } else if (key == "zones" && zoned_keys_) {
      zones_ = static_cast<int>(ParseCount(value, "sim: zones"));
      rezone_ = true;
    } else if (key == "ceiling") {
      m_.ceiling_mb_per_s = ParseNumber(key, value);
    } else if (key == "interface") {
      m_.interface_mb_per_s = ParseRate(key, value, "interface rate");
    } else {
      return false;
    }
    return true;
  }

  // nvme-throttle's keys.
  bool ApplyThrottle(const std::string& key, const std::string& value) {
    if (key == "throttle_after") {
      m_.throttle_after_s = ParseNumber(key, value);
    } else if (key == "throttled") {
      m_.throttled_mb_per_s = ParseRate(key, value, "throttled rate");
    } else if (key == "cool_after") {
      m_.cool_after_s = ParseNumber(key, value);
    } else {
      return false;
    }
    return true;
  }

  // ssd-dips' keys.
  bool ApplyDips(const std::string& key, const std::string& value) {
    if (key == "cached") {
      cached_share_ = ParseFraction(key, value);
      if (cached_share_ > 1) {
        throw Error("invalid sim: cached share '" + value + "': above 100 %", ErrorKind::kBadInput);
      }
    } else if (key == "cached_rate") {
      cached_mb_per_s_ = ParseRate(key, value, "cached_rate");
    } else if (key == "dip_every") {
      m_.dip_every_s = ParseNumber(key, value);
    } else if (key == "dip_for") {
      m_.dip_for_s = ParseNumber(key, value);
    } else if (key == "dip") {
      m_.dip_share = ParseFraction(key, value);
      if (m_.dip_share <= 0 || m_.dip_share > 1) {
        throw Error("invalid sim: dip '" + value + "': the rate share in a dip must be in (0, 1]",
                    ErrorKind::kBadInput);
      }
    } else {
      return false;
    }
    return true;
  }

  // ssd's write-cache keys.
  bool ApplyWriteCache(const std::string& key, const std::string& value) {
    if (key == "wcache") {
      m_.wcache_bytes = RoundDown(ParseSize(value, "sim: wcache", true), m_.info.sector_bytes);
    } else if (key == "wcache_rate") {
      m_.wcache_mb_per_s = ParseRate(key, value, "wcache_rate");
    } else if (key == "wrate") {
      m_.wrate_mb_per_s = ParseRate(key, value, "wrate");
    } else if (key == "fold") {
      m_.fold_bytes = ParseSize(value, "sim: fold", true);
    } else if (key == "fold_rate") {
      m_.fold_mb_per_s = ParseRate(key, value, "fold_rate");
    } else if (key == "recover") {
      m_.recover_mb_per_s = ParseNumber(key, value);
    } else {
      return false;
    }
    return true;
  }

  // The write cache's defaults (see the file comment), once the rates are known.
  void FinishWriteCache() {
    if (m_.wcache_bytes == 0) return;
    if (m_.wcache_mb_per_s <= 0) m_.wcache_mb_per_s = outer_;
    if (m_.wrate_mb_per_s <= 0) m_.wrate_mb_per_s = m_.wcache_mb_per_s / 3;
    if (m_.fold_mb_per_s <= 0) m_.fold_mb_per_s = m_.wrate_mb_per_s / 2;
  }

  // banded-hdd's keys.
  bool ApplyBand(const std::string& key, const std::string& value) {
    if (key == "band") {
      m_.band_bytes = RoundDown(ParseSize(value, "sim: band", true), m_.info.sector_bytes);
    } else if (key == "amplitude") {
      m_.band_amplitude = ParseFraction(key, value);
      if (m_.band_amplitude >= 1) {
        throw Error("invalid sim: amplitude '" + value + "': must be below 100 %",
                    ErrorKind::kBadInput);
      }
    } else {
      return false;
    }
    return true;
  }

  // weak=: each region's media rate times its factor.
  void ApplyWeak() {
    if (weak_.empty()) return;
    if (m_.cav || m_.band_bytes > 0) {
      throw Error("invalid sim: weak= needs a zoned or flat model (not " + model_name_ + ")",
                  ErrorKind::kBadInput);
    }
    for (const WeakSpec& w : weak_) {
      const double start = WeakEnd(w.start, m_.info.size_bytes);
      const double end = WeakEnd(w.end, m_.info.size_bytes);
      if (!(start < end) || end > 1 + 1e-12) {
        throw Error("invalid sim: weak '" + w.start + "-" + w.end +
                        "': not a range within the device (start below end, end at most its size)",
                    ErrorKind::kBadInput);
      }
      m_.zones = WeakenZones(m_.zones, start, std::min(end, 1.0), w.factor);
    }
  }

  [[noreturn]] void FailUnknown(const std::string& key) const {
    std::string known =
        "size, seed, noise, corr, hiccups, hiccup, drift, pace, outer, ceiling, bad, slow, weak, "
        "gone, "
        "seek, cache, "
        "interface, bus, busrate, real, fake, lose, dedup";
    if (zoned_keys_) known += ", inner, zones";
    if (throttle_model_) known += ", throttle_after, throttled, cool_after";
    if (dips_model_) known += ", cached, cached_rate, dip_every, dip_for, dip";
    if (banded_model_) known += ", band, amplitude";
    if (ssd_model_) known += ", wcache, wcache_rate, wrate, fold, fold_rate, recover";
    throw Error(
        "unknown sim: parameter '" + key + "' for model " + model_name_ + " (known: " + known + ")",
        ErrorKind::kBadInput);
  }

  // Names what was built, so plots and reports label it truthfully.
  void NameZonedDisk() {
    char text[160];
    std::snprintf(text, sizeof text, "simulated %.0f GB %zu-zone disk, %.0f to %.0f MB/s%s",
                  static_cast<double>(m_.info.size_bytes) / kGB, m_.zones.size(),
                  m_.zones.front().mb_per_s, m_.zones.back().mb_per_s,
                  m_.ceiling_mb_per_s > 0 ? " behind a bus capped at " : "");
    m_.info.model = text;
    if (m_.ceiling_mb_per_s > 0) {
      std::snprintf(text, sizeof text, "%.0f MB/s", m_.ceiling_mb_per_s);
      m_.info.model += text;
    }
    if (m_.band_bytes > 0 && m_.band_amplitude > 0) {
      std::snprintf(text, sizeof text, ", bands of %.3g GB +-%.3g %%",
                    static_cast<double>(m_.band_bytes) / kGB, m_.band_amplitude * 100);
      m_.info.model += text;
    }
  }

  const std::string model_name_;
  SimModel m_;
  const bool dips_model_;
  const bool throttle_model_;
  const bool banded_model_;
  const bool ssd_model_;
  double outer_ = 0;  // MB/s: the outermost zone (CAV: the outer edge)
  double inner_ = 0;  // MB/s: the innermost zone
  int zones_ = 0;
  bool rezone_ = false;         // a parameter changed outer_, inner_ or zones_
  double cached_share_ = 0;     // ssd-dips: the cached region's share of the device
  std::vector<WeakSpec> weak_;  // weak=, applied last
  double cached_mb_per_s_ = 0;  // ssd-dips: its rate
  bool zoned_keys_ = false;     // inner= and zones= apply (a disk of several zones)
  // serial=, instead of SIM-MODEL-SEED
  std::optional<std::string> serial_;
};

class SimulatedDevice final : public Device {
 public:
  SimulatedDevice(SimModel model, VirtualClock& clock, std::shared_ptr<SimBus> bus)
      : model_(std::move(model)), clock_(clock), rng_(model_.seed), bus_(std::move(bus)) {
    if (bus_) bus_member_ = bus_->Join();
  }
  ~SimulatedDevice() override {
    if (bus_) bus_->Leave(bus_member_);
  }

  const DeviceInfo& info() const override { return model_.info; }

  // Between passes the drive is idle: it positions for the pass's first read
  // untimed, and its cache starts cold (as the page cache does for a
  // PosixDevice). The gap is untimed, so it neither cools a throttling drive
  // nor moves the dips' rhythm.
  std::error_code PreparePass() noexcept override {
    positioned_ = true;
    once_end_ = twice_end_ = 0;
    return {};
  }

  std::error_code CheckPresent() noexcept override {
    return unplugged_ ? std::error_code(ENODEV, std::system_category()) : std::error_code();
  }

  // A throttling model's temperature (see the file comment); none for the
  // others.
  std::optional<double> TemperatureC() noexcept override {
    if (model_.throttle_after_s <= 0 || model_.throttled_mb_per_s <= 0) return std::nullopt;
    const auto rest = clock_.Now() - last_end_;
    const bool cooled =
        rest.count() > 0 && rest >= std::chrono::duration<double>(model_.cool_after_s);
    const double heat = cooled ? 0 : std::min(heat_s_ / model_.throttle_after_s, 1.0);
    return kCoolC + (kThrottleC - kCoolC) * heat;
  }

  // Gives back what was written (SimStorage); leaves the buffer as it is
  // when nothing ever was.
  std::error_code ReadAt(std::uint64_t offset_bytes,
                         std::span<std::byte> buffer) noexcept override {
    const std::error_code ec = Access(offset_bytes, buffer.size(), false, buffer.size());
    if (!ec) storage_.Read(offset_bytes, buffer);
    return ec;
  }

  // A write takes what a read of the same range would (the media rate,
  // positioning, the bus), never hits the cache and empties it; a bad range
  // fails it with EIO as it fails a read. The data is kept (SimStorage);
  // with dedup, only the pages not seen before take time.
  std::error_code WriteAt(std::uint64_t offset_bytes,
                          std::span<const std::byte> buffer) noexcept override {
    if (offset_bytes + buffer.size() > model_.info.size_bytes) {
      return std::error_code(ENXIO, std::system_category());
    }
    const std::error_code ec = Access(offset_bytes, buffer.size(), true, storage_.NewBytes(buffer));
    if (!ec) storage_.Write(offset_bytes, buffer);
    return ec;
  }

  // A simulated SSD's TRIM empties its write cache (and any folding) and
  // forgets the data (reads give zeros); other models have nothing to discard.
  std::error_code DiscardAll() noexcept override {
    if (model_.wcache_bytes == 0) return {EOPNOTSUPP, std::system_category()};
    wcache_used_ = 0;
    after_cache_ = 0;
    storage_.Clear();
    return {};
  }

 private:
  // `timed` of the `length` bytes take time (dedup: the rest is free).
  std::error_code Access(std::uint64_t offset_bytes, std::uint64_t length, bool write,
                         std::uint64_t timed) noexcept {
    if (offset_bytes + length > model_.info.size_bytes) {
      return std::error_code(ENXIO, std::system_category());
    }
    if (model_.gone_at_bytes && offset_bytes + length > *model_.gone_at_bytes) unplugged_ = true;
    if (unplugged_) return std::error_code(ENODEV, std::system_category());
    for (const auto& bad : model_.bad) {
      if (offset_bytes < bad.offset_bytes + bad.length_bytes &&
          bad.offset_bytes < offset_bytes + length) {
        // A failing sector: the drive retries for a while before giving up.
        clock_.Advance(std::chrono::seconds(1));
        return std::error_code(EIO, std::system_category());
      }
    }
    const std::uint64_t end = offset_bytes + length;
    const std::uint64_t cache = model_.cache_bytes;
    const bool cache_hit = !write && end <= twice_end_;
    double positioning = 0;  // seconds
    double rate = 0;         // MB/s
    if (cache_hit) {
      rate = model_.interface_mb_per_s;
      if (model_.ceiling_mb_per_s > 0) rate = std::min(rate, model_.ceiling_mb_per_s);
    } else {
      if (offset_bytes != head_bytes_ && !positioned_) {
        const std::uint64_t distance =
            offset_bytes > head_bytes_ ? offset_bytes - head_bytes_ : head_bytes_ - offset_bytes;
        positioning = SeekMs(model_, distance) / 1e3;
        if (model_.rpm > 0) positioning += uniform_(rng_) * 60 / model_.rpm;
      }
      rate = ExpectedMbPerS(model_, offset_bytes, length);
    }
    // After a hit the drive has read ahead past the cached data: a read
    // continuing from there is sequential.
    head_bytes_ = end;
    positioned_ = false;
    if (write || offset_bytes >= cache) {
      // Reading elsewhere (or writing) evicts the start of the device.
      once_end_ = twice_end_ = 0;
    } else {
      // [0, once_end_) has been read at least once, [0, twice_end_) twice,
      // each contiguously from offset 0.
      if (offset_bytes <= twice_end_) twice_end_ = std::max(twice_end_, std::min(end, once_end_));
      if (offset_bytes <= once_end_) once_end_ = std::max(once_end_, std::min(end, cache));
    }
    const bool cached_write = write && model_.wcache_bytes > 0;
    double seconds = cached_write ? WriteSeconds(timed) : static_cast<double>(timed) / (rate * kMB);
    for (const auto& slow : model_.slow) {
      const std::uint64_t lo = std::max(offset_bytes, slow.offset_bytes);
      const std::uint64_t hi = std::min(end, slow.offset_bytes + slow.length_bytes);
      if (hi > lo) seconds += (kSlowTimes - 1) * static_cast<double>(hi - lo) / (rate * kMB);
    }
    if (!write && model_.drift_every_ms > 0) {
      const double since_ms = static_cast<double>((clock_.Now() - created_).count()) / 1e6;
      if (std::fmod(since_ms, model_.drift_every_ms) < model_.drift_on_ms) {
        seconds /= model_.drift_factor;
      }
    }
    if (model_.noise > 0) seconds *= std::max(0.05, 1 + model_.noise * NextNoise());
    if (!cache_hit && !cached_write) seconds = TimedSeconds(seconds, rate);
    std::chrono::nanoseconds took =
        model_.per_read_overhead +
        std::chrono::nanoseconds(static_cast<std::int64_t>((seconds + positioning) * 1e9));
    if (model_.hiccup_share > 0 && hiccup_uniform_(hiccup_rng_) < model_.hiccup_share) {
      took += std::chrono::nanoseconds(
          static_cast<std::int64_t>(hiccup_uniform_(hiccup_rng_) * model_.hiccup_ms * 1e6));
    }
    if (bus_) took = bus_->Transfer(bus_member_, clock_.Now(), took, length);
    clock_.Advance(took, write ? 0 : length);  // counts bytes read from storage
    last_end_ = clock_.Now();
    Pace(took);
    return {};
  }

  // The next access's standardised noise: independent draws, or (corr=R)
  // the AR(1) process x_k = R * x_(k-1) + sqrt(1 - R^2) * e_k, whose first
  // value is e_0 so that every x_k has stddev 1. One draw per access either
  // way: R == 0 gives the very draws it always gave.
  double NextNoise() {
    const double e = normal_(rng_);
    const double r = model_.noise_corr;
    if (r == 0) return e;
    noise_state_ = noise_started_ ? r * noise_state_ + std::sqrt(1 - r * r) * e : e;
    noise_started_ = true;
    return noise_state_;
  }

  // The seconds a write of `length` bytes takes through the write cache
  // (see the file comment), updating the cache's state: the idle time since
  // the previous access frees cache first.
  double WriteSeconds(std::uint64_t length) {
    const auto idle = clock_.Now() - last_end_;
    if (model_.recover_mb_per_s > 0 && idle.count() > 0 && wcache_used_ > 0) {
      const double freed =
          model_.recover_mb_per_s * kMB * std::chrono::duration<double>(idle).count();
      wcache_used_ -= std::min(wcache_used_, static_cast<std::uint64_t>(freed));
      after_cache_ = 0;  // the cache fills, and folds, again
    }
    double seconds = 0;
    std::uint64_t left = length;
    const std::uint64_t into_cache = std::min(left, model_.wcache_bytes - wcache_used_);
    seconds += static_cast<double>(into_cache) / (model_.wcache_mb_per_s * kMB);
    wcache_used_ += into_cache;
    left -= into_cache;
    const std::uint64_t folding =
        std::min(left, model_.fold_bytes > after_cache_ ? model_.fold_bytes - after_cache_ : 0);
    seconds += static_cast<double>(folding) / (model_.fold_mb_per_s * kMB);
    seconds += static_cast<double>(left - folding) / (model_.wrate_mb_per_s * kMB);
    after_cache_ += left;
    return seconds;
  }

  // pace=N: waits in real time until the real time since the first access
  // is the virtual time spent in accesses since then over N.
  void Pace(std::chrono::nanoseconds took) {
    if (model_.pace <= 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (!pace_start_) pace_start_ = now;
    paced_virtual_ += took;
    const auto due = *pace_start_ + std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        paced_virtual_ / model_.pace);
    if (due > now) std::this_thread::sleep_until(due);
  }

  // The time effects (see the file comment): the seconds a transfer that
  // would take `work_s` at `mb_per_s` takes with throttling and dips,
  // advancing busy_s_ and heat_s_ by it. A rest of cool_after_s since the
  // previous access cools the drive first.
  double TimedSeconds(double work_s, double mb_per_s) {
    const bool throttles = model_.throttle_after_s > 0 && model_.throttled_mb_per_s > 0;
    const bool dips = model_.dip_every_s > 0 && model_.dip_for_s > 0;
    if (!throttles && !dips) return work_s;
    const auto rest = clock_.Now() - last_end_;
    if (throttles && rest.count() > 0 &&
        rest >= std::chrono::duration<double>(model_.cool_after_s)) {
      heat_s_ = 0;
    }
    const double throttled_share =
        mb_per_s > 0 ? std::min(1.0, model_.throttled_mb_per_s / mb_per_s) : 1;
    // Below this a step is lost in the rounding of busy_s_ (hours at most).
    constexpr double kMinStepS = 1e-9;
    double took_s = 0;
    while (work_s > 0) {
      // The rate share now, and how long it holds at most.
      double share = 1;
      double holds_s = std::numeric_limits<double>::infinity();
      if (throttles) {
        if (heat_s_ >= model_.throttle_after_s) {
          share = throttled_share;
        } else {
          holds_s = model_.throttle_after_s - heat_s_;
        }
      }
      if (dips) {
        // The dip closes each period.
        const double phase = std::fmod(busy_s_, model_.dip_every_s);
        const double dip_start = model_.dip_every_s - model_.dip_for_s;
        if (phase >= dip_start) {
          share *= model_.dip_share;
          holds_s = std::min(holds_s, model_.dip_every_s - phase);
        } else {
          holds_s = std::min(holds_s, dip_start - phase);
        }
      }
      const double needs_s = work_s / share;
      const double dt = std::min(needs_s, std::max(holds_s, kMinStepS));
      took_s += dt;
      busy_s_ += dt;
      heat_s_ += dt;
      work_s = dt < needs_s ? work_s - dt * share : 0;
    }
    return took_s;
  }

  SimModel model_;
  VirtualClock& clock_;
  std::chrono::nanoseconds created_ = clock_.Now();  // drift='s time origin
  std::mt19937_64 rng_;
  // hiccups=: its own stream, so that the other draws stay as without it.
  std::mt19937_64 hiccup_rng_{model_.seed ^ 0x9e3779b97f4a7c15ULL};
  std::uniform_real_distribution<double> hiccup_uniform_{0.0, 1.0};
  std::normal_distribution<double> normal_{0.0, 1.0};
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
  double noise_state_ = 0;        // corr=R: the previous access's noise, x_(k-1)
  bool noise_started_ = false;    // an access has drawn noise: noise_state_ holds
  std::uint64_t head_bytes_ = 0;  // where the previous read ended
  bool positioned_ = false;       // PreparePass() moved the head: the next read is free
  std::uint64_t once_end_ = 0;    // [0, once_end_) has been read at least once
  std::uint64_t twice_end_ = 0;   // [0, twice_end_) at least twice: cached
  bool unplugged_ = false;        // a read reached gone_at_bytes
  // Time effects (see the file comment); not reset by PreparePass().
  double busy_s_ = 0;                     // virtual seconds of transfer so far
  double heat_s_ = 0;                     // of them, since the drive last rested
  std::chrono::nanoseconds last_end_{0};  // when the previous access ended
  std::uint64_t wcache_used_ = 0;         // bytes in the write cache
  std::uint64_t after_cache_ = 0;         // bytes written since it was last full
  // pace=N: the real time of the first access, the virtual time since.
  std::optional<std::chrono::steady_clock::time_point> pace_start_;
  std::chrono::duration<double, std::nano> paced_virtual_{0};
  std::shared_ptr<SimBus> bus_;  // shared with devices read at the same time
  int bus_member_ = 0;
  SimStorage storage_{model_.fakes};  // what was written
};

// The bus passes at most ceiling_mb_per_s, whatever the media could do.
double CappedRate(const SimModel& model, double media_mb_per_s) {
  return model.ceiling_mb_per_s > 0 ? std::min(media_mb_per_s, model.ceiling_mb_per_s)
                                    : media_mb_per_s;
}

// Seconds to read [a, b) (bytes) over the zone table at `factor` times the
// zone rates, capped by the bus.
double ZoneSeconds(const SimModel& model, double a, double b, double factor) {
  const double size = static_cast<double>(model.info.size_bytes);
  double seconds = 0;
  for (const auto& z : model.zones) {
    const double lo = std::max(a, z.start_frac * size);
    const double hi = std::min(b, z.end_frac * size);
    if (hi > lo) seconds += (hi - lo) / (CappedRate(model, z.mb_per_s * factor) * kMB);
  }
  return seconds;
}

}  // namespace

SimModel ParseSimSpec(const std::string& name) {
  const std::string spec = name.substr(name.rfind("sim:", 0) == 0 ? 4 : 0);
  const auto q = spec.find('?');
  SimSpecParser parser(name, spec.substr(0, q));
  if (q != std::string::npos) {
    std::stringstream ss(spec.substr(q + 1));
    std::string item;
    std::set<std::string> seen;
    while (std::getline(ss, item, '&')) {
      const auto eq = item.find('=');
      if (eq == std::string::npos) {
        throw Error("invalid sim: parameter '" + item + "': expected key=value",
                    ErrorKind::kBadInput);
      }
      const std::string key = item.substr(0, eq);
      const std::string value = item.substr(eq + 1);
      if (!seen.insert(key).second) {
        throw Error("sim: parameter '" + key + "' given twice", ErrorKind::kBadInput);
      }
      parser.Apply(key, value);
    }
  }
  return parser.Finish();
}

double ExpectedMbPerS(const SimModel& model, std::uint64_t offset_bytes,
                      std::uint64_t length_bytes) {
  const double size = static_cast<double>(model.info.size_bytes);
  const double a = static_cast<double>(offset_bytes);
  const double b = static_cast<double>(offset_bytes + length_bytes);
  double seconds = 0;
  if (model.cav) {
    // CAV: rate is proportional to the radius, and the radius squared grows
    // linearly with the position (constant linear density):
    // rate(x) = k*sqrt(A + B*x); the time is the closed-form integral of 1/rate.
    const double ri = model.radius_inner_mm, ro = model.radius_outer_mm;
    const double k = model.outer_mb_per_s * kMB / ro;  // B/s per mm
    const double A = ri * ri, B = (ro * ro - ri * ri) / size;
    seconds = 2 / (k * B) * (std::sqrt(A + B * b) - std::sqrt(A + B * a));
  } else if (model.band_bytes > 0) {
    // Banding: each band's piece at its band's share of the zone rates.
    const std::uint64_t band = model.band_bytes;
    const std::uint64_t end = offset_bytes + length_bytes;
    for (std::uint64_t k = offset_bytes / band; k * band < end; ++k) {
      const std::uint64_t lo = std::max(offset_bytes, k * band);
      const std::uint64_t hi = std::min(end, (k + 1) * band);
      const double factor = k % 2 == 0 ? 1 + model.band_amplitude : 1 - model.band_amplitude;
      seconds += ZoneSeconds(model, static_cast<double>(lo), static_cast<double>(hi), factor);
    }
  } else {
    seconds = ZoneSeconds(model, a, b, 1);
  }
  if (model.cav && model.ceiling_mb_per_s > 0) {
    seconds = std::max(seconds, (b - a) / (model.ceiling_mb_per_s * kMB));
  }
  return seconds > 0 ? (b - a) / seconds / kMB : 0;
}

double SeekMs(const SimModel& model, std::uint64_t distance_bytes) {
  if (model.full_stroke_ms <= 0) return 0;
  const double fraction = std::min(
      1.0, static_cast<double>(distance_bytes) / static_cast<double>(model.info.size_bytes));
  return model.track_to_track_ms +
         (model.full_stroke_ms - model.track_to_track_ms) * std::sqrt(fraction);
}

double MeanRotationalMs(const SimModel& model) {
  return model.rpm > 0 ? 0.5 * 60e3 / model.rpm : 0;
}

int SimBus::Join() {
  std::lock_guard lock(mutex_);
  members_.push_back({});
  return static_cast<int>(members_.size()) - 1;
}

void SimBus::Leave(int member) {
  {
    std::lock_guard lock(mutex_);
    members_[member].active = false;
    members_[member].pending.reset();
  }
  changed_.notify_all();
}

bool SimBus::IsTurn(int member, std::chrono::nanoseconds start) const {
  for (std::size_t j = 0; j < members_.size(); ++j) {
    if (static_cast<int>(j) == member || !members_[j].active) continue;
    const auto& other = members_[j].pending;
    if (!other) return false;  // it may still issue an earlier request
    if (*other < start || (*other == start && static_cast<int>(j) < member)) return false;
  }
  return true;
}

std::chrono::nanoseconds SimBus::Transfer(int member, std::chrono::nanoseconds start,
                                          std::chrono::nanoseconds media_time,
                                          std::uint64_t bytes) {
  std::unique_lock lock(mutex_);
  members_[member].pending = start;
  changed_.notify_all();
  changed_.wait(lock, [&] { return IsTurn(member, start); });
  const std::chrono::nanoseconds transfer(
      static_cast<std::int64_t>(static_cast<double>(bytes) / (mb_per_s_ * kMB) * 1e9));
  const auto begin = std::max({start, free_at_, start + media_time - transfer});
  free_at_ = begin + transfer;
  const auto took = free_at_ - start;
  members_[member].pending.reset();
  lock.unlock();
  changed_.notify_all();
  return took;
}

std::shared_ptr<SimBus> SimBusSet::Get(const std::string& name, double mb_per_s) {
  auto& bus = buses_[name];
  if (!bus) {
    bus = std::make_shared<SimBus>(mb_per_s);
  } else if (bus->mb_per_s() != mb_per_s) {
    char text[64];
    std::snprintf(text, sizeof text, "%g and %g MB/s", bus->mb_per_s(), mb_per_s);
    throw Error("simulated bus '" + name + "' given two rates (" + text + ")",
                ErrorKind::kBadInput);
  }
  return bus;
}

std::unique_ptr<Device> MakeSimulatedDevice(const SimModel& model, VirtualClock& clock,
                                            std::shared_ptr<SimBus> bus) {
  if (!model.bus_name.empty() && !bus) bus = std::make_shared<SimBus>(model.bus_mb_per_s);
  if (model.bus_name.empty()) bus.reset();
  return std::make_unique<SimulatedDevice>(model, clock, std::move(bus));
}

}  // namespace zcav
