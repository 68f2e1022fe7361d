// SMART data: ParseSmartctlJson over smartctl outputs recorded from real
// drives (tests/data/smart, sources in its README) and over synthetic edge
// cases written here; SmartIncreases; RunSmartctl and ReadSmart with the
// fake smartctl (tests/fixtures/fake-smartctl) found through PATH; the drive
// temperature from fake sysfs trees laid out like the kernel's.
#include "zcav/measure/smart.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "testutil.h"
#include "zcav/device/posix/drive_temperature.h"
#include "zcav/device/posix/smartctl.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

template <typename T>
std::string Show(const std::optional<T>& value) {
  if (!value) return "-";
  std::ostringstream s;
  s << *value;
  return s.str();
}

// Every field of `s` on one line, so that a test compares them all at once
// and a failure shows each ("-" for nullopt).
std::string Describe(const SmartSnapshot& s) {
  return "available=" + std::to_string(s.available) + " protocol=" + s.protocol +
         " model=" + s.model + " serial=" + s.serial + " firmware=" + s.firmware +
         " passed=" + Show(s.passed) + " temperature_c=" + Show(s.temperature_c) +
         " power_on_hours=" + Show(s.power_on_hours) +
         " reallocated=" + Show(s.reallocated_sectors) + " pending=" + Show(s.pending_sectors) +
         " offline_uncorrectable=" + Show(s.offline_uncorrectable) + " crc=" + Show(s.crc_errors) +
         " media_errors=" + Show(s.media_errors) + " percentage_used=" + Show(s.percentage_used) +
         " note=" + s.note;
}

SmartSnapshot ParseFile(const std::string& name, int exit_status) {
  return ParseSmartctlJson(test::ReadFile(test::DataPath("smart/" + name)), exit_status);
}

// Sets an environment variable for the scope, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// PATH as it is now ("" when unset).
std::string OldPath() {
  const char* path = std::getenv("PATH");
  return path == nullptr ? "" : path;
}

// A directory with the fake smartctl in it (as "smartctl", a symlink), put
// first on PATH for the scope; call-N.json files go beside it.
class FakeSmartctl {
 public:
  FakeSmartctl()
      : dir_env_("FAKE_SMARTCTL_DIR", dir_.path().string()),
        path_env_("PATH", dir_.path().string() + ":" + OldPath()) {
    fs::create_symlink(fs::path(ZCAV_TEST_FIXTURES_DIR) / "fake-smartctl",
                       dir_.path() / "smartctl");
  }
  const fs::path& dir() const { return dir_.path(); }
  void Call(int n, const std::string& json, int status = 0) const {
    test::WriteFile(dir() / ("call-" + std::to_string(n) + ".json"), json);
    test::WriteFile(dir() / ("call-" + std::to_string(n) + ".status"), std::to_string(status));
  }

 private:
  test::TempDir dir_;
  ScopedEnv dir_env_;
  ScopedEnv path_env_;
};

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

TEST_CASE("Recorded smartctl outputs of real drives parse into their fields", "[smart]") {
  struct Case {
    const char* file;
    int exit_status;
    const char* expected;
  };
  const Case cases[] = {
      {"ata-hdd-seagate-st3500418as.json", 0,
       "available=1 protocol=ATA model=ST3500418AS serial=REDACTED firmware=REDACTED passed=1 "
       "temperature_c=33 power_on_hours=44668 reallocated=304 pending=0 offline_uncorrectable=0 "
       "crc=0 media_errors=- percentage_used=- note="},
      {"ata-hdd-wdc-wd2003fyys.json", 0,
       "available=1 protocol=ATA model=WDC WD2003FYYS-02W0B1 serial=REDACTED firmware=REDACTED "
       "passed=1 temperature_c=24 power_on_hours=58530 reallocated=0 pending=0 "
       "offline_uncorrectable=0 crc=3118119 media_errors=- percentage_used=- note="},
      // Behind a USB bridge (usbjmicron), failing: smart_status.passed false,
      // exit status 216 = 8 (FAILING) + 16 + 64 + 128.
      {"ata-hdd-usb-hitachi-hds721050dle630-failing.json", 216,
       "available=1 protocol=ATA model=Hitachi HDS721050DLE630 serial=MSK423Y20S3HBC "
       "firmware=MS1OA650 passed=0 temperature_c=25 power_on_hours=65592 reallocated=1975 "
       "pending=8 offline_uncorrectable=0 crc=0 media_errors=- percentage_used=- note="},
      // An SSD without attribute 198.
      {"ata-ssd-intel-ssdsc2kb240g7.json", 0,
       "available=1 protocol=ATA model=INTEL SSDSC2KB240G7 serial=REDACTED firmware=REDACTED "
       "passed=1 temperature_c=23 power_on_hours=49466 reallocated=4 pending=0 "
       "offline_uncorrectable=- crc=0 media_errors=- percentage_used=- note="},
      // An SSD with none of 5, 197, 198; exit status 4 (a SMART command
      // failed) with the data there.
      {"ata-ssd-kingston-sa400m8120g.json", 4,
       "available=1 protocol=ATA model=KINGSTON SA400M8120G serial=REDACTED firmware=REDACTED "
       "passed=1 temperature_c=38 power_on_hours=4994 reallocated=- pending=- "
       "offline_uncorrectable=- crc=0 media_errors=- percentage_used=- note="},
      {"nvme-samsung-970-evo-plus.json", 0,
       "available=1 protocol=NVMe model=Samsung SSD 970 EVO Plus 250GB serial=REDACTED "
       "firmware=REDACTED passed=1 temperature_c=35 power_on_hours=3149 reallocated=- pending=- "
       "offline_uncorrectable=- crc=- media_errors=0 percentage_used=0 note="},
      {"nvme-samsung-970-evo-media-errors.json", 0,
       "available=1 protocol=NVMe model=Samsung SSD 970 EVO 500GB serial=S466NX0M776250H "
       "firmware=2B2QEXE7 passed=1 temperature_c=35 power_on_hours=12798 reallocated=- pending=- "
       "offline_uncorrectable=- crc=- media_errors=7 percentage_used=3 note="},
      // Critical warning 16 (volatile memory backup failed): FAILING, exit 8.
      {"nvme-samsung-mzwll3t2hajq-failed.json", 8,
       "available=1 protocol=NVMe model=SAMSUNG MZWLL3T2HAJQ-00005 serial=REDACTED "
       "firmware=REDACTED passed=0 temperature_c=40 power_on_hours=18376 reallocated=- "
       "pending=- offline_uncorrectable=- crc=- media_errors=0 percentage_used=0 note="},
      // SCSI names its model and firmware scsi_model_name and scsi_revision.
      {"scsi-hitachi-h109060sesun600g.json", 0,
       "available=1 protocol=SCSI model=HITACHI H109060SESUN600G serial=REDACTED firmware=A31A "
       "passed=1 temperature_c=26 power_on_hours=22364 reallocated=- pending=- "
       "offline_uncorrectable=- crc=- media_errors=- percentage_used=- note="},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    CHECK(Describe(ParseFile(c.file, c.exit_status)) == c.expected);
  }
}

TEST_CASE("Recorded outputs without SMART data give a note quoting smartctl", "[smart]") {
  struct Case {
    const char* file;
    int exit_status;
    const char* protocol;
    const char* note;
  };
  const Case cases[] = {
      // This machine's virtio disk and a loop device (smartctl 7.3).
      {"nosmart-virtio-vda.json", 1, "",
       "/dev/vda has no SMART data (smartctl: /dev/vda: Unable to detect device type)"},
      {"nosmart-loop.json", 1, "",
       "/dev/loop0 has no SMART data (smartctl: /dev/loop0: Unable to detect device type)"},
      // Forced to ATA (-d sat): smartctl gives up without a message.
      {"nosmart-loop-d-sat.json", 2, "ATA",
       "/dev/loop0 has no SMART data (smartctl exit status 2)"},
      {"nosmart-nonexistent-device.json", 1, "",
       "/dev/nonexistent has no SMART data (smartctl: /dev/nonexistent: Unable to detect device "
       "type)"},
      {"nosmart-standby.json", 2, "ATA",
       "/dev/sdc has no SMART data (smartctl: Device is in STANDBY mode, exit(2))"},
      // No device object: the name comes from smartctl's argv.
      {"nosmart-open-failed-windows.json", 2, "",
       R"(/dev/sda has no SMART data (smartctl: Smartctl open device: /dev/sda failed: \\.\PhysicalDrive0: Open failed, Error=5))"},
      // A RAID volume: identity and a temperature of 0, no health data.
      {"nosmart-intel-raid-volume.json", 4, "SCSI",
       "/dev/sdb has no SMART data (smartctl exit status 4)"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.file);
    const SmartSnapshot s = ParseFile(c.file, c.exit_status);
    CHECK_FALSE(s.available);
    CHECK(s.protocol == c.protocol);
    CHECK(s.note == c.note);
    CHECK_FALSE(s.passed);
    CHECK_FALSE(s.temperature_c);
    CHECK_FALSE(s.power_on_hours);
  }
  const SmartSnapshot raid = ParseFile("nosmart-intel-raid-volume.json", 4);
  CHECK(raid.model == "Intel Raid 1 Volume");
  CHECK(raid.serial == "Volume1");
}

TEST_CASE("Output that is not smartctl's JSON gives a note, never a throw", "[smart]") {
  const SmartSnapshot empty = ParseSmartctlJson("", 1);
  CHECK_FALSE(empty.available);
  CHECK(empty.note == "smartctl wrote nothing (exit status 1)");
  CHECK(ParseSmartctlJson(" \n\t", 0).note == "smartctl wrote nothing (exit status 0)");

  // smartmontools 6 does not know --json.
  const SmartSnapshot old = ParseSmartctlJson(
      "smartctl 6.6 2016-05-31 r4324 [x86_64-linux-4.19.0] (local build)\n"
      "Copyright (C) 2002-16, Bruce Allen\n\n=======> UNRECOGNIZED OPTION: json=c\n",
      1);
  CHECK_FALSE(old.available);
  CHECK(old.note ==
        "smartctl wrote no JSON (smartmontools 7.0 or later is needed): smartctl 6.6 2016-05-31 "
        "r4324 [x86_64-linux-4.19.0] (local build)");

  for (const char* garbage : {"{", "[1, 2]", "42", "{\"a\": 1}", "null", "\"smartctl\"",
                              "{\"smartctl\": 5, \"device\": [], \"smart_status\": 3}"}) {
    CAPTURE(garbage);
    const SmartSnapshot s = ParseSmartctlJson(garbage, 0);
    CHECK_FALSE(s.available);
    CHECK_FALSE(s.note.empty());
  }
  const std::string long_line(300, 'x');
  CHECK(ParseSmartctlJson(long_line, 0).note ==
        "smartctl wrote no JSON (smartmontools 7.0 or later is needed): " + std::string(100, 'x') +
            "...");
}

TEST_CASE("Fields smartctl does not give, or gives with the wrong type, stay empty", "[smart]") {
  // Health status only (smartctl -H): no attribute table, no NVMe log.
  const SmartSnapshot health = ParseSmartctlJson(
      R"({"smartctl": {"exit_status": 0}, "device": {"name": "/dev/sdc", "protocol": "ATA"},
          "smart_status": {"passed": true}})",
      0);
  CHECK(Describe(health) ==
        "available=1 protocol=ATA model= serial= firmware= passed=1 temperature_c=- "
        "power_on_hours=- reallocated=- pending=- offline_uncorrectable=- crc=- "
        "media_errors=- percentage_used=- note=");

  // Wrong types and values everywhere: a string raw value, a negative one, a
  // fraction, a table that is no array, an attribute without an id.
  const SmartSnapshot odd = ParseSmartctlJson(
      R"({"smartctl": {}, "device": {"protocol": 7}, "model_name": ["x"],
          "smart_status": {"passed": "yes"},
          "temperature": {"current": "hot"}, "power_on_time": {"hours": -3},
          "ata_smart_attributes": {"table": [
             {"id": 5, "raw": {"value": "12"}}, {"id": 197, "raw": {"value": -1}},
             {"id": 198, "raw": {"value": 1.5}}, {"raw": {"value": 9}}, 17,
             {"id": 199, "raw": {"value": 2}}]},
          "nvme_smart_health_information_log": {"media_errors": null, "percentage_used": 101}})",
      0);
  CHECK(Describe(odd) ==
        "available=1 protocol= model= serial= firmware= passed=- temperature_c=- "
        "power_on_hours=- reallocated=- pending=- offline_uncorrectable=- crc=2 "
        "media_errors=- percentage_used=101 note=");

  const SmartSnapshot no_table = ParseSmartctlJson(
      R"({"smartctl": {}, "ata_smart_attributes": {"table": "none"}, "smart_status": {}})", 0);
  CHECK_FALSE(no_table.available);

  // NVMe without temperature / power_on_time objects: the health log's.
  const SmartSnapshot nvme = ParseSmartctlJson(
      R"({"smartctl": {}, "device": {"protocol": "NVMe"},
          "nvme_smart_health_information_log": {"temperature": 41, "power_on_hours": 10,
                                                "media_errors": 18446744073709551615}})",
      0);
  CHECK(Describe(nvme) ==
        "available=1 protocol=NVMe model= serial= firmware= passed=- temperature_c=41 "
        "power_on_hours=10 reallocated=- pending=- offline_uncorrectable=- crc=- "
        "media_errors=18446744073709551615 percentage_used=- note=");
}

TEST_CASE("Exit status bits 0 and 1 mean no SMART data, bit 2 and above do not", "[smart]") {
  const std::string text = test::ReadFile(test::DataPath("smart/ata-hdd-seagate-st3500418as.json"));
  CHECK_FALSE(ParseSmartctlJson(text, 1).available);
  CHECK(ParseSmartctlJson(text, 2).note == "/dev/sda has no SMART data (smartctl exit status 2)");
  CHECK(ParseSmartctlJson(text, 2).model == "ST3500418AS");
  for (int status : {4, 8, 16, 32, 64, 128, 252}) {
    CAPTURE(status);
    CHECK(ParseSmartctlJson(text, status).available);
  }
}

TEST_CASE("SMART disabled, unsupported or refused give notes that say so", "[smart]") {
  CHECK(ParseSmartctlJson(
            R"({"smartctl": {"exit_status": 4}, "device": {"name": "/dev/sdb", "protocol": "ATA"},
                "smart_support": {"available": true, "enabled": false}})",
            4)
            .note == "SMART is disabled on /dev/sdb (`smartctl -s on /dev/sdb` enables it)");
  CHECK(ParseSmartctlJson(
            R"({"smartctl": {"exit_status": 4}, "device": {"name": "/dev/sdd", "protocol": "SCSI"},
                "smart_support": {"available": false}})",
            4)
            .note == "/dev/sdd has no SMART support (smartctl exit status 4)");
  CHECK(ParseSmartctlJson(
            R"({"smartctl": {"argv": ["smartctl", "--json=c", "-a", "/dev/sda"], "messages": [
                 {"string": "Smartctl open device: /dev/sda failed: Permission denied",
                  "severity": "error"},
                 {"string": "Some hint", "severity": "information"}], "exit_status": 2}})",
            2)
            .note ==
        "/dev/sda has no SMART data (smartctl: Smartctl open device: /dev/sda failed: Permission "
        "denied; reading SMART data needs root)");
  // Neither device.name nor a path among the arguments.
  CHECK(ParseSmartctlJson(R"({"smartctl": {"argv": ["smartctl", "-a", "-d", "sat"]}})", 2).note ==
        "the device has no SMART data (smartctl exit status 2)");
  // Without an error among the messages, all of them.
  CHECK(ParseSmartctlJson(
            R"({"smartctl": {"messages": [{"string": "one"}, {"string": "two",
                "severity": "warning"}]}, "device": {"name": "/dev/sdx"}})",
            2)
            .note == "/dev/sdx has no SMART data (smartctl: one; two)");
}

SmartSnapshot Counters(std::optional<std::uint64_t> reallocated,
                       std::optional<std::uint64_t> pending, std::optional<std::uint64_t> offline,
                       std::optional<std::uint64_t> crc, std::optional<std::uint64_t> media,
                       std::optional<std::uint64_t> used) {
  SmartSnapshot s;
  s.available = true;
  s.reallocated_sectors = reallocated;
  s.pending_sectors = pending;
  s.offline_uncorrectable = offline;
  s.crc_errors = crc;
  s.media_errors = media;
  s.percentage_used = used;
  return s;
}

std::string Describe(const std::vector<SmartChange>& changes) {
  std::string text;
  for (const SmartChange& c : changes) {
    text += c.field + " " + std::to_string(c.before) + "->" + std::to_string(c.after) + "; ";
  }
  return text;
}

TEST_CASE("SmartIncreases names the counters that grew, in a fixed order", "[smart]") {
  const SmartSnapshot before = Counters(1, 8, 0, 3, 0, 10);
  CHECK(SmartIncreases(before, before).empty());
  CHECK(Describe(SmartIncreases(before, Counters(2, 8, 1, 3, 4, 11))) ==
        "reallocated_sectors 1->2; offline_uncorrectable 0->1; media_errors 0->4; "
        "percentage_used 10->11; ");
  CHECK(Describe(SmartIncreases(before, Counters(1, 9, 0, 5, 0, 10))) ==
        "pending_sectors 8->9; crc_errors 3->5; ");
  // Pending sectors reallocated: pending shrinks (not reported), reallocated grows.
  CHECK(Describe(SmartIncreases(before, Counters(9, 0, 0, 3, 0, 10))) ==
        "reallocated_sectors 1->9; ");
  // A counter missing on either side is not compared.
  CHECK(SmartIncreases(Counters(std::nullopt, 1, {}, {}, {}, {}), Counters(5, 1, 1, 1, 1, 1))
            .empty());
  CHECK(SmartIncreases(before, SmartSnapshot{}).empty());

  // Two readings of a recorded drive, the second with 8 more reallocated sectors.
  const std::string text = test::ReadFile(test::DataPath("smart/ata-hdd-seagate-st3500418as.json"));
  const std::string later = Replace(text, R"("value": 304)", R"("value": 312)");
  CHECK(Describe(SmartIncreases(ParseSmartctlJson(text, 0), ParseSmartctlJson(later, 0))) ==
        "reallocated_sectors 304->312; ");
}

TEST_CASE("RunSmartctl runs the smartctl first on PATH with --json=c -a DEVICE", "[smart]") {
  FakeSmartctl fake;
  const std::string json = test::ReadFile(test::DataPath("smart/nvme-samsung-970-evo-plus.json"));
  fake.Call(1, json);
  fake.Call(2, "{\"smartctl\": {}}", 6);

  const SmartctlRun first = RunSmartctl("/dev/nvme0");
  CHECK(first.found);
  CHECK(first.error.empty());
  CHECK(first.exit_status == 0);
  CHECK(first.stdout_text == json);

  const SmartctlRun second = RunSmartctl("/dev/sdz");
  CHECK(second.exit_status == 6);
  CHECK(second.stdout_text == "{\"smartctl\": {}}");

  // A third call has no file: nothing printed, status 0.
  const SmartctlRun third = RunSmartctl("/dev/sdq");
  CHECK(third.exit_status == 0);
  CHECK(third.stdout_text.empty());
  CHECK(test::ReadFile(fake.dir() / "calls.log") ==
        "--json=c -a /dev/nvme0\n--json=c -a /dev/sdz\n--json=c -a /dev/sdq\n");
}

TEST_CASE("ReadSmart before and after finds the fake drive's new reallocated sectors", "[smart]") {
  FakeSmartctl fake;
  const std::string text = test::ReadFile(test::DataPath("smart/ata-hdd-seagate-st3500418as.json"));
  fake.Call(1, text);
  fake.Call(2, Replace(text, R"("value": 304)", R"("value": 312)"), 64);
  const SmartSnapshot before = ReadSmart("/dev/sda");
  const SmartSnapshot after = ReadSmart("/dev/sda");
  CHECK(before.available);
  CHECK(after.available);
  CHECK(Describe(SmartIncreases(before, after)) == "reallocated_sectors 304->312; ");
}

TEST_CASE("ReadSmart notes a device without SMART and a smartctl that writes garbage", "[smart]") {
  FakeSmartctl fake;
  fake.Call(1, test::ReadFile(test::DataPath("smart/nosmart-virtio-vda.json")), 1);
  fake.Call(2, "Segmentation fault\n", 139 - 128);
  const SmartSnapshot vda = ReadSmart("/dev/vda");
  CHECK_FALSE(vda.available);
  CHECK(vda.note ==
        "/dev/vda has no SMART data (smartctl: /dev/vda: Unable to detect device type)");
  const SmartSnapshot garbage = ReadSmart("/dev/sdb");
  CHECK_FALSE(garbage.available);
  CHECK(garbage.note ==
        "/dev/sdb: smartctl wrote no JSON (smartmontools 7.0 or later is needed): Segmentation "
        "fault");
}

TEST_CASE("Without smartctl on PATH nothing runs and the note says to install it", "[smart]") {
  test::TempDir empty;
  ScopedEnv path("PATH", empty.path().string());
  const SmartctlRun run = RunSmartctl("/dev/sda");
  CHECK_FALSE(run.found);
  CHECK(run.exit_status == -1);
  CHECK(run.error == "smartctl not found on PATH");
  const SmartSnapshot s = ReadSmart("/dev/sda");
  CHECK_FALSE(s.available);
  CHECK(s.note == "smartctl not found (install smartmontools for SMART data)");
}

TEST_CASE("A smartctl that hangs is killed at the timeout", "[smart]") {
  FakeSmartctl fake;
  fake.Call(1, "{}");
  ScopedEnv sleep("FAKE_SMARTCTL_SLEEP", "5");
  const auto start = std::chrono::steady_clock::now();
  const SmartctlRun run = RunSmartctl("/dev/sda", std::chrono::milliseconds(300));
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(run.found);
  CHECK(run.exit_status == -1);
  CHECK(run.error == "smartctl (" + (fake.dir() / "smartctl").string() +
                         ") timed out after 300 ms and was killed");
  CHECK(took >= std::chrono::milliseconds(300));
  CHECK(took < std::chrono::seconds(5));
}

TEST_CASE("A smartctl killed by a signal is an error, not an exit status", "[smart]") {
  test::TempDir dir;
  test::WriteFile(dir.path() / "smartctl", "#!/bin/sh\necho '{\"smartctl\": {}}'\nkill -KILL $$\n");
  fs::permissions(dir.path() / "smartctl", fs::perms::owner_all);
  ScopedEnv path("PATH", dir.path().string() + ":" + OldPath());
  const SmartctlRun run = RunSmartctl("/dev/sda");
  CHECK(run.found);
  CHECK(run.exit_status == -1);
  CHECK(run.stdout_text == "{\"smartctl\": {}}\n");
  CHECK(run.error == "smartctl (" + (dir.path() / "smartctl").string() + ") killed by signal 9");
  const SmartSnapshot s = ReadSmart("/dev/sda");
  CHECK_FALSE(s.available);
  CHECK(s.note == "no SMART data for /dev/sda: " + run.error);
}

TEST_CASE("FindOnPath takes the first executable regular file", "[smart]") {
  test::TempDir a, b, c;
  test::WriteFile(a.path() / "smartctl", "not executable");
  fs::create_directory(b.path() / "smartctl");
  test::WriteFile(c.path() / "smartctl", "#!/bin/sh\n");
  fs::permissions(c.path() / "smartctl", fs::perms::owner_all);
  const std::string path = a.path().string() + ":" + b.path().string() + ":" + c.path().string();
  CHECK(FindOnPath("smartctl", path) == (c.path() / "smartctl").string());
  CHECK(FindOnPath("smartctl", a.path().string()).empty());
}

// A fake sysfs tree under a temp dir: attributes, directories and relative
// symlinks, as in sysfs_info_test.cc.
class FakeSys {
 public:
  std::string root() const { return dir_.path().string(); }
  void Attr(const std::string& rel, const std::string& value) const {
    fs::create_directories((dir_.path() / rel).parent_path());
    test::WriteFile(dir_.path() / rel, value);
  }
  void Link(const std::string& rel, const std::string& target) const {
    fs::create_directories((dir_.path() / rel).parent_path());
    fs::create_directory_symlink(target, dir_.path() / rel);
  }

 private:
  test::TempDir dir_;
};

TEST_CASE("Drive temperature of a SATA disk from drivetemp, also for a partition", "[smart]") {
  FakeSys sys;
  const std::string scsi = "devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0";
  sys.Attr(scsi + "/hwmon/hwmon3/name", "drivetemp\n");
  sys.Attr(scsi + "/hwmon/hwmon3/temp1_input", "41000\n");
  sys.Attr(scsi + "/block/sda/sda1/partition", "1\n");
  sys.Link(scsi + "/block/sda/device", "../../../0:0:0:0");
  sys.Link("block/sda", "../" + scsi + "/block/sda");
  sys.Link("class/block/sda", "../../" + scsi + "/block/sda");
  sys.Link("class/block/sda1", "../../" + scsi + "/block/sda/sda1");
  CHECK(ReadDriveTemperatureC("sda", sys.root()) == 41.0);
  CHECK(ReadDriveTemperatureC("sda1", sys.root()) == 41.0);
  CHECK_FALSE(ReadDriveTemperatureC("sdb", sys.root()));
  CHECK_FALSE(ReadDriveTemperatureC("../sda", sys.root()));
  CHECK_FALSE(ReadDriveTemperatureC("", sys.root()));
}

TEST_CASE("Drive temperature of an NVMe drive from its controller's hwmon", "[smart]") {
  const std::string pci = "devices/pci0000:00/0000:00:1d.0/0000:3c:00.0";
  SECTION("on the controller (current kernels)") {
    FakeSys sys;
    sys.Attr(pci + "/nvme/nvme0/hwmon2/name", "nvme\n");
    sys.Attr(pci + "/nvme/nvme0/hwmon2/temp1_input", "38850\n");
    sys.Attr(pci + "/nvme/nvme0/nvme0n1/size", "1000\n");
    sys.Link(pci + "/nvme/nvme0/nvme0n1/device", "../../nvme0");
    sys.Link("block/nvme0n1", "../" + pci + "/nvme/nvme0/nvme0n1");
    CHECK(ReadDriveTemperatureC("nvme0n1", sys.root()) == 38.85);
  }
  SECTION("on the controller's PCI device (Linux 5.5 to 5.x)") {
    FakeSys sys;
    sys.Attr(pci + "/hwmon/hwmon1/temp1_input", "-5000\n");
    sys.Link(pci + "/nvme/nvme0/device", "../../../0000:3c:00.0");
    sys.Attr(pci + "/nvme/nvme0/nvme0n1/size", "1000\n");
    sys.Link(pci + "/nvme/nvme0/nvme0n1/device", "../../nvme0");
    sys.Link("block/nvme0n1", "../" + pci + "/nvme/nvme0/nvme0n1");
    CHECK(ReadDriveTemperatureC("nvme0n1", sys.root()) == -5.0);
  }
  SECTION("behind a multipath subsystem") {
    FakeSys sys;
    const std::string subsys = "devices/virtual/nvme-subsystem/nvme-subsys0";
    sys.Attr(pci + "/nvme/nvme1/hwmon5/temp1_input", "50000\n");
    sys.Attr(subsys + "/nvme0n1/size", "1000\n");
    sys.Link(subsys + "/nvme0n1/device", "../../nvme-subsys0");
    sys.Link(subsys + "/nvme1", "../../../pci0000:00/0000:00:1d.0/0000:3c:00.0/nvme/nvme1");
    sys.Link("block/nvme0n1", "../" + subsys + "/nvme0n1");
    CHECK(ReadDriveTemperatureC("nvme0n1", sys.root()) == 50.0);
  }
  SECTION("from class/nvme when the block device's links lead nowhere") {
    FakeSys sys;
    sys.Attr(pci + "/nvme/nvme0/hwmon2/temp1_input", "30000\n");
    sys.Link("class/nvme/nvme0", "../../" + pci + "/nvme/nvme0");
    CHECK(ReadDriveTemperatureC("nvme0n1", sys.root()) == 30.0);
    CHECK_FALSE(ReadDriveTemperatureC("nvme1n1", sys.root()));
  }
}

TEST_CASE("No drive temperature without a readable sensor", "[smart]") {
  FakeSys sys;
  // A loop device: no hwmon anywhere.
  sys.Attr("devices/virtual/block/loop0/size", "2048\n");
  sys.Link("block/loop0", "../devices/virtual/block/loop0");
  CHECK_FALSE(ReadDriveTemperatureC("loop0", sys.root()));
  // A sensor whose value is not a number, and one that is empty.
  const std::string scsi = "devices/pci0000:00/0000:00:1f.2/ata2/host1/target1:0:0/1:0:0:0";
  sys.Attr(scsi + "/hwmon/hwmon4/temp1_input", "n/a\n");
  sys.Link(scsi + "/block/sdb/device", "../../../1:0:0:0");
  sys.Link("block/sdb", "../" + scsi + "/block/sdb");
  CHECK_FALSE(ReadDriveTemperatureC("sdb", sys.root()));
  sys.Attr(scsi + "/hwmon/hwmon4/temp1_input", "");
  CHECK_FALSE(ReadDriveTemperatureC("sdb", sys.root()));
  CHECK_FALSE(ReadDriveTemperatureC("sda", sys.root() + "/missing"));
}

}  // namespace
}  // namespace zcav
