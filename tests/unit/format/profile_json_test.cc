// Tests of profile.json's members besides the sweep (format/profile_json.h).
#include "zcav/format/profile_json.h"

#include <catch2/catch.hpp>
#include <cerrno>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <vector>

namespace zcav {
namespace {

using nlohmann::json;

TEST_CASE("Profile JSON writes unknown bus ceilings as null and capped figures only when capped",
          "[profile_json]") {
  Transport t;
  t.kind = "usb";
  t.link = "USB 2.0 (480 Mb/s)";
  t.source = "sysfs";
  json bus = json::parse(TransportJson(t));
  CHECK(bus["kind"] == "usb");
  CHECK(bus["link"] == "USB 2.0 (480 Mb/s)");
  CHECK(bus["ceiling_mb_per_s"].is_null());
  CHECK(bus["theoretical_mb_per_s"].is_null());
  CHECK(bus["source"] == "sysfs");
  t.ceiling_mb_per_s = 40;
  CHECK(json::parse(TransportJson(t))["ceiling_mb_per_s"] == 40.0);

  Verdict v;
  v.kind = VerdictKind::kMediaLimited;
  v.reason = "the zones fall";
  v.capped_share = 0.5;
  json media = json::parse(VerdictJson(v));
  CHECK(media["kind"] == "media-limited");
  CHECK(media["reason"] == "the zones fall");
  CHECK_FALSE(media.contains("capped_share"));
  v.kind = VerdictKind::kBusCapped;
  v.uncapped_estimate_mb_per_s = std::numeric_limits<double>::quiet_NaN();
  json capped = json::parse(VerdictJson(v));
  CHECK(capped["kind"] == "bus-capped");
  CHECK(capped["capped_share"] == 0.5);
  CHECK(capped["uncapped_estimate_mb_per_s"] == 0.0);  // NaN is written as 0
}

TEST_CASE("Profile JSON members come in profile.json's order and say which step failed",
          "[profile_json]") {
  Transport transport;
  Verdict verdict;
  SweepResult sweep;
  SweepPlan plan;
  plan.passes = 1;
  AccessResult access;
  access.samples = {{4096, 0, 12.5}};
  access.error = std::error_code(EIO, std::system_category());
  access.error_offset_bytes = 8192;
  RandomAccessResult random;
  RandomAccessOptions random_options;
  BurstResult burst;
  burst.interrupted = true;
  ProfileSampling sampling;
  sampling.sampling = "quick";
  sampling.passes = 1;
  sampling.passes_why = "default";
  const std::string status = "partial: interrupted";
  const auto members = ProfileJsonMembers({.transport = transport,
                                           .verdict = verdict,
                                           .sweep = sweep,
                                           .plan = plan,
                                           .access = access,
                                           .access_read_bytes = 512,
                                           .random_access = random,
                                           .random_options = random_options,
                                           .burst = burst,
                                           .burst_region_bytes = 1024,
                                           .sampling = sampling,
                                           .status = status,
                                           .partial = true});
  std::vector<std::string> names;
  for (const auto& [name, value] : members) names.push_back(name);
  CHECK(names == std::vector<std::string>{"transport", "verdict", "sweep", "access",
                                          "random_access", "burst", "profile", "status",
                                          "partial"});
  const json access_json = json::parse(members[3].second);
  CHECK(access_json["status"].get<std::string>().rfind("partial: read error at offset 8192", 0) ==
        0);
  CHECK(access_json["read_bytes"] == 512);
  CHECK(access_json["samples"][0]["offset_bytes"] == 4096);
  CHECK(access_json["error"]["offset_bytes"] == 8192);
  const json burst_json = json::parse(members[5].second);
  CHECK(burst_json["status"] == "partial: interrupted");
  CHECK(burst_json["region_bytes"] == 1024);
  CHECK_FALSE(burst_json.contains("error"));
  const json profile = json::parse(members[6].second);
  CHECK(profile["sampling"] == "quick");
  CHECK(profile["quick"] == true);
  CHECK(profile["estimate"].is_null());
  CHECK(members[7].second == "\"partial: interrupted\"");
  CHECK(members[8].second == "true");
}

}  // namespace
}  // namespace zcav
