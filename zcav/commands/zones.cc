// zcav zones FILE...: the zone tables of saved results.
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "../app_util.h"
#include "../options.h"
#include "commands.h"
#include "zcav/analysis/result_zones.h"
#include "zcav/analysis/slow_blocks.h"
#include "zcav/analysis/step_origin.h"
#include "zcav/analysis/transport.h"
#include "zcav/analysis/verdict.h"
#include "zcav/base/error.h"
#include "zcav/format/data_reader.h"
#include "zcav/format/writers.h"
#include "zcav/format/zone_table.h"
#include "zcav/pipeline/pass_curves.h"

namespace zcav {
namespace {

struct ZonesOptions : ZoneFlags {
  std::vector<std::string> files;  // the saved results to analyse
  std::string format = "text";     // --format text, csv or json. Default: text
  std::string output = "-";        // -o FILE; "-" = stdout. Default: "-"
};

constexpr const char* kZonesHelp = R"(Usage: zcav zones FILE... [options]

Finds the zones (throughput plateaus) in saved results and names the curve:
zoned, flat, clipped, cav, pcav, zclv, clv or other. FILE is zcav raw, CSV or
JSON output, or a classic zcav log (bonnie++ 1.03, 1.9x, 2.00; '++++' rates are
recomputed from the time column). Rates are MB/s (10^6 B/s), GB = 10^9 B.

)";
const CommandSyntax kSyntax{"zones", "file", kZonesHelp};

// --help's options (the zone flags are added by ParseThenRun).
po::options_description DescribeZones() {
  po::options_description desc = OptionsWithHelp();
  desc.add_options()("format", po::value<std::string>()->value_name("FMT"),
                     "text (default), csv or json")(
      "output,o", po::value<std::string>()->value_name("FILE"),
      "write the tables to FILE ('-' = stdout, the default)");
  return desc;
}

// The options of a parsed command line. Throws Error(kBadInput).
ZonesOptions ReadZones(const po::variables_map& vm) {
  ZonesOptions out;
  out.files = Positionals(vm, "file");
  if (out.files.empty())
    throw Error("no data file given (usage: zcav zones FILE... [options])", ErrorKind::kBadInput);
  if (vm.count("format")) {
    out.format = vm["format"].as<std::string>();
    if (out.format != "text" && out.format != "csv" && out.format != "json") {
      throw Error("unknown format '" + out.format + "' for zcav zones (use text, csv or json)",
                  ErrorKind::kBadInput);
    }
  }
  out.output = OutputOrStdout(vm);
  return out;
}

// A result without chunk times (a classic log, a block-only file; not an
// adaptive one, whose blocks are probes): its slow regions from the block
// rates (slow_blocks.h) go into `context` with the health line they give, and
// their blocks out of `profile`'s points, so that they are neither zones nor
// outliers.
void SlowRegionsFromBlocks(SavedResult& profile, ZoneReportContext& context) {
  if (!profile.latency_classes.empty() || !profile.slow_regions.empty() || profile.adaptive) {
    return;
  }
  context.slow_regions = FindSlowBlockRuns(profile.points);
  if (context.slow_regions.empty()) return;
  const std::size_t blocks = profile.points.size();
  profile.points = WithoutRegions(profile.points, context.slow_regions);
  context.notes.push_back("slow regions from the block rates (the file has no chunk times): " +
                          std::to_string(blocks - profile.points.size()) +
                          " blocks in them are not in the zones or outliers");
  HealthInputs health;
  health.device_bytes = profile.device_bytes;
  health.slow_regions = context.slow_regions;
  context.health = AssessHealth(health);
}

int RunZones(const ZonesOptions& options, const Invocation& inv) {
  // Read and analyse every file first: a bad file fails before any output.
  std::vector<std::pair<ZoneAnalysis, ZoneReportContext>> results;
  for (const std::string& path : options.files) {
    SavedResult profile = ReadProfile(path);
    ZoneReportContext context;
    context.source = profile.device_path.empty() ? path : path + " (" + profile.device_path + ")";
    context.device_bytes = profile.device_bytes;
    context.media = options.media_given ? options.media : GuessMedia(profile.device_path);
    context.notes = profile.notes;
    if (profile.adaptive) {
      context.notes.push_back(AdaptiveNote(*profile.adaptive, profile.points.size()));
    }
    ZoneOptions zone_options = options.zones;
    zone_options.blur_blocks = profile.blur_blocks;
    zone_options.non_rotational =
        zone_options.non_rotational || KnownNotToRotate(RecordedDevice(profile));
    SlowRegionsFromBlocks(profile, context);
    ZoneAnalysis analysis = ResultZones(profile, zone_options, context.media != Media::kNone);
    // A saved multi-pass sweep keeps its samples: position or time, as the
    // sweep itself told (step_origin.h).
    if (profile.plan && profile.plan->passes >= 2 && !profile.samples.empty() &&
        analysis.zones.size() >= 2) {
      const std::vector<Curve> passes = PassCurvesFromSamples(*profile.plan, profile.samples);
      ApplyStepOrigins(Curve(profile.points), ClassifySteps(analysis, passes), analysis);
    }
    // The link: --bus, else what the file recorded (zcav's own outputs).
    if (!options.bus.empty()) {
      context.transport = TransportFromName(options.bus);
    } else if (!profile.transport.empty() || !profile.link.empty()) {
      DeviceInfo recorded;
      recorded.transport = profile.transport;
      recorded.link = profile.link;
      recorded.link_state = profile.link_state;
      context.transport = TransportFromDevice(recorded);
    }
    if (profile.plan && profile.plan->write) {
      context.write_cache = AnalyzeWriteCache(analysis, profile.plan->start_bytes);
    }
    if (!profile.plan || !profile.plan->write) context.caches = AssessCaches(profile.caches);
    if (context.transport) {
      context.verdict = VerdictFor(analysis, *context.transport, std::nullopt, context.write_cache,
                                   context.caches);
    }
    results.emplace_back(std::move(analysis), std::move(context));
  }
  std::string text;
  if (options.format == "json") {
    text = results.size() == 1 ? "" : "[\n";
    for (std::size_t i = 0; i < results.size(); ++i) {
      std::string obj = ZoneAnalysisJson(results[i].first, results[i].second);
      // Name the source first: {"source":"...", ...the analysis...}
      Json doc = Json::object();
      doc["source"] = results[i].second.source;
      doc["schema_version"] = kSchemaVersion;
      doc.update(Json::parse(obj));
      text += doc.dump(-1, ' ', false, Json::error_handler_t::replace);
      text += i + 1 < results.size() ? ",\n" : "\n";
    }
    if (results.size() != 1) text += "]\n";
  } else if (options.format == "csv") {
    for (std::size_t i = 0; i < results.size(); ++i) {
      text += FormatZoneCsv(results[i].first, results[i].second, i == 0, results.size() > 1);
    }
  } else {
    for (std::size_t i = 0; i < results.size(); ++i) {
      text += (i ? "\n" : "") + FormatZoneTable(results[i].first, results[i].second);
    }
  }
  WriteWholeResult(options.output, options.files, text, inv.out);
  return 0;
}

}  // namespace

int ZonesCommand(const Invocation& inv) {
  return ParseThenRun(inv, kSyntax, DescribeZones, ReadZones, RunZones);
}

}  // namespace zcav
