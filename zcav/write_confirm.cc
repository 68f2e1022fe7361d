#include "write_confirm.h"

#include <istream>
#include <ostream>

#include "zcav/base/error.h"
#include "zcav/base/units.h"

namespace zcav {

void ConfirmWrite(const DeviceInfo& device, const std::string& name, bool interactive,
                  std::istream& in, std::ostream& err) {
  if (!interactive || device.kind != "block") return;
  err << "zcav: this destroys all data on " << name << ", " << FormatBytes(device.size_bytes)
      << ". Type " << name << " to go on: " << std::flush;
  std::string answer;
  if (!std::getline(in, answer)) {
    err << "\n";
    throw Error("write test of " + name + " not confirmed (input ended): nothing written",
                ErrorKind::kBadInput);
  }
  if (answer != name) {
    throw Error("write test of " + name + " not confirmed ('" + answer + "' is not '" + name +
                    "'): nothing written",
                ErrorKind::kBadInput);
  }
}

}  // namespace zcav
