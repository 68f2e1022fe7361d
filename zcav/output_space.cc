#include "output_space.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/base/units.h"

namespace zcav {

namespace {

// "12.3 MB", "0.26 MB": MB = 10^6 B.
std::string Megabytes(std::uint64_t bytes) {
  const double mb = static_cast<double>(bytes) / kMB;
  return FormatFixed(mb, mb < 10 ? 2 : 1) + " MB";
}

// The directory a new file `path` is created in.
std::string ParentOf(const std::string& path) {
  const std::string parent = std::filesystem::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

// Writes a result into a new file in `dir`; its path, or "" on failure
// (the file is then removed).
std::string KeepIn(const std::string& dir, const std::string& name, const ResultWrite& write) {
  std::string path = dir + "/zcav-kept-XXXXXX-" + name;
  std::vector<char> buffer(path.begin(), path.end());
  buffer.push_back('\0');
  const int fd = ::mkstemps(buffer.data(), static_cast<int>(name.size() + 1));
  if (fd < 0) return "";
  ::close(fd);
  path = buffer.data();
  try {
    std::ofstream file(path, std::ios::out | std::ios::trunc | std::ios::binary);
    if (!file) throw Error("cannot open " + path, ErrorKind::kRuntime);
    write(file, true);
    file.close();
    if (!file) throw Error("writing " + path + " failed", ErrorKind::kRuntime);
    return path;
  } catch (const Error&) {
    std::remove(path.c_str());
    return "";
  }
}

}  // namespace

void CheckOutputSpace(const std::string& output, std::uint64_t needed_bytes,
                      const std::string& what) {
  if (output == "-") return;
  std::string dir;
  struct stat st {};
  if (::stat(output.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      dir = output;
    } else if (!S_ISREG(st.st_mode)) {
      return;  // a device node or a FIFO: nothing is stored there
    }
  }
  if (dir.empty()) dir = ParentOf(output);
  struct statvfs fs {};
  if (::statvfs(dir.c_str(), &fs) != 0) return;
  const std::uint64_t free_bytes =
      static_cast<std::uint64_t>(fs.f_bavail) * static_cast<std::uint64_t>(fs.f_frsize);
  if (needed_bytes <= free_bytes) return;
  throw Error("not enough space for " + output + ": " + what + " need about " +
                  Megabytes(needed_bytes) + " and the file system of " + dir + " has " +
                  Megabytes(free_bytes) +
                  " free (MB = 10^6 B); free some space or choose an output on another file "
                  "system (nothing read, nothing written)",
              ErrorKind::kBadInput);
}

std::string KeepElsewhere(const std::string& output, const std::string& suffix,
                          const ResultWrite& write, std::ostream& out, bool out_failed) {
  std::string name = std::filesystem::path(output).filename().string();
  if (name.empty() || name == "-") name = "stdout";
  name += suffix;
  std::vector<std::string> dirs;
  const char* tmpdir = std::getenv("TMPDIR");
  if (tmpdir != nullptr && *tmpdir != '\0') dirs.emplace_back(tmpdir);
  if (dirs.empty() || dirs.front() != "/tmp") dirs.emplace_back("/tmp");
  for (const std::string& dir : dirs) {
    const std::string kept = KeepIn(dir, name, write);
    if (!kept.empty()) return kept;
  }
  if (out_failed) return "";
  try {
    write(out, false);
    out.flush();
    return out ? "stdout" : "";
  } catch (const Error&) {
    return "";
  }
}

int SayKept(const std::string& output, const std::string& reason, const std::string& kept,
            std::ostream& err) {
  err << "zcav: writing " << output << " failed: " << reason;
  if (kept.empty()) {
    err << "; nothing could be kept ($TMPDIR, /tmp and stdout failed too): the measured data is "
           "lost\n";
  } else {
    err << "; the measured data is kept in " << kept << "\n";
  }
  return kExitKeptElsewhere;
}

std::string FailureReason(int error_number, const std::string& fallback) {
  return error_number != 0 ? std::strerror(error_number) : fallback;
}

ResultPlace FinishResult(const std::string& output, OutputFormat format,
                         std::unique_ptr<AtomicFile>& file, const WriteGuard& guard,
                         const ResultRecorder& recorder, bool partial, std::ostream& out) {
  if (!guard.failed() && !file) return {"stdout", false, ""};
  ResultPlace place{"", true, ""};
  if (guard.failed()) {
    place.reason = FailureReason(guard.error_number(), guard.message());
  } else {
    try {
      file->Commit(partial);
      return {file->final_path(), false, ""};
    } catch (const Error& e) {
      place.reason = FailureReason(file->error_number(), e.what());
    }
  }
  const bool stdout_failed = file == nullptr;
  file.reset();  // its temporary's space is free again
  const ResultWrite write = [&](std::ostream& stream, bool seekable) {
    recorder.WriteAs(format, stream, seekable);
  };
  place.where = KeepElsewhere(output, partial ? ".partial" : "", write, out, stdout_failed);
  return place;
}

}  // namespace zcav
