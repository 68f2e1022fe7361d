#include "zcav/format/adaptive_format.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "zcav/base/error.h"

namespace zcav {
namespace {

using Json = nlohmann::json;

std::uint64_t Bytes(const Json& o, const char* key, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number_unsigned()) {
    throw Error(where + ": adaptive: '" + key + "' is missing or not a byte count",
                ErrorKind::kBadInput);
  }
  return it->get<std::uint64_t>();
}

double Rate(const Json& o, const char* key, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_number() || it->get<double>() < 0) {
    throw Error(where + ": adaptive: '" + key + "' is missing or not a rate", ErrorKind::kBadInput);
  }
  return it->get<double>();
}

}  // namespace

std::string AdaptiveJsonText(const AdaptiveResult& r, std::size_t probes) {
  Json edges = Json::array();
  for (const AdaptiveEdge& e : r.edges) {
    edges.push_back({{"at_bytes", e.at_bytes},
                     {"uncertainty_bytes", e.uncertainty_bytes},
                     {"left_mb_per_s", e.left_mb_per_s},
                     {"right_mb_per_s", e.right_mb_per_s}});
  }
  Json inferred = Json::array();
  for (const AdaptiveZone& z : r.zones) {
    inferred.push_back({{"start_bytes", z.start_bytes},
                        {"end_bytes", z.end_bytes},
                        {"mb_per_s", z.mb_per_s},
                        {"probes", z.probes}});
  }
  const Json o = {
      {"probe_bytes", r.probe_bytes},
      {"grid_probes", r.grid_probes},
      {"probes", probes},
      {"engine", r.engine},
      {"bytes_read", r.bytes_read},
      {"range_start_bytes", r.start_bytes},
      {"range_bytes", r.range_bytes},
      {"share_read", r.range_bytes == 0
                         ? 0.0
                         : static_cast<double>(r.bytes_read) / static_cast<double>(r.range_bytes)},
      {"noise_rel", r.noise_rel},
      {"reference_reads", r.reference_reads},
      {"largest_drift", r.largest_drift},
      {"reread_bytes", r.reread_bytes},
      {"reread_capped", r.reread_capped},
      {"budget_hit", r.budget_hit},
      {"edges", edges},
      {"inferred", inferred},
  };
  return o.dump(-1, ' ', false, Json::error_handler_t::replace);
}

AdaptiveResult ParseAdaptiveJson(const std::string& text, const std::string& where) {
  const Json o = Json::parse(text, nullptr, false);
  if (!o.is_object()) {
    throw Error(where + ": adaptive: not a JSON object", ErrorKind::kBadInput);
  }
  AdaptiveResult r;
  r.probe_bytes = Bytes(o, "probe_bytes", where);
  r.grid_probes = static_cast<std::uint32_t>(Bytes(o, "grid_probes", where));
  r.bytes_read = Bytes(o, "bytes_read", where);
  r.start_bytes = Bytes(o, "range_start_bytes", where);
  r.range_bytes = Bytes(o, "range_bytes", where);
  r.noise_rel = Rate(o, "noise_rel", where);
  if (const auto e = o.find("engine"); e != o.end() && e->is_string()) r.engine = *e;
  // (Results before the reference: none read, no drift.)
  if (const auto n = o.find("reference_reads"); n != o.end() && n->is_number_unsigned()) {
    r.reference_reads = n->get<std::uint32_t>();
  }
  if (const auto d = o.find("largest_drift"); d != o.end() && d->is_number() && *d > 0) {
    r.largest_drift = *d;
  }
  // (Results before the bound on re-reads: none counted.)
  if (const auto n = o.find("reread_bytes"); n != o.end() && n->is_number_unsigned()) {
    r.reread_bytes = std::min(n->get<std::uint64_t>(), r.bytes_read);
  }
  if (const auto b = o.find("reread_capped"); b != o.end() && b->is_boolean()) {
    r.reread_capped = *b;
  }
  if (const auto b = o.find("budget_hit"); b != o.end() && b->is_boolean()) r.budget_hit = *b;
  const auto edges = o.find("edges");
  const auto inferred = o.find("inferred");
  if (edges == o.end() || !edges->is_array() || inferred == o.end() || !inferred->is_array()) {
    throw Error(where + ": adaptive: 'edges' and 'inferred' must be arrays", ErrorKind::kBadInput);
  }
  for (const Json& e : *edges) {
    r.edges.push_back(AdaptiveEdge{.at_bytes = Bytes(e, "at_bytes", where),
                                   .uncertainty_bytes = Bytes(e, "uncertainty_bytes", where),
                                   .left_mb_per_s = Rate(e, "left_mb_per_s", where),
                                   .right_mb_per_s = Rate(e, "right_mb_per_s", where)});
  }
  for (const Json& z : *inferred) {
    r.zones.push_back(
        AdaptiveZone{.start_bytes = Bytes(z, "start_bytes", where),
                     .end_bytes = Bytes(z, "end_bytes", where),
                     .mb_per_s = Rate(z, "mb_per_s", where),
                     .probes = static_cast<std::uint32_t>(Bytes(z, "probes", where))});
  }
  return r;
}

}  // namespace zcav
