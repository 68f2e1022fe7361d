#include "zcav/device/write_target.h"

#include <string>
#include <vector>

#include "zcav/base/text.h"
#include "zcav/device/device_info.h"

namespace zcav {
namespace {

// `value` of the largest unit (factor `base`, names `units`) it reaches, one
// decimal; `unit` gets the unit's name and `power` its exponent.
std::string InUnits(std::uint64_t bytes, double base, const char* const* units, int count,
                    std::string& unit, int& power) {
  double v = static_cast<double>(bytes);
  power = 0;
  while (v >= base && power + 1 < count) {
    v /= base;
    ++power;
  }
  unit = units[power];
  return FormatFixed(v, 1);
}

std::string Quoted(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

std::string WriteTargetName(const std::string& typed, const WriteTarget& target) {
  if (target.resolved_path.empty() || target.resolved_path == typed) return typed;
  return typed + " -> " + target.resolved_path;
}

std::string SizeWithUnits(std::uint64_t bytes) {
  static const char* const kDecimal[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  static const char* const kBinary[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::string text = std::to_string(bytes) + " bytes";
  if (bytes < 1000) return text;
  std::string d_unit, b_unit;
  int d_power = 0, b_power = 0;
  const std::string d = InUnits(bytes, 1000, kDecimal, 6, d_unit, d_power);
  const std::string b = InUnits(bytes, 1024, kBinary, 6, b_unit, b_power);
  text += " = " + d + " " + d_unit;
  if (b_power > 0) text += " = " + b + " " + b_unit;
  text += " (" + d_unit + " = 10^" + std::to_string(3 * d_power) + " B";
  if (b_power > 0) text += ", " + b_unit + " = 2^" + std::to_string(10 * b_power) + " B";
  return text + ")";
}

std::string WriteTargetIdentity(const DeviceInfo& device) {
  std::vector<std::string> parts;
  if (!device.model.empty()) parts.push_back("model " + Quoted(device.model));
  if (!device.serial.empty()) parts.push_back("serial " + Quoted(device.serial));
  if (parts.empty()) parts.push_back("no model or serial known");
  if (!device.backing_file.empty()) parts.push_back("a loop device over " + device.backing_file);
  parts.push_back(SizeWithUnits(device.size_bytes));
  return Join(parts);
}

std::string SignaturesText(const WriteTarget& target) {
  if (!target.signature_note.empty()) return "signatures not read: " + target.signature_note;
  if (target.signatures.empty()) return "no file system, RAID or partition table signature found";
  std::vector<std::string> items;
  for (const DeviceSignature& s : target.signatures) {
    const bool pt = s.usage == "partition table";
    std::vector<std::string> details;
    if (!s.label.empty()) details.push_back("LABEL " + Quoted(s.label));
    if (!s.uuid.empty()) details.push_back(std::string(pt ? "PTUUID " : "UUID ") + Quoted(s.uuid));
    std::string item = (pt ? "PTTYPE " : "TYPE ") + Quoted(s.type);
    if (!s.usage.empty() && !pt) item += " " + s.usage;
    if (pt) item += " partition table";
    if (!details.empty()) item += " (" + Join(details) + ")";
    items.push_back(item);
  }
  return Join(items, "; ");
}

std::string OpenersText(const std::vector<DeviceOpener>& openers) {
  std::vector<std::string> items;
  for (const DeviceOpener& o : openers) {
    items.push_back(o.command + " (pid " + std::to_string(o.pid) + ", " +
                    (o.writable ? "read-write" : "read-only") +
                    (o.node.empty() ? "" : ", " + o.node) + ")");
  }
  return Join(items);
}

}  // namespace zcav
