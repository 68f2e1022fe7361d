// PosixDevice on temporary regular files. The temp directory may be on a file
// system that refuses O_DIRECT (older tmpfs): then the device must say so
// (direct_io=false and a note), and every other behaviour stays the same.
#include "zcav/device/posix/posix_device.h"

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>
#include <system_error>

#include "testutil.h"
#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

// The byte stored at `offset` in pattern files: varies within and across
// sectors so a read from the wrong offset cannot match.
char PatternByte(std::uint64_t offset) {
  return static_cast<char>((offset * 131 + (offset >> 9) * 7 + (offset >> 17)) & 0xff);
}

std::string Pattern(std::uint64_t size_bytes) {
  std::string s(size_bytes, '\0');
  for (std::uint64_t i = 0; i < size_bytes; ++i) s[i] = PatternByte(i);
  return s;
}

bool HasNoteContaining(const DeviceInfo& info, const std::string& text) {
  for (const std::string& note : info.notes) {
    if (note.find(text) != std::string::npos) return true;
  }
  return false;
}

// Checks the O_DIRECT state is reported consistently either way.
void CheckDirectIoReporting(const DeviceInfo& info) {
  CAPTURE(info.direct_io, info.sector_bytes);
  if (info.direct_io) {
    CHECK_FALSE(HasNoteContaining(info, "O_DIRECT"));
  } else {
    CHECK(HasNoteContaining(info, "O_DIRECT refused by this file system: reading buffered"));
    CHECK(info.sector_bytes == 512);
  }
}

// The message of the zcav::Error that opening `path` throws; fails the test
// when nothing or something else is thrown.
std::string OpenError(const std::string& path) {
  try {
    OpenPosixDevice(path);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::kBadInput);
    return e.what();
  }
  FAIL("opening " << path << " did not throw zcav::Error");
  return "";
}

TEST_CASE("A regular file opens with its size, kind and a power-of-two sector", "[posix_device]") {
  test::TempDir dir;
  const auto path = dir.path() / "data.bin";
  test::WriteFile(path, Pattern(kMiB));

  const auto device = OpenPosixDevice(path.string());
  const DeviceInfo& info = device->info();
  CHECK(info.path == path.string());
  CHECK(info.kind == "file");
  CHECK(info.transport == "file");
  CHECK(info.size_bytes == kMiB);
  CHECK(info.sector_bytes >= 512);
  CHECK((info.sector_bytes & (info.sector_bytes - 1)) == 0);
  CheckDirectIoReporting(info);
}

TEST_CASE("Reads return the bytes written at their offsets", "[posix_device]") {
  test::TempDir dir;
  const auto path = dir.path() / "data.bin";
  const std::string contents = Pattern(2 * kMiB);
  test::WriteFile(path, contents);

  const auto device = OpenPosixDevice(path.string());
  const std::uint32_t sector = device->info().sector_bytes;
  AlignedBuffer buffer(256 * kKiB, sector);
  struct Range {
    std::uint64_t offset;
    std::uint64_t length;
  };
  // First sector, an unaligned-to-the-chunk middle, the last sector, a big read.
  const Range ranges[] = {{0, sector},
                          {7 * std::uint64_t{sector}, 3 * std::uint64_t{sector}},
                          {2 * kMiB - sector, sector},
                          {kMiB, 256 * kKiB}};
  for (const Range& r : ranges) {
    CAPTURE(r.offset, r.length);
    auto span = buffer.span(r.length);
    REQUIRE_FALSE(device->ReadAt(r.offset, span));
    const std::string got(reinterpret_cast<const char*>(span.data()), span.size());
    CHECK(got == contents.substr(r.offset, r.length));
  }
}

TEST_CASE("A size that is not a multiple of the sector is rounded down with a note",
          "[posix_device]") {
  test::TempDir dir;
  const auto path = dir.path() / "odd.bin";
  const std::uint64_t size = kMiB + 577;
  test::WriteFile(path, Pattern(size));

  const auto device = OpenPosixDevice(path.string());
  const DeviceInfo& info = device->info();
  const std::uint64_t expected = RoundDown(size, info.sector_bytes);
  CHECK(info.size_bytes == expected);
  CHECK(HasNoteContaining(info, "size " + std::to_string(size) +
                                    " bytes is not a multiple of the " +
                                    std::to_string(info.sector_bytes) + "-byte sector: the last " +
                                    std::to_string(size - expected) + " bytes are not read"));
  // The last whole sector still reads.
  AlignedBuffer buffer(info.sector_bytes, info.sector_bytes);
  CHECK_FALSE(device->ReadAt(expected - info.sector_bytes, buffer.span(info.sector_bytes)));
}

TEST_CASE("A file size that is a multiple of the sector gets no rounding note", "[posix_device]") {
  test::TempDir dir;
  const auto path = dir.path() / "even.bin";
  test::WriteFile(path, Pattern(64 * kKiB));
  const auto device = OpenPosixDevice(path.string());
  CHECK_FALSE(HasNoteContaining(device->info(), "not a multiple"));
}

TEST_CASE("Bad paths are refused with a message naming the problem", "[posix_device]") {
  test::TempDir dir;

  SECTION("a path that does not exist") {
    const std::string path = (dir.path() / "missing").string();
    CHECK(OpenError(path) == "open " + path + ": No such file or directory");
  }
  SECTION("a directory") {
    const std::string path = dir.path().string();
    CHECK(OpenError(path) == path + " is a directory, not a device or file");
  }
  SECTION("an empty file") {
    const auto path = dir.path() / "empty";
    test::WriteFile(path, "");
    CHECK(OpenError(path.string()) == path.string() + " is empty (0 bytes)");
  }
  SECTION("a file smaller than one sector") {
    const auto path = dir.path() / "tiny";
    test::WriteFile(path, "abc");
    CHECK_THAT(OpenError(path.string()),
               Catch::StartsWith(path.string() + " is too small to profile: 3 bytes"));
  }
  SECTION("a named pipe (without blocking on it)") {
    const auto path = dir.path() / "fifo";
    REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
    CHECK(OpenError(path.string()) == path.string() + " is a pipe, not a device or file");
  }
  SECTION("a character device") {
    CHECK(OpenError("/dev/null") == "/dev/null is a character device, not a device or file");
  }
}

// OpenError(path) as the unprivileged user `nobody` (uid/gid 65534), in a
// child process (root ignores file permissions): the message, or "" when the
// open did not throw. Only for a test running as root.
std::string OpenErrorAsNobody(const std::string& path) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // no Catch macros here: report through the pipe
    ::close(fds[0]);
    std::string message = "cannot drop to uid 65534";
    if (::setgroups(0, nullptr) == 0 && ::setgid(65534) == 0 && ::setuid(65534) == 0) {
      try {
        OpenPosixDevice(path);
        message.clear();
      } catch (const Error& e) {
        message = e.what();
      }
    }
    const ssize_t n = ::write(fds[1], message.data(), message.size());
    ::_exit(n == static_cast<ssize_t>(message.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  CHECK(WIFEXITED(status));
  return message;
}

TEST_CASE("An unreadable file is refused with a permission hint", "[posix_device]") {
  test::TempDir dir;
  const auto path = dir.path() / "secret.bin";
  test::WriteFile(path, Pattern(8 * kKiB));
  REQUIRE(::chmod(path.c_str(), 0) == 0);
  const std::string want =
      "open " + path.string() + ": Permission denied (run as root or make the file readable)";
  if (::geteuid() != 0) {
    CHECK(OpenError(path.string()) == want);
  } else {
    // Root reads a mode-000 file: try it as nobody, who must reach the file.
    REQUIRE(::chmod(dir.path().c_str(), 0755) == 0);
    CHECK(OpenErrorAsNobody(path.string()) == want);
  }
}

TEST_CASE("Reading beyond the end of a file that shrank returns ENXIO, not a crash",
          "[posix_device]") {
  test::TempDir dir;
  const auto path = dir.path() / "shrinks.bin";
  test::WriteFile(path, Pattern(kMiB));
  const auto device = OpenPosixDevice(path.string());
  const std::uint32_t sector = device->info().sector_bytes;
  REQUIRE(::truncate(path.c_str(), 64 * kKiB) == 0);

  AlignedBuffer buffer(16 * kKiB, sector);
  const std::error_code enxio(ENXIO, std::system_category());
  // Wholly past the new end.
  CHECK(device->ReadAt(512 * kKiB, buffer.span(sector)) == enxio);
  // Straddling it: a short read, then nothing.
  CHECK(device->ReadAt(64 * kKiB - sector, buffer.span(2 * sector)) == enxio);
  // Before it: still fine.
  CHECK_FALSE(device->ReadAt(0, buffer.span(sector)));
}

TEST_CASE("PreparePass succeeds and later reads still return the data", "[posix_device]") {
  test::TempDir dir;
  const auto path = dir.path() / "data.bin";
  const std::string contents = Pattern(128 * kKiB);
  test::WriteFile(path, contents);
  const auto device = OpenPosixDevice(path.string());
  const std::uint32_t sector = device->info().sector_bytes;
  AlignedBuffer buffer(64 * kKiB, sector);

  for (int pass = 0; pass < 2; ++pass) {
    CAPTURE(pass);
    CHECK_FALSE(device->PreparePass());
    auto span = buffer.span(64 * kKiB);
    REQUIRE_FALSE(device->ReadAt(64 * kKiB, span));
    CHECK(std::string(reinterpret_cast<const char*>(span.data()), span.size()) ==
          contents.substr(64 * kKiB, 64 * kKiB));
  }
}

}  // namespace
}  // namespace zcav
