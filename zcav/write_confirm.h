// The typed confirmation of a write test (zcav sweep --write --destroy-data).
#pragma once

#include <iosfwd>
#include <string>

#include "zcav/device/device.h"

namespace zcav {

// On a terminal (`interactive`: stdin and stderr are TTYs) the write test of
// a block device must be confirmed by typing its path: asks on `err`
//   "zcav: this destroys all data on NAME, SIZE. Type NAME to go on: "
// and reads one line from `in`. A non-interactive run goes on with
// --destroy-data alone, and so does a simulated device or a file zcav
// created (no one's data is on them): nothing is asked then.
// Throws Error(kBadInput) when the line is not exactly `name` (as the user
// gave it) or input ends: "... not confirmed: nothing written".
void ConfirmWrite(const DeviceInfo& device, const std::string& name, bool interactive,
                  std::istream& in, std::ostream& err);

}  // namespace zcav
