// SimulatedDevice: a model of a disk, an optical drive or an SSD that reads
// on a VirtualClock: each ReadAt advances the clock by the time the modelled
// device would take, so a simulated 2 TB sweep takes no real time and is
// deterministic for a given seed.
//
// Names: "sim:MODEL[?key=value&...]". Models: hdd (16-zone ZCAV disk, outer
// to inner 2:1), usb2-hdd (the same disk behind a USB2 bridge capped at
// 35 MB/s), cd (40x CAV CD-ROM), dvd (16x CAV DVD-ROM), ssd (flat).
// Keys: size=SIZE, seed=N, noise=PCT% or fraction (relative stddev of each
// read's time), outer=MB/s, inner=MB/s (disks), zones=N (hdd), ceiling=MB/s
// (bus cap, 0 = none), bad=OFFSET[+LEN][,...] (reads touching it fail
// with EIO).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "zcav/device.h"

namespace zcav {

class VirtualClock;

struct SimZone {
  double start_frac = 0;  // of size_bytes
  double end_frac = 0;
  double mb_per_s = 0;    // media rate, 10^6 B/s
};

struct SimModel {
  DeviceInfo info;               // path, size, sector, model, rotational, transport
  // Media rate: piecewise constant zones, or (cav == true) a smooth CAV
  // curve whose square is linear in position from cav_inner to cav_outer.
  std::vector<SimZone> zones;
  bool cav = false;
  double radius_inner_mm = 0, radius_outer_mm = 0, outer_mb_per_s = 0;
  double ceiling_mb_per_s = 0;   // bus cap; 0 = none
  double noise = 0.005;          // relative stddev of each read's time
  std::uint64_t seed = 1;
  std::chrono::nanoseconds per_read_overhead{0};
  struct Range { std::uint64_t offset_bytes, length_bytes; };
  std::vector<Range> bad;        // EIO ranges
};

// Parses "sim:MODEL?k=v&..." into a model. Throws Error(kBadInput) for an
// unknown model or key, or a bad value, naming it and listing the choices.
SimModel ParseSimSpec(const std::string& name);

// The noiseless rate in MB/s at which `model` reads [offset, offset+length):
// what a sweep should measure there. REQUIRES: length > 0.
double ExpectedMbPerS(const SimModel& model, std::uint64_t offset_bytes,
                      std::uint64_t length_bytes);

std::unique_ptr<Device> MakeSimulatedDevice(const SimModel& model, VirtualClock& clock);

}  // namespace zcav
