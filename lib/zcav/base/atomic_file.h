// AtomicFile: a result file that is never seen half-written. It is written
// under a temporary name beside its target (TARGET.tmp.PID) and renamed into
// place at the end; if the run fails before that, the temporary is removed.
// Every file zcav writes goes through it: the CLI's results, the plots'
// scripts and data, the reports.
#pragma once

#include <cstdint>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

namespace zcav {

class AtomicFile {
 public:
  // Opens the temporary for writing. A target that exists and is not a
  // regular file (/dev/null, a FIFO, a terminal) is written directly:
  // renaming over a device node would replace it. Throws Error(kBadInput)
  // when the target is a directory, is one of `inputs` (the device being
  // read, the files analysed), or cannot be created for a reason of its path
  // (no such directory, permission, read-only file system); Error(kRuntime)
  // when the system fails (no space, I/O error, too many open files).
  explicit AtomicFile(const std::string& target, const std::vector<std::string>& inputs = {});
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  // Removes the temporary unless Commit() ran.
  ~AtomicFile();

  std::ostream& stream() { return stream_; }
  // Writes `text` to stream(); a failed write's errno is kept for
  // error_number() (stream() alone loses it). Throws nothing: Commit() says.
  void Put(const std::string& text);
  // True when the writer may seek back in the stream (a regular file).
  bool seekable() const { return !direct_; }
  // Closes and renames into place. Throws Error(kRuntime) if writing or the
  // rename failed (the temporary is then removed). With `partial` (an
  // interrupted or cut-short run) the result is renamed to TARGET.partial
  // instead, and TARGET is left as it was: a partial result keeps its own
  // clearly named file (zcav sweep --resume continues it).
  void Commit(bool partial = false);
  // The errno of the first failed write (Put) or of a failed Commit()
  // (ENOSPC, EIO, ...); 0 when nothing failed or the system did not say.
  int error_number() const { return error_number_; }
  // Where Commit() put the result.
  const std::string& final_path() const { return final_; }
  // Cuts what was written from byte `size` on and returns it; writing goes
  // on from there (a writer's closing part read back and replaced, without
  // holding the file in memory). REQUIRES: seekable(), size <= bytes
  // written. Throws Error(kRuntime) when the file cannot be read or cut.
  std::string CutAt(std::uint64_t size);

 private:
  std::string target_;
  std::string temp_;
  std::string final_;
  std::fstream stream_;
  bool direct_ = false;
  bool committed_ = false;
  int error_number_ = 0;
};

// Writes `text` whole to `path` through an AtomicFile. Throws Error as
// AtomicFile does.
void WriteFileAtomically(const std::string& path, const std::string& text,
                         const std::vector<std::string>& inputs = {});

}  // namespace zcav
