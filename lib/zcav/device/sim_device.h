// SimulatedDevice: a model of a disk, an optical drive or an SSD that reads
// on a VirtualClock: each ReadAt advances the clock by the time the modelled
// device would take, so a simulated 2 TB sweep takes no real time and is
// deterministic for a given seed.
//
// Names: "sim:MODEL[?key=value&...]". Models: hdd (16-zone ZCAV disk, outer
// to inner 2:1), usb2-hdd (the same disk behind a USB2 bridge capped at
// 35 MB/s), cd (40x CAV CD-ROM), dvd (16x CAV DVD-ROM), ssd (flat),
// nvme-throttle, ssd-dips and banded-hdd (below: models whose curves are not
// clean staircases, some of it following the elapsed time, not the position).
// Keys: size=SIZE, seed=N, serial=TEXT (the serial the drive reports, control
// characters removed; default SIM-MODEL-SEED), noise=PCT% or fraction
// (relative stddev of each read's time), corr=R (0 <= R < 1, default 0: the
// noise of consecutive reads, in time order, is an AR(1) process of lag-1
// correlation R and stddev `noise`: a host cache or a virtual disk whose
// speed wanders over time; 0 = independent), hiccups=FRACTION or PCT% (that
// share of the reads and writes, drawn at random, stalls for up to
// hiccup=MS milliseconds more, uniformly, default 20: a reader preempted on
// a busy machine, a host pausing its virtual disk, a card collecting its
// garbage mid-write; 0 = none, the default, and the other draws as without
// it), drift=F:ON:EVERY (for the first ON ms of every
// EVERY ms of virtual time, reads take 1/F of their time, F from 0.1 to 1: a
// host's slow periods), pace=N (reads also take 1/N of their virtual time in
// real time: a demo or a live view that can be watched; the results are the
// same), outer=MB/s, inner=MB/s (disks), zones=N (hdd), ceiling=MB/s (bus
// cap, 0 = none), bad=OFFSET[+LEN][,...] (reads touching it fail with EIO),
// weak=START-END:FACTOR[,...] (the media rate of that region times FACTOR,
// e.g. weak=40%-60%:0.8 or weak=10G-20G:80%: one drive of a fleet slower than
// its siblings there; zoned and flat models), seek=MS (full-stroke seek time;
// 0 = no positioning time, rotation included), cache=SIZE (drive cache; 0 =
// none), interface=MB/s (rate the cache is read at), bus=NAME (a bus shared
// with the other devices read at the same time that name it; see SimBus),
// busrate=MB/s (that bus's rate; default 80 MB/s).
//
// Writes (a write sweep, OpenDeviceForWrite) take the time a read of the same
// range would, bypass the cache and empty it; bad ranges fail them with EIO.
// What is written is kept (SimStorage, sim_storage.h: a compact map of zcav's
// stamps, foreign data kept as garbage, zeros as zeros) and a read gives it
// back: zeros where nothing was written (a TRIM, DiscardAll, forgets it
// all); a device never written leaves the read buffer as it is, at no cost.
// Fakes, on every model (what a counterfeit USB stick or SD card does):
//   real=SIZE: the real capacity (rounded down to 512 B), below size=, the
//     capacity it claims; fake=wrap (the default) maps logical offset x to
//     x mod real, so a read at x gives what was last written at any
//     y = x mod real; fake=drop accepts writes at or beyond real and
//     discards them, and reads there give zeros.
//   lose=START-END[:zero|:garbage][,...]: data written to that physical
//     range (sizes, e.g. lose=1G-1028M) is lost: it reads back as zeros
//     (the default) or garbage.
//   dedup=on|off: a deduplicating controller: a 4 KiB page equal to one
//     written before (since the device was opened or trimmed; the first 2^20
//     distinct pages are remembered) is stored for free, its write takes no
//     time. zcav's stamped data has no two pages alike: nothing is free.
//
// Positioning (for average access time): a read that does not start where
// the previous one ended first waits
//   seek(d) = track_to_track + (full_stroke - track_to_track) * sqrt(d / size)
// (d = |offset - previous end|), plus, on rotating models, a rotational
// latency drawn uniformly from [0, one revolution) by the seeded RNG.
// Sequential reads (offset == previous end; the head starts at 0) pay
// nothing, and neither does the first read after PreparePass(): between a
// sweep's passes the drive positions itself untimed. Defaults: hdd/usb2-hdd
// 1 ms track-to-track, 18 ms full stroke, 7200 rpm (mean rotational latency
// 4.17 ms); cd/dvd 20 ms track-to-track, 150 ms full stroke (mean seek about
// 90 ms), spinning at 8500 rpm (40x CD) and 9200 rpm (16x DVD); ssd 0.05 ms
// flat (track_to_track == full_stroke), no rotation. Mean positioning time
// of uniformly random reads: track_to_track + (full - track_to_track) * 8/15
// + half a revolution (14.2 ms on hdd). A quick or skipping sweep pays a
// positioning time per block, as a real drive does.
//
// Cache (for burst rate): [0, cache_bytes) is cached once it has been read
// twice, contiguously from offset 0 (a drive keeps data asked for more than
// once; the rule also keeps a sweep's warm-up re-read of its first chunk off
// the cache). A read lying entirely inside the cached part is served at
// interface_mb_per_s (still under the bus ceiling) with no positioning time.
// A read starting at or beyond cache_bytes, and PreparePass(), empty the
// cache. Defaults: hdd 8 MiB at 150 MB/s (SATA 1.5 Gb/s), usb2-hdd the same
// disk behind its 35 MB/s bridge, cd/dvd 2 MiB at 33 MB/s (ATAPI UDMA-2),
// ssd none (a burst reads the flash: 530 MB/s less 0.05 ms per repetition).
//
// Rates that follow the elapsed time (nvme-throttle, ssd-dips). The device
// keeps two clocks of its own, both in virtual seconds of media transfer
// (positioning not included): `busy`, all the reading it has done, and
// `heat`, the reading done since it last rested. A read that starts at least
// cool_after_s (and more than 0) after the previous one ended, by the
// VirtualClock, finds the drive cooled: heat starts again from 0. PreparePass() is untimed and does
// NOT cool the drive (nor reset busy): between a sweep's back-to-back passes
// the drive stays hot, so a second pass is throttled from its start, and the
// dips keep their own rhythm, not the passes'. A read crossing a change of
// rate is timed piecewise. ExpectedMbPerS() gives the rate by position only
// (no throttling, no dips): what a cool, undisturbed read would measure.
//   nvme-throttle: a 256 GB NVMe drive reading 3000 MB/s flat that, after
//     throttle_after=SECONDS (default 30) of reading without rest, is
//     throttled to throttled=MB/s (default 1200, 40 %) until it has been idle
//     for cool_after=SECONDS (default 60). A default sweep's first pass drops
//     at about 90 GB (35 %), the next passes read throttled throughout.
//     Its temperature (Device::TemperatureC) rises with the heat clock from
//     kCoolC (40 C) to kThrottleC (80 C), where it throttles, and is back
//     at 40 C once the drive has cooled.
//   ssd-dips: a 256 GB SSD reading 530 MB/s, its first cached=FRACTION (or
//     PCT%, default 10 %) at cached_rate=MB/s (default 1060, 2x: an SLC
//     cache, a position effect), with garbage collection taking
//     dip_for=SECONDS (default 2) at the end of every dip_every=SECONDS
//     (default 20) of reading, during which it reads at dip=FRACTION (or PCT%,
//     default 30 %) of its rate (a time effect).
//   ssd write cache (ssd model): wcache=SIZE makes writes go at
//     wcache_rate=MB/s (default: the read rate) until SIZE bytes are in the
//     cache, then, while it is full, at fold_rate=MB/s (default half of
//     wrate) for the first fold=SIZE bytes (default 0: no folding phase),
//     then at wrate=MB/s (default a third of wcache_rate): the SLC cache,
//     its cliff, folding and the sustained rate. Idle time between accesses
//     (by the VirtualClock) frees recover=MB/s of cache per idle second
//     (default 0: none), and a freed cache folds again when it next fills.
//     Reads are not affected.
//   banded-hdd: a 500 GB 7200 rpm disk with serpentine (multi-head) banding:
//     the rate alternates between (1 + amplitude) and (1 - amplitude) times
//     its envelope (amplitude=FRACTION or PCT%, default 4 %) in bands of
//     band=SIZE (default 4 GB: about 8 blocks of a default sweep), even bands
//     fast, from offset 0; the envelope is 16 zones falling from 250 to
//     125 MB/s (outer, inner and zones keys as for hdd). Position only.
//     Cache, seek and rotation as hdd's, behind SATA 6 Gb/s (600 MB/s).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "zcav/device/device.h"
#include "zcav/device/sim_storage.h"

namespace zcav {

class VirtualClock;

// The simulated throttling drive's temperature, cool and where it throttles.
inline constexpr double kCoolC = 40;
inline constexpr double kThrottleC = 80;

struct SimZone {
  double start_frac = 0;  // of size_bytes
  double end_frac = 0;
  double mb_per_s = 0;  // media rate, 10^6 B/s
};

struct SimModel {
  DeviceInfo info;  // path, size, sector, model, rotational, transport
  // Media rate: piecewise constant zones, or (cav == true) a smooth CAV
  // curve whose square is linear in position from cav_inner to cav_outer.
  std::vector<SimZone> zones;
  bool cav = false;
  double radius_inner_mm = 0, radius_outer_mm = 0, outer_mb_per_s = 0;
  double ceiling_mb_per_s = 0;  // bus cap; 0 = none
  double noise = 0.005;         // relative stddev of each read's time
  // Lag-1 correlation of the noise of consecutive accesses (reads and
  // writes, in time order): x_k = R * x_(k-1) + sqrt(1 - R^2) * e_k with e_k
  // standard normal, so each read's relative noise still has stddev `noise`.
  // 0 <= R < 1; 0 = independent (the same draws as without the key).
  double noise_corr = 0;
  // hiccups=, hiccup=: the share of reads and writes that stall, and the
  // longest stall (ms); each stall's length is uniform in [0, hiccup_ms).
  double hiccup_share = 0;
  double hiccup_ms = 20;
  // drift=F:ON:EVERY: for the first ON ms of every EVERY ms of virtual time
  // (from the device's creation) reads take 1/F of their media time (0 =
  // never).
  double drift_factor = 1;
  double drift_on_ms = 0;
  double drift_every_ms = 0;
  std::uint64_t seed = 1;
  // Real-time pacing (pace=N): reads take 1/N of their virtual time in real
  // time too; 0 = no waiting (the default).
  double pace = 0;
  std::chrono::nanoseconds per_read_overhead{0};
  // Positioning time of a non-sequential read (see the file comment).
  double track_to_track_ms = 0;  // seek over a distance near 0
  double full_stroke_ms = 0;     // seek over the whole device; 0 = no positioning time
  double rpm = 0;                // 0 = no rotational latency
  // Drive cache (see the file comment); 0 = none.
  std::uint64_t cache_bytes = 0;
  double interface_mb_per_s = 0;  // rate of cache hits, 10^6 B/s
  struct Range {
    std::uint64_t offset_bytes, length_bytes;
  };
  std::vector<Range> bad;                      // EIO ranges
  std::vector<Range> slow;                     // ranges read 30x slower
  std::optional<std::uint64_t> gone_at_bytes;  // unplugged when a read reaches it
  // A bus shared with other simulated devices (SimBus); empty = none.
  std::string bus_name;
  double bus_mb_per_s = 0;  // the shared bus's rate, 10^6 B/s
  // Thermal throttling (see the file comment): after throttle_after_s of
  // reading without a rest of cool_after_s, the rate is capped at
  // throttled_mb_per_s. throttle_after_s == 0: never throttles.
  double throttle_after_s = 0;
  double throttled_mb_per_s = 0;
  double cool_after_s = 0;
  // Periodic dips (garbage collection): the last dip_for_s of every
  // dip_every_s of reading run at dip_share times the rate.
  // dip_every_s == 0: no dips.
  double dip_every_s = 0;
  double dip_for_s = 0;
  double dip_share = 1;
  // Banding: bands of band_bytes from offset 0, even ones at
  // (1 + band_amplitude) times the zone rate, odd ones at (1 - band_amplitude).
  // band_bytes == 0: no bands.
  std::uint64_t band_bytes = 0;
  double band_amplitude = 0;
  // SSD write cache (ssd model; see the file comment). wcache_bytes == 0:
  // writes run at the read rate.
  std::uint64_t wcache_bytes = 0;
  double wcache_mb_per_s = 0;    // writes into the cache
  double wrate_mb_per_s = 0;     // sustained writes once the cache is full
  std::uint64_t fold_bytes = 0;  // the first fold_bytes after the cache ...
  double fold_mb_per_s = 0;      // ... are written at this rate (folding)
  double recover_mb_per_s = 0;   // cache regained per idle second (MB, 10^6 B)
  // A fake capacity, lost ranges, dedup (real=, fake=, lose=, dedup=; the
  // file comment). Default: a genuine device.
  SimFakes fakes;
};

// A bus shared by simulated devices read at the same time (an IDE channel, a
// USB hub, a controller): it carries one transfer at a time at mb_per_s, so
// devices read together share its rate. Each device runs on its own thread
// and VirtualClock; Transfer() serves requests in virtual-time order,
// deterministically. Every device that joined must keep reading or Leave().
// Specification: docs/devices.md#a-shared-bus
class SimBus {
 public:
  explicit SimBus(double mb_per_s) : mb_per_s_(mb_per_s) {}
  SimBus(const SimBus&) = delete;
  SimBus& operator=(const SimBus&) = delete;
  double mb_per_s() const { return mb_per_s_; }

  // A device attaches; returns its member number.
  int Join();
  // The member issues no more reads.
  void Leave(int member);
  // Serves a read (the model: docs/devices.md#a-shared-bus); returns its duration from
  // `start` (what the member's clock must advance by). Blocks until the
  // request is the earliest pending one.
  std::chrono::nanoseconds Transfer(int member, std::chrono::nanoseconds start,
                                    std::chrono::nanoseconds media_time, std::uint64_t bytes);

 private:
  bool IsTurn(int member, std::chrono::nanoseconds start) const;

  const double mb_per_s_;
  std::mutex mutex_;
  std::condition_variable changed_;
  struct Member {
    bool active = true;
    std::optional<std::chrono::nanoseconds> pending;  // start of its waiting request
  };
  std::vector<Member> members_;
  std::chrono::nanoseconds free_at_{0};  // when the current transfer ends
};

// The buses of one run, by name: devices opened with the same SimBusSet
// and the same bus= name share one SimBus.
class SimBusSet {
 public:
  // The bus called `name`, created at `mb_per_s` on first use. Throws
  // Error(kBadInput) when it exists with another rate.
  std::shared_ptr<SimBus> Get(const std::string& name, double mb_per_s);

 private:
  std::map<std::string, std::shared_ptr<SimBus>> buses_;
};

// Parses "sim:MODEL?k=v&..." into a model. Throws Error(kBadInput) for an
// unknown model or key, or a bad value, naming it and listing the choices.
SimModel ParseSimSpec(const std::string& name);

// The noiseless rate in MB/s at which `model` reads [offset, offset+length):
// what a sweep should measure there. REQUIRES: length > 0.
double ExpectedMbPerS(const SimModel& model, std::uint64_t offset_bytes,
                      std::uint64_t length_bytes);

// The noiseless seek time in ms over `distance_bytes` (0 when the model has
// no positioning time); rotational latency is not included.
double SeekMs(const SimModel& model, std::uint64_t distance_bytes);

// Mean rotational latency in ms: half a revolution (0 without rotation).
double MeanRotationalMs(const SimModel& model);

// A device reading `model` on `clock`. A model with a bus_name joins `bus`
// (when null, a bus of its own: alone on it, the bus only caps the rate).
std::unique_ptr<Device> MakeSimulatedDevice(const SimModel& model, VirtualClock& clock,
                                            std::shared_ptr<SimBus> bus = nullptr);

}  // namespace zcav
