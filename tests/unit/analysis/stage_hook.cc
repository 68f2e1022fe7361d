// The unit tests' hook into the zone detector's ablation (zones/ablation.h):
// ZCAV_TEST_SKIP_STAGE=NAME[,NAME...] switches those stages off for the whole
// run of zcav_tests, before any test starts, so that docs/zone-detector.md can
// count the tests each stage keeps passing. Unset (as in ctest), nothing is
// skipped. Only this test binary reads the variable; zcav never does.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "zcav/analysis/zones/ablation.h"

namespace {

bool SkipStagesFromEnvironment() {
  const char* names = std::getenv("ZCAV_TEST_SKIP_STAGE");
  if (names == nullptr) return false;
  zcav::zones::StageSet skipped;
  std::string_view rest(names);
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string_view name = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    if (name.empty()) continue;
    const auto stage = zcav::zones::StageFromName(name);
    if (!stage) {
      std::fprintf(stderr, "ZCAV_TEST_SKIP_STAGE: no stage %.*s\n", static_cast<int>(name.size()),
                   name.data());
      std::exit(2);
    }
    skipped = skipped.With(*stage);
  }
  zcav::zones::SetSkippedStages(skipped);
  std::fprintf(stderr, "zone detector stages skipped: %s\n", names);
  return true;
}

[[maybe_unused]] const bool kSkipped = SkipStagesFromEnvironment();

}  // namespace
