#include "write_confirm.h"

#include <istream>
#include <ostream>
#include <vector>

#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/device/posix/posix_device.h"
#include "zcav/device/write_target.h"

namespace zcav {

void ConfirmWrite(const DeviceInfo& device, const std::string& name, bool interactive,
                  bool allow_in_use, std::istream& in, std::ostream& err) {
  if (device.kind != "block") return;
  const WriteTarget& target = device.write_target;
  // Strings from the device and from other processes are cleaned where they
  // are read; the name typed is the user's own, shown as a terminal can.
  err << "zcav: this destroys all data on " << TerminalText(WriteTargetName(name, target)) << " ("
      << TerminalText(WriteTargetIdentity(device)) << "; " << TerminalText(SignaturesText(target))
      << ")";
  if (!target.openers.empty()) {
    err << "\nzcav: it is open in " << OpenersText(target.openers) << " (--force-in-use)";
  }
  if (target.unchecked_processes > 0) {
    err << "\nzcav: " << target.unchecked_processes
        << " processes could not be checked for it (their open files are not readable: run "
           "as root to see them all)";
  }
  if (!interactive) {
    err << ".\n";
    return;
  }
  err << ". Type " << name << " to go on: " << std::flush;
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
  if (allow_in_use) return;
  const std::vector<DeviceOpener> now = PosixOpenersNow(device.path);
  if (!now.empty()) {
    throw Error("refusing to write " + WriteTargetName(name, target) + ": it was opened by " +
                    OpenersText(now) +
                    " while the confirmation waited; nothing written (end those programs first, "
                    "or add --force-in-use to write anyway)",
                ErrorKind::kBadInput);
  }
}

}  // namespace zcav
