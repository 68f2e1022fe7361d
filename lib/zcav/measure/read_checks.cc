#include "zcav/measure/read_checks.h"

#include "zcav/base/error.h"
#include "zcav/base/units.h"

namespace zcav {

void RequireSomeBytes(std::initializer_list<NamedSize> sizes) {
  for (const NamedSize& size : sizes) {
    if (size.bytes == 0) {
      throw Error("invalid " + std::string(size.what) + " 0: must be at least one sector",
                  ErrorKind::kBadInput);
    }
  }
}

void RequireFitsDevice(std::uint64_t bytes, const DeviceInfo& info, const std::string& what) {
  if (bytes > info.size_bytes) {
    throw Error(what + " " + FormatBytes(bytes) + " is larger than " + info.path + " (" +
                    FormatBytes(info.size_bytes) + ")",
                ErrorKind::kBadInput);
  }
}

}  // namespace zcav
