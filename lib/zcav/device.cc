#include "zcav/device.h"

#include "zcav/posix_device.h"
#include "zcav/sim_device.h"

namespace zcav {

bool IsSimulatedName(const std::string& name) { return name.rfind("sim:", 0) == 0; }

std::unique_ptr<Device> OpenDevice(const std::string& name, VirtualClock& virtual_clock) {
  if (IsSimulatedName(name)) return MakeSimulatedDevice(ParseSimSpec(name), virtual_clock);
  return OpenPosixDevice(name);
}

}  // namespace zcav
