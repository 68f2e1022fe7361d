// Gnuplot: see gnuplot.h.
//
// Why each step of starting gnuplot is there:
// - fork/exec with an argv, no shell: no name or value is ever parsed by sh.
// - `-d`: gnuplot reads no ~/.gnuplot or system gnuplotrc (which `sudo -E`
//   would otherwise take from the invoking user's HOME).
// - a clean environment with a fixed PATH: gnuplot's `system()` and its
//   helpers (gnuplot_x11) are found in system directories only, and no
//   GNUPLOT_LIB, GNUPLOT_DRIVER_DIR or HOME steers it.
// - its own process group: Ctrl-C on the terminal reaches zcav, which stops
//   gnuplot and what gnuplot started together (kill of the group).
// - PR_SET_PDEATHSIG (set after the uid change, which clears it): a zcav
//   killed outright (SIGKILL) does not leave gnuplot running.
// - when root: the child runs as SUDO_UID/SUDO_GID or nobody, so even a
//   script that ran a command would not run it as root. Its private
//   directory is given to that user for the run and taken back before zcav
//   reads the images (so the user can no longer swap them for symlinks).
#include "zcav/report/gnuplot.h"

#include <fcntl.h>
#include <gnuplot-iostream.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <thread>
#include <utility>

#include "zcav/base/error.h"

namespace zcav {

namespace {

namespace fs = std::filesystem;

// Where gnuplot is looked for, and the PATH it gets.
constexpr const char* kPath = "/usr/local/bin:/usr/bin:/bin";
// An image gnuplot draws is read back whole up to this size (a 1000x600 PNG
// is some 100 KB, an SVG of 2000-point curves a few MB).
constexpr std::size_t kMaxImageBytes = std::size_t{256} << 20;
// A live frame (a dumb terminal's text) is at most this big.
constexpr std::size_t kMaxSessionFileBytes = std::size_t{4} << 20;
// gnuplot's output kept for an error message (its tail).
constexpr std::size_t kMaxCapturedBytes = 64 * 1024;
// The user a root zcav runs gnuplot as without SUDO_UID: nobody.
constexpr uid_t kNobody = 65534;

bool IsWhitespaceControl(unsigned char c) { return c == '\t' || (c >= '\n' && c <= '\r'); }
bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

// Control characters: whitespace ones become a space, the rest go.
std::string WithoutControls(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (IsWhitespaceControl(c)) {
      out += ' ';
    } else if (!IsControl(c)) {
      out += ch;
    }
  }
  return out;
}

bool InAlphabet(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

std::string SystemMessage(int error_number) {
  return std::generic_category().message(error_number);
}

// The uid and gid the child runs as; drop = false keeps zcav's own.
struct Identity {
  bool drop = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

// A decimal number from 1 to 2^31 - 2 (not 0: root; not -1 or 65535-style
// sentinels beyond 31 bits), else nullopt.
std::optional<unsigned long> PlainId(const char* text) {
  if (text == nullptr || *text == '\0' || std::strlen(text) > 10) return std::nullopt;
  unsigned long value = 0;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return std::nullopt;
    value = value * 10 + static_cast<unsigned long>(*p - '0');
  }
  if (value == 0 || value >= 0x7fffffffUL) return std::nullopt;
  return value;
}

Identity ChildIdentity() {
  Identity who;
  if (::geteuid() != 0) return who;
  who.drop = true;
  const std::optional<unsigned long> uid = PlainId(std::getenv("SUDO_UID"));
  const std::optional<unsigned long> gid = PlainId(std::getenv("SUDO_GID"));
  if (uid && gid) {
    who.uid = static_cast<uid_t>(*uid);
    who.gid = static_cast<gid_t>(*gid);
  } else {
    who.uid = kNobody;
    who.gid = static_cast<gid_t>(kNobody);
  }
  return who;
}

// A value safe to pass on: no control characters, printable, bounded.
bool PlainValue(const char* v, std::size_t max) {
  if (v == nullptr || *v == '\0' || std::strlen(v) > max) return false;
  for (const char* p = v; *p != '\0'; ++p) {
    if (IsControl(static_cast<unsigned char>(*p))) return false;
  }
  return true;
}

std::vector<std::string> ChildEnvironment(bool window) {
  std::vector<std::string> env = {std::string("PATH=") + kPath};
  for (const char* name : {"LANG", "LC_ALL", "LC_CTYPE"}) {
    const char* v = std::getenv(name);
    if (!PlainValue(v, 64)) continue;
    bool plain = true;
    for (const char* p = v; *p != '\0'; ++p) plain = plain && (InAlphabet(*p) || *p == '@');
    if (plain) env.push_back(std::string(name) + "=" + v);
  }
  if (window) {
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR"}) {
      const char* v = std::getenv(name);
      if (PlainValue(v, 4096)) env.push_back(std::string(name) + "=" + v);
    }
  }
  return env;
}

// The gnuplot executable in kPath's directories, "" when there is none.
std::string FindGnuplot() {
  for (const char* dir : {"/usr/local/bin", "/usr/bin", "/bin"}) {
    const std::string path = std::string(dir) + "/gnuplot";
    if (::access(path.c_str(), X_OK) == 0) return path;
  }
  return "";
}

void CloseFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// A directory from mkdtemp under TMPDIR (else /tmp), 0700, removed with its
// contents on destruction. Lend() makes it the child's for a run, Reclaim()
// zcav's again.
class PrivateDir {
 public:
  explicit PrivateDir(const Identity& who) : who_(who) {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) base = "/tmp";
    std::string pattern = (base / "zcav-gnuplot-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw Error("cannot create a temporary directory " + pattern + ": " + SystemMessage(errno),
                  ErrorKind::kRuntime);
    }
    path_ = pattern;
  }
  PrivateDir(const PrivateDir&) = delete;
  PrivateDir& operator=(const PrivateDir&) = delete;
  ~PrivateDir() {
    // remove_all does not follow symlinks: whatever the child left, only
    // the directory's own entries go.
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

  void Lend() const {
    if (who_.drop && ::chown(path_.c_str(), who_.uid, who_.gid) != 0) {
      throw Error("cannot give " + path_ + " to uid " + std::to_string(who_.uid) + ": " +
                      SystemMessage(errno),
                  ErrorKind::kRuntime);
    }
  }
  void Reclaim() const {
    if (!who_.drop) return;
    if (::chown(path_.c_str(), ::geteuid(), ::getegid()) != 0 ||
        ::chmod(path_.c_str(), 0700) != 0) {
      throw Error("cannot take back " + path_ + ": " + SystemMessage(errno), ErrorKind::kRuntime);
    }
  }

 private:
  Identity who_;
  std::string path_;
};

// Reads the regular file `dir`/`name` whole (at most `max` bytes), never
// through a symlink; nullopt when missing or not a regular file.
std::optional<std::string> ReadRegular(const std::string& dir, const std::string& name,
                                       std::size_t max) {
  const std::string path = dir + "/" + name;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::uint64_t>(st.st_size) > max) {
    ::close(fd);
    return std::nullopt;
  }
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    if (text.size() > max) break;
  }
  ::close(fd);
  return text;
}

// Copies dir/name into `to` (a fresh file, 0644).
void CopyIn(const std::string& dir, const std::string& name, const std::string& to) {
  const std::optional<std::string> text = ReadRegular(dir, name, kMaxImageBytes);
  if (!text) {
    throw Error("preparing to render: " + dir + "/" + name + " is missing or not a regular file",
                ErrorKind::kRuntime);
  }
  const std::string path = to + "/" + name;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  bool ok = fd >= 0;
  for (std::size_t done = 0; ok && done < text->size();) {
    const ssize_t n = ::write(fd, text->data() + done, text->size() - done);
    if (n < 0 && errno == EINTR) continue;
    ok = n > 0;
    if (ok) done += static_cast<std::size_t>(n);
  }
  const int error_number = errno;
  if (fd >= 0 && ::close(fd) != 0) ok = false;
  if (!ok) {
    throw Error("preparing to render: copying " + name + ": " + SystemMessage(error_number),
                ErrorKind::kRuntime);
  }
}

void CheckName(const std::string& name) {
  if (!IsSafeFileName(name)) {
    throw Error("gnuplot: '" + GpComment(name) + "' is not a file name zcav makes",
                ErrorKind::kBadInput);
  }
}

// What the child is to run: prepared before fork (the child only makes
// async-signal-safe calls).
struct Launch {
  std::string executable;
  std::vector<std::string> args;  // after argv[0]
  std::vector<std::string> env;
  std::string cwd;
  Identity who;
  int stdin_fd = -1;   // -1: /dev/null
  int output_fd = -1;  // stdout and stderr; -1: /dev/null
};

[[noreturn]] void ChildExit() { ::_exit(127); }

// In the child, after fork: only async-signal-safe calls.
[[noreturn]] void RunChild(const Launch& l, char* const* argv, char* const* envp, pid_t parent) {
  ::setpgid(0, 0);
  const int null_fd = ::open("/dev/null", O_RDWR);
  if (null_fd < 0) ChildExit();
  if (::dup2(l.stdin_fd >= 0 ? l.stdin_fd : null_fd, 0) < 0) ChildExit();
  if (::dup2(l.output_fd >= 0 ? l.output_fd : null_fd, 1) < 0) ChildExit();
  if (::dup2(l.output_fd >= 0 ? l.output_fd : null_fd, 2) < 0) ChildExit();
  ::close_range(3, ~0U, 0);
  if (::chdir(l.cwd.c_str()) != 0) ChildExit();
  if (l.who.drop) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(l.who.gid) != 0 || ::setuid(l.who.uid) != 0) {
      ChildExit();
    }
    if (::getuid() == 0 || ::geteuid() == 0) ChildExit();
  }
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ChildExit();
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (const int s : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::sigaction(s, &dfl, nullptr);
  ::execve(l.executable.c_str(), argv, envp);
  ChildExit();
}

// Starts the child; returns its pid. Throws Error(kRuntime) if fork fails.
pid_t Spawn(const Launch& l) {
  std::vector<std::string> argv_text = {"gnuplot"};
  argv_text.insert(argv_text.end(), l.args.begin(), l.args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_text = l.env;
  std::vector<char*> envp;
  for (std::string& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw Error("cannot start gnuplot: " + SystemMessage(errno), ErrorKind::kRuntime);
  if (pid == 0) RunChild(l, argv.data(), envp.data(), parent);
  ::setpgid(pid, pid);  // also here: no window where the group does not exist yet
  return pid;
}

// Ends the child's whole process group and reaps the child.
void KillGroup(pid_t pid) {
  ::kill(-pid, SIGKILL);
  ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

// Blocks SIGINT, SIGTERM and SIGHUP in this thread while a render runs, so
// that zcav sees them between polls instead of dying with gnuplot running.
class BlockedStops {
 public:
  BlockedStops() {
    sigemptyset(&set_);
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set_, s);
    ::pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  BlockedStops(const BlockedStops&) = delete;
  BlockedStops& operator=(const BlockedStops&) = delete;
  ~BlockedStops() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  // A stop signal that arrived (and is consumed), 0 when none.
  int Take() {
    const struct timespec zero {};
    const int s = ::sigtimedwait(&set_, nullptr, &zero);
    return s > 0 ? s : 0;
  }
  // Gives `signo` back to a handler zcav has for it (the sweep's stop flag):
  // raised now, delivered when the mask is restored. A default or ignored
  // disposition is not raised again: the render throws instead, so the
  // stack unwinds and removes its temporary files.
  void Redeliver(int signo) {
    struct sigaction sa {};
    if (::sigaction(signo, nullptr, &sa) != 0) return;
    if (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN) ::raise(signo);
  }

 private:
  sigset_t set_{};
  sigset_t old_{};
};

struct RunOutcome {
  int status = -1;     // exit status; -1 killed or failed
  int stopped_by = 0;  // zcav's signal that stopped it
  std::string output;  // its last kMaxCapturedBytes of stdout + stderr
};

// Runs the child to its end, keeping its output's tail; a stop signal
// kills its group.
RunOutcome RunToEnd(Launch l) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    throw Error("cannot start gnuplot: " + SystemMessage(errno), ErrorKind::kRuntime);
  }
  BlockedStops stops;
  l.output_fd = fds[1];
  pid_t pid = -1;
  try {
    pid = Spawn(l);
  } catch (...) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw;
  }
  ::close(fds[1]);
  int out = fds[0];
  RunOutcome r;
  int status = 0;
  for (;;) {
    if (const int s = stops.Take()) {
      KillGroup(pid);
      CloseFd(out);
      r.stopped_by = s;
      stops.Redeliver(s);
      return r;
    }
    if (out >= 0) {
      struct pollfd p {};
      p.fd = out;
      p.events = POLLIN;
      if (::poll(&p, 1, 50) > 0) {
        char buf[4096];
        const ssize_t n = ::read(out, buf, sizeof buf);
        if (n > 0) {
          r.output.append(buf, static_cast<std::size_t>(n));
          if (r.output.size() > 2 * kMaxCapturedBytes) r.output.erase(0, kMaxCapturedBytes);
        } else if (n == 0 || errno != EINTR) {
          CloseFd(out);
        }
      }
      continue;
    }
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);  // anything gnuplot left running
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

const char* SignalName(int signo) {
  switch (signo) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
  }
  return "a signal";
}

std::string LastLine(std::string output) {
  while (!output.empty() && (output.back() == '\n' || output.back() == ' ')) output.pop_back();
  const std::size_t last = output.rfind('\n');
  return GpComment(last == std::string::npos ? output : output.substr(last + 1));
}

class SystemSession final : public GnuplotSession {
 public:
  SystemSession(const Identity& who, bool window, bool persist, const std::string& executable)
      : dir_(who), window_(window) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      throw Error("cannot start gnuplot: " + SystemMessage(errno), ErrorKind::kRuntime);
    }
    dir_.Lend();
    Launch l;
    l.executable = executable;
    l.args = {"-d"};
    if (persist) l.args.push_back("-persist");
    l.env = ChildEnvironment(window);
    l.cwd = dir_.path();
    l.who = who;
    l.stdin_fd = fds[0];
    try {
      pid_ = Spawn(l);
    } catch (...) {
      ::close(fds[0]);
      ::close(fds[1]);
      throw;
    }
    ::close(fds[0]);
    // The commands and data go through gnuplot-iostream's stream on the
    // pipe (it owns the FILE and closes it).
    FILE* file = ::fdopen(fds[1], "w");
    if (file == nullptr) {
      ::close(fds[1]);
      KillGroup(pid_);
      throw Error("cannot start gnuplot: " + SystemMessage(errno), ErrorKind::kRuntime);
    }
    feed_ = std::make_unique<::Gnuplot>(file);
  }
  SystemSession(const SystemSession&) = delete;
  SystemSession& operator=(const SystemSession&) = delete;
  ~SystemSession() override {
    Close();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    int status = 0;
    pid_t done = 0;
    while ((done = ::waitpid(pid_, &status, WNOHANG)) == 0 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (done == 0) {
      KillGroup(pid_);
    } else if (!window_) {
      ::kill(-pid_, SIGKILL);  // a window's helper (gnuplot_x11 -persist) stays
    }
  }

  bool Send(std::string_view commands, const std::vector<GnuplotRows>& data) override {
    if (!feed_) return false;
    const PipeSignalsBlocked blocked;
    bool ok = true;
    try {
      *feed_ << commands;
      for (const GnuplotRows& rows : data) feed_->send1d(rows);
      feed_->flush();
      ok = feed_->good();
    } catch (const std::exception&) {
      ok = false;
    }
    if (!ok) Close();
    return ok;
  }

  std::optional<std::string> ReadFile(const std::string& name) override {
    if (!IsSafeFileName(name)) return std::nullopt;
    return ReadRegular(dir_.path(), name, kMaxSessionFileBytes);
  }

  void RemoveFile(const std::string& name) override {
    if (IsSafeFileName(name)) ::unlink((dir_.path() + "/" + name).c_str());
  }

 private:
  // SIGPIPE blocked while this lives: a gone gnuplot is EPIPE, not a
  // signal; one raised meanwhile is taken before it is unblocked.
  class PipeSignalsBlocked {
   public:
    PipeSignalsBlocked() {
      sigemptyset(&pipe_);
      sigaddset(&pipe_, SIGPIPE);
      ::pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    }
    PipeSignalsBlocked(const PipeSignalsBlocked&) = delete;
    PipeSignalsBlocked& operator=(const PipeSignalsBlocked&) = delete;
    ~PipeSignalsBlocked() {
      const struct timespec zero {};
      while (::sigtimedwait(&pipe_, nullptr, &zero) > 0) {
      }
      ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }

   private:
    sigset_t pipe_{};
    sigset_t old_{};
  };

  // gnuplot's input closed (gnuplot-iostream flushes what it holds).
  void Close() {
    if (!feed_) return;
    const PipeSignalsBlocked blocked;
    feed_.reset();
  }

  PrivateDir dir_;
  bool window_;
  pid_t pid_ = -1;
  std::unique_ptr<::Gnuplot> feed_;  // gnuplot's input
};

class SystemGnuplotImpl final : public Gnuplot {
 public:
  std::string Terminals() override {
    if (!terminals_) terminals_ = AskTerminals();
    return *terminals_;
  }

  std::vector<std::string> Render(const std::string& dir, const std::string& script,
                                  const std::vector<std::string>& inputs,
                                  const std::vector<std::string>& outputs) override {
    CheckName(script);
    for (const std::string& n : inputs) CheckName(n);
    for (const std::string& n : outputs) CheckName(n);
    const std::string executable = FindGnuplot();
    if (executable.empty()) {
      throw Error("gnuplot is not installed (looked in " + std::string(kPath) + ")",
                  ErrorKind::kRuntime);
    }
    const Identity who = ChildIdentity();
    const PrivateDir work(who);
    CopyIn(dir, script, work.path());
    for (const std::string& n : inputs) CopyIn(dir, n, work.path());
    work.Lend();
    Launch l;
    l.executable = executable;
    l.args = {"-d", script};
    l.env = ChildEnvironment(false);
    l.cwd = work.path();
    l.who = who;
    const RunOutcome r = RunToEnd(std::move(l));
    work.Reclaim();
    const std::string shown = dir + "/" + script;
    if (r.stopped_by != 0) {
      throw Error(std::string("interrupted by ") + SignalName(r.stopped_by) +
                      ": gnuplot stopped while drawing " + shown,
                  ErrorKind::kInterrupted);
    }
    if (r.status != 0) {
      const std::string tail = LastLine(r.output);
      throw Error("gnuplot " + shown + " failed" + (tail.empty() ? "" : ": " + tail),
                  ErrorKind::kRuntime);
    }
    std::vector<std::string> images;
    for (const std::string& n : outputs) {
      std::optional<std::string> image = ReadRegular(work.path(), n, kMaxImageBytes);
      if (!image) {
        throw Error("gnuplot " + shown + " drew no " + dir + "/" + n, ErrorKind::kRuntime);
      }
      images.push_back(std::move(*image));
    }
    return images;
  }

  std::unique_ptr<GnuplotSession> Start(bool window, bool persist) override {
    const std::string executable = FindGnuplot();
    if (executable.empty()) return nullptr;
    try {
      return std::make_unique<SystemSession>(ChildIdentity(), window, persist, executable);
    } catch (const Error&) {
      return nullptr;
    }
  }

 private:
  static std::string AskTerminals() {
    const std::string executable = FindGnuplot();
    if (executable.empty()) return "";
    RunOutcome r;
    try {
      const Identity who = ChildIdentity();
      const PrivateDir work(who);
      work.Lend();
      Launch l;
      l.executable = executable;
      l.args = {"-d", "-e", "print GPVAL_TERMINALS"};
      l.env = ChildEnvironment(false);
      l.cwd = work.path();
      l.who = who;
      r = RunToEnd(std::move(l));
      work.Reclaim();
    } catch (const Error&) {
      return "";  // a gnuplot that cannot be started draws nothing
    }
    // A stop while asking is a stop, not a gnuplot without terminals.
    if (r.stopped_by != 0) {
      throw Error(std::string("interrupted by ") + SignalName(r.stopped_by) +
                      " while asking gnuplot for its terminals",
                  ErrorKind::kInterrupted);
    }
    if (r.status != 0) return "";
    std::string list = " " + r.output + " ";
    for (char& c : list) {
      if (c == '\n' || c == '\t') c = ' ';
    }
    return list;
  }

  std::optional<std::string> terminals_;
};

Gnuplot* g_current = nullptr;

}  // namespace

std::string GpQuote(std::string_view text) {
  std::string out = "'";
  for (const char c : WithoutControls(text)) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string GpComment(std::string_view text) {
  std::string out = WithoutControls(text);
  while (!out.empty() && out.back() == '\\') out.pop_back();
  return out;
}

bool IsSafeFileName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name.front() == '-') return false;
  if (name.find_first_not_of('.') == std::string_view::npos) return false;
  for (const char c : name) {
    if (!InAlphabet(c)) return false;
  }
  return true;
}

std::string SafeFileName(std::string_view text) {
  std::string out(text.substr(0, std::min<std::size_t>(text.size(), 200)));
  for (char& c : out) {
    if (!InAlphabet(c)) c = '_';
  }
  if (!out.empty() && out.front() == '-') out.front() = '_';
  if (out.find_first_not_of('.') == std::string::npos) out = "_";
  return out;
}

bool CanDrawImages(Gnuplot& gnuplot) {
  const std::string t = gnuplot.Terminals();
  return t.find(" pngcairo ") != std::string::npos && t.find(" svg ") != std::string::npos;
}

Gnuplot& SystemGnuplot() {
  static SystemGnuplotImpl gnuplot;
  return gnuplot;
}

Gnuplot& CurrentGnuplot() { return g_current != nullptr ? *g_current : SystemGnuplot(); }

ScopedGnuplot::ScopedGnuplot(Gnuplot& fake) : previous_(g_current) { g_current = &fake; }

ScopedGnuplot::~ScopedGnuplot() { g_current = previous_; }

}  // namespace zcav
