// SMART data of a drive: what smartctl (smartmontools 7.0 or later, JSON
// output) says about its health, read before and after a sweep so that the
// counters that grew during it can be named.
//
// ParseSmartctlJson is a pure function over smartctl's text; ReadSmart runs
// smartctl (device/posix/smartctl.h) and parses its output. Neither throws:
// no smartctl, a device without SMART (loop, virtio, RAID volumes), a drive
// asleep, garbage output are all a snapshot with `available` false and a note.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zcav {

// One reading of a drive's SMART data. Fields smartctl did not report stay
// empty (nullopt, ""); the health fields (passed and below) are filled only
// when `available`.
struct SmartSnapshot {
  // smartctl ran and the device gave SMART data: an overall health status,
  // an ATA attribute table, an NVMe health log or SCSI error counters.
  bool available = false;
  // When !available, one line a user understands: "smartctl not found
  // (install smartmontools for SMART data)", "/dev/loop0 has no SMART data
  // (smartctl: /dev/loop0: Unable to detect device type)". Empty otherwise.
  std::string note;
  // smartctl's device.protocol: "ATA", "NVMe", "SCSI"; "" when unknown.
  std::string protocol;
  // model_name (SCSI: scsi_model_name), serial_number, firmware_version
  // (SCSI: scsi_revision), whitespace-trimmed. Filled when smartctl gave
  // them, even when `available` is false.
  std::string model, serial, firmware;
  // smart_status.passed: the drive's own overall verdict (false: failing).
  std::optional<bool> passed;
  // temperature.current (NVMe: else the health log's temperature), in
  // degrees Celsius.
  std::optional<double> temperature_c;
  // power_on_time.hours (NVMe: else the health log's power_on_hours).
  std::optional<std::uint64_t> power_on_hours;
  // ATA attributes, raw.value of attribute 5 (Reallocated_Sector_Ct), 197
  // (Current_Pending_Sector), 198 (Offline_Uncorrectable) and 199
  // (UDMA_CRC_Error_Count): counters on every drive that reports them.
  std::optional<std::uint64_t> reallocated_sectors;
  std::optional<std::uint64_t> pending_sectors;
  std::optional<std::uint64_t> offline_uncorrectable;
  std::optional<std::uint64_t> crc_errors;
  // NVMe health log: media_errors (unrecovered data integrity errors) and
  // percentage_used (the vendor's estimate of life used; may exceed 100).
  std::optional<std::uint64_t> media_errors;
  std::optional<std::uint64_t> percentage_used;
};

// Parses the JSON that `smartctl --json -a DEVICE` wrote (`text`) and its
// exit status (the bitmask of device/posix/smartctl.h; its bits 0 and 1 -- a
// command line smartctl refused, a device it could not open -- mean no SMART
// data whatever the text holds). Garbage, empty text, output without SMART
// data: `available` false and a note that quotes smartctl's own messages
// (smartctl.messages[].string) where there are any. Never throws (but
// std::bad_alloc).
SmartSnapshot ParseSmartctlJson(std::string_view text, int exit_status);

// Runs smartctl on `device_path` (RunSmartctl, device/posix/smartctl.h,
// 60 s at most) and parses its output. smartctl not on PATH, timed out or
// killed: `available` false with a note saying so. Blocks while smartctl
// runs. Never throws (but std::bad_alloc).
SmartSnapshot ReadSmart(const std::string& device_path);

// A counter that grew between two snapshots; `field` is the SmartSnapshot
// field's name ("reallocated_sectors", "media_errors", ...).
struct SmartChange {
  std::string field;
  std::uint64_t before = 0, after = 0;
};

// The counters that are larger in `after` than in `before`, in this order:
// reallocated_sectors, pending_sectors, offline_uncorrectable, crc_errors,
// media_errors, percentage_used. A counter missing from either snapshot is
// not compared; a counter that shrank (pending sectors get reallocated or
// cleared) is not reported.
std::vector<SmartChange> SmartIncreases(const SmartSnapshot& before, const SmartSnapshot& after);

}  // namespace zcav
