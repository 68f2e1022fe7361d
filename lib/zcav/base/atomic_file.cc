#include "zcav/base/atomic_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <array>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ext/stdio_filebuf.h>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "zcav/base/error.h"

namespace zcav {

namespace {

namespace fs = std::filesystem;
using FdBuffer = __gnu_cxx::stdio_filebuf<char>;

// The process's umask, read once (umask() would set it, racing other
// threads' file creation): /proc/self/status has it since Linux 4.7.
mode_t Umask() {
  static const mode_t mask = [] {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
      if (line.rfind("Umask:", 0) == 0) {
        return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8) & 0777);
      }
    }
    const mode_t old = ::umask(022);
    ::umask(old);
    return old;
  }();
  return mask;
}

// A terminal: a pseudo-terminal (/dev/pts/N, majors 136-143, not in sysfs)
// or a character device of the kernel's tty class (consoles, serial lines,
// /dev/tty).
bool IsTerminal(dev_t rdev) {
  const unsigned maj = major(rdev);
  if (maj >= 136 && maj <= 143) return true;
  const std::string link =
      "/sys/dev/char/" + std::to_string(maj) + ":" + std::to_string(minor(rdev)) + "/subsystem";
  std::array<char, 256> target{};
  const ssize_t n = ::readlink(link.c_str(), target.data(), target.size() - 1);
  if (n <= 0) return false;
  const std::string_view name(target.data(), static_cast<std::size_t>(n));
  return name.size() >= 4 && name.substr(name.size() - 4) == "/tty";
}

// What `st` is when zcav must not write there ("a block device"), or
// nullptr when it may: a regular file, /dev/null, /dev/full (writes fail
// with ENOSPC: the disk-full path), a FIFO, a terminal.
const char* Refusal(const struct stat& st) {
  if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) return nullptr;
  if (S_ISDIR(st.st_mode)) return "a directory";
  if (S_ISBLK(st.st_mode)) return "a block device";
  if (S_ISSOCK(st.st_mode)) return "a socket";
  if (S_ISCHR(st.st_mode)) {
    const bool null_or_full =
        major(st.st_rdev) == 1 && (minor(st.st_rdev) == 3 || minor(st.st_rdev) == 7);
    return null_or_full || IsTerminal(st.st_rdev) ? nullptr : "a character device";
  }
  return "not a file";
}

[[noreturn]] void Refuse(const std::string& target, const std::string& what) {
  throw Error("refusing to write to " + target + ": " + what +
                  " (an output must be a regular file, a FIFO, a terminal or /dev/null)",
              ErrorKind::kBadInput);
}

// The directory a file `path` is in.
std::string DirectoryOf(const std::string& path) {
  const std::string parent = fs::path(path).parent_path().string();
  return parent.empty() ? "." : parent;
}

// Makes a rename in `dir` durable. Best effort: some file systems refuse
// to fsync a directory, and the rename has happened either way.
void SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

OutputTarget CheckOutputTarget(const std::string& target, const std::vector<std::string>& inputs) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return OutputTarget::kNew;  // written by rename
  if (S_ISDIR(st.st_mode)) {
    throw Error("output " + target + " is a directory", ErrorKind::kBadInput);
  }
  if (const char* what = Refusal(st)) {
    struct stat link {};
    if (::lstat(target.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
      std::error_code ec;
      const fs::path resolved = fs::canonical(target, ec);
      Refuse(target, "a symlink to " + (ec ? std::string("") : resolved.string() + ", ") + what);
    }
    Refuse(target, what);
  }
  for (const std::string& input : inputs) {
    struct stat in_st {};
    if (::stat(input.c_str(), &in_st) == 0 && in_st.st_dev == st.st_dev &&
        in_st.st_ino == st.st_ino) {
      throw Error("output " + target + " is also an input (" + input + "): choose another file",
                  ErrorKind::kBadInput);
    }
  }
  return S_ISREG(st.st_mode) ? OutputTarget::kRegular : OutputTarget::kStream;
}

AtomicFile::AtomicFile(const std::string& target, const std::vector<std::string>& inputs)
    : target_(target) {
  direct_ = CheckOutputTarget(target_, inputs) == OutputTarget::kStream;
  const auto cannot = [&](int e) {
    throw Error("cannot write " + target_ + ": " + std::strerror(e), KindOfPathError(e));
  };
  if (direct_) {
    // Opened by name (a FIFO waits for its reader here), then checked
    // again: the name may have changed hands since.
    fd_ = ::open(target_.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd_ < 0) cannot(errno);
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || S_ISREG(st.st_mode) || Refusal(st) != nullptr) {
      ::close(fd_);
      fd_ = -1;
      Refuse(target_, "it changed while being opened");
    }
  } else {
    struct stat st {};
    if (::lstat(target_.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      // An existing file keeps its mode; its owner too when root can give
      // it back. A symlink's target is not copied from: the link is
      // replaced by a new file.
      mode_ = st.st_mode & 0777;
      keep_owner_ = ::geteuid() == 0;
      uid_ = st.st_uid;
      gid_ = st.st_gid;
    } else {
      mode_ = 0666 & ~Umask();
    }
    std::string name = target_ + ".tmp.XXXXXX";
    fd_ = ::mkostemps(name.data(), 0, O_CLOEXEC | O_NOFOLLOW);  // 0600, O_CREAT | O_EXCL
    if (fd_ < 0) cannot(errno);
    temp_ = name;
  }
  const std::ios::openmode mode =
      direct_ ? std::ios::out | std::ios::binary : std::ios::in | std::ios::out | std::ios::binary;
  auto buffer = std::make_unique<FdBuffer>(fd_, mode);
  if (!buffer->is_open()) {
    const int e = errno;
    ::close(fd_);
    if (!direct_) std::remove(temp_.c_str());
    fd_ = -1;
    throw Error("cannot write " + target_ + ": " + std::strerror(e), ErrorKind::kRuntime);
  }
  buffer_ = std::move(buffer);
  stream_.rdbuf(buffer_.get());
}

AtomicFile::~AtomicFile() {
  if (!committed_ && !direct_ && !placed_) {
    Close();
    std::remove(temp_.c_str());
  }
}

bool AtomicFile::Close() {
  if (fd_ < 0) return true;
  fd_ = -1;
  return static_cast<FdBuffer*>(buffer_.get())->close() != nullptr;
}

void AtomicFile::SetFinalMode() {
  // Best effort: a file left 0600 (or ours) is only safer. fchown first, as
  // it clears the set-id bits that fchmod would give.
  if (keep_owner_) (void)::fchown(fd_, uid_, gid_);
  (void)::fchmod(fd_, mode_);
}

void AtomicFile::Commit(bool partial) {
  errno = 0;
  stream_.flush();
  int e = stream_ ? 0 : errno;
  if (stream_ && !direct_ && ::fsync(fd_) != 0) {
    e = errno;
    stream_.setstate(std::ios::badbit);
  }
  if (stream_ && !direct_ && !placed_) SetFinalMode();
  errno = 0;
  if (!Close() && stream_) {
    e = errno;
    stream_.setstate(std::ios::badbit);
  }
  const bool temporary = !direct_ && !placed_;
  if (!stream_) {
    if (error_number_ == 0) error_number_ = e;  // 0 when an earlier write failed unseen
    if (temporary) std::remove(temp_.c_str());
    committed_ = true;  // nothing left to remove
    throw Error("writing " + target_ + " failed" +
                    (error_number_ != 0 ? std::string(": ") + std::strerror(error_number_) : ""),
                ErrorKind::kRuntime);
  }
  final_ = !temporary || !partial ? target_ : target_ + ".partial";
  if (temporary) {
    if (std::rename(temp_.c_str(), final_.c_str()) != 0) {
      e = errno;
      error_number_ = e;
      std::remove(temp_.c_str());
      committed_ = true;
      throw Error("rename " + temp_ + " to " + final_ + ": " + std::strerror(e),
                  ErrorKind::kRuntime);
    }
    SyncDirectory(DirectoryOf(final_));
  }
  committed_ = true;
}

void AtomicFile::PlaceNow() {
  assert(!committed_);
  if (direct_ || placed_) return;
  SetFinalMode();
  if (std::rename(temp_.c_str(), target_.c_str()) != 0) {
    const int e = errno;
    throw Error("rename " + temp_ + " to " + target_ + ": " + std::strerror(e),
                ErrorKind::kRuntime);
  }
  placed_ = true;
  SyncDirectory(DirectoryOf(target_));
}

void AtomicFile::Put(const std::string& text) {
  errno = 0;
  stream_.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!stream_ && error_number_ == 0) error_number_ = errno;
}

void WriteFileAtomically(const std::string& path, const std::string& text,
                         const std::vector<std::string>& inputs) {
  AtomicFile file(path, inputs);
  file.Put(text);
  file.Commit();
}

}  // namespace zcav
