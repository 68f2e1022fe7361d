// The output's space: a check before a sweep that its results fit on the
// output's file system, and what is done when writing them fails anyway
// (the disk filled up meanwhile, an I/O error, /dev/full): the measured
// data is written again, from memory, somewhere else, and the run ends with
// kExitKeptElsewhere.
// Private to the zcav executable (not part of the library).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "zcav/base/atomic_file.h"
#include "zcav/format/writers.h"
#include "zcav/pipeline/result_recorder.h"

namespace zcav {

// Exit code: the results could not be written where asked (no space, an
// I/O error); the measured data was kept elsewhere, or, when even that
// failed, nowhere (the message says which). Wins over 1, 3 and 130: the
// data not being where the user looks for it is what they must act on.
inline constexpr int kExitKeptElsewhere = 4;

// Throws Error(kBadInput) when the file system `output` goes to has less
// than `needed_bytes` free for an unprivileged user (statvfs f_bavail x
// f_frsize): the one line gives the estimate and the free space in MB
// (10^6 B) and what to do. The file system is that of `output` when it is
// an existing directory (a profile's DIR), else of the directory it would
// be created in. Nothing is checked for "-" (stdout), for an output that
// exists and is not a regular file or directory (/dev/null, a FIFO), or
// when statvfs fails (writing will say why). `what`: "the results",
// "the profile" (for the message).
void CheckOutputSpace(const std::string& output, std::uint64_t needed_bytes,
                      const std::string& what);

// Writes a whole result to `stream`; `seekable`: a regular file from its
// start. Throws Error(kRuntime) when the writing fails.
using ResultWrite = std::function<void(std::ostream& stream, bool seekable)>;

// Keeps a result that could not be written to `output`: writes it with
// `write` into a new file named zcav-kept-XXXXXX-NAME (NAME: the output's
// file name, `suffix` appended) in $TMPDIR, else /tmp, then in /tmp; as a
// last resort onto `out` (stdout) unless `out_failed` (stdout is where the
// failure was). Returns where it went ("stdout" for `out`), or "" when
// every place failed (nothing is left behind then).
std::string KeepElsewhere(const std::string& output, const std::string& suffix,
                          const ResultWrite& write, std::ostream& out, bool out_failed);

// Says on `err`, in one line, that writing `output` failed for `reason`
// (e.g. "No space left on device") and where the data is kept (`kept`, ""
// for nowhere); returns kExitKeptElsewhere.
int SayKept(const std::string& output, const std::string& reason, const std::string& kept,
            std::ostream& err);

// The text of `error_number` (strerror), or `fallback` when it is 0.
std::string FailureReason(int error_number, const std::string& fallback);

// Where a result went: the file asked for (or OUT.partial), "stdout", or,
// when writing it failed, where KeepElsewhere kept it ("" for nowhere).
struct ResultPlace {
  std::string where;
  bool failed = false;  // not written where asked
  std::string reason;   // why, e.g. "No space left on device"
};

// Commits `file` (null: the result went to stdout) as partial or not; when
// writing it failed (`guard`, or the commit), drops the file and writes the
// result again, in `format`, from `recorder` with KeepElsewhere (`output`
// names it; `out` is stdout, the last resort unless it is what failed).
ResultPlace FinishResult(const std::string& output, OutputFormat format,
                         std::unique_ptr<AtomicFile>& file, const WriteGuard& guard,
                         const ResultRecorder& recorder, bool partial, std::ostream& out);

}  // namespace zcav
