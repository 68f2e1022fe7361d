// zcav: the command-line entry point. The only place that catches and exits.
#include <signal.h>

#include <atomic>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "cli.h"
#include "zcav/base/error.h"
#include "zcav/base/text.h"
#include "zcav/version.h"

namespace {

std::atomic<bool> g_stop_requested{false};

extern "C" void OnSignal(int signo) {
  g_stop_requested.store(true);
  // A second Ctrl-C ends the process at once. Not a second SIGHUP: a
  // dropped session sends it twice (the kernel, then the shell).
  if (signo != SIGHUP) signal(signo, SIG_DFL);
}

void InstallSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked read returns EINTR and is retried after the check
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);  // a dropped SSH session: keep the .partial
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  // A closed pipe (--events - | head) is a failed write, not the end of the
  // run: the writers say so and the measurement goes on.
  signal(SIGPIPE, SIG_IGN);
  try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    const zcav::CommandChoice choice = zcav::ChooseCommand(args);
    switch (choice.kind) {
      case zcav::CommandChoice::Kind::kHelp:
        std::cout << zcav::TopHelp();
        return 0;
      case zcav::CommandChoice::Kind::kVersion:
        std::cout << "zcav " << ZCAV_VERSION << "\n";
        return 0;
      case zcav::CommandChoice::Kind::kCommand:
        break;
    }
    std::string command_line;
    for (int i = 0; i < argc; ++i) command_line += (i ? " " : "") + std::string(argv[i]);
    if (choice.row->reads_devices) InstallSignalHandlers();
    return choice.row->run(
        zcav::Invocation{choice.args, command_line, std::cout, std::cerr, g_stop_requested});
  } catch (const zcav::Error& e) {
    std::cout.flush();
    // Messages may quote input (a file's text, a name found in a directory):
    // no control character of it reaches the terminal.
    std::cerr << "zcav: " << zcav::TerminalText(e.what()) << "\n";
    switch (e.kind()) {
      case zcav::ErrorKind::kBadInput:
        return 2;
      case zcav::ErrorKind::kInterrupted:
        return 130;
      case zcav::ErrorKind::kRuntime:
        break;
    }
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "zcav: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "zcav: " << zcav::TerminalText(e.what()) << "\n";
    return 1;
  }
}
