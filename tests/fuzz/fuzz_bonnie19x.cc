// libFuzzer target: classic zcav 1.9x/2.00 logs, forced by their table header
// (fuzz_profile.h says what is checked). ctest runs it briefly as fuzz_bonnie19x;
// by hand, from the build directory:
//   tests/fuzz_bonnie19x -max_total_time=600 tests/fuzz/bonnie19x-corpus tests/fuzz/bonnie19x-seeds
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr const char* kSignature = "#block offset (GiB), MiB/s, time\n";
  return zcav::fuzz::FuzzProfile(kSignature, "", "bonnie-1.9x", data, size);
}
