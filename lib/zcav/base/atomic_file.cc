#include "zcav/base/atomic_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "zcav/base/error.h"

namespace zcav {
AtomicFile::AtomicFile(const std::string& target, const std::vector<std::string>& inputs)
    : target_(target), temp_(target + ".tmp." + std::to_string(getpid())) {
  struct stat out_st {};
  const bool exists = ::stat(target_.c_str(), &out_st) == 0;
  if (exists && S_ISDIR(out_st.st_mode)) {
    throw Error("output " + target_ + " is a directory", ErrorKind::kBadInput);
  }
  for (const std::string& input : inputs) {
    struct stat in_st {};
    if (exists && ::stat(input.c_str(), &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
        in_st.st_ino == out_st.st_ino) {
      throw Error("output " + target_ + " is also an input (" + input + "): choose another file",
                  ErrorKind::kBadInput);
    }
  }
  direct_ = exists && !S_ISREG(out_st.st_mode);
  const std::string& path = direct_ ? target_ : temp_;
  errno = 0;
  stream_.open(path, std::ios::out | std::ios::trunc | std::ios::binary);
  if (!stream_) {
    const int e = errno;
    throw Error("cannot write " + target_ + ": " + std::strerror(e), KindOfPathError(e));
  }
}

AtomicFile::~AtomicFile() {
  if (!committed_ && !direct_) {
    stream_.close();
    std::remove(temp_.c_str());
  }
}

void AtomicFile::Commit(bool partial) {
  errno = 0;
  stream_.close();
  if (!stream_) {
    if (error_number_ == 0) error_number_ = errno;  // 0 when an earlier write failed unseen
    if (!direct_) std::remove(temp_.c_str());
    committed_ = true;  // nothing left to remove
    throw Error("writing " + target_ + " failed" +
                    (error_number_ != 0 ? std::string(": ") + std::strerror(error_number_) : ""),
                ErrorKind::kRuntime);
  }
  final_ = direct_ || !partial ? target_ : target_ + ".partial";
  if (!direct_ && std::rename(temp_.c_str(), final_.c_str()) != 0) {
    const int e = errno;
    error_number_ = e;
    std::remove(temp_.c_str());
    committed_ = true;
    throw Error("rename " + temp_ + " to " + final_ + ": " + std::strerror(e), ErrorKind::kRuntime);
  }
  committed_ = true;
}

void AtomicFile::Put(const std::string& text) {
  errno = 0;
  stream_.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!stream_ && error_number_ == 0) error_number_ = errno;
}

std::string AtomicFile::CutAt(std::uint64_t size) {
  assert(seekable());
  stream_.close();
  const auto fail = [&](const std::string& what) {
    throw Error(what + " " + temp_ + ": " + std::strerror(errno), ErrorKind::kRuntime);
  };
  if (!stream_) fail("writing");
  std::string tail;
  {
    std::ifstream in(temp_, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(size));
    std::ostringstream text;
    if (in && in.peek() != std::ifstream::traits_type::eof()) text << in.rdbuf();
    if (!in && !in.eof()) fail("reading back");
    tail = text.str();
  }
  if (::truncate(temp_.c_str(), static_cast<off_t>(size)) != 0) fail("cutting");
  stream_.open(temp_, std::ios::in | std::ios::out | std::ios::binary);
  stream_.seekp(0, std::ios::end);
  if (!stream_) fail("reopening");
  return tail;
}

void WriteFileAtomically(const std::string& path, const std::string& text,
                         const std::vector<std::string>& inputs) {
  AtomicFile file(path, inputs);
  file.Put(text);
  file.Commit();
}

}  // namespace zcav
