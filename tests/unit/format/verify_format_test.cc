// zcav verify's JSON, text and fix (verify_format.h): the member read back
// as written, a hostile file refused in one line, the partition command
// quoted for a shell, the badblocks list.
#include "zcav/format/verify_format.h"

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/sim_device.h"

namespace zcav {
namespace {

VerifyResult Verify(const std::string& spec) {
  VirtualClock clock;
  const std::unique_ptr<Device> device = MakeSimulatedDevice(ParseSimSpec(spec), clock);
  return RunVerify(*device, clock, VerifyOptions{}, nullptr);
}

}  // namespace

TEST_CASE("The verify member is read back as it was written", "[verify_format]") {
  const VerifyResult r = Verify("sim:ssd?size=512M&real=128M&lose=10M-11M&noise=0.02");
  const std::string text = VerifyJsonText(r, "/dev/sdz");
  const nlohmann::json j = nlohmann::json::parse(text);
  CHECK(j["verdict"] == "fake capacity");
  CHECK(j["usable_bytes"] == 128 * kMiB);
  CHECK(j["run_id"].get<std::string>().size() == 16);
  CHECK(j["fix"]["partition_command"] ==
        "parted --script /dev/sdz mklabel msdos mkpart primary 1MiB 128MiB");
  const VerifyResult back = ParseVerifyJson(text, "v.json");
  CHECK(back.run_id == r.run_id);
  CHECK(back.claimed_bytes == r.claimed_bytes);
  CHECK(back.usable_bytes == r.usable_bytes);
  CHECK(back.verdict == r.verdict);
  CHECK(back.write_done_bytes == r.write_done_bytes);
  CHECK(back.chunk_bytes == r.chunk_bytes);
  CHECK(back.block_bytes == r.block_bytes);
  REQUIRE(back.ranges.size() == r.ranges.size());
  for (std::size_t i = 0; i < r.ranges.size(); ++i) {
    CAPTURE(i);
    CHECK(back.ranges[i].start_bytes == r.ranges[i].start_bytes);
    CHECK(back.ranges[i].end_bytes == r.ranges[i].end_bytes);
    CHECK(back.ranges[i].state == r.ranges[i].state);
    if (r.ranges[i].state == VerifyState::kWrapped) {
      CHECK(back.ranges[i].source_bytes == r.ranges[i].source_bytes);
    }
  }
  REQUIRE(back.blocks.size() == r.blocks.size());
  CHECK(back.blocks[7].write_mb_per_s == Approx(r.blocks[7].write_mb_per_s));
}

TEST_CASE("A verify member that is not zcav's is refused in one line", "[verify_format]") {
  const VerifyResult r = Verify("sim:ssd?size=16M&noise=0");
  nlohmann::json good = nlohmann::json::parse(VerifyJsonText(r, "x"));
  const auto refused = [](const nlohmann::json& j, const std::string& what) {
    CAPTURE(j.dump().substr(0, 200));
    try {
      ParseVerifyJson(j.dump(), "evil.json");
      FAIL("accepted");
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::kBadInput);
      CHECK_THAT(e.what(), Catch::StartsWith("evil.json: verify: ") && Catch::Contains(what));
      CHECK(std::string(e.what()).find('\n') == std::string::npos);
    }
  };
  refused(nlohmann::json::array(), "not a JSON object");
  nlohmann::json j = good;
  j["run_id"] = "../../etc/passwd";
  refused(j, "16 hex digits");
  j = good;
  j["claimed_bytes"] = -5;
  refused(j, "claimed_bytes");
  j = good;
  j["ranges"][0]["state"] = "$(reboot)";
  refused(j, "unknown range state");
  j = good;
  j["blocks"][0]["read_mb_per_s"] = "fast";
  refused(j, "read_mb_per_s");
  j = good;
  j["notes"] = {42};
  refused(j, "note");
  CHECK_THROWS_AS(ParseVerifyJson("{\"run_id\": ", "x"), Error);
}

TEST_CASE("Text and the partition command quote what a device name holds", "[verify_format]") {
  CHECK(ShellQuote("/dev/sdb") == "/dev/sdb");
  CHECK(ShellQuote("/dev/disk/by-id/usb-X_Y:0") == "/dev/disk/by-id/usb-X_Y:0");
  CHECK(ShellQuote("a b") == "'a b'");
  CHECK(ShellQuote("x'; rm -rf / #") == "'x'\\''; rm -rf / #'");
  CHECK(ShellQuote("$(reboot)") == "'$(reboot)'");
  CHECK(ShellQuote("") == "''");
  VerifyResult r = Verify("sim:ssd?size=256M&real=64M&noise=0");
  CHECK(PartitionCommand(r, "/tmp/x y$(id)") ==
        "parted --script '/tmp/x y$(id)' mklabel msdos mkpart primary 1MiB 64MiB");
  const std::string text = VerifyReportText(r, "/dev/evil\x1b]2;pwned\x07");
  CHECK(text.find('\x1b') == std::string::npos);
  CHECK(text.find('\x07') == std::string::npos);
  CHECK_THAT(text, Catch::Contains("fake capacity") &&
                       Catch::Contains("usable from the start: 64.00 MiB"));
  const VerifyResult genuine = Verify("sim:ssd?size=16M&noise=0");
  CHECK(PartitionCommand(genuine, "/dev/sdb").empty());
  CHECK(BadBlocksList(genuine).empty());
}

TEST_CASE("The badblocks list names every 4096-byte block of a lost range", "[verify_format]") {
  const VerifyResult r = Verify("sim:ssd?size=64M&lose=1048576-1052672,8M-8389632&noise=0");
  CHECK(r.verdict == VerifyVerdict::kDataLoss);
  CHECK(PartitionCommand(r, "/dev/sdb").empty());  // no smaller partition for lost places
  const std::string list = BadBlocksList(r);
  // 1 MiB .. 1 MiB + 4 KiB is block 256; the 1 KiB at 8 MiB is in block 2048.
  CHECK(list == "256\n2048\n");
  // A fake: only the places below its usable size.
  const VerifyResult fake = Verify("sim:ssd?size=256M&real=100M&fake=drop&lose=4096-8192&noise=0");
  CHECK(fake.verdict == VerifyVerdict::kFakeCapacity);
  CHECK(BadBlocksList(fake) == "1\n");
}

}  // namespace zcav
