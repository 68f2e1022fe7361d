// Write mode: the safety checks (write_safety.h) over fake mountinfo, swaps
// and sysfs trees; a write sweep on a simulated device;
// the file a write test creates (posix_device.h). Real block devices are
// tested in tests/real/write_test.sh.
#include "zcav/device/posix/write_safety.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "testutil.h"
#include "zcav/base/aligned_buffer.h"
#include "zcav/base/clock.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"
#include "zcav/device/device.h"
#include "zcav/device/posix/posix_device.h"
#include "zcav/device/sim_device.h"
#include "zcav/device/write_stamp.h"
#include "zcav/measure/random_access.h"
#include "zcav/measure/sweep.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

// Three mounts as the kernel writes them: a root on vda1, a file system on
// a loop partition whose mount point has a space (\040), and btrfs, whose
// field 3 is an anonymous 0:N and whose source names the device.
constexpr const char* kMountinfo =
    "22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
    "98 22 259:0 / /mnt/my\\040data rw,relatime shared:50 master:3 - ext4 /dev/loop3p1 rw\n"
    "99 22 0:52 /@home /home rw,relatime - btrfs /dev/sdb2 rw,space_cache\n"
    "garbage line\n";

TEST_CASE("mountinfo lines give device, mount point and source, escapes decoded",
          "[write_safety]") {
  const std::vector<MountEntry> mounts = ParseMountinfo(kMountinfo);
  REQUIRE(mounts.size() == 3);
  CHECK(mounts[0].id == BlockId{254, 1});
  CHECK(mounts[0].mount_point == "/");
  CHECK(mounts[0].source == "/dev/vda1");
  CHECK(mounts[1].id == BlockId{259, 0});
  CHECK(mounts[1].mount_point == "/mnt/my data");
  CHECK(mounts[1].source == "/dev/loop3p1");
  CHECK(mounts[2].id == BlockId{0, 52});
  CHECK(mounts[2].source == "/dev/sdb2");
  CHECK_FALSE(mounts[2].source_id.has_value());
}

TEST_CASE("/proc/swaps gives each swap area's file name, the header skipped", "[write_safety]") {
  const std::vector<SwapEntry> swaps = ParseSwaps(
      "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
      "/dev/zram0                              partition\t8388604\t\t0\t\t100\n"
      "/var/swap\\040file                       file\t\t1048572\t\t0\t\t-2\n");
  REQUIRE(swaps.size() == 2);
  CHECK(swaps[0].path == "/dev/zram0");
  CHECK(swaps[1].path == "/var/swap file");
  CHECK(ParseSwaps("Filename\tType\tSize\tUsed\tPriority\n").empty());
}

// A sysfs tree: loop3 (7:3) with partitions loop3p1 (259:0) and loop3p2
// (259:1); loop3p2 has a device-mapper holder.
class FakeSysfs {
 public:
  FakeSysfs() {
    const std::string loop = "devices/virtual/block/loop3";
    Attr(loop + "/dev", "7:3\n");
    Attr(loop + "/loop3p1/partition", "1\n");
    Attr(loop + "/loop3p1/dev", "259:0\n");
    Dir(loop + "/loop3p1/holders");
    Attr(loop + "/loop3p2/partition", "2\n");
    Attr(loop + "/loop3p2/dev", "259:1\n");
    Dir(loop + "/loop3p2/holders/dm-0");
    Dir(loop + "/holders");
    Dir(loop + "/queue");  // a subdirectory that is no partition
    Link("dev/block/7:3", "../../devices/virtual/block/loop3");
    Link("dev/block/259:0", "../../devices/virtual/block/loop3/loop3p1");
  }
  std::string root() const { return dir_.path().string(); }

 private:
  void Attr(const std::string& rel, const std::string& value) const {
    fs::create_directories((dir_.path() / rel).parent_path());
    test::WriteFile(dir_.path() / rel, value);
  }
  void Dir(const std::string& rel) const { fs::create_directories(dir_.path() / rel); }
  void Link(const std::string& rel, const std::string& target) const {
    fs::create_directories((dir_.path() / rel).parent_path());
    fs::create_directory_symlink(target, dir_.path() / rel);
  }
  test::TempDir dir_;
};

TEST_CASE("sysfs gives a device, its partitions and their holders", "[write_safety]") {
  const FakeSysfs sys;
  const std::vector<BlockNode> family = ReadBlockFamily({7, 3}, sys.root());
  REQUIRE(family.size() == 3);
  CHECK(family[0].name == "loop3");
  CHECK(family[0].id == BlockId{7, 3});
  CHECK(family[0].holders.empty());
  CHECK(family[1].name == "loop3p1");
  CHECK(family[1].id == BlockId{259, 0});
  CHECK(family[2].name == "loop3p2");
  CHECK(family[2].holders == std::vector<std::string>{"dm-0"});
  // A partition has no partitions of its own; an unknown device has nothing.
  CHECK(ReadBlockFamily({259, 0}, sys.root()).size() == 1);
  CHECK(ReadBlockFamily({8, 0}, sys.root()).empty());
}

// Facts about /dev/loop3 with its two partitions, nothing in use.
WriteFacts IdleLoop3() {
  WriteFacts facts;
  facts.path = "/dev/loop3";
  facts.id = {7, 3};
  facts.family = {{"loop3", {7, 3}, {}}, {"loop3p1", {259, 0}, {}}, {"loop3p2", {259, 1}, {}}};
  facts.mounts = ParseMountinfo("22 1 254:1 / / rw - ext4 /dev/vda1 rw\n");
  facts.swaps = {{"/dev/zram0", BlockId{253, 0}}};
  return facts;
}

TEST_CASE("A device nothing uses may be written", "[write_safety]") {
  CHECK_FALSE(WriteRefusal(IdleLoop3()).has_value());
}

TEST_CASE("A mounted device or a mounted partition of it is refused, naming the mount point",
          "[write_safety]") {
  WriteFacts facts = IdleLoop3();
  facts.mounts = ParseMountinfo("40 22 7:3 / /mnt/x rw - ext4 /dev/loop3 rw\n");
  const auto whole = WriteRefusal(facts);
  REQUIRE(whole.has_value());
  CHECK(*whole ==
        "refusing to write /dev/loop3: mounted at /mnt/x (unmount it first; nothing written)");

  facts = IdleLoop3();
  facts.mounts = ParseMountinfo(kMountinfo);
  const auto partition = WriteRefusal(facts);
  REQUIRE(partition.has_value());
  CHECK(partition->find("its partition loop3p1 is mounted at /mnt/my data") != std::string::npos);

  // btrfs: field 3 is 0:N, the source device tells.
  facts = IdleLoop3();
  facts.mounts = ParseMountinfo("99 22 0:52 /@ /srv rw - btrfs /dev/loop3p2 rw\n");
  CHECK_FALSE(WriteRefusal(facts).has_value());  // without the source's device: not known
  facts.mounts[0].source_id = BlockId{259, 1};
  const auto btrfs = WriteRefusal(facts);
  REQUIRE(btrfs.has_value());
  CHECK(btrfs->find("loop3p2 is mounted at /srv") != std::string::npos);
}

TEST_CASE("A device in use as swap is refused, by device number or by name", "[write_safety]") {
  WriteFacts facts = IdleLoop3();
  facts.swaps.push_back({"/dev/block/7:3", BlockId{7, 3}});
  const auto by_id = WriteRefusal(facts);
  REQUIRE(by_id.has_value());
  CHECK(*by_id ==
        "refusing to write /dev/loop3: in use as swap (swapoff /dev/block/7:3 first; nothing "
        "written)");

  facts = IdleLoop3();
  facts.swaps.push_back({"/dev/loop3p1", std::nullopt});
  const auto by_name = WriteRefusal(facts);
  REQUIRE(by_name.has_value());
  CHECK(by_name->find("its partition loop3p1 is in use as swap") != std::string::npos);
}

TEST_CASE("A device something is built on (holders) is refused, naming the holder",
          "[write_safety]") {
  const FakeSysfs sys;
  WriteFacts facts = IdleLoop3();
  facts.family = ReadBlockFamily({7, 3}, sys.root());
  const auto refusal = WriteRefusal(facts);
  REQUIRE(refusal.has_value());
  CHECK(refusal->find("its partition loop3p2 is held by dm-0") != std::string::npos);
}

TEST_CASE("Without sysfs the device itself is still checked", "[write_safety]") {
  WriteFacts facts = IdleLoop3();
  facts.family.clear();
  CHECK_FALSE(WriteRefusal(facts).has_value());
  facts.mounts = ParseMountinfo("40 22 7:3 / /mnt/x rw - ext4 /dev/loop3 rw\n");
  CHECK(WriteRefusal(facts).has_value());
}

// Records what a write sweep asks of the device.
class RecordingDevice final : public Device {
 public:
  explicit RecordingDevice(Device& inner) : inner_(inner) {}
  const DeviceInfo& info() const override { return inner_.info(); }
  std::error_code ReadAt(std::uint64_t offset, std::span<std::byte> buffer) noexcept override {
    ++reads;
    return inner_.ReadAt(offset, buffer);
  }
  std::error_code WriteAt(std::uint64_t offset,
                          std::span<const std::byte> buffer) noexcept override {
    written_bytes += buffer.size();
    const std::string tag = kWritePatternTag;
    if (std::memcmp(buffer.data(), tag.data(), tag.size()) != 0) ++untagged;
    last_offset = offset;
    return inner_.WriteAt(offset, buffer);
  }
  int reads = 0;
  int untagged = 0;
  std::uint64_t written_bytes = 0;
  std::uint64_t last_offset = 0;

 private:
  Device& inner_;
};

TEST_CASE("A write sweep writes the pattern over the range and measures the write rate",
          "[write_safety][sweep]") {
  const SimModel model = ParseSimSpec("sim:hdd?size=10G&noise=0");
  VirtualClock clock;
  const std::unique_ptr<Device> sim = MakeSimulatedDevice(model, clock);
  RecordingDevice device(*sim);
  SweepOptions options;
  options.write = true;
  options.warmup = false;
  RunInfo run;
  run.device = device.info();
  run.plan = PlanSweep(run.device, options);
  REQUIRE(run.plan.write);
  test::RecordingSink sink;
  const SweepResult result = RunSweep(device, run, clock, sink);
  CHECK(result.status == SweepStatus::kComplete);
  CHECK(device.reads == 0);
  CHECK(device.untagged == 0);
  CHECK(device.written_bytes == model.info.size_bytes);
  REQUIRE(sink.blocks.size() == run.plan.block_count);
  for (const BlockResult& b : sink.blocks) {
    const double expected = ExpectedMbPerS(model, b.offset_bytes, b.length_bytes);
    CAPTURE(b.offset_bytes, b.mb_per_s, expected);
    CHECK(std::abs(b.mb_per_s - expected) / expected < 0.001);
  }
}

TEST_CASE("A failing write ends the write sweep at its offset, measured blocks kept",
          "[write_safety][sweep]") {
  const SimModel model = ParseSimSpec("sim:ssd?size=1G&noise=0&bad=512M");
  VirtualClock clock;
  const std::unique_ptr<Device> sim = MakeSimulatedDevice(model, clock);
  RecordingDevice device(*sim);
  SweepOptions options;
  options.write = true;
  RunInfo run;
  run.device = device.info();
  run.plan = PlanSweep(run.device, options);
  test::RecordingSink sink;
  const SweepResult result = RunSweep(device, run, clock, sink);
  CHECK(result.status == SweepStatus::kWriteError);
  CHECK(result.error_offset_bytes == 512 * kMiB);
  CHECK(result.error == std::error_code(EIO, std::system_category()));
  CHECK(result.StatusText().rfind("partial: write error at offset 536870912", 0) == 0);
  CHECK(device.reads == 0);  // no retry, no bisection by reading
  CHECK(device.last_offset == 512 * kMiB);
  CHECK(result.blocks_measured > 0);
  CHECK(result.unreadable.empty());
}

TEST_CASE("A device opened for reading refuses to write", "[write_safety][posix_device]") {
  test::TempDir dir;
  const fs::path path = dir.path() / "data.bin";
  test::WriteFile(path, std::string(64 * 1024, 'x'));
  const auto device = OpenPosixDevice(path.string());
  AlignedBuffer buffer(4096, 4096);
  StampWrite(buffer.span(4096), 0, 1);
  CHECK(device->WriteAt(0, buffer.span(4096)) == std::error_code(EROFS, std::system_category()));
  CHECK(test::ReadFile(path) == std::string(64 * 1024, 'x'));
}

std::string WriteOpenError(const std::string& path, std::optional<NewTestFile> create) {
  VirtualClock clock;
  try {
    OpenDeviceForWrite(path, create, clock);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kBadInput);
    return e.what();
  }
  FAIL("opening " << path << " for writing did not throw zcav::Error");
  return "";
}

TEST_CASE("An existing regular file is never written", "[write_safety][posix_device]") {
  test::TempDir dir;
  const fs::path path = dir.path() / "precious.bin";
  test::WriteFile(path, "precious");
  CHECK(WriteOpenError(path.string(), std::nullopt).find("a regular file zcav did not create") !=
        std::string::npos);
  CHECK(WriteOpenError(path.string(), NewTestFile{1024 * 1024}).find("it exists") !=
        std::string::npos);
  CHECK(test::ReadFile(path) == "precious");
  CHECK(WriteOpenError(dir.path().string(), std::nullopt).find("directory") != std::string::npos);
  CHECK(WriteOpenError("sim:hdd", NewTestFile{1024 * 1024}).find("simulated") != std::string::npos);
}

// A new write-test file of `bytes` at `path`; null when the file system
// refuses O_DIRECT (the only refusal allowed: the temp dir's), and then no
// file is left.
std::unique_ptr<Device> NewWriteTestFile(const fs::path& path, std::uint64_t bytes,
                                         VirtualClock& clock) {
  try {
    return OpenDeviceForWrite(path.string(), NewTestFile{bytes}, clock);
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("refuses O_DIRECT") != std::string::npos);
    CHECK_FALSE(fs::exists(path));
    return nullptr;
  }
}

TEST_CASE("A write-test file (--create-size) is new, written with O_DIRECT, gone at once",
          "[write_safety][posix_device]") {
  test::TempDir dir;
  const fs::path path = dir.path() / "new.bin";
  VirtualClock clock;
  const std::unique_ptr<Device> device = NewWriteTestFile(path, 3 * kMiB + 1, clock);
  if (!device) return;
  const DeviceInfo& info = device->info();
  CHECK(info.kind == "file");
  CHECK(info.direct_io);
  CHECK(info.size_bytes >= 3 * kMiB + 1);
  CHECK(info.size_bytes % info.sector_bytes == 0);
  CHECK_FALSE(fs::exists(path));  // unlinked at once: never outlives zcav
  const std::uint32_t sector = info.sector_bytes;
  AlignedBuffer out(sector, sector), in(sector, sector);
  StampWrite(out.span(sector), info.size_bytes - sector, 1);
  REQUIRE_FALSE(device->WriteAt(info.size_bytes - sector, out.span(sector)));
  REQUIRE_FALSE(device->ReadAt(info.size_bytes - sector, in.span(sector)));
  CHECK(std::memcmp(out.span(sector).data(), in.span(sector).data(), sector) == 0);
}

TEST_CASE("Random writes by size and depth on a write-test file: the pattern, size-aligned",
          "[write_safety][posix_device][random_access]") {
  test::TempDir dir;
  VirtualClock clock;
  const std::unique_ptr<Device> device =
      NewWriteTestFile(dir.path() / "random.bin", 4 * kMiB, clock);
  if (!device) return;
  RandomAccessOptions o;
  o.sizes = {8192};
  o.depths = {1, 4};
  o.write = true;
  o.cell_time = std::chrono::milliseconds(50);
  SteadyClock steady;  // a real file: timed by the real clock
  const RandomAccessResult r = MeasureRandomAccess(*device, steady, o);
  REQUIRE_FALSE(r.error);
  REQUIRE(r.cells.size() == 2);
  // The queue says how it wrote: io_uring keeps 4 in flight, pwrite one.
  CHECK((r.engine == "io_uring" || r.engine == "pwrite"));
  CHECK(r.cells[1].engine_depth == (r.engine == "io_uring" ? 4u : 1u));
  // The file was preallocated (zeros): every 8 KiB block is now zeros or
  // zcav's data stamped for its own place, whole (the test does not know the
  // run's id: "stale" for id 0); at least one has it.
  const std::uint32_t n = 8192;
  AlignedBuffer block(n, device->info().sector_bytes);
  std::uint64_t written = 0;
  for (std::uint64_t at = 0; at + n <= device->info().size_bytes; at += n) {
    REQUIRE_FALSE(device->ReadAt(at, block.span(n)));
    const bool zeros = std::all_of(block.span(n).begin(), block.span(n).end(),
                                   [](std::byte b) { return b == std::byte{0}; });
    bool ours = true;
    for (std::uint64_t s = 0; s < n; s += kStampSectorBytes) {
      const SectorCheck c = CheckSector(block.span(n).subspan(s, kStampSectorBytes), at + s, 0);
      ours = ours && c.state == SectorState::kStale && c.source_bytes == at + s;
    }
    CHECK((zeros || ours));
    written += ours ? 1 : 0;
  }
  CHECK(written >= 1);
  CHECK(written <= r.cells[0].ops + r.cells[1].ops);
}

TEST_CASE("A write-test file larger than its file system allows is the user's size: bad input",
          "[write_safety][posix_device]") {
  test::TempDir dir;
  const fs::path path = dir.path() / "huge.bin";
  // WriteOpenError checks the kind (kBadInput). 2^62 bytes is beyond any
  // file size a file system allows (EFBIG), and is refused before a block is
  // allocated.
  const std::string message = WriteOpenError(path.string(), NewTestFile{std::uint64_t{1} << 62});
  CAPTURE(message);
  if (message.find("refuses O_DIRECT") == std::string::npos) {
    CHECK(message.find("(choose a smaller --create-size)") != std::string::npos);
  }
  CHECK_FALSE(fs::exists(path));
}

TEST_CASE("Filling a directory (--fill) makes a file of its share of the free space, gone at once",
          "[write_safety][posix_device]") {
  test::TempDir dir;
  struct statvfs before {};
  REQUIRE(::statvfs(dir.path().c_str(), &before) == 0);
  const double free_bytes =
      static_cast<double>(before.f_bavail) * static_cast<double>(before.f_frsize);
  VirtualClock clock;
  NewTestFile fill;
  fill.free_share = 0.01;
  std::unique_ptr<Device> device;
  try {
    device = OpenDeviceForWrite(dir.path().string(), fill, clock);
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("refuses O_DIRECT") != std::string::npos);
    return;
  }
  const DeviceInfo& info = device->info();
  CHECK(info.path == (dir.path() / ("zcav-write-test." + std::to_string(::getpid()))).string());
  CHECK(fs::is_empty(dir.path()));  // unlinked at once
  CHECK(info.direct_io);
  CHECK(info.size_bytes % info.sector_bytes == 0);
  // Never more than the share asked (of the free space before), nor less
  // than it by more than what others wrote meanwhile.
  CHECK(static_cast<double>(info.size_bytes) <= 0.01 * free_bytes);
  CHECK(static_cast<double>(info.size_bytes) >= 0.0099 * free_bytes);
  CHECK(device->DiscardAll() == std::error_code(EOPNOTSUPP, std::system_category()));
}

}  // namespace
}  // namespace zcav
