// ReadLinkState against fake sysfs trees built at test time in a temp dir
// (git and CI checkouts need no symlinks in test data). The layouts follow
// the kernel's sysfs ABI documents and real machines:
//   PCIe  Documentation/ABI/testing/sysfs-bus-pci (current_link_speed
//         "8.0 GT/s PCIe", current_link_width "4", max_link_*); an NVMe
//         namespace at devices/pci0000:00/<port>/<function>/nvme/nvme0/nvme0n1.
//   SATA  sysfs-ata: ataN/linkN/ata_link/linkN/{sata_spd, sata_spd_limit,
//         hw_sata_spd_limit} ("6.0 Gbps", "<unknown>").
//   USB   sysfs-bus-usb: a device dir 1-2 (speed "480", version " 3.20"), its
//         interface 1-2:1.0 with a driver symlink (uas, usb-storage), under
//         the root hub usbN.
//         A USB 3 device on a USB 2 link enumerates as USB 2.10 (version
//         " 2.10", speed "480"); its BOS descriptor (bos_descriptors, binary,
//         kernel 6.9 on) still holds a SuperSpeed capability (bDevCapabilityType
//         3; 0x0A SuperSpeedPlus), as Windows' USBView shows it: "Device Bus
//         Speed: High (is SuperSpeed or higher capable)", bcdUSB 0x0210
//         (a USBView log at ixbt.com, img/00/02/44/04/usb_312047.txt). The
//         device's `port` link leads to its hub port, whose `peer` link, where
//         present, is the port's SuperSpeed half (sysfs-bus-usb).
//   MMC   sysfs-bus-mmc and drivers/mmc/core/sd.c: mmc_host/mmc0/mmc0:aaaa
//         {type "SD", name, ssr (SD status register, 128 hex digits)}.
#include "zcav/device/posix/sysfs_link.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "testutil.h"
#include "writer_fixture.h"
#include "zcav/analysis/transport.h"
#include "zcav/analysis/verdict.h"
#include "zcav/device/device_info.h"
#include "zcav/format/data_reader.h"
#include "zcav/format/writers.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

class FakeSys {
 public:
  std::string root() const { return dir_.path().string(); }
  void Attr(const std::string& rel, const std::string& value) const {
    const fs::path path = dir_.path() / rel;
    fs::create_directories(path.parent_path());
    test::WriteFile(path, value + "\n");
  }
  // A binary attribute (bos_descriptors), written as given.
  void Raw(const std::string& rel, const std::string& bytes) const {
    const fs::path path = dir_.path() / rel;
    fs::create_directories(path.parent_path());
    test::WriteFile(path, bytes);
  }
  // Symlink `rel` -> `target` (relative, as sysfs has them).
  void Link(const std::string& rel, const std::string& target) const {
    const fs::path path = dir_.path() / rel;
    fs::create_directories(path.parent_path());
    fs::create_directory_symlink(target, path);
  }
  // A block device dir `dev_rel` (under devices/) and class/block/NAME -> it.
  void Block(const std::string& dev_rel) const {
    fs::create_directories(dir_.path() / "devices" / dev_rel);
    const std::string name = fs::path(dev_rel).filename().string();
    Link("class/block/" + name, "../../devices/" + dev_rel);
  }

 private:
  test::TempDir dir_;
};

void PciLink(const FakeSys& sys, const std::string& dir, const std::string& speed, int width,
             const std::string& max_speed, int max_width) {
  sys.Attr(dir + "/current_link_speed", speed + " PCIe");
  sys.Attr(dir + "/current_link_width", std::to_string(width));
  sys.Attr(dir + "/max_link_speed", max_speed + " PCIe");
  sys.Attr(dir + "/max_link_width", std::to_string(max_width));
}

constexpr const char* kPort = "devices/pci0000:00/0000:00:01.1";
constexpr const char* kNvme = "devices/pci0000:00/0000:00:01.1/0000:01:00.0";

// An NVMe drive (gen4 x4 at best) trained at `speed` x`width` behind a
// root port at `port_speed` x`port_width`.
void Nvme(const FakeSys& sys, const std::string& speed, int width, const std::string& port_speed,
          int port_width) {
  PciLink(sys, kPort, port_speed, port_width, "16.0 GT/s", 4);
  PciLink(sys, kNvme, speed, width, "16.0 GT/s", 4);
  sys.Block("pci0000:00/0000:00:01.1/0000:01:00.0/nvme/nvme0/nvme0n1");
}

void Sata(const FakeSys& sys, const std::string& current, const std::string& hw_limit) {
  const std::string link = "devices/pci0000:00/0000:00:17.0/ata2/link2/ata_link/link2/";
  sys.Attr(link + "sata_spd", current);
  sys.Attr(link + "sata_spd_limit", "<unknown>");
  sys.Attr(link + "hw_sata_spd_limit", hw_limit);
  sys.Block("pci0000:00/0000:00:17.0/ata2/host1/target1:0:0/1:0:0:0/block/sda");
}

// A USB disk (descriptor version `version`) at `speed` Mb/s on root hub
// usb1 at `hub_speed`, its interface bound to `driver`.
void Usb(const FakeSys& sys, const std::string& version, const std::string& speed,
         const std::string& hub_speed, const std::string& driver) {
  const std::string hub = "devices/pci0000:00/0000:00:14.0/usb1";
  sys.Attr(hub + "/speed", hub_speed);
  sys.Attr(hub + "/version", hub_speed == "480" ? " 2.00" : " 3.10");
  sys.Attr(hub + "/1-2/speed", speed);
  sys.Attr(hub + "/1-2/version", version);
  sys.Attr("bus/usb/drivers/" + driver + "/bind", "");
  sys.Link(hub + "/1-2/1-2:1.0/driver", "../../../../../../bus/usb/drivers/" + driver);
  sys.Block("pci0000:00/0000:00:14.0/usb1/1-2/1-2:1.0/host2/target2:0:0/2:0:0:0/block/sdb");
}

// VerdictInputs for a flat curve at `mb_per_s` on the device's transport.
std::string VerdictText(const DeviceInfo& info, double mb_per_s) {
  ZoneAnalysis a;
  a.type = CurveType::kFlat;
  Zone z;
  z.end_bytes = 1000000000;
  z.end_block = 100;
  z.mb_per_s = z.mean_mb_per_s = mb_per_s;
  z.min_mb_per_s = mb_per_s * 0.99;
  z.max_mb_per_s = mb_per_s * 1.01;
  a.zones.push_back(z);
  a.outer_inner_ratio = 1;
  VerdictInputs in;
  in.sustained_max_mb_per_s = in.sustained_avg_mb_per_s = mb_per_s;
  in.transport = TransportFromDevice(info);
  return DecideVerdict(a, in).reason;
}

DeviceInfo WithLink(const LinkState& state) {
  DeviceInfo info;
  info.kind = "block";
  info.link_state = state;
  return info;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("A gen4 x4 NVMe drive trained at gen3 x1 is downgraded, 0.98 of 7.88 GB/s", "[link]") {
  FakeSys sys;
  Nvme(sys, "8.0 GT/s", 1, "16.0 GT/s", 4);
  const LinkState s = ReadLinkState(sys.root(), "nvme0n1");
  CHECK(s.transport == "pcie");
  CHECK(s.current == "8.0 GT/s");
  CHECK(s.max == "16.0 GT/s");
  CHECK(s.width == 1);
  CHECK(s.max_width == 4);
  CHECK(s.downgraded);
  CHECK(s.limit_mb_per_s == Approx(984.6).epsilon(0.001));
  CHECK(s.max_limit_mb_per_s == Approx(7876.9).epsilon(0.001));
  CHECK(Has(s.reason, "this PCIe gen4 x4 drive trained at gen3 x1: 0.98 of 7.88 GB/s"));
  const std::string verdict = VerdictText(WithLink(s), 900);
  CAPTURE(verdict);
  CHECK(Has(verdict, "Link: this PCIe gen4 x4 drive trained at gen3 x1"));
}

TEST_CASE("An NVMe drive at its best behind a slower root port is limited by the port", "[link]") {
  FakeSys sys;
  Nvme(sys, "16.0 GT/s", 4, "8.0 GT/s", 4);
  const LinkState s = ReadLinkState(sys.root(), "nvme0n1");
  CHECK(s.downgraded);
  CHECK(s.limit_mb_per_s == Approx(3938.5).epsilon(0.001));
  CHECK(Has(s.reason, "behind port 0000:00:01.1 (gen3 x4): 3.94 of 7.88 GB/s"));
}

TEST_CASE("A healthy gen4 x4 NVMe link is not downgraded and adds nothing to the verdict",
          "[link]") {
  FakeSys sys;
  Nvme(sys, "16.0 GT/s", 4, "16.0 GT/s", 4);
  const LinkState s = ReadLinkState(sys.root(), "nvme0n1");
  CHECK(s.transport == "pcie");
  CHECK_FALSE(s.downgraded);
  CHECK(s.reason == "PCIe gen4 x4 at its best: 7.88 GB/s.");
  CHECK_FALSE(Has(VerdictText(WithLink(s), 3000), "Link:"));
}

TEST_CASE("A SATA 6.0 Gbps drive on a 1.5 Gbps link is downgraded", "[link]") {
  FakeSys sys;
  Sata(sys, "1.5 Gbps", "6.0 Gbps");
  const LinkState s = ReadLinkState(sys.root(), "sda");
  CHECK(s.transport == "sata");
  CHECK(s.current == "1.5 Gbps");
  CHECK(s.max == "6.0 Gbps");
  CHECK(s.downgraded);
  CHECK(s.limit_mb_per_s == Approx(150));
  CHECK(s.max_limit_mb_per_s == Approx(600));
  CHECK(Has(s.reason, "a SATA 6.0 Gbps drive on a 1.5 Gbps link: 150 of 600 MB/s"));
  CHECK(Has(VerdictText(WithLink(s), 140), "Link: a SATA 6.0 Gbps drive on a 1.5 Gbps link"));
}

TEST_CASE("A SATA link at the drive's best is not downgraded", "[link]") {
  FakeSys sys;
  Sata(sys, "6.0 Gbps", "6.0 Gbps");
  const LinkState s = ReadLinkState(sys.root(), "sda");
  CHECK(s.transport == "sata");
  CHECK_FALSE(s.downgraded);
  CHECK(s.reason == "SATA link at 6.0 Gbps (best 6.0 Gbps).");
}

TEST_CASE("A USB 3 disk on a USB 2 port is downgraded", "[link]") {
  FakeSys sys;
  Usb(sys, " 3.20", "480", "480", "uas");
  const LinkState s = ReadLinkState(sys.root(), "sdb");
  CHECK(s.transport == "usb");
  CHECK(s.current == "480 Mb/s");
  CHECK(s.driver == "uas");
  CHECK(s.downgraded);
  CHECK(s.limit_mb_per_s == Approx(60));
  CHECK(Has(s.reason, "a USB 3 disk on a USB 2 port (480 Mb/s): 60 of 500 MB/s"));
  CHECK(Has(VerdictText(WithLink(s), 40), "Link: a USB 3 disk on a USB 2 port"));
}

// A BOS descriptor as a USB 3 flash drive gives it: the BOS header (5
// bytes, 2 capabilities, 22 bytes in all), a USB 2.0 extension (LPM) and a
// SuperSpeed capability (speeds FS/HS/SS); `ssp` adds a SuperSpeedPlus one.
std::string Bos(bool ssp) {
  std::string b = {5, 0x0F, 22, 0, 2, 7, 0x10, 2, 6, 0, 0, 0, 10, 0x10, 3, 0, 0x0E, 0, 1, 10};
  b += {static_cast<char>(0xFF), 7};
  if (ssp) {
    b += std::string{12, 0x10, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    b[2] = static_cast<char>(b.size());
    b[4] = 3;
  }
  return b;
}

TEST_CASE("A USB 3 disk that enumerated as USB 2.10 is known by its BOS descriptor", "[link]") {
  SECTION("on a USB 2 port: the port has no SuperSpeed peer") {
    FakeSys sys;
    Usb(sys, " 2.10", "480", "480", "uas");
    sys.Raw("devices/pci0000:00/0000:00:14.0/usb1/1-2/bos_descriptors", Bos(false));
    sys.Attr("devices/pci0000:00/0000:00:14.0/usb1/1-0:1.0/usb1-port2/connect_type", "hotplug");
    sys.Link("devices/pci0000:00/0000:00:14.0/usb1/1-2/port", "../1-0:1.0/usb1-port2");
    const LinkState s = ReadLinkState(sys.root(), "sdb");
    CHECK(s.downgraded);
    CHECK(s.max == "5000 Mb/s or more");
    CHECK(Has(s.reason, "a USB 3 disk on a USB 2 port (480 Mb/s): 60 of 500 MB/s; a USB 3 port"));
    CHECK(Has(VerdictText(WithLink(s), 40), "Link: a USB 3 disk on a USB 2 port"));
  }
  SECTION("on a USB 3 port that fell back: the port has a SuperSpeed peer") {
    FakeSys sys;
    Usb(sys, " 2.10", "480", "480", "uas");
    sys.Raw("devices/pci0000:00/0000:00:14.0/usb1/1-2/bos_descriptors", Bos(false));
    sys.Attr("devices/pci0000:00/0000:00:14.0/usb2/2-0:1.0/usb2-port2/connect_type", "hotplug");
    sys.Link("devices/pci0000:00/0000:00:14.0/usb1/1-0:1.0/usb1-port2/peer",
             "../../../usb2/2-0:1.0/usb2-port2");
    sys.Link("devices/pci0000:00/0000:00:14.0/usb1/1-2/port", "../1-0:1.0/usb1-port2");
    const LinkState s = ReadLinkState(sys.root(), "sdb");
    CHECK(s.downgraded);
    CHECK(Has(s.reason, "a USB 3 disk on a USB 3 port that trained at USB 2 (480 Mb/s)"));
  }
  SECTION("a 10 Gb/s disk at 5 Gb/s") {
    FakeSys sys;
    Usb(sys, " 3.20", "5000", "10000", "uas");
    sys.Raw("devices/pci0000:00/0000:00:14.0/usb1/1-2/bos_descriptors", Bos(true));
    const LinkState s = ReadLinkState(sys.root(), "sdb");
    CHECK(s.downgraded);
    CHECK(s.max == "10000 Mb/s");
    CHECK(Has(s.reason, "a USB 3 disk of 10 Gb/s at 5000 Mb/s: 500 of 1212 MB/s; a 10 Gb/s port"));
  }
  SECTION("no BOS descriptor (kernels before 6.9): a hint, not a finding") {
    FakeSys sys;
    Usb(sys, " 2.10", "480", "480", "uas");
    const LinkState s = ReadLinkState(sys.root(), "sdb");
    CHECK_FALSE(s.downgraded);
    CHECK(Has(s.reason, "It reports USB 2.10, as a USB 3 disk on a USB 2 link does"));
  }
  SECTION("a USB 2 stick's BOS (LPM only) is no USB 3") {
    FakeSys sys;
    Usb(sys, " 2.10", "480", "480", "usb-storage");
    sys.Raw("devices/pci0000:00/0000:00:14.0/usb1/1-2/bos_descriptors",
            std::string{5, 0x0F, 12, 0, 1, 7, 0x10, 2, 6, 0, 0, 0});
    const LinkState s = ReadLinkState(sys.root(), "sdb");
    CHECK_FALSE(s.downgraded);
    CHECK(s.reason == "a USB 2.1 disk at 480 Mb/s on usb-storage.");
  }
  SECTION("a BOS whose lengths lie is read within the file") {
    FakeSys sys;
    Usb(sys, " 2.10", "480", "480", "uas");
    sys.Raw("devices/pci0000:00/0000:00:14.0/usb1/1-2/bos_descriptors",
            std::string{5, 0x0F, static_cast<char>(0xFF), static_cast<char>(0xFF), 9, 0, 0x10, 3});
    const LinkState s = ReadLinkState(sys.root(), "sdb");
    CHECK_FALSE(s.downgraded);  // a zero length ends the walk
  }
}

// A USB 2.0 descriptor at 12 Mb/s may be a full-speed-only device: a hint,
// not a finding; a USB 1.1 device at 12 Mb/s is at its best.
TEST_CASE("A USB 2 disk at full speed (12 Mb/s) gets a hint; a USB 1.1 one nothing", "[link]") {
  FakeSys sys;
  Usb(sys, " 2.00", "12", "12", "usb-storage");
  const LinkState s = ReadLinkState(sys.root(), "sdb");
  CHECK_FALSE(s.downgraded);
  CHECK(Has(s.reason,
            "a USB 2.0 disk at 12 Mb/s on usb-storage. A USB 2 device at full speed: if "
            "it does high speed, a USB 2 port would lift the 1.5 MB/s limit to 60."));
  FakeSys old;
  Usb(old, " 1.10", "12", "12", "usb-storage");
  const LinkState o = ReadLinkState(old.root(), "sdb");
  CHECK_FALSE(o.downgraded);
  CHECK(o.reason == "a USB 1.1 disk at 12 Mb/s on usb-storage.");
}

TEST_CASE("eMMC HS400 carries two transfers a clock; debugfs numbers out of range are none",
          "[link]") {
  FakeSys sys;
  const std::string card = "devices/platform/mmc_host/mmc0/mmc0:0001";
  sys.Attr(card + "/type", "MMC");
  sys.Block("platform/mmc_host/mmc0/mmc0:0001/block/mmcblk0");
  sys.Attr("kernel/debug/mmc0/ios",
           "clock:\t\t200000000 Hz\nbus width:\t3 (8 bits)\ntiming spec:\t10 (mmc HS400)");
  CHECK(ReadLinkState(sys.root(), "mmcblk0").limit_mb_per_s == Approx(400));
  sys.Attr("kernel/debug/mmc0/ios",
           "clock:\t\t200000000 Hz\nbus width:\t3 (1e99 bits)\ntiming spec:\t10 (mmc HS400)");
  const LinkState bad = ReadLinkState(sys.root(), "mmcblk0");
  CHECK(bad.limit_mb_per_s == 0);
  CHECK(bad.current == "unknown");
}

TEST_CASE("A USB 3 disk on usb-storage (BOT) instead of uas is named", "[link]") {
  FakeSys sys;
  Usb(sys, " 3.20", "5000", "5000", "usb-storage");
  const LinkState s = ReadLinkState(sys.root(), "sdb");
  CHECK(s.driver == "usb-storage");
  CHECK(s.downgraded);
  CHECK(Has(s.reason, "on usb-storage (BOT), not uas"));
  CHECK(Has(VerdictText(WithLink(s), 300), "Link: a USB 3 disk at 5000 Mb/s on usb-storage."));
}

TEST_CASE("A USB 3 disk on uas at 5 Gb/s is not downgraded", "[link]") {
  FakeSys sys;
  Usb(sys, " 3.20", "5000", "5000", "uas");
  const LinkState s = ReadLinkState(sys.root(), "sdb");
  CHECK_FALSE(s.downgraded);
  CHECK(s.reason == "a USB 3 disk at 5000 Mb/s on uas.");
  CHECK(s.limit_mb_per_s == Approx(500));
}

TEST_CASE(
    "An SD card is named with its type and speed class; without debugfs its bus mode is "
    "unknown",
    "[link]") {
  FakeSys sys;
  const std::string card = "devices/pci0000:00/0000:00:1e.6/mmc_host/mmc0/mmc0:aaaa";
  sys.Attr(card + "/type", "SD");
  sys.Attr(card + "/name", "SC32G");
  // SSR: SPEED_CLASS (bits 447:440) = 4, class 10.
  sys.Attr(card + "/ssr", "0000000004000000" + std::string("04") + std::string(110, '0'));
  sys.Block("pci0000:00/0000:00:1e.6/mmc_host/mmc0/mmc0:aaaa/block/mmcblk0");
  sys.Attr(card + "/block/mmcblk0/mmcblk0p1/partition", "1");
  sys.Link("class/block/mmcblk0p1",
           "../../devices/pci0000:00/0000:00:1e.6/mmc_host/mmc0/mmc0:aaaa/block/mmcblk0/mmcblk0p1");
  for (const char* name : {"mmcblk0", "mmcblk0p1"}) {
    const LinkState s = ReadLinkState(sys.root(), name);
    CAPTURE(name);
    CHECK(s.transport == "mmc");
    CHECK(s.card_type == "SD");
    CHECK(s.speed_class == "class 10");
    CHECK(s.current == "unknown");
    CHECK_FALSE(s.downgraded);
    CHECK(Has(s.reason,
              "an SD card (SC32G), class 10, behind mmc host mmc0; its bus mode "
              "is unknown (debugfs mmc ios not readable)"));
    CHECK(Has(VerdictText(WithLink(s), 20), "Link: an SD card (SC32G)"));
  }
}

// An SSR with SPEED_CLASS 4 (class 10), UHS_SPEED_GRADE 3, VIDEO_SPEED_CLASS
// 30 and APP_PERF_CLASS 2, at the hex digits of their top bits (511 - bit) / 4.
std::string UhsSsr() {
  std::string ssr(128, '0');
  ssr.replace(16, 2, "04");
  ssr.replace(28, 1, "3");
  ssr.replace(30, 2, "1e");
  ssr.replace(43, 1, "2");
  return ssr;
}

// A UHS SD card behind mmc0, whose debugfs ios (drivers/mmc/core/debugfs.c
// layout) runs `timing` at `clock_hz` on 4 bits, the host's caps `caps`.
LinkState SdWithIos(const std::string& timing, const std::string& clock_hz,
                    const std::string& caps) {
  FakeSys sys;
  const std::string card = "devices/pci0000:00/0000:00:1e.6/mmc_host/mmc0/mmc0:aaaa";
  sys.Attr(card + "/type", "SD");
  sys.Attr(card + "/name", "SN64G");
  sys.Attr(card + "/ssr", UhsSsr());
  sys.Block("pci0000:00/0000:00:1e.6/mmc_host/mmc0/mmc0:aaaa/block/mmcblk0");
  sys.Attr("kernel/debug/mmc0/ios", "clock:\t\t" + clock_hz + " Hz\nactual clock:\t" + clock_hz +
                                        " Hz\nvdd:\t\t21 (3.3 ~ 3.4 V)\nbus mode:\t2 "
                                        "(push-pull)\nchip select:\t0 (don't care)\npower "
                                        "mode:\t2 (on)\nbus width:\t2 (4 bits)\ntiming "
                                        "spec:\t" +
                                        timing + "\nsignal voltage:\t1 (1.80 V)");
  sys.Attr("kernel/debug/mmc0/caps", caps);
  return ReadLinkState(sys.root(), "mmcblk0");
}

TEST_CASE("An SD card's bus mode from debugfs: the rate it carries, and a UHS card held back",
          "[link]") {
  SECTION("a UHS card in SDR104: 104 MB/s on the bus, its grades named") {
    const LinkState s = SdWithIos("6 (sd uhs SDR104)", "208000000", "0x400f0307");
    CHECK(s.card_grades == "U3, V30, A2");
    CHECK(s.current == "sd uhs SDR104 (208 MHz, 4 bits)");
    CHECK(s.limit_mb_per_s == Approx(104));
    CHECK(s.max == "SDR104");
    CHECK_FALSE(s.downgraded);
    CHECK(Has(s.reason,
              "an SD card (SN64G), class 10, U3, V30, A2, behind mmc host mmc0 at sd "
              "uhs SDR104 (208 MHz, 4 bits): 104 MB/s on the bus."));
    DeviceInfo info = WithLink(s);
    const Transport t = TransportFromDevice(info);
    CHECK(t.theoretical_mb_per_s == Approx(104));
    CHECK(t.ceiling_mb_per_s == Approx(93.6));
  }
  SECTION("the same card held in high-speed mode on a host that does SDR104") {
    const LinkState s = SdWithIos("2 (sd high-speed)", "50000000", "0x400f0307");
    CHECK(s.limit_mb_per_s == Approx(25));
    CHECK(s.max_limit_mb_per_s == Approx(104));
    CHECK(s.downgraded);
    CHECK(Has(s.reason,
              "25 MB/s on the bus; a UHS card on a host that does SDR104 (104 MB/s) "
              "but runs no UHS mode"));
    CHECK(Has(VerdictText(WithLink(s), 22), "Link: an SD card (SN64G)"));
  }
  SECTION("a host without UHS-I: not downgraded, the reader named") {
    const LinkState s = SdWithIos("2 (sd high-speed)", "50000000", "0x00000107");
    CHECK_FALSE(s.downgraded);
    CHECK(Has(s.reason, "the host does no UHS-I mode: a UHS-I reader would lift the bus limit"));
  }
  SECTION("DDR50 carries two transfers a clock") {
    const LinkState s = SdWithIos("7 (sd uhs DDR50)", "50000000", "0x00100107");
    CHECK(s.limit_mb_per_s == Approx(50));
    CHECK_FALSE(s.downgraded);
  }
}

TEST_CASE("A device without a link in sysfs, or a bad name, gives an empty LinkState", "[link]") {
  FakeSys sys;
  sys.Block("virtual/block/loop0");
  CHECK(ReadLinkState(sys.root(), "loop0").transport.empty());
  CHECK(ReadLinkState(sys.root(), "nosuch").transport.empty());
  CHECK(ReadLinkState(sys.root(), "../../etc").transport.empty());
  CHECK(ReadLinkState(sys.root() + "/missing", "sda").transport.empty());
}

TEST_CASE("Sysfs text in a link is cleaned of control characters", "[link]") {
  FakeSys sys;
  const std::string card = "devices/platform/mmc_host/mmc1/mmc1:0001";
  sys.Attr(card + "/type", "MMC");
  sys.Attr(card + "/name", "AB\x1b[31mC");
  sys.Block("platform/mmc_host/mmc1/mmc1:0001/block/mmcblk1");
  const LinkState s = ReadLinkState(sys.root(), "mmcblk1");
  CHECK(s.card_type == "MMC");
  CHECK(s.reason.find('\x1b') == std::string::npos);
}

TEST_CASE("JSON has device.link_detail for a read link and none without one", "[link]") {
  FakeSys sys;
  Sata(sys, "1.5 Gbps", "6.0 Gbps");
  test::WriterRun w = test::CompleteRun();
  const auto write = [&w] {
    std::ostringstream out;
    test::Drive(*MakeJsonWriter(out), w);
    return nlohmann::json::parse(out.str());
  };
  CHECK_FALSE(write()["device"].contains("link_detail"));
  w.run.device.link_state = ReadLinkState(sys.root(), "sda");
  const nlohmann::json detail = write()["device"]["link_detail"];
  CHECK(detail["transport"] == "sata");
  CHECK(detail["current"] == "1.5 Gbps");
  CHECK(detail["max"] == "6.0 Gbps");
  CHECK(detail["width"].is_null());
  CHECK(detail["driver"].is_null());
  CHECK(detail["downgraded"] == true);
  CHECK(detail["limit_mb_per_s"] == 150.0);
  CHECK(detail["max_limit_mb_per_s"] == 600.0);
  CHECK(detail["reason"].get<std::string>().rfind("a SATA 6.0 Gbps drive on a 1.5 Gbps link", 0) ==
        0);
  CHECK(write()["device"]["link"].is_string());  // the old member keeps its type
}

// zcav zones of a saved JSON judges the link as the sweep did: the reader
// gives link_detail back, and the verdict says the same Link sentence. The
// file's texts are data: control characters are cleaned, and rates that are
// not finite and positive are none.
TEST_CASE("A saved JSON's link_detail is read back and judged as the sweep judged it", "[link]") {
  FakeSys sys;
  Sata(sys, "1.5 Gbps", "6.0 Gbps");
  test::WriterRun w = test::CompleteRun();
  w.run.device.transport = "ata";
  w.run.device.link = "SATA 1.5 Gbps";
  w.run.device.link_state = ReadLinkState(sys.root(), "sda");
  std::ostringstream out;
  test::Drive(*MakeJsonWriter(out), w);
  std::istringstream in(out.str());
  const SavedResult p = ParseProfile(in, "saved.json");
  CHECK(p.link_state.transport == "sata");
  CHECK(p.link_state.downgraded);
  CHECK(p.link_state.limit_mb_per_s == Approx(150));
  CHECK(p.link_state.reason == w.run.device.link_state.reason);
  DeviceInfo recorded;
  recorded.transport = p.transport;
  recorded.link = p.link;
  recorded.link_state = p.link_state;
  CHECK(Has(VerdictText(recorded, 140), "Link: a SATA 6.0 Gbps drive on a 1.5 Gbps link"));

  nlohmann::json doc = nlohmann::json::parse(out.str());
  doc["device"]["link_detail"]["reason"] = "a\x1b]2;owned\x07 link";
  doc["device"]["link_detail"]["limit_mb_per_s"] = -5;
  doc["device"]["link_detail"]["width"] = 1000000;
  std::istringstream bad(doc.dump());
  const SavedResult q = ParseProfile(bad, "bad.json");
  CHECK(q.link_state.reason.find('\x1b') == std::string::npos);
  CHECK(q.link_state.reason.find('\x07') == std::string::npos);
  CHECK(q.link_state.limit_mb_per_s == 0);
  CHECK(q.link_state.width == 0);
}

TEST_CASE("The raw header has a '# link detail:' line for a read link", "[link]") {
  FakeSys sys;
  Usb(sys, " 3.20", "480", "480", "uas");
  test::WriterRun w = test::CompleteRun();
  w.run.device.link_state = ReadLinkState(sys.root(), "sdb");
  std::ostringstream out;
  test::Drive(*MakeRawWriter(out, false), w);
  CHECK(Has(out.str(), "# link detail: a USB 3 disk on a USB 2 port (480 Mb/s)"));
}

}  // namespace zcav
