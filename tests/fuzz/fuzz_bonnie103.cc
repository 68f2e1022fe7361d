// libFuzzer target: classic zcav 1.03 logs, forced by a 1.03 table header
// (fuzz_profile.h says what is checked). ctest runs it briefly as fuzz_bonnie103;
// by hand, from the build directory:
//   tests/fuzz_bonnie103 -max_total_time=600 tests/fuzz/bonnie103-corpus tests/fuzz/bonnie103-seeds
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr const char* kSignature = "#block K/s time\n";
  return zcav::fuzz::FuzzProfile(kSignature, "", "bonnie-1.03", data, size);
}
