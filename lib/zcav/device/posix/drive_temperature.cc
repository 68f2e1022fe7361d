#include "zcav/device/posix/drive_temperature.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "zcav/base/text.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

bool Exists(const fs::path& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

// The entries of `dir` whose names start with `prefix`, sorted by name
// ("hwmon10" after "hwmon2" does not matter: a drive has one).
std::vector<fs::path> EntriesStartingWith(const fs::path& dir, const std::string& prefix) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.compare(0, prefix.size(), prefix) == 0) found.push_back(it->path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

// A hwmon temperature file: millidegrees Celsius as a decimal integer.
std::optional<double> ReadMillidegrees(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return std::nullopt;  // the driver's read failed (EIO, ENXIO)
  const std::string text(Trim(s.str()));
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long millidegrees = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end != text.c_str() + text.size()) return std::nullopt;
  return static_cast<double>(millidegrees) / 1000.0;
}

// temp1_input of the first readable hwmon* directory in `dir`.
std::optional<double> FromHwmonDirs(const fs::path& dir) {
  for (const fs::path& hwmon : EntriesStartingWith(dir, "hwmon")) {
    if (const auto t = ReadMillidegrees(hwmon / "temp1_input")) return t;
  }
  return std::nullopt;
}

// The disk of `name`: itself, or for a partition (class/block/NAME/partition
// exists) the directory above it.
std::string DiskName(const std::string& name, const fs::path& root) {
  if (Exists(root / "block" / name)) return name;
  const fs::path entry = root / "class" / "block" / name;
  if (!Exists(entry / "partition")) return name;
  std::error_code ec;
  const fs::path real = fs::canonical(entry, ec);
  return ec ? name : real.parent_path().filename().string();
}

// "nvme0" for "nvme0n1" (or "nvme0n1p2"); "" for other names.
std::string NvmeController(const std::string& disk) {
  if (disk.compare(0, 4, "nvme") != 0) return "";
  std::size_t end = 4;
  while (end < disk.size() && disk[end] >= '0' && disk[end] <= '9') ++end;
  return end > 4 && end < disk.size() && disk[end] == 'n' ? disk.substr(0, end) : "";
}

}  // namespace

std::optional<double> ReadDriveTemperatureC(const std::string& block_name,
                                            const std::string& sys_root) {
  if (block_name.empty() || block_name.find('/') != std::string::npos) return std::nullopt;
  const fs::path root(sys_root);
  const std::string disk = DiskName(block_name, root);
  const fs::path device = root / "block" / disk / "device";

  if (const auto t = FromHwmonDirs(device / "hwmon")) return t;
  if (const auto t = FromHwmonDirs(device)) return t;
  if (const auto t = FromHwmonDirs(device / "device" / "hwmon")) return t;
  for (const fs::path& controller : EntriesStartingWith(device, "nvme")) {
    if (const auto t = FromHwmonDirs(controller)) return t;
  }
  const std::string controller = NvmeController(disk);
  if (!controller.empty()) return FromHwmonDirs(root / "class" / "nvme" / controller);
  return std::nullopt;
}

}  // namespace zcav
