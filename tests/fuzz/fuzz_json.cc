// libFuzzer target: zcav's JSON (json_writer.cc), forced by a leading '{'
// (fuzz_profile.h says what is checked). ctest runs it briefly as fuzz_json;
// by hand, from the build directory:
//   tests/fuzz_json -max_total_time=600 tests/fuzz/json-corpus tests/fuzz/json-seeds
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr const char* kSignature = "{";
  return zcav::fuzz::FuzzProfile(kSignature, "{", "zcav-json", data, size);
}
