#include "zcav/device/posix/read_throttle.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace zcav {
namespace {

// The cgroup directories from `path` (relative to a hierarchy's root) up to
// the root itself: "/a/b" -> "/a/b", "/a", "".
std::vector<std::string> SelfAndAncestors(std::string path) {
  std::vector<std::string> dirs;
  while (!path.empty() && path != "/") {
    dirs.push_back(path);
    const auto slash = path.rfind('/');
    path = slash == std::string::npos ? "" : path.substr(0, slash);
  }
  dirs.emplace_back("");
  return dirs;
}

// The first line of `file` that starts with "MAJ:MIN " and passes `limited`.
template <typename Pred>
std::string MatchingLine(const std::string& file, const std::string& device, Pred limited) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(device + " ", 0) == 0 && limited(line.substr(device.size() + 1))) {
      return file + ": " + line;
    }
  }
  return "";
}

}  // namespace

std::string FindReadThrottle(unsigned major, unsigned minor, const std::string& proc_self_cgroup,
                             const std::string& cgroup_root) {
  const std::string device = std::to_string(major) + ":" + std::to_string(minor);
  std::ifstream in(proc_self_cgroup);
  std::string line;
  while (std::getline(in, line)) {
    // "ID:CONTROLLERS:PATH"; v2 is "0::PATH".
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    std::stringstream names(controllers);
    std::string name;
    bool blkio = false;
    while (std::getline(names, name, ',')) blkio = blkio || name == "blkio";
    for (const std::string& dir : SelfAndAncestors(path)) {
      std::string found;
      if (blkio) {
        const auto positive = [](const std::string& value) {
          return value.find_first_not_of("0 \t") != std::string::npos;
        };
        const std::string base = cgroup_root + "/blkio" + dir + "/blkio.throttle.";
        found = MatchingLine(base + "read_bps_device", device, positive);
        if (found.empty()) found = MatchingLine(base + "read_iops_device", device, positive);
      } else if (controllers.empty()) {
        // v2 io.max: "MAJ:MIN rbps=N wbps=max riops=max wiops=max".
        const auto read_limited = [](const std::string& value) {
          std::stringstream fields(value);
          std::string field;
          while (fields >> field) {
            if ((field.rfind("rbps=", 0) == 0 || field.rfind("riops=", 0) == 0) &&
                field.substr(field.find('=') + 1) != "max") {
              return true;
            }
          }
          return false;
        };
        // Pure v2 mounts at the root, a hybrid system under "unified".
        found = MatchingLine(cgroup_root + dir + "/io.max", device, read_limited);
        if (found.empty()) {
          found = MatchingLine(cgroup_root + "/unified" + dir + "/io.max", device, read_limited);
        }
      }
      if (!found.empty()) return found;
    }
  }
  return "";
}

}  // namespace zcav
