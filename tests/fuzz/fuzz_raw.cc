// libFuzzer target: zcav's raw layout (raw_writer.cc), forced by a '# zcav ' first line
// (fuzz_profile.h says what is checked). ctest runs it briefly as fuzz_raw;
// by hand, from the build directory:
//   tests/fuzz_raw -max_total_time=600 tests/fuzz/raw-corpus tests/fuzz/raw-seeds
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr const char* kSignature = "# zcav fuzz\n";
  return zcav::fuzz::FuzzProfile(kSignature, "# zcav ", "zcav-raw", data, size);
}
