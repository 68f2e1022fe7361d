// The typed confirmation of a write test (zcav sweep --write --destroy-data).
#pragma once

#include <iosfwd>
#include <string>

#include "zcav/device/device.h"

namespace zcav {

// Says what the write test of a block device destroys, on `err`: the device
// as typed and resolved, its model, serial and size, the signatures on it
// and other processes that have it open (device.write_target; write_target.h):
//   "zcav: this destroys all data on NAME -> NODE (IDENTITY; SIGNATURES)"
//   "zcav: it is open in OPENERS (--force-in-use)"          (when forced)
//   "zcav: N processes could not be checked for it ..."      (when some)
// On a terminal (`interactive`: stdin and stderr are TTYs) it must then be
// confirmed by typing its path: "Type NAME to go on: " ends the text, and one
// line is read from `in`. A non-interactive run goes on with --destroy-data
// alone (the text ends "." then). A simulated device or a file zcav created
// (no one's data is on them) gets neither: nothing is said or asked.
// Throws Error(kBadInput) when the line is not exactly `name` (as the user
// gave it) or input ends: "... not confirmed: nothing written". Once
// confirmed on a terminal, the device is scanned again for other processes
// that have it open (the answer may have taken a while): unless
// `allow_in_use` (--force-in-use), one found then is refused as
// OpenDeviceForWrite refuses it ("... was opened by NAME (pid N, ...) while
// the confirmation waited; nothing written").
void ConfirmWrite(const DeviceInfo& device, const std::string& name, bool interactive,
                  bool allow_in_use, std::istream& in, std::ostream& err);

}  // namespace zcav
