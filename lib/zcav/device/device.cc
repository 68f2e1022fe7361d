#include "zcav/device/device.h"

#include <algorithm>
#include <cstring>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"
#include "zcav/device/posix/posix_device.h"
#include "zcav/device/sim_device.h"

namespace zcav {

namespace {

class SyncQueue final : public ReadQueue {
 public:
  SyncQueue(Device& device, std::uint64_t chunk_bytes, bool write)
      : device_(device),
        buffer_(chunk_bytes, DirectIoAlignment(device.info().sector_bytes)),
        chunk_bytes_(chunk_bytes),
        write_(write) {}

  std::uint32_t depth() const override { return 1; }
  const char* engine() const override {
    if (device_.info().read_engine == "sim") return "sim";
    return write_ ? "pwrite" : "pread";
  }
  std::span<std::byte> Buffer(std::uint32_t) override { return buffer_.span(chunk_bytes_); }
  void Submit(std::uint32_t, std::uint64_t offset_bytes,
              std::uint64_t length_bytes) noexcept override {
    result_ = write_ ? device_.WriteAt(offset_bytes, buffer_.span(length_bytes))
                     : device_.ReadAt(offset_bytes, buffer_.span(length_bytes));
  }
  std::size_t Wait(std::span<Completion> out) noexcept override {
    out[0] = {0, result_};
    return 1;
  }

 private:
  Device& device_;
  AlignedBuffer buffer_;
  std::uint64_t chunk_bytes_;
  bool write_;
  std::error_code result_;
};

}  // namespace

std::unique_ptr<ReadQueue> MakeSyncQueue(Device& device, std::uint64_t chunk_bytes, bool write) {
  return std::make_unique<SyncQueue>(device, chunk_bytes, write);
}

bool IsSimulatedName(const std::string& name) { return name.rfind("sim:", 0) == 0; }

bool KnownNotToRotate(const DeviceInfo& info) {
  const auto solid = [](const std::string& transport, std::optional<bool> rotational) {
    return rotational == std::optional<bool>(false) || transport == "nvme" ||
           transport == "virtio" || transport == "ram";
  };
  // A loop device's own flag says nothing of its file's disk: only the
  // storage under it counts.
  const bool own = info.transport != "loop" && solid(info.transport, info.rotational);
  return own || solid(info.storage_transport, info.storage_rotational);
}

std::unique_ptr<Device> OpenDevice(const std::string& name, VirtualClock& virtual_clock,
                                   SimBusSet* buses) {
  if (IsSimulatedName(name)) {
    const SimModel model = ParseSimSpec(name);
    std::shared_ptr<SimBus> bus;
    if (buses != nullptr && !model.bus_name.empty())
      bus = buses->Get(model.bus_name, model.bus_mb_per_s);
    return MakeSimulatedDevice(model, virtual_clock, std::move(bus));
  }
  return OpenPosixDevice(name);
}

std::unique_ptr<Device> OpenDeviceForWrite(const std::string& name,
                                           std::optional<NewTestFile> new_file,
                                           VirtualClock& virtual_clock, bool allow_in_use) {
  if (IsSimulatedName(name)) {
    if (new_file) {
      throw Error(std::string(new_file->free_share > 0 ? "--fill" : "--create-size") +
                      " creates a new file; " + name + " is a simulated device",
                  ErrorKind::kBadInput);
    }
    return MakeSimulatedDevice(ParseSimSpec(name), virtual_clock);
  }
  return OpenPosixDeviceForWrite(name, new_file, allow_in_use);
}

}  // namespace zcav
