// AtomicFile: a result file that is never seen half-written. It is written
// under a temporary name beside its target and renamed into place at the
// end; if the run fails before that, the temporary is removed. Every file
// zcav writes goes through it: the CLI's results, the events, the plots'
// scripts and data, the reports.
//
// zcav runs as root and writes where it is told, often into shared
// directories, so the temporary is made safe to create there: a random,
// unguessable name (TARGET.tmp.XXXXXX, mkostemps: O_CREAT|O_EXCL, so never
// through a planted symlink or into someone's file), mode 0600 while it is
// written, and the file is only ever used through the descriptor that
// created it. Commit flushes, fsyncs, gives the file its final mode (an
// existing target's, owner included when run as root; else 0666 & ~umask)
// and renames it over the target, then fsyncs the directory.
//
// What an output may be (CheckOutputTarget): a regular file (or a new name),
// or a stream that stores nothing of zcav's: /dev/null, /dev/full (the
// "disk full" test), a FIFO, a terminal. Anything else - a block device, a
// character device (a tape, /dev/mem, a watchdog), a socket - or a symlink
// to one is refused by name: zcav would write its text over what is there.
#pragma once

#include <cstdint>
#include <iostream>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

namespace zcav {

// What an output's path names now (CheckOutputTarget).
enum class OutputTarget {
  kNew,      // nothing yet (or a dangling symlink): a file is created
  kRegular,  // a regular file (or a symlink to one): replaced by rename
  kStream,   // /dev/null, /dev/full, a FIFO or a terminal: written directly
};

// Says what `target` names and whether zcav may write there. Throws
// Error(kBadInput), naming `target`, when it is a directory; a block
// device, another character device or a socket, or a symlink to one
// ("refusing to write to /dev/loop0: a block device (an output must be a
// regular file, a FIFO, a terminal or /dev/null)"); or the same file as one
// of `inputs` (the device being read, the files analysed). Creates nothing.
OutputTarget CheckOutputTarget(const std::string& target,
                               const std::vector<std::string>& inputs = {});

class AtomicFile {
 public:
  // Checks `target` (CheckOutputTarget) and opens the temporary for
  // writing beside it, or the target itself when it is a stream (renaming
  // over /dev/null would replace it). Throws Error(kBadInput) as
  // CheckOutputTarget does, or when the file cannot be created for a reason
  // of its path (no such directory, permission, read-only file system);
  // Error(kRuntime) when the system fails (no space, I/O error, too many
  // open files).
  explicit AtomicFile(const std::string& target, const std::vector<std::string>& inputs = {});
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  // Removes the temporary unless Commit() or PlaceNow() ran.
  ~AtomicFile();

  std::ostream& stream() { return stream_; }
  // Writes `text` to stream(); a failed write's errno is kept for
  // error_number() (stream() alone loses it). Throws nothing: Commit() says.
  void Put(const std::string& text);
  // True when the writer may seek back in the stream (a regular file).
  bool seekable() const { return !direct_; }
  // Flushes, fsyncs, closes and renames into place (a stream target is
  // flushed and closed). Throws Error(kRuntime) if writing, the fsync or the
  // rename failed (the temporary is then removed). With `partial` (an
  // interrupted or cut-short run) the result is renamed to TARGET.partial
  // instead, and TARGET is left as it was: a partial result keeps its own
  // clearly named file (zcav sweep --resume continues it). After PlaceNow()
  // it flushes, fsyncs and closes only (`partial` is ignored).
  void Commit(bool partial = false);
  // Renames the (empty or partly written) temporary over the target at once
  // and goes on writing into it: a log read while it grows that must leave
  // every line written when the run is killed (--events). Nothing for a
  // stream target. Throws Error(kRuntime) if the rename failed.
  // REQUIRES: not committed.
  void PlaceNow();
  // The errno of the first failed write (Put) or of a failed Commit()
  // (ENOSPC, EIO, ...); 0 when nothing failed or the system did not say.
  int error_number() const { return error_number_; }
  // Where Commit() put the result.
  const std::string& final_path() const { return final_; }

 private:
  // Gives the temporary its final owner and mode. Throws Error(kRuntime).
  void SetFinalMode();
  // Closes the descriptor (after a flush); false when the flush failed.
  bool Close();

  std::string target_;
  std::string temp_;
  std::string final_;
  std::unique_ptr<std::streambuf> buffer_;  // owns the descriptor
  std::iostream stream_{nullptr};
  int fd_ = -1;  // the descriptor buffer_ writes, -1 once closed
  bool direct_ = false;
  bool placed_ = false;     // PlaceNow ran: the temporary is the target
  bool committed_ = false;  // nothing left to remove
  // The final mode and owner: an existing regular target's, else new.
  bool keep_owner_ = false;
  unsigned mode_ = 0;
  unsigned uid_ = 0;
  unsigned gid_ = 0;
  int error_number_ = 0;
};

// Writes `text` whole to `path` through an AtomicFile. Throws Error as
// AtomicFile does.
void WriteFileAtomically(const std::string& path, const std::string& text,
                         const std::vector<std::string>& inputs = {});

}  // namespace zcav
