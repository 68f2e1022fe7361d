#include "zcav/device.h"

#include "zcav/posix_device.h"
#include "zcav/sim_device.h"

namespace zcav {

bool IsSimulatedName(const std::string& name) { return name.rfind("sim:", 0) == 0; }

std::unique_ptr<Device> OpenDevice(const std::string& name, VirtualClock& virtual_clock,
                                   SimBusSet* buses) {
  if (IsSimulatedName(name)) {
    const SimModel model = ParseSimSpec(name);
    std::shared_ptr<SimBus> bus;
    if (buses != nullptr && !model.bus_name.empty()) bus = buses->Get(model.bus_name, model.bus_mb_per_s);
    return MakeSimulatedDevice(model, virtual_clock, std::move(bus));
  }
  return OpenPosixDevice(name);
}

}  // namespace zcav
