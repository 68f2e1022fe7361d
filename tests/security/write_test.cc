// Security of the write test (issue 36): what a write test destroys is named
// (write_target.h: the size with its units, the signatures, the processes),
// the signatures are read with libblkid with their strings cleaned
// (signature_probe.h), and the scan for other processes that have the device
// open (write_safety.h ScanOpeners) over a fake /proc. Real devices held open
// are tested in tests/security/write_in_use_test.sh.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "testutil.h"
#include "zcav/device/device_info.h"
#include "zcav/device/posix/signature_probe.h"
#include "zcav/device/posix/write_safety.h"
#include "zcav/device/write_target.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

void WriteText(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

TEST_CASE("A write test's size is given in bytes and in defined units", "[security_write]") {
  CHECK(SizeWithUnits(512) == "512 bytes");
  CHECK(SizeWithUnits(67108864) ==
        "67108864 bytes = 67.1 MB = 64.0 MiB (MB = 10^6 B, MiB = 2^20 B)");
  CHECK(SizeWithUnits(4000787030016) ==
        "4000787030016 bytes = 4.0 TB = 3.6 TiB (TB = 10^12 B, TiB = 2^40 B)");
  CHECK(SizeWithUnits(1000) == "1000 bytes = 1.0 kB (kB = 10^3 B)");
}

TEST_CASE("A write target names the path typed and the device it leads to", "[security_write]") {
  WriteTarget t;
  t.resolved_path = "/dev/loop3";
  CHECK(WriteTargetName("/dev/disk/by-id/x", t) == "/dev/disk/by-id/x -> /dev/loop3");
  CHECK(WriteTargetName("/dev/loop3", t) == "/dev/loop3");
  DeviceInfo info;
  info.model = "ST4000DM004";
  info.serial = "ZDH1ABCD";
  info.size_bytes = 67108864;
  CHECK(WriteTargetIdentity(info) ==
        "model \"ST4000DM004\", serial \"ZDH1ABCD\", 67108864 bytes = 67.1 MB = 64.0 MiB "
        "(MB = 10^6 B, MiB = 2^20 B)");
  info.model.clear();
  info.serial.clear();
  info.backing_file = "/var/tmp/disk.img";
  CHECK(WriteTargetIdentity(info).rfind(
            "no model or serial known, a loop device over /var/tmp/disk.img, 67108864 bytes", 0) ==
        0);
}

TEST_CASE("Signatures and openers are listed as wipefs and fuser would", "[security_write]") {
  WriteTarget t;
  CHECK(SignaturesText(t) == "no file system, RAID or partition table signature found");
  t.signatures = {{"partition table", "gpt", "", "1234-ab"},
                  {"filesystem", "ext4", "data", "3e6b"}};
  CHECK(SignaturesText(t) ==
        "PTTYPE \"gpt\" partition table (PTUUID \"1234-ab\"); TYPE \"ext4\" filesystem "
        "(LABEL \"data\", UUID \"3e6b\")");
  t.signature_note = "open read-only: Permission denied";
  CHECK(SignaturesText(t) == "signatures not read: open read-only: Permission denied");
  CHECK(OpenersText({{4242, "qemu", "", true}, {7, "blkid", "loop3p1", false}}) ==
        "qemu (pid 4242, read-write), blkid (pid 7, read-only, loop3p1)");
}

TEST_CASE("libblkid's signatures come without control characters", "[security_write]") {
  // A swap area (version 1) whose label holds an escape sequence and a
  // newline, as an attacker who formatted the disk would leave it.
  TempDir dir;
  const fs::path image = dir.path() / "swap.img";
  std::string bytes(1 << 20, '\0');
  const std::uint32_t header[3] = {1, 255, 0};  // version, last_page, nr_badpages
  std::memcpy(bytes.data() + 1024, header, sizeof header);
  for (int i = 0; i < 16; ++i) bytes[static_cast<std::size_t>(1036 + i)] = static_cast<char>(i + 1);
  const std::string label = "ev\x1b[31mil\nlbl";
  std::memcpy(bytes.data() + 1052, label.data(), label.size());
  std::memcpy(bytes.data() + 4086, "SWAPSPACE2", 10);
  WriteText(image, bytes);
  const int fd = ::open(image.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::string note;
  const std::vector<DeviceSignature> found = ProbeSignatures(fd, note);
  ::close(fd);
  CHECK(note.empty());
  REQUIRE(found.size() == 1);
  CHECK(found[0].type == "swap");
  CHECK(found[0].label == "ev[31millbl");
  CHECK(found[0].uuid == "01020304-0506-0708-090a-0b0c0d0e0f10");
}

TEST_CASE("A file without signatures has none", "[security_write]") {
  TempDir dir;
  const fs::path image = dir.path() / "zeros.img";
  WriteText(image, std::string(1 << 20, '\0'));
  const int fd = ::open(image.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  std::string note;
  CHECK(ProbeSignatures(fd, note).empty());
  CHECK(note.empty());
  ::close(fd);
}

// The first block device node under /dev, for a fake /proc whose fd links
// lead to it (only stat()ed, never opened); "" when there is none.
std::string SomeBlockDevice(BlockId& id) {
  std::error_code ec;
  for (fs::directory_iterator it("/dev", ec), end; !ec && it != end; it.increment(ec)) {
    struct stat st {};
    if (::stat(it->path().c_str(), &st) == 0 && S_ISBLK(st.st_mode)) {
      id = {major(st.st_rdev), minor(st.st_rdev)};
      return it->path().string();
    }
  }
  return "";
}

TEST_CASE("The opener scan names each other process with the device open", "[security_write]") {
  TempDir proc;
  const fs::path root = proc.path();
  // zcav itself: never an opener, whatever it has open.
  const std::string self = std::to_string(::getpid());
  // A process that ended during the scan (no fd/): not counted.
  fs::create_directories(root / "100");
  // One whose fd/ cannot be listed (not a directory here, as EACCES would
  // be for another user's): counted as unchecked.
  WriteText(root / "200" / "fd", "");
  // One with a pipe and /dev/null open: not an opener.
  fs::create_directories(root / "300" / "fd");
  fs::create_symlink("pipe:[1234]", root / "300" / "fd" / "0");
  fs::create_symlink("/dev/null", root / "300" / "fd" / "1");
  BlockId id;
  const std::string dev = SomeBlockDevice(id);
  std::vector<BlockNode> family{{"dev0", id, {}}, {"dev0p1", {id.major, id.minor + 1000}, {}}};
  if (!dev.empty()) {
    for (const std::string& pid : {self, std::string("400")}) {
      fs::create_directories(root / pid / "fd");
      fs::create_symlink(dev, root / pid / "fd" / "3");
      WriteText(root / pid / "fdinfo" / "3", "pos:\t0\nflags:\t0100002\nmnt_id:\t5\n");
      WriteText(root / pid / "comm", "evil\x1b[2Jname\n");
    }
  }
  const OpenerScan scan = ScanOpeners(family, root.string());
  CHECK(scan.unchecked == 1);
  if (dev.empty()) {
    WARN("no block device under /dev: the opener itself is not checked");
    CHECK(scan.openers.empty());
    return;
  }
  CAPTURE(dev);
  REQUIRE(scan.openers.size() == 1);
  CHECK(scan.openers[0].pid == 400);
  CHECK(scan.openers[0].command == "evil[2Jname");
  CHECK(scan.openers[0].node.empty());
  CHECK(scan.openers[0].writable);
}

}  // namespace
}  // namespace zcav
