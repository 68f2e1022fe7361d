#include "zcav/measure/smart.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "zcav/base/text.h"
#include "zcav/device/posix/smartctl.h"

namespace zcav {
namespace {

using Json = nlohmann::json;

// smartctl exit status bits (smartctl(8)): the command line did not parse;
// the device could not be opened (or is asleep and smartctl was told not to
// wake it). With either, smartctl read no SMART data.
constexpr int kCommandLineBit = 1 << 0;
constexpr int kDeviceOpenBit = 1 << 1;

// Member `key` of `object`, or nullptr when `object` is no object or lacks it.
const Json* Member(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

// `object`.`key`.`key2`... as a path of members, or nullptr.
const Json* Path(const Json& object, std::initializer_list<const char*> keys) {
  const Json* at = &object;
  for (const char* key : keys) {
    at = Member(*at, key);
    if (at == nullptr) return nullptr;
  }
  return at;
}

// A JSON non-negative integer; nullopt for anything else (negative, a
// fraction, a number beyond 64 bits that the parser made a double, text).
std::optional<std::uint64_t> Count(const Json* value) {
  if (value == nullptr) return std::nullopt;
  if (value->is_number_unsigned()) return value->get<std::uint64_t>();
  if (value->is_number_integer() && value->get<std::int64_t>() >= 0) {
    return static_cast<std::uint64_t>(value->get<std::int64_t>());
  }
  return std::nullopt;
}

std::optional<double> Number(const Json* value) {
  if (value == nullptr || !value->is_number()) return std::nullopt;
  return value->get<double>();
}

// A string of smartctl's output as data (CleanText: no control characters,
// at most kMaxNoteBytes); "" when it is not a string.
std::string Text(const Json* value, std::size_t max_bytes = kMaxNoteBytes) {
  if (value == nullptr || !value->is_string()) return "";
  return CleanText(Trim(value->get_ref<const std::string&>()), max_bytes);
}

std::optional<bool> Bool(const Json* value) {
  if (value == nullptr || !value->is_boolean()) return std::nullopt;
  return value->get<bool>();
}

// The raw values of the ATA attributes with the given ids, from
// ata_smart_attributes.table[] ({"id": 5, ..., "raw": {"value": N, "string":
// "N"}}). raw.value is the attribute's 48-bit raw field as one number: right
// for the plain counters read here, but not for attributes whose vendors
// pack several numbers into it (temperature 194 with its min/max, Seagate's
// error rates), which is why the temperature comes from temperature.current.
void ReadAtaCounters(const Json& root, SmartSnapshot& s) {
  const Json* table = Path(root, {"ata_smart_attributes", "table"});
  if (table == nullptr || !table->is_array()) return;
  const std::pair<std::uint64_t, std::optional<std::uint64_t> SmartSnapshot::*> wanted[] = {
      {5, &SmartSnapshot::reallocated_sectors},
      {197, &SmartSnapshot::pending_sectors},
      {198, &SmartSnapshot::offline_uncorrectable},
      {199, &SmartSnapshot::crc_errors},
  };
  for (const Json& attribute : *table) {
    const std::optional<std::uint64_t> id = Count(Member(attribute, "id"));
    if (!id) continue;
    for (const auto& [wanted_id, field] : wanted) {
      if (*id == wanted_id) s.*field = Count(Path(attribute, {"raw", "value"}));
    }
  }
}

void ReadNvmeLog(const Json& root, SmartSnapshot& s) {
  const Json* log = Member(root, "nvme_smart_health_information_log");
  if (log == nullptr || !log->is_object()) return;
  s.media_errors = Count(Member(*log, "media_errors"));
  s.percentage_used = Count(Member(*log, "percentage_used"));
  if (!s.temperature_c) s.temperature_c = Number(Member(*log, "temperature"));
  if (!s.power_on_hours) s.power_on_hours = Count(Member(*log, "power_on_hours"));
}

// Whether the output holds SMART data at all: an overall health status, the
// ATA attribute table, the NVMe health log, or the SCSI error counters.
bool HasSmartData(const Json& root) {
  if (Bool(Path(root, {"smart_status", "passed"}))) return true;
  const Json* table = Path(root, {"ata_smart_attributes", "table"});
  if (table != nullptr && table->is_array() && !table->empty()) return true;
  const Json* log = Member(root, "nvme_smart_health_information_log");
  if (log != nullptr && log->is_object()) return true;
  return Member(root, "scsi_error_counter_log") != nullptr ||
         Member(root, "scsi_grown_defect_list") != nullptr;
}

// The device smartctl was asked about: device.name, else the last of its
// arguments that is a path ("/dev/sda"; options and their values, such as
// "-d sat", are not).
std::string DeviceName(const Json& root) {
  const std::string name = Text(Path(root, {"device", "name"}));
  if (!name.empty()) return name;
  const Json* argv = Path(root, {"smartctl", "argv"});
  if (argv != nullptr && argv->is_array()) {
    for (auto it = argv->rbegin(); it != argv->rend(); ++it) {
      const std::string arg = Text(&*it);
      if (!arg.empty() && arg[0] == '/') return arg;
    }
  }
  return "the device";
}

// smartctl's messages, "; "-joined: the errors if there are any, else all.
std::string Messages(const Json& root) {
  const Json* messages = Path(root, {"smartctl", "messages"});
  if (messages == nullptr || !messages->is_array()) return "";
  std::string errors, all;
  for (const Json& m : *messages) {
    const std::string line = Text(Member(m, "string"));
    if (line.empty()) continue;
    all += (all.empty() ? "" : "; ") + line;
    if (Text(Member(m, "severity")) == "error") errors += (errors.empty() ? "" : "; ") + line;
  }
  return errors.empty() ? all : errors;
}

// The note for output without SMART data.
std::string NoDataNote(const Json& root, int exit_status) {
  const std::string name = DeviceName(root);
  const std::string messages = Messages(root);
  const std::optional<bool> supported = Bool(Path(root, {"smart_support", "available"}));
  const std::optional<bool> enabled = Bool(Path(root, {"smart_support", "enabled"}));
  if (supported == true && enabled == false) {
    return "SMART is disabled on " + name + " (`smartctl -s on " + name + "` enables it)";
  }
  std::string why = messages.empty() ? "smartctl exit status " + std::to_string(exit_status)
                                     : "smartctl: " + messages;
  if (messages.find("Permission denied") != std::string::npos ||
      messages.find("Operation not permitted") != std::string::npos) {
    why += "; reading SMART data needs root";
  }
  const char* what = supported == false ? " has no SMART support (" : " has no SMART data (";
  return name + what + why + ")";
}

// The first line of `text`, trimmed and at most 100 characters.
std::string FirstLine(std::string_view text) {
  std::string_view line = Trim(text);
  line = line.substr(0, line.find('\n'));
  line = Trim(line);
  if (line.size() > 100) return std::string(line.substr(0, 100)) + "...";
  return std::string(line);
}

SmartSnapshot NotAvailable(std::string note) {
  SmartSnapshot s;
  s.note = std::move(note);
  return s;
}

SmartSnapshot Parse(std::string_view text, int exit_status) {
  if (Trim(text).empty()) {
    return NotAvailable("smartctl wrote nothing (exit status " + std::to_string(exit_status) + ")");
  }
  const Json root = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object() || Member(root, "smartctl") == nullptr) {
    return NotAvailable("smartctl wrote no JSON (smartmontools 7.0 or later is needed): " +
                        FirstLine(text));
  }

  SmartSnapshot s;
  s.protocol = Text(Path(root, {"device", "protocol"}));
  s.model = Text(Member(root, "model_name"), kMaxIdentityBytes);
  if (s.model.empty()) s.model = Text(Member(root, "scsi_model_name"), kMaxIdentityBytes);
  s.serial = Text(Member(root, "serial_number"), kMaxIdentityBytes);
  s.firmware = Text(Member(root, "firmware_version"), kMaxIdentityBytes);
  if (s.firmware.empty()) s.firmware = Text(Member(root, "scsi_revision"), kMaxIdentityBytes);

  if ((exit_status & (kCommandLineBit | kDeviceOpenBit)) != 0 || !HasSmartData(root)) {
    s.note = NoDataNote(root, exit_status);
    return s;
  }
  s.available = true;
  s.passed = Bool(Path(root, {"smart_status", "passed"}));
  s.temperature_c = Number(Path(root, {"temperature", "current"}));
  s.power_on_hours = Count(Path(root, {"power_on_time", "hours"}));
  ReadAtaCounters(root, s);
  ReadNvmeLog(root, s);
  return s;
}

}  // namespace

SmartSnapshot ParseSmartctlJson(std::string_view text, int exit_status) {
  try {
    return Parse(text, exit_status);
  } catch (const nlohmann::json::exception& e) {
    // Every access above checks its type first; this is the safety net that
    // keeps the "never throws" promise should one be missed.
    return NotAvailable(std::string("smartctl output not understood: ") + e.what());
  }
}

SmartSnapshot ReadSmart(const std::string& device_path) {
  const SmartctlRun run = RunSmartctl(device_path);
  if (!run.found) return NotAvailable("smartctl not found (install smartmontools for SMART data)");
  if (!run.error.empty())
    return NotAvailable("no SMART data for " + device_path + ": " + run.error);
  SmartSnapshot s = ParseSmartctlJson(run.stdout_text, run.exit_status);
  if (!s.available && s.note.find(device_path) == std::string::npos) {
    s.note = device_path + ": " + s.note;
  }
  return s;
}

std::vector<SmartChange> SmartIncreases(const SmartSnapshot& before, const SmartSnapshot& after) {
  const std::pair<const char*, std::optional<std::uint64_t> SmartSnapshot::*> counters[] = {
      {"reallocated_sectors", &SmartSnapshot::reallocated_sectors},
      {"pending_sectors", &SmartSnapshot::pending_sectors},
      {"offline_uncorrectable", &SmartSnapshot::offline_uncorrectable},
      {"crc_errors", &SmartSnapshot::crc_errors},
      {"media_errors", &SmartSnapshot::media_errors},
      {"percentage_used", &SmartSnapshot::percentage_used},
  };
  std::vector<SmartChange> grown;
  for (const auto& [name, field] : counters) {
    const std::optional<std::uint64_t>& was = before.*field;
    const std::optional<std::uint64_t>& is = after.*field;
    if (was && is && *is > *was) grown.push_back({.field = name, .before = *was, .after = *is});
  }
  return grown;
}

}  // namespace zcav
