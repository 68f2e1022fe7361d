#include "zcav/sim_device.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <sstream>

#include "zcav/clock.h"
#include "zcav/error.h"
#include "zcav/units.h"

namespace zcav {
namespace {

constexpr double kCdSpeed1x = 153600;   // B/s: 75 sectors of 2048 B per second
constexpr double kDvdSpeed1x = 1385000; // B/s
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

SimModel BaseModel(const std::string& model) {
  SimModel m;
  m.info.kind = "sim";
  m.info.transport = "sim";
  m.info.vendor = "zcav-sim";
  m.info.direct_io = true;
  m.info.read_engine = "sim";
  if (model == "hdd" || model == "usb2-hdd") {
    // A 250 GB 7200 rpm disk of the USB2 era: 60 MB/s outer, 30 MB/s inner.
    m.info.size_bytes = 250059350016ULL;
    m.info.sector_bytes = 512;
    m.info.rotational = true;
    m.info.model = "simulated 250 GB 7200 rpm 16-zone disk";
    m.zones = LinearZones(16, 60, 30);
    m.track_to_track_ms = 1;
    m.full_stroke_ms = 18;
    m.rpm = 7200;
    // An 8 MiB buffer on a SATA 1.5 Gb/s link (150 MB/s after 8b/10b).
    m.cache_bytes = 8 * kMiB;
    m.interface_mb_per_s = 150;
    if (model == "usb2-hdd") {
      // Real USB2 bulk transfers top out around 35 MB/s of the 60 MB/s
      // signalling rate: the outer zones are capped flat.
      m.ceiling_mb_per_s = 35;
      m.info.model += " behind a USB2 bridge";
      m.info.link = "USB 480 Mb/s";
    }
  } else if (model == "cd") {
    // 80-minute CD: 360000 sectors of 2048 B; program area from 25 to 58 mm.
    m.info.size_bytes = 360000ULL * 2048;
    m.info.sector_bytes = 2048;
    m.info.rotational = true;
    m.info.model = "simulated 40x CAV CD-ROM";
    m.cav = true;
    m.radius_inner_mm = 25;
    m.radius_outer_mm = 58;
    m.outer_mb_per_s = 40 * kCdSpeed1x / kMB;
    m.noise = 0.01;
    // 1x is about 214 rpm at the outer edge (1.3 m/s at 58 mm): 40x ~ 8500.
    m.track_to_track_ms = 20;
    m.full_stroke_ms = 150;
    m.rpm = 8500;
    m.cache_bytes = 2 * kMiB;
    m.interface_mb_per_s = 33;  // ATAPI UDMA-2
  } else if (model == "dvd") {
    // Single-layer DVD: 2295104 sectors of 2048 B; data from 24 to 58 mm.
    m.info.size_bytes = 2295104ULL * 2048;
    m.info.sector_bytes = 2048;
    m.info.rotational = true;
    m.info.model = "simulated 16x CAV DVD-ROM";
    m.cav = true;
    m.radius_inner_mm = 24;
    m.radius_outer_mm = 58;
    m.outer_mb_per_s = 16 * kDvdSpeed1x / kMB;
    m.noise = 0.01;
    // 1x is about 575 rpm at the outer edge (3.49 m/s at 58 mm): 16x ~ 9200.
    m.track_to_track_ms = 20;
    m.full_stroke_ms = 150;
    m.rpm = 9200;
    m.cache_bytes = 2 * kMiB;
    m.interface_mb_per_s = 33;
  } else if (model == "ssd") {
    m.info.size_bytes = 512110190592ULL;
    m.info.sector_bytes = 512;
    m.info.rotational = false;
    m.info.model = "simulated 512 GB SATA SSD";
    m.info.link = "SATA 6.0 Gbps";
    m.zones = {{0, 1, 530}};
    // No seek curve: a fixed 50 us to reach any page; the SATA link is
    // 550 MB/s but there is no cache to read faster than the flash.
    m.track_to_track_ms = 0.05;
    m.full_stroke_ms = 0.05;
    m.interface_mb_per_s = 550;
  } else {
    throw Error("unknown simulated device model '" + model +
                "' (choose one of: hdd, usb2-hdd, cd, dvd, ssd)");
  }
  return m;
}

double ParseNumber(const std::string& key, const std::string& value) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || !std::isfinite(v) || v < 0) {
    throw Error("invalid sim: parameter " + key + "='" + value + "': not a non-negative number");
  }
  return v;
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
  // PosixDevice).
  std::error_code PreparePass() noexcept override {
    positioned_ = true;
    once_end_ = twice_end_ = 0;
    return {};
  }

  std::error_code CheckPresent() noexcept override {
    return unplugged_ ? std::error_code(ENODEV, std::system_category()) : std::error_code();
  }

  std::error_code ReadAt(std::uint64_t offset_bytes, std::span<std::byte> buffer) noexcept override {
    return Access(offset_bytes, buffer.size(), false);
  }

  // A write takes what a read of the same range would (the media rate,
  // positioning, the bus), never hits the cache and empties it; a bad range
  // fails it with EIO as it fails a read. Nothing is stored.
  std::error_code WriteAt(std::uint64_t offset_bytes,
                          std::span<const std::byte> buffer) noexcept override {
    return Access(offset_bytes, buffer.size(), true);
  }

 private:
  std::error_code Access(std::uint64_t offset_bytes, std::uint64_t length, bool write) noexcept {
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
    double seconds = static_cast<double>(length) / (rate * kMB);
    for (const auto& slow : model_.slow) {
      const std::uint64_t lo = std::max(offset_bytes, slow.offset_bytes);
      const std::uint64_t hi = std::min(end, slow.offset_bytes + slow.length_bytes);
      if (hi > lo) seconds += (kSlowTimes - 1) * static_cast<double>(hi - lo) / (rate * kMB);
    }
    if (model_.noise > 0) seconds *= std::max(0.05, 1 + model_.noise * normal_(rng_));
    std::chrono::nanoseconds took =
        model_.per_read_overhead +
        std::chrono::nanoseconds(static_cast<std::int64_t>((seconds + positioning) * 1e9));
    if (bus_) took = bus_->Transfer(bus_member_, clock_.Now(), took, length);
    clock_.Advance(took, write ? 0 : length);  // counts bytes read from storage
    return {};
  }

  SimModel model_;
  VirtualClock& clock_;
  std::mt19937_64 rng_;
  std::normal_distribution<double> normal_{0.0, 1.0};
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
  std::uint64_t head_bytes_ = 0;   // where the previous read ended
  bool positioned_ = false;        // PreparePass() moved the head: the next read is free
  std::uint64_t once_end_ = 0;     // [0, once_end_) has been read at least once
  std::uint64_t twice_end_ = 0;    // [0, twice_end_) at least twice: cached
  bool unplugged_ = false;         // a read reached gone_at_bytes
  std::shared_ptr<SimBus> bus_;    // shared with devices read at the same time
  int bus_member_ = 0;
};

// The bus passes at most ceiling_mb_per_s, whatever the media could do.
double CappedRate(const SimModel& model, double media_mb_per_s) {
  return model.ceiling_mb_per_s > 0 ? std::min(media_mb_per_s, model.ceiling_mb_per_s)
                                    : media_mb_per_s;
}

}  // namespace

SimModel ParseSimSpec(const std::string& name) {
  const std::string spec = name.substr(name.rfind("sim:", 0) == 0 ? 4 : 0);
  const auto q = spec.find('?');
  const std::string model_name = spec.substr(0, q);
  SimModel m = BaseModel(model_name);
  m.info.path = name;
  double outer = m.cav ? m.outer_mb_per_s : (m.zones.empty() ? 0 : m.zones.front().mb_per_s);
  double inner = m.zones.empty() ? 0 : m.zones.back().mb_per_s;
  int zones = static_cast<int>(m.zones.size());
  bool rezone = false;
  if (q != std::string::npos) {
    std::stringstream ss(spec.substr(q + 1));
    std::string item;
    std::set<std::string> seen;
    while (std::getline(ss, item, '&')) {
      const auto eq = item.find('=');
      if (eq == std::string::npos) {
        throw Error("invalid sim: parameter '" + item + "': expected key=value");
      }
      const std::string key = item.substr(0, eq);
      const std::string value = item.substr(eq + 1);
      if (!seen.insert(key).second) throw Error("sim: parameter '" + key + "' given twice");
      if (key == "size") {
        m.info.size_bytes = RoundDown(ParseSize(value, "sim: size"), m.info.sector_bytes);
        if (m.info.size_bytes == 0) throw Error("invalid sim: size '" + value + "': below one sector");
      } else if (key == "seed") {
        m.seed = static_cast<std::uint64_t>(ParseNumber(key, value));
      } else if (key == "noise") {
        const bool pct = !value.empty() && value.back() == '%';
        m.noise = ParseNumber(key, pct ? value.substr(0, value.size() - 1) : value) / (pct ? 100 : 1);
      } else if (key == "outer") {
        outer = ParseNumber(key, value);
        rezone = true;
      } else if (key == "inner" && !m.cav && zones > 1) {
        inner = ParseNumber(key, value);
        rezone = true;
      } else if (key == "zones" && !m.cav && zones > 1) {
        zones = static_cast<int>(ParseCount(value, "sim: zones"));
        rezone = true;
      } else if (key == "ceiling") {
        m.ceiling_mb_per_s = ParseNumber(key, value);
      } else if (key == "bad") {
        m.bad = ParseRanges(value);
      } else if (key == "slow") {
        m.slow = ParseRanges(value);
      } else if (key == "gone") {
        m.gone_at_bytes = ParseSize(value, "sim: gone offset", true);
      } else if (key == "seek") {
        m.full_stroke_ms = ParseNumber(key, value);
        m.track_to_track_ms = std::min(m.track_to_track_ms, m.full_stroke_ms);
        if (m.full_stroke_ms == 0) m.rpm = 0;  // no positioning time at all
      } else if (key == "cache") {
        m.cache_bytes = RoundDown(ParseSize(value, "sim: cache", true), m.info.sector_bytes);
      } else if (key == "bus") {
        if (value.empty()) throw Error("invalid sim: bus name: empty");
        m.bus_name = value;
        if (m.bus_mb_per_s == 0) m.bus_mb_per_s = kDefaultBusMbPerS;
      } else if (key == "busrate") {
        m.bus_mb_per_s = ParseNumber(key, value);
        if (m.bus_mb_per_s <= 0) throw Error("invalid sim: busrate must be above 0 MB/s");
      } else if (key == "interface") {
        m.interface_mb_per_s = ParseNumber(key, value);
        if (m.interface_mb_per_s <= 0) throw Error("invalid sim: interface rate must be above 0 MB/s");
      } else {
        throw Error("unknown sim: parameter '" + key + "' for model " + model_name +
                     " (known: size, seed, noise, outer, ceiling, bad, slow, gone, seek, cache, interface, bus, busrate" +
                    (m.cav || zones == 1 ? "" : ", inner, zones") + ")");
      }
    }
  }
  if (m.bus_mb_per_s > 0 && m.bus_name.empty()) {
    throw Error("invalid sim: busrate without bus=NAME (name the shared bus)");
  }
  if (rezone) {
    if (outer <= 0 || (!m.cav && inner <= 0)) throw Error("invalid sim: rates must be above 0 MB/s");
    if (m.cav) {
      m.outer_mb_per_s = outer;
    } else {
      m.zones = LinearZones(zones, outer, zones == 1 ? outer : inner);
    }
  }
  if (!m.cav && m.zones.size() > 1) {
    // Name what was built, so plots and reports label it truthfully.
    char text[160];
    std::snprintf(text, sizeof text, "simulated %.0f GB %zu-zone disk, %.0f to %.0f MB/s%s",
                  static_cast<double>(m.info.size_bytes) / kGB, m.zones.size(),
                  m.zones.front().mb_per_s, m.zones.back().mb_per_s,
                  m.ceiling_mb_per_s > 0 ? " behind a bus capped at " : "");
    m.info.model = text;
    if (m.ceiling_mb_per_s > 0) {
      std::snprintf(text, sizeof text, "%.0f MB/s", m.ceiling_mb_per_s);
      m.info.model += text;
    }
  }
  return m;
}

double ExpectedMbPerS(const SimModel& model, std::uint64_t offset_bytes, std::uint64_t length_bytes) {
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
  } else {
    for (const auto& z : model.zones) {
      const double lo = std::max(a, z.start_frac * size);
      const double hi = std::min(b, z.end_frac * size);
      if (hi > lo) seconds += (hi - lo) / (CappedRate(model, z.mb_per_s) * kMB);
    }
  }
  if (model.cav && model.ceiling_mb_per_s > 0) {
    seconds = std::max(seconds, (b - a) / (model.ceiling_mb_per_s * kMB));
  }
  return seconds > 0 ? (b - a) / seconds / kMB : 0;
}

double SeekMs(const SimModel& model, std::uint64_t distance_bytes) {
  if (model.full_stroke_ms <= 0) return 0;
  const double fraction =
      std::min(1.0, static_cast<double>(distance_bytes) / static_cast<double>(model.info.size_bytes));
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
    throw Error("simulated bus '" + name + "' given two rates (" + text + ")");
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
