#include "zcav/device/posix/write_safety.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "zcav/base/text.h"

namespace zcav {
namespace {

namespace fs = std::filesystem;

std::string ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The kernel escapes space, tab, newline and backslash in mountinfo and
// /proc/swaps as \ooo (octal).
std::string Unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() &&
        std::all_of(s.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                    s.begin() + static_cast<std::ptrdiff_t>(i) + 4,
                    [](char c) { return c >= '0' && c <= '7'; })) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "8:1" -> {8, 1}.
std::optional<BlockId> ParseId(const std::string& text) {
  unsigned major = 0, minor = 0;
  char colon = 0;
  std::istringstream in(text);
  if (!(in >> major >> colon >> minor) || colon != ':') return std::nullopt;
  return BlockId{major, minor};
}

// The device a path names when it is a block device node.
std::optional<BlockId> BlockIdOf(const std::string& path) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return std::nullopt;
  return BlockId{major(st.st_rdev), minor(st.st_rdev)};
}

BlockNode ReadNode(const fs::path& dir) {
  BlockNode node;
  node.name = dir.filename().string();
  if (const auto id = ParseId(std::string(Trim(ReadWhole(dir / "dev"))))) node.id = *id;
  std::error_code ec;
  for (fs::directory_iterator it(dir / "holders", ec), end; !ec && it != end; it.increment(ec)) {
    node.holders.push_back(it->path().filename().string());
  }
  std::sort(node.holders.begin(), node.holders.end());
  return node;
}

bool IsNumber(const std::string& s) {
  return !s.empty() && s.size() <= 9 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The access mode of descriptor `fd_dir`/NAME from proc's fdinfo ("flags:
// 0100002", octal): true when it can write. False when unreadable.
bool FdWritable(const fs::path& pid_dir, const std::string& fd_name) {
  std::istringstream in(ReadWhole(pid_dir / "fdinfo" / fd_name));
  for (std::string key; in >> key;) {
    if (key == "flags:") {
      unsigned long flags = 0;
      in >> std::oct >> flags;
      return (flags & O_ACCMODE) != O_RDONLY;
    }
  }
  return false;
}

// The family member that the descriptor `link` (a /proc/PID/fd entry) has
// open, as its index in `family`; -1 for anything else.
int FamilyIndexOf(const fs::path& link, const std::vector<BlockNode>& family) {
  std::error_code ec;
  const fs::path target = fs::read_symlink(link, ec);
  // Sockets, pipes and anonymous inodes ("socket:[123]") are not files.
  if (ec || target.empty() || target.string().front() != '/') return -1;
  struct statx stx {};
  if (::statx(AT_FDCWD, link.c_str(), AT_STATX_DONT_SYNC, STATX_TYPE, &stx) != 0 ||
      !S_ISBLK(stx.stx_mode)) {
    return -1;
  }
  const BlockId id{stx.stx_rdev_major, stx.stx_rdev_minor};
  for (std::size_t i = 0; i < family.size(); ++i) {
    if (family[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::vector<MountEntry> ParseMountinfo(const std::string& text) {
  std::vector<MountEntry> mounts;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::vector<std::string> fields;
    for (std::string f; in >> f;) fields.push_back(f);
    // id parent MAJ:MIN root mount_point options [optional...] - type source super_options
    const auto dash = std::find(fields.begin(), fields.end(), "-");
    if (fields.size() < 6 || dash == fields.end() || fields.end() - dash < 3 ||
        dash - fields.begin() < 6) {
      continue;
    }
    const auto id = ParseId(fields[2]);
    if (!id) continue;
    mounts.push_back({*id, Unescape(fields[4]), Unescape(*(dash + 2)), std::nullopt});
  }
  return mounts;
}

std::vector<SwapEntry> ParseSwaps(const std::string& text) {
  std::vector<SwapEntry> swaps;
  std::istringstream lines(text);
  std::string line;
  bool header = true;
  while (std::getline(lines, line)) {
    if (header) {  // "Filename Type Size Used Priority"
      header = false;
      continue;
    }
    std::istringstream in(line);
    std::string name;
    if (in >> name) swaps.push_back({Unescape(name), std::nullopt});
  }
  return swaps;
}

std::vector<BlockNode> ReadBlockFamily(BlockId id, const std::string& sysfs_root) {
  std::vector<BlockNode> family;
  std::error_code ec;
  const fs::path dir =
      fs::canonical(fs::path(sysfs_root) / "dev" / "block" /
                        (std::to_string(id.major) + ":" + std::to_string(id.minor)),
                    ec);
  if (ec) return family;
  family.push_back(ReadNode(dir));
  family.front().id = id;
  std::vector<BlockNode> partitions;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (it->is_directory(e2) && !it->is_symlink(e2) && fs::exists(it->path() / "partition", e2)) {
      partitions.push_back(ReadNode(it->path()));
    }
  }
  std::sort(partitions.begin(), partitions.end(),
            [](const BlockNode& a, const BlockNode& b) { return a.name < b.name; });
  family.insert(family.end(), partitions.begin(), partitions.end());
  return family;
}

std::optional<std::string> WriteRefusal(const WriteFacts& facts) {
  std::vector<BlockNode> family = facts.family;
  if (family.empty()) family.push_back({fs::path(facts.path).filename().string(), facts.id, {}});
  const std::string head = "refusing to write " + facts.path + ": ";
  for (std::size_t i = 0; i < family.size(); ++i) {
    const BlockNode& node = family[i];
    // The device itself, or "partition sda1".
    const std::string what = i == 0 ? "" : "its partition " + node.name + " is ";
    std::vector<std::string> points;
    for (const MountEntry& m : facts.mounts) {
      if (m.id == node.id || (m.source_id && *m.source_id == node.id))
        points.push_back(m.mount_point);
    }
    if (!points.empty()) {
      std::string where = points.front();
      if (points.size() > 1) where += " (and " + std::to_string(points.size() - 1) + " more)";
      return head + what + "mounted at " + where + " (unmount it first; nothing written)";
    }
    for (const SwapEntry& s : facts.swaps) {
      if ((s.id && *s.id == node.id) || s.path == "/dev/" + node.name) {
        return head + what + "in use as swap (swapoff " + s.path + " first; nothing written)";
      }
    }
    if (!node.holders.empty()) {
      return head + what + "held by " + Join(node.holders) +
             " (a device-mapper, LVM, dm-crypt or md RAID device is built on it: remove that "
             "first; nothing written)";
    }
  }
  return std::nullopt;
}

WriteFacts GatherWriteFacts(const std::string& path, BlockId id, const std::string& proc_root,
                            const std::string& sysfs_root) {
  WriteFacts facts;
  facts.path = path;
  facts.id = id;
  facts.family = ReadBlockFamily(id, sysfs_root);
  facts.mounts = ParseMountinfo(ReadWhole(fs::path(proc_root) / "self" / "mountinfo"));
  for (MountEntry& m : facts.mounts) {
    if (m.source.rfind("/dev/", 0) == 0) m.source_id = BlockIdOf(m.source);
  }
  facts.swaps = ParseSwaps(ReadWhole(fs::path(proc_root) / "swaps"));
  for (SwapEntry& s : facts.swaps) s.id = BlockIdOf(s.path);
  return facts;
}

OpenerScan ScanOpeners(const std::vector<BlockNode>& family, const std::string& proc_root) {
  OpenerScan scan;
  const std::string self = std::to_string(::getpid());
  std::vector<fs::path> pids;
  std::error_code ec;
  for (fs::directory_iterator it(proc_root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string pid = it->path().filename().string();
    if (IsNumber(pid) && pid != self) pids.push_back(it->path());
  }
  std::sort(pids.begin(), pids.end(), [](const fs::path& a, const fs::path& b) {
    return std::stoll(a.filename().string()) < std::stoll(b.filename().string());
  });
  for (const fs::path& pid_dir : pids) {
    std::error_code e2;
    fs::directory_iterator fd(pid_dir / "fd", e2);
    if (e2) {
      // ENOENT: the process ended meanwhile. Anything else: not ours to read.
      if (e2 != std::errc::no_such_file_or_directory) ++scan.unchecked;
      continue;
    }
    // Per family member: -1 not open, 0 read-only, 1 writable.
    std::vector<int> mode(family.size(), -1);
    for (fs::directory_iterator end; !e2 && fd != end; fd.increment(e2)) {
      const int at = FamilyIndexOf(fd->path(), family);
      if (at < 0) continue;
      const bool w = FdWritable(pid_dir, fd->path().filename().string());
      mode[static_cast<std::size_t>(at)] = std::max(mode[static_cast<std::size_t>(at)], w ? 1 : 0);
    }
    for (std::size_t i = 0; i < family.size(); ++i) {
      if (mode[i] < 0) continue;
      std::string comm = CleanText(Trim(ReadWhole(pid_dir / "comm")), kMaxIdentityBytes);
      scan.openers.push_back({static_cast<int>(std::stoll(pid_dir.filename().string())),
                              comm.empty() ? "?" : comm, i == 0 ? "" : family[i].name,
                              mode[i] == 1});
    }
  }
  return scan;
}

std::vector<std::string> ProcessesUsing(BlockId id, const std::string& proc_root) {
  std::vector<std::string> found;
  const std::string self = std::to_string(::getpid());
  std::error_code ec;
  for (fs::directory_iterator it(proc_root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string pid = it->path().filename().string();
    if (pid.empty() || pid == self ||
        !std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    std::error_code e2;
    for (fs::directory_iterator fd(it->path() / "fd", e2), fd_end; !e2 && fd != fd_end;
         fd.increment(e2)) {
      // Only links into /dev are stat()ed: stat() through a link into a hung
      // FUSE file system would hang.
      const fs::path target = fs::read_symlink(fd->path(), e2);
      if (e2) {
        e2.clear();
        continue;
      }
      if (target.string().rfind("/dev/", 0) == 0 &&
          BlockIdOf(target.string()) == std::optional<BlockId>(id)) {
        found.push_back(std::string(Trim(ReadWhole(it->path() / "comm"))) + " (pid " + pid + ")");
        break;
      }
    }
  }
  return found;
}

}  // namespace zcav
