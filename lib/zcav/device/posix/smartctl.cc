#include "zcav/device/posix/smartctl.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "zcav/base/text.h"

extern char** environ;

namespace zcav {
namespace {

using Clock = std::chrono::steady_clock;

std::string ErrnoText(int error_number) {
  return std::error_code(error_number, std::generic_category()).message();
}

// Closes a file descriptor when it goes out of scope.
class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  ~FdCloser() { Close(); }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

// posix_spawn's file actions and attributes, destroyed on scope exit.
class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions_);
    posix_spawnattr_init(&attributes_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  ~SpawnSetup() {
    posix_spawnattr_destroy(&attributes_);
    posix_spawn_file_actions_destroy(&actions_);
  }
  posix_spawn_file_actions_t* actions() { return &actions_; }
  posix_spawnattr_t* attributes() { return &attributes_; }

 private:
  posix_spawn_file_actions_t actions_;
  posix_spawnattr_t attributes_;
};

// Starts `exe` with `args` (args[0] included), stdin and stderr on
// /dev/null, stdout into `stdout_fd`. The child gets an empty signal mask
// and SIGPIPE, SIGINT and SIGTERM at their defaults, whatever the caller
// blocks or ignores. Returns 0 or an errno value.
int Spawn(const std::string& exe, const std::vector<std::string>& args, int stdout_fd, pid_t& pid) {
  SpawnSetup setup;
  posix_spawn_file_actions_addopen(setup.actions(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(setup.actions(), stdout_fd, STDOUT_FILENO);
  posix_spawn_file_actions_addopen(setup.actions(), STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(setup.attributes(), &empty);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(setup.attributes(), &defaults);
  posix_spawnattr_setflags(setup.attributes(), POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  return posix_spawn(&pid, exe.c_str(), setup.actions(), setup.attributes(), argv.data(), environ);
}

// Reads `fd` to end of file or `deadline` into `out` (at most
// kMaxStdoutBytes kept). Returns false when the deadline passed first.
bool ReadUntil(int fd, Clock::time_point deadline, std::string& out) {
  char buffer[64 * 1024];
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    const int ready = ::poll(
        &p, 1, static_cast<int>(std::min<std::chrono::milliseconds::rep>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) return true;  // cannot wait: take what we have
    if (ready <= 0) continue;
    const ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return true;
    }
    if (got == 0) return true;
    const std::size_t keep = std::min(static_cast<std::size_t>(got),
                                      kMaxStdoutBytes - std::min(kMaxStdoutBytes, out.size()));
    out.append(buffer, keep);
  }
}

enum class Waited { kExited, kTimedOut, kLost };

// Waits for `pid` to exit until `deadline` and fills its wait `status`.
// kLost: waitpid cannot wait for it (the caller ignores SIGCHLD, so the
// kernel reaps children itself).
Waited WaitUntil(pid_t pid, Clock::time_point deadline, int& status) {
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) return Waited::kExited;
    if (done < 0 && errno != EINTR) return Waited::kLost;
    if (Clock::now() >= deadline) return Waited::kTimedOut;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void KillAndReap(pid_t pid) {
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

std::string Seconds(std::chrono::milliseconds d) {
  if (d.count() % 1000 == 0) return std::to_string(d.count() / 1000) + " s";
  return std::to_string(d.count()) + " ms";
}

}  // namespace

std::string FindOnPath(const std::string& name, const std::string& path_variable,
                       bool absolute_only) {
  for (const std::string_view entry : SplitAt(path_variable, ':')) {
    // Root does not search the current directory or one relative to it:
    // whoever owns it would choose the program root runs.
    if (absolute_only && (entry.empty() || entry.front() != '/')) continue;
    const std::string dir = entry.empty() ? "." : std::string(entry);
    const std::string candidate = dir + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

SmartctlRun RunSmartctl(const std::string& device_path, std::chrono::milliseconds timeout) {
  SmartctlRun run;
  const char* path_variable = std::getenv("PATH");
  const std::string exe =
      FindOnPath("smartctl", path_variable == nullptr ? kDefaultPath : path_variable,
                 /*absolute_only=*/::geteuid() == 0);
  if (exe.empty()) {
    run.error = "smartctl not found on PATH";
    return run;
  }
  run.found = true;
  const std::string what = "smartctl (" + exe + ")";

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    run.error = "cannot run " + what + ": pipe: " + ErrnoText(errno);
    return run;
  }
  FdCloser read_end(fds[0]);
  FdCloser write_end(fds[1]);
  const auto deadline = Clock::now() + timeout;
  pid_t pid = 0;
  const int spawn_error = Spawn(exe, {"smartctl", "--json=c", "-a", device_path}, fds[1], pid);
  write_end.Close();  // the child holds its own copy: EOF comes when it exits
  if (spawn_error != 0) {
    run.error = "cannot run " + what + ": " + ErrnoText(spawn_error);
    return run;
  }

  int status = 0;
  const bool read_all = ReadUntil(fds[0], deadline, run.stdout_text);
  const Waited waited = read_all ? WaitUntil(pid, deadline, status) : Waited::kTimedOut;
  if (waited == Waited::kTimedOut) {
    KillAndReap(pid);
    run.error = what + " timed out after " + Seconds(timeout) + " and was killed";
    return run;
  }
  if (waited == Waited::kLost) {
    run.error = what + ": its exit status is lost (SIGCHLD ignored)";
    return run;
  }
  if (WIFEXITED(status)) {
    run.exit_status = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    run.error = what + " killed by signal " + std::to_string(WTERMSIG(status));
  } else {
    run.error = what + " ended without an exit status";
  }
  return run;
}

}  // namespace zcav
