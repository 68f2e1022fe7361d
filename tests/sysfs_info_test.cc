// FillSysfsInfo against fake sysfs trees laid out like the kernel's: relative
// symlinks under dev/block and class/, attributes with trailing padding.
#include "zcav/device/posix/sysfs_info.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "testutil.h"
#include "zcav/device/device.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

// A sysfs tree under a temp dir.
class FakeSysfs {
 public:
  std::string root() const { return dir_.path().string(); }

  // Writes attribute `rel` (relative to the root) with `value`.
  void Attr(const std::string& rel, const std::string& value) const {
    const fs::path path = dir_.path() / rel;
    fs::create_directories(path.parent_path());
    test::WriteFile(path, value);
  }
  void Dir(const std::string& rel) const { fs::create_directories(dir_.path() / rel); }
  // Symlink `rel` -> `target` (relative, as sysfs does).
  void Link(const std::string& rel, const std::string& target) const {
    const fs::path path = dir_.path() / rel;
    fs::create_directories(path.parent_path());
    fs::create_directory_symlink(target, path);
  }

 private:
  test::TempDir dir_;
};

// A SATA disk sda (8:0) on ata1 with partition sda1 (8:1).
void AddSataDisk(const FakeSysfs& sys, bool with_class_link) {
  const std::string port = "devices/pci0000:00/0000:00:1f.2/ata1";
  const std::string scsi = port + "/host0/target0:0:0/0:0:0:0";
  sys.Attr(scsi + "/vendor", "ATA     \n");
  sys.Attr(scsi + "/model", "ST4000DM004-2CV1\n");
  sys.Dir(scsi + "/scsi_device/0:0:0:0");
  sys.Attr(scsi + "/block/sda/queue/rotational", "1\n");
  sys.Link(scsi + "/block/sda/device", "../../../0:0:0:0");
  sys.Attr(scsi + "/block/sda/sda1/partition", "1\n");
  sys.Attr(port + "/link1/ata_link/link1/sata_spd", "6.0 Gbps\n");
  if (with_class_link) {
    sys.Link("class/ata_link/link1",
             "../../devices/pci0000:00/0000:00:1f.2/ata1/link1/ata_link/link1");
  }
  sys.Link("dev/block/8:0",
           "../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda");
  sys.Link("dev/block/8:1",
           "../../devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda/sda1");
}

void CheckSataDisk(const DeviceInfo& info) {
  CHECK(info.vendor == "ATA");
  CHECK(info.model == "ST4000DM004-2CV1");
  CHECK(info.rotational == true);
  CHECK(info.transport == "ata");
  CHECK(info.link == "SATA 6.0 Gbps");
}

TEST_CASE("A SATA disk gets trimmed vendor and model, rotational flag and SATA link speed",
          "[sysfs]") {
  FakeSysfs sys;
  AddSataDisk(sys, /*with_class_link=*/true);
  DeviceInfo info;
  FillSysfsInfo(8, 0, info, sys.root());
  CheckSataDisk(info);
}

TEST_CASE("The SATA link speed is found under the port when class/ata_link is missing", "[sysfs]") {
  FakeSysfs sys;
  AddSataDisk(sys, /*with_class_link=*/false);
  DeviceInfo info;
  FillSysfsInfo(8, 0, info, sys.root());
  CHECK(info.link == "SATA 6.0 Gbps");
}

TEST_CASE("A partition reports its whole disk", "[sysfs]") {
  FakeSysfs sys;
  AddSataDisk(sys, /*with_class_link=*/true);
  DeviceInfo info;
  FillSysfsInfo(8, 1, info, sys.root());
  CheckSataDisk(info);
}

TEST_CASE("A USB disk reports the speed of the nearest USB device", "[sysfs]") {
  FakeSysfs sys;
  const std::string hub = "devices/pci0000:00/0000:00:14.0/usb2";
  const std::string scsi = hub + "/2-1/2-1:1.0/host6/target6:0:0/6:0:0:0";
  sys.Attr(hub + "/speed", "5000\n");     // the root hub: farther away
  sys.Attr(hub + "/2-1/speed", "480\n");  // the enclosure's bridge
  sys.Attr(scsi + "/vendor", "WDC     \n");
  sys.Attr(scsi + "/model", "WD10EZEX-00BN5A0\n");
  sys.Attr(scsi + "/block/sdc/queue/rotational", "1\n");
  sys.Link(scsi + "/block/sdc/device", "../../../6:0:0:0");
  sys.Link("dev/block/8:32", "../../" + scsi + "/block/sdc");

  DeviceInfo info;
  FillSysfsInfo(8, 32, info, sys.root());
  CHECK(info.vendor == "WDC");
  CHECK(info.model == "WD10EZEX-00BN5A0");
  CHECK(info.rotational == true);
  CHECK(info.transport == "usb");
  CHECK(info.link == "USB 480 Mb/s");
}

TEST_CASE("A loop device reports transport loop and its backing file", "[sysfs]") {
  FakeSysfs sys;
  sys.Attr("devices/virtual/block/loop0/queue/rotational", "0\n");
  sys.Attr("devices/virtual/block/loop0/loop/backing_file", "/var/tmp/zcav.img\n");
  sys.Link("dev/block/7:0", "../../devices/virtual/block/loop0");

  DeviceInfo info;
  FillSysfsInfo(7, 0, info, sys.root());
  CHECK(info.transport == "loop");
  CHECK(info.link == "backing file /var/tmp/zcav.img");
  CHECK(info.rotational == false);
  CHECK(info.vendor.empty());
  CHECK(info.model.empty());
}

TEST_CASE("An NVMe namespace reports the controller model and PCIe link", "[sysfs]") {
  FakeSysfs sys;
  const std::string pci = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0";
  const std::string ctrl = pci + "/nvme/nvme0";
  sys.Attr(pci + "/current_link_speed", "8.0 GT/s PCIe\n");
  sys.Attr(pci + "/current_link_width", "4\n");
  sys.Attr(ctrl + "/model", "Samsung SSD 970 EVO Plus 1TB            \n");
  sys.Link(ctrl + "/device", "../../../0000:3d:00.0");
  sys.Attr(ctrl + "/nvme0n1/queue/rotational", "0\n");
  sys.Link(ctrl + "/nvme0n1/device", "../../nvme0");
  sys.Attr(ctrl + "/nvme0n1/nvme0n1p2/partition", "2\n");
  sys.Link("dev/block/259:0", "../../" + ctrl + "/nvme0n1");
  sys.Link("dev/block/259:2", "../../" + ctrl + "/nvme0n1/nvme0n1p2");

  for (unsigned minor : {0u, 2u}) {
    CAPTURE(minor);
    DeviceInfo info;
    FillSysfsInfo(259, minor, info, sys.root());
    CHECK(info.model == "Samsung SSD 970 EVO Plus 1TB");
    CHECK(info.rotational == false);
    CHECK(info.transport == "nvme");
    CHECK(info.link == "PCIe 8.0 GT/s x4");
  }
}

TEST_CASE("A virtio disk reports transport virtio and its largest request", "[sysfs]") {
  FakeSysfs sys;
  const std::string dev = "devices/pci0000:00/0000:00:02.0/virtio1";
  sys.Attr(dev + "/vendor", "0x1af4\n");
  sys.Attr(dev + "/block/vda/queue/rotational", "1\n");
  sys.Attr(dev + "/block/vda/queue/max_sectors_kb", "4096\n");
  sys.Link(dev + "/block/vda/device", "../../../virtio1");
  sys.Link("dev/block/254:0", "../../" + dev + "/block/vda");

  DeviceInfo info;
  FillSysfsInfo(254, 0, info, sys.root());
  CHECK(info.transport == "virtio");
  CHECK(info.max_request_bytes == 4 * 1024 * 1024);  // queue/max_sectors_kb
  CHECK(info.vendor == "0x1af4");
  CHECK(info.link.empty());
}

TEST_CASE("A SCSI disk with no ATA or USB ancestor reports transport scsi", "[sysfs]") {
  FakeSysfs sys;
  const std::string scsi = "devices/pci0000:00/0000:00:10.0/host2/target2:0:1/2:0:1:0";
  sys.Attr(scsi + "/vendor", "SEAGATE \n");
  sys.Attr(scsi + "/model", "ST600MM0006     \n");
  sys.Dir(scsi + "/scsi_device/2:0:1:0");
  sys.Link(scsi + "/block/sdb/device", "../../../2:0:1:0");
  sys.Link("dev/block/8:16", "../../" + scsi + "/block/sdb");

  DeviceInfo info;
  FillSysfsInfo(8, 16, info, sys.root());
  CHECK(info.vendor == "SEAGATE");
  CHECK(info.model == "ST600MM0006");
  CHECK(info.transport == "scsi");
  CHECK_FALSE(info.rotational.has_value());  // no queue/rotational in this tree
  CHECK(info.max_request_bytes == 0);        // nor queue/max_sectors_kb
  CHECK(info.link.empty());
}

TEST_CASE("An unknown device or a missing sysfs leaves the fields empty without throwing",
          "[sysfs]") {
  FakeSysfs sys;
  AddSataDisk(sys, /*with_class_link=*/true);
  DeviceInfo info;
  info.path = "/dev/x";
  CHECK_NOTHROW(FillSysfsInfo(9, 9, info, sys.root()));
  CHECK_NOTHROW(FillSysfsInfo(8, 0, info, sys.root() + "/does-not-exist"));
  CHECK(info.path == "/dev/x");
  CHECK(info.vendor.empty());
  CHECK(info.model.empty());
  CHECK_FALSE(info.rotational.has_value());
  CHECK(info.transport.empty());
  CHECK(info.link.empty());
}

}  // namespace
}  // namespace zcav

TEST_CASE(
    "A device is known not to rotate by its flag, NVMe, virtio or RAM under it; a loop by its "
    "file's disk only",
    "[sysfs]") {
  zcav::DeviceInfo disk;
  CHECK_FALSE(zcav::KnownNotToRotate(disk));  // unknown
  disk.rotational = true;
  CHECK_FALSE(zcav::KnownNotToRotate(disk));
  disk.rotational = false;
  CHECK(zcav::KnownNotToRotate(disk));
  zcav::DeviceInfo virtio;
  virtio.transport = "virtio";
  virtio.rotational = true;  // what virtio-blk reports by default
  CHECK(zcav::KnownNotToRotate(virtio));
  zcav::DeviceInfo file;
  file.transport = "file";
  file.storage_transport = "virtio";
  CHECK(zcav::KnownNotToRotate(file));
  file.storage_transport = "ata";
  file.storage_rotational = true;
  CHECK_FALSE(zcav::KnownNotToRotate(file));
  zcav::DeviceInfo loop;
  loop.transport = "loop";
  loop.rotational = false;  // a loop device's own flag
  CHECK_FALSE(zcav::KnownNotToRotate(loop));
  loop.storage_transport = "ram";
  CHECK(zcav::KnownNotToRotate(loop));
}
