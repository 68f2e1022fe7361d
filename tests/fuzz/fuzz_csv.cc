// libFuzzer target: zcav's CSV (csv_writer.cc), forced by its header line
// (fuzz_profile.h says what is checked). ctest runs it briefly as fuzz_csv;
// by hand, from the build directory:
//   tests/fuzz_csv -max_total_time=600 tests/fuzz/csv-corpus tests/fuzz/csv-seeds
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_profile.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  constexpr const char* kSignature =
      "offset_bytes,length_bytes,mb_per_s,mean_mb_per_s,min_mb_per_s,max_mb_per_s,stddev_mb_per_s,"
      "passes,seconds,unreadable_bytes\n";
  return zcav::fuzz::FuzzProfile(kSignature, "offset_bytes,length_bytes,mb_per_s", "zcav-csv", data,
                                 size);
}
