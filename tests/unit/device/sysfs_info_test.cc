// FillSysfsInfo against fake sysfs trees laid out like the kernel's: relative
// symlinks under dev/block and class/, attributes with trailing padding; and
// for the drive's identity, fake udev databases and /dev trees (plain files
// for the device nodes).
#include "zcav/device/posix/sysfs_info.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "testutil.h"
#include "zcav/device/device.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

// A sysfs (or udev database, or /dev) tree under a temp dir.
class FakeTree {
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
  // `rel`, a tree that does not exist.
  std::string Missing(const std::string& rel) const { return (dir_.path() / rel).string(); }

 private:
  test::TempDir dir_;
};

// The identity fields of `info` on one line, so that a test compares them
// all at once and a failure shows every one: "serial=… wwn=… firmware=…
// physical=… rpm=… by_id=a,b" ("?" for an unknown rotation rate).
std::string Identity(const DeviceInfo& info) {
  std::string text = "serial=" + info.serial + " wwn=" + info.wwn + " firmware=" + info.firmware +
                     " physical=" + std::to_string(info.physical_sector_bytes) +
                     " rpm=" + (info.rotation_rpm ? std::to_string(*info.rotation_rpm) : "?") +
                     " by_id=";
  for (std::size_t i = 0; i < info.by_id.size(); ++i) {
    text += (i == 0 ? "" : ",") + info.by_id[i];
  }
  return text;
}

// A SATA disk sda (8:0) on ata1 with partition sda1 (8:1).
void AddSataDisk(const FakeTree& sys, bool with_class_link) {
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
  FakeTree sys;
  AddSataDisk(sys, /*with_class_link=*/true);
  DeviceInfo info;
  FillSysfsInfo(8, 0, info, sys.root());
  CheckSataDisk(info);
}

TEST_CASE("The SATA link speed is found under the port when class/ata_link is missing", "[sysfs]") {
  FakeTree sys;
  AddSataDisk(sys, /*with_class_link=*/false);
  DeviceInfo info;
  FillSysfsInfo(8, 0, info, sys.root());
  CHECK(info.link == "SATA 6.0 Gbps");
}

TEST_CASE("A partition reports its whole disk", "[sysfs]") {
  FakeTree sys;
  AddSataDisk(sys, /*with_class_link=*/true);
  DeviceInfo info;
  FillSysfsInfo(8, 1, info, sys.root());
  CheckSataDisk(info);
}

TEST_CASE("A USB disk reports the speed of the nearest USB device", "[sysfs]") {
  FakeTree sys;
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

TEST_CASE("A loop device reports transport loop and its backing file, and no drive's name",
          "[sysfs]") {
  FakeTree sys;
  sys.Attr("devices/virtual/block/loop0/queue/rotational", "0\n");
  sys.Attr("devices/virtual/block/loop0/queue/physical_block_size", "512\n");
  sys.Attr("devices/virtual/block/loop0/loop/backing_file", "/var/tmp/zcav.img\n");
  sys.Attr("devices/virtual/block/loop0/dev", "7:0\n");
  sys.Link("dev/block/7:0", "../../devices/virtual/block/loop0");
  FakeTree dev;
  dev.Attr("loop0", "");

  DeviceInfo info;
  FillSysfsInfo(7, 0, info, sys.root(), sys.Missing("udev"), dev.root());
  CHECK(info.transport == "loop");
  CHECK(info.link == "backing file /var/tmp/zcav.img");
  CHECK(info.rotational == false);
  CHECK(info.vendor.empty());
  CHECK(info.model.empty());
  CHECK(Identity(info) == "serial= wwn= firmware= physical=512 rpm=? by_id=");
}

// An NVMe namespace nvme0n1 (259:0) with partition nvme0n1p2 (259:2), its
// controller nvme0 behind a PCIe x4 link; named by sysfs alone.
void AddNvmeNamespace(const FakeTree& sys) {
  const std::string pci = "devices/pci0000:00/0000:00:1d.0/0000:3d:00.0";
  const std::string ctrl = pci + "/nvme/nvme0";
  sys.Attr(pci + "/current_link_speed", "8.0 GT/s PCIe\n");
  sys.Attr(pci + "/current_link_width", "4\n");
  sys.Attr(ctrl + "/model", "Samsung SSD 970 EVO Plus 1TB            \n");
  sys.Attr(ctrl + "/serial", "S4EWNX0R123456A     \n");
  sys.Attr(ctrl + "/firmware_rev", "2B2QEXM7\n");
  sys.Link(ctrl + "/device", "../../../0000:3d:00.0");
  sys.Attr(ctrl + "/nvme0n1/queue/rotational", "0\n");
  sys.Attr(ctrl + "/nvme0n1/queue/physical_block_size", "512\n");
  sys.Attr(ctrl + "/nvme0n1/wwid", "eui.0025385b71b1b5d4\n");
  sys.Attr(ctrl + "/nvme0n1/dev", "259:0\n");
  sys.Link(ctrl + "/nvme0n1/device", "../../nvme0");
  sys.Attr(ctrl + "/nvme0n1/nvme0n1p2/partition", "2\n");
  sys.Link("dev/block/259:0", "../../" + ctrl + "/nvme0n1");
  sys.Link("dev/block/259:2", "../../" + ctrl + "/nvme0n1/nvme0n1p2");
}

TEST_CASE("An NVMe namespace reports the controller model and PCIe link", "[sysfs]") {
  FakeTree sys;
  AddNvmeNamespace(sys);

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

TEST_CASE("A virtio disk reports transport virtio, its largest request and its own serial",
          "[sysfs]") {
  FakeTree sys;
  const std::string dev = "devices/pci0000:00/0000:00:02.0/virtio1";
  sys.Attr(dev + "/vendor", "0x1af4\n");
  sys.Attr(dev + "/block/vda/queue/rotational", "1\n");
  sys.Attr(dev + "/block/vda/queue/max_sectors_kb", "4096\n");
  sys.Attr(dev + "/block/vda/queue/physical_block_size", "4096\n");
  sys.Attr(dev + "/block/vda/serial", "overlayblk\n");  // on the disk, not under device/
  sys.Link(dev + "/block/vda/device", "../../../virtio1");
  sys.Link("dev/block/254:0", "../../" + dev + "/block/vda");

  DeviceInfo info;
  FillSysfsInfo(254, 0, info, sys.root(), sys.Missing("udev"), sys.Missing("dev"));
  CHECK(info.transport == "virtio");
  CHECK(info.max_request_bytes == 4 * 1024 * 1024);  // queue/max_sectors_kb
  CHECK(info.vendor == "0x1af4");
  CHECK(info.link.empty());
  CHECK(Identity(info) == "serial=overlayblk wwn= firmware= physical=4096 rpm=? by_id=");
}

// A SAS disk sdb (8:16) on a SCSI host with no ATA or USB ancestor, without
// queue attributes; its serial, revision and NAA wwid in sysfs.
void AddScsiDisk(const FakeTree& sys) {
  const std::string scsi = "devices/pci0000:00/0000:00:10.0/host2/target2:0:1/2:0:1:0";
  sys.Attr(scsi + "/vendor", "SEAGATE \n");
  sys.Attr(scsi + "/model", "ST600MM0006     \n");
  sys.Attr(scsi + "/serial", "S0M1ABCD0000B123XYZ\n");
  sys.Attr(scsi + "/rev", "0004\n");
  sys.Attr(scsi + "/wwid", "naa.5000C500A1B2C3D4\n");
  sys.Dir(scsi + "/scsi_device/2:0:1:0");
  sys.Attr(scsi + "/block/sdb/dev", "8:16\n");
  sys.Link(scsi + "/block/sdb/device", "../../../2:0:1:0");
  sys.Link("dev/block/8:16", "../../" + scsi + "/block/sdb");
}

TEST_CASE("A SCSI disk with no ATA or USB ancestor reports transport scsi", "[sysfs]") {
  FakeTree sys;
  AddScsiDisk(sys);

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
  FakeTree sys;
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

// The identity side of AddSataDisk's sda: the whole disk's number and
// uevent, its physical sector size.
void AddSataIdentity(const FakeTree& sys) {
  const std::string disk =
      "devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0/block/sda";
  sys.Attr(disk + "/dev", "8:0\n");
  sys.Attr(disk + "/uevent", "MAJOR=8\nMINOR=0\nDEVNAME=sda\nDEVTYPE=disk\n");
  sys.Attr(disk + "/queue/physical_block_size", "4096\n");
}

// udev's record of sda as systemd-udevd writes it: links in no set order
// (one twice), a partition's name, links outside by-id, padded values.
constexpr char kSdaUdev[] =
    "S:disk/by-id/wwn-0x5000c500a1b2c3d4\n"
    "S:disk/by-path/pci-0000:00:1f.2-ata-1\n"
    "S:disk/by-id/ata-ST4000DM004-2CV1_ZDH1ABCD\n"
    "S:disk/by-id/ata-ST4000DM004-2CV1_ZDH1ABCD-part1\n"
    "S:disk/by-id/ata-ST4000DM004-2CV1_ZDH1ABCD\n"
    "S:disk/by-diskseq/1\n"
    "I:1234567\n"
    "E:ID_ATA=1\n"
    "E:ID_SERIAL=ST4000DM004-2CV1_ZDH1ABCD\n"
    "E:ID_SERIAL_SHORT=ZDH1ABCD  \n"
    "E:ID_WWN=0x5000c500a1b2c3d4\n"
    "E:ID_REVISION=0001\n"
    "E:ID_ATA_ROTATION_RATE_RPM=5425\n"
    "G:systemd\n";

TEST_CASE(
    "An ATA disk, and its partition, are named by the disk's udev record: serial, WWN, revision, "
    "rotation rate, by-id names sorted without partitions",
    "[sysfs]") {
  FakeTree sys;
  AddSataDisk(sys, /*with_class_link=*/true);
  AddSataIdentity(sys);
  FakeTree udev;
  udev.Attr("b8:0", kSdaUdev);
  udev.Attr("b8:1",  // the partition's own record: not used
            "S:disk/by-id/ata-ST4000DM004-2CV1_ZDH1ABCD-part1\n"
            "S:disk/by-partuuid/0a1b2c3d-01\n"
            "E:ID_SERIAL_SHORT=PARTITION\n"
            "E:ID_PART_ENTRY_NUMBER=1\n");
  FakeTree dev;  // not scanned: udev has the names
  dev.Attr("sda", "");
  dev.Link("disk/by-id/ata-ELSEWHERE", "../../sda");

  for (unsigned minor : {0u, 1u}) {
    CAPTURE(minor);
    DeviceInfo info;
    FillSysfsInfo(8, minor, info, sys.root(), udev.root(), dev.root());
    CheckSataDisk(info);
    CHECK(Identity(info) ==
          "serial=ZDH1ABCD wwn=0x5000c500a1b2c3d4 firmware=0001 physical=4096 rpm=5425 "
          "by_id=ata-ST4000DM004-2CV1_ZDH1ABCD,wwn-0x5000c500a1b2c3d4");
  }
}

TEST_CASE("Without a udev record a disk keeps what sysfs says and nothing breaks", "[sysfs]") {
  FakeTree sys;
  AddSataDisk(sys, /*with_class_link=*/true);
  AddSataIdentity(sys);
  FakeTree udev;
  udev.Attr("b8:16", "E:ID_SERIAL_SHORT=SOMEONE-ELSE\n");  // another disk's

  for (const std::string& udev_root : {udev.root(), udev.Missing("nothing-here")}) {
    CAPTURE(udev_root);
    DeviceInfo info;
    CHECK_NOTHROW(FillSysfsInfo(8, 0, info, sys.root(), udev_root, udev.Missing("dev")));
    CheckSataDisk(info);
    // ATA serials, WWNs and rotation rates come from udev only; libata's rev is absent here.
    CHECK(Identity(info) == "serial= wwn= firmware= physical=4096 rpm=? by_id=");
  }
}

TEST_CASE("An NVMe namespace without udev is named by sysfs: serial, firmware_rev and wwid",
          "[sysfs]") {
  FakeTree sys;
  AddNvmeNamespace(sys);

  for (unsigned minor : {0u, 2u}) {
    CAPTURE(minor);
    DeviceInfo info;
    FillSysfsInfo(259, minor, info, sys.root(), sys.Missing("udev"), sys.Missing("dev"));
    CHECK(Identity(info) ==
          "serial=S4EWNX0R123456A wwn=eui.0025385b71b1b5d4 firmware=2B2QEXM7 physical=512 rpm=? "
          "by_id=");
  }
}

TEST_CASE(
    "A SCSI disk prefers udev's serial and WWN but sysfs's revision; its NAA wwid reads as udev "
    "writes it",
    "[sysfs]") {
  FakeTree sys;
  AddScsiDisk(sys);
  FakeTree udev;
  udev.Attr("b8:16",
            "E:ID_SERIAL_SHORT=S0M1ABCD\n"
            "E:ID_WWN=0x5000c500a1b2c3d4\n"
            "E:ID_REVISION=0004-full\n");

  DeviceInfo with_udev;
  FillSysfsInfo(8, 16, with_udev, sys.root(), udev.root(), udev.Missing("dev"));
  CHECK(Identity(with_udev) ==
        "serial=S0M1ABCD wwn=0x5000c500a1b2c3d4 firmware=0004 physical=0 rpm=? by_id=");

  DeviceInfo without;
  FillSysfsInfo(8, 16, without, sys.root(), udev.Missing("udev"), udev.Missing("dev"));
  CHECK(Identity(without) ==
        "serial=S0M1ABCD0000B123XYZ wwn=0x5000C500A1B2C3D4 firmware=0004 physical=0 rpm=? by_id=");
}

TEST_CASE(
    "Without udev links the by-id names are the /dev/disk/by-id links that resolve to the disk's "
    "node",
    "[sysfs]") {
  FakeTree sys;
  AddSataDisk(sys, /*with_class_link=*/true);
  AddSataIdentity(sys);
  FakeTree dev;
  dev.Attr("sda", "");  // stand-ins for the nodes: the names are what is compared
  dev.Attr("sda1", "");
  dev.Attr("sdb", "");
  dev.Link("disk/by-id/wwn-0x5000c500a1b2c3d4", "../../sda");
  dev.Link("disk/by-id/ata-ST4000DM004-2CV1_ZDH1ABCD", "../../sda");
  dev.Link("disk/by-id/ata-ST4000DM004-2CV1_ZDH1ABCD-part1", "../../sda1");
  dev.Link("disk/by-id/ata-OTHER_DISK", "../../sdb");
  dev.Link("disk/by-id/ata-GONE", "../../sdz");  // dangling
  dev.Link("disk/by-path/pci-0000:00:1f.2-ata-1", "../../sda");
  dev.Attr("disk/by-id/not-a-link", "");
  // A record with properties but no links, as without udev's rules for disks.
  FakeTree udev;
  udev.Attr("b8:0", "E:ID_SERIAL_SHORT=ZDH1ABCD\n");

  for (unsigned minor : {0u, 1u}) {
    CAPTURE(minor);
    DeviceInfo info;
    FillSysfsInfo(8, minor, info, sys.root(), udev.root(), dev.root());
    CHECK(Identity(info) ==
          "serial=ZDH1ABCD wwn= firmware= physical=4096 rpm=? "
          "by_id=ata-ST4000DM004-2CV1_ZDH1ABCD,wwn-0x5000c500a1b2c3d4");
  }
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
