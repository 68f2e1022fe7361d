#include "zcav/analysis/transport.h"

#include <catch2/catch.hpp>
#include <string>

#include "zcav/base/error.h"
#include "zcav/device/device.h"

namespace {

zcav::DeviceInfo Block(const std::string& transport, const std::string& link) {
  zcav::DeviceInfo d;
  d.kind = "block";
  d.transport = transport;
  d.link = link;
  return d;
}

}  // namespace

TEST_CASE("A USB 2.0 link from sysfs gets the 40 MB/s practical ceiling of 53 MB/s bulk",
          "[transport]") {
  const zcav::Transport t = zcav::TransportFromDevice(Block("usb", "USB 480 Mb/s"));
  CHECK(t.kind == "usb");
  CHECK(t.ceiling_mb_per_s == Approx(40));
  CHECK(t.theoretical_mb_per_s == Approx(53.248));
  CHECK(t.source == "sysfs");
  CHECK(t.link.find("USB 2.0") != std::string::npos);
}

TEST_CASE("Each USB speed in sysfs maps to its generation's ceiling", "[transport]") {
  CHECK(zcav::TransportFromDevice(Block("usb", "USB 12 Mb/s")).ceiling_mb_per_s == Approx(1.0));
  CHECK(zcav::TransportFromDevice(Block("usb", "USB 5000 Mb/s")).ceiling_mb_per_s == Approx(400));
  CHECK(zcav::TransportFromDevice(Block("usb", "USB 10000 Mb/s")).ceiling_mb_per_s == Approx(900));
  const zcav::Transport low = zcav::TransportFromDevice(Block("usb", "USB 1.5 Mb/s"));
  CHECK(low.kind == "usb");
  CHECK(low.ceiling_mb_per_s == 0);
}

TEST_CASE("SATA link speeds map to 140, 280 and 560 MB/s of 150, 300 and 600", "[transport]") {
  const auto s1 = zcav::TransportFromDevice(Block("ata", "SATA 1.5 Gbps"));
  const auto s2 = zcav::TransportFromDevice(Block("ata", "SATA 3.0 Gbps"));
  const auto s3 = zcav::TransportFromDevice(Block("ata", "SATA 6.0 Gbps"));
  CHECK(s1.kind == "ata");
  CHECK(s1.ceiling_mb_per_s == Approx(140));
  CHECK(s1.theoretical_mb_per_s == Approx(150));
  CHECK(s2.ceiling_mb_per_s == Approx(280));
  CHECK(s3.ceiling_mb_per_s == Approx(560));
  CHECK(s3.theoretical_mb_per_s == Approx(600));
}

TEST_CASE("An NVMe PCIe link multiplies the per-lane rate by the width", "[transport]") {
  const auto g3x4 = zcav::TransportFromDevice(Block("nvme", "PCIe 8.0 GT/s x4"));
  CHECK(g3x4.kind == "nvme");
  CHECK(g3x4.theoretical_mb_per_s == Approx(4 * 984.6).epsilon(0.001));
  CHECK(g3x4.ceiling_mb_per_s == Approx(0.85 * 4 * 984.6).epsilon(0.001));
  CHECK(g3x4.link == "PCIe gen3 x4");
  const auto g4x2 = zcav::TransportFromDevice(Block("nvme", "PCIe 16.0 GT/s PCIe x2"));
  CHECK(g4x2.theoretical_mb_per_s == Approx(2 * 1969.2).epsilon(0.001));
  const auto g1 = zcav::TransportFromDevice(Block("nvme", "PCIe 2.5 GT/s"));
  CHECK(g1.theoretical_mb_per_s == Approx(250));
}

TEST_CASE("Loop, virtio and files keep their kind with an unknown ceiling", "[transport]") {
  const auto loop = zcav::TransportFromDevice(Block("loop", "backing file /tmp/x.img"));
  CHECK(loop.kind == "loop");
  CHECK(loop.ceiling_mb_per_s == 0);
  CHECK(loop.link == "backing file /tmp/x.img");
  CHECK(zcav::TransportFromDevice(Block("virtio", "")).kind == "virtio");
  zcav::DeviceInfo file;
  file.kind = "file";
  const auto f = zcav::TransportFromDevice(file);
  CHECK(f.kind == "file");
  CHECK(f.ceiling_mb_per_s == 0);
  const auto unknown = zcav::TransportFromDevice(zcav::DeviceInfo{});
  CHECK(unknown.kind == "unknown");
  CHECK(unknown.source == "unknown");
}

TEST_CASE("A simulated device's stated link gives its bus, marked as from the model",
          "[transport]") {
  zcav::DeviceInfo d;
  d.kind = "sim";
  d.transport = "sim";
  d.link = "USB 480 Mb/s";
  const auto t = zcav::TransportFromDevice(d);
  CHECK(t.kind == "usb");
  CHECK(t.ceiling_mb_per_s == Approx(40));
  CHECK(t.source == "sim");
  d.link.clear();
  CHECK(zcav::TransportFromDevice(d).kind == "sim");
  CHECK(zcav::TransportFromDevice(d).ceiling_mb_per_s == 0);
}

TEST_CASE("Bus names given with --bus, and their aliases, give the table's ceilings",
          "[transport]") {
  CHECK(zcav::TransportFromName("usb1").ceiling_mb_per_s == Approx(1.0));
  CHECK(zcav::TransportFromName("usb2").ceiling_mb_per_s == Approx(40));
  CHECK(zcav::TransportFromName("USB2").ceiling_mb_per_s == Approx(40));
  CHECK(zcav::TransportFromName("usb3").ceiling_mb_per_s == Approx(400));
  CHECK(zcav::TransportFromName("usb3.1").ceiling_mb_per_s == Approx(900));
  CHECK(zcav::TransportFromName("fw400").ceiling_mb_per_s == Approx(40));
  CHECK(zcav::TransportFromName("fw800").ceiling_mb_per_s == Approx(80));
  CHECK(zcav::TransportFromName("fw800").kind == "firewire");
  CHECK(zcav::TransportFromName("udma33").ceiling_mb_per_s == Approx(30));
  CHECK(zcav::TransportFromName("udma66").ceiling_mb_per_s == Approx(60));
  CHECK(zcav::TransportFromName("udma100").ceiling_mb_per_s == Approx(90));
  CHECK(zcav::TransportFromName("udma133").ceiling_mb_per_s == Approx(120));
  CHECK(zcav::TransportFromName("udma133").kind == "pata");
  CHECK(zcav::TransportFromName("sata1").ceiling_mb_per_s == Approx(140));
  CHECK(zcav::TransportFromName("sata1.5").ceiling_mb_per_s == Approx(140));
  CHECK(zcav::TransportFromName("sata2").ceiling_mb_per_s == Approx(280));
  CHECK(zcav::TransportFromName("sata3g").ceiling_mb_per_s == Approx(280));
  CHECK(zcav::TransportFromName("sata3").ceiling_mb_per_s == Approx(560));
  CHECK(zcav::TransportFromName("sata6g").ceiling_mb_per_s == Approx(560));
  CHECK(zcav::TransportFromName("sas12").ceiling_mb_per_s == Approx(1100));
  const auto usb2 = zcav::TransportFromName("usb2");
  CHECK(usb2.source == "--bus");
  CHECK(usb2.kind == "usb");
}

TEST_CASE("A --bus pcieGxW name gives 85 % of the generation's lane rate times the width",
          "[transport]") {
  const auto t = zcav::TransportFromName("pcie3x4");
  CHECK(t.kind == "nvme");
  CHECK(t.ceiling_mb_per_s == Approx(0.85 * 4 * 984.6).epsilon(0.001));
  CHECK(zcav::TransportFromName("pcie4x4").theoretical_mb_per_s ==
        Approx(4 * 1969.2).epsilon(0.001));
  CHECK(zcav::TransportFromName("pcie1x1").theoretical_mb_per_s == Approx(250));
  CHECK_THROWS_AS(zcav::TransportFromName("pcie3x3"), zcav::Error);
  CHECK_THROWS_AS(zcav::TransportFromName("pcie9x4"), zcav::Error);
  CHECK_THROWS_AS(zcav::TransportFromName("pcie3x4y"), zcav::Error);
}

TEST_CASE("An unknown --bus name is bad input that lists the accepted names", "[transport]") {
  try {
    zcav::TransportFromName("scsi-ultra");
    FAIL("no exception");
  } catch (const zcav::Error& e) {
    CHECK(e.kind() == zcav::ErrorKind::kBadInput);
    const std::string what = e.what();
    CHECK(what.find("scsi-ultra") != std::string::npos);
    CHECK(what.find("usb2") != std::string::npos);
    CHECK(what.find("pcieGxW") != std::string::npos);
  }
  CHECK_THROWS_AS(zcav::TransportFromName(""), zcav::Error);
}

TEST_CASE("BusNames lists every bus with its ceiling", "[transport]") {
  const std::string names = zcav::BusNames();
  for (const char* n : {"usb1", "usb2", "usb3", "usb3.1", "fw400", "fw800", "udma33", "udma133",
                        "sata1", "sata3g", "sata6g", "sas6", "pcieGxW"}) {
    CAPTURE(n);
    CHECK(names.find(n) != std::string::npos);
  }
  CHECK(names.find("~40 MB/s") != std::string::npos);
}
