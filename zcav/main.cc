// zcav: the command-line entry point. The only place that catches and exits.
#include <signal.h>

#include <atomic>
#include <iostream>
#include <new>

#include "app.h"
#include "cli.h"
#include "zcav/base/error.h"
#include "zcav/version.h"

namespace {

std::atomic<bool> g_stop_requested{false};

extern "C" void OnSignal(int signo) {
  g_stop_requested.store(true);
  // A second Ctrl-C ends the process at once.
  signal(signo, SIG_DFL);
}

void InstallSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked read returns EINTR and is retried after the check
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  try {
    const zcav::CliOptions options = zcav::ParseCommandLine(argc, argv);
    switch (options.command) {
      case zcav::CliOptions::Command::kHelp:
        std::cout << options.help_text;
        return 0;
      case zcav::CliOptions::Command::kVersion:
        std::cout << "zcav " << ZCAV_VERSION << "\n";
        return 0;
      case zcav::CliOptions::Command::kSweep:
        InstallSignalHandlers();
        return zcav::RunSweepCommand(options, std::cout, std::cerr, g_stop_requested);
      case zcav::CliOptions::Command::kAccess:
        InstallSignalHandlers();
        return zcav::RunAccessCommand(options, std::cout, std::cerr, g_stop_requested);
      case zcav::CliOptions::Command::kBurst:
        InstallSignalHandlers();
        return zcav::RunBurstCommand(options, std::cout, std::cerr, g_stop_requested);
      case zcav::CliOptions::Command::kProfile:
        InstallSignalHandlers();
        return zcav::RunProfileCommand(options, std::cout, std::cerr, g_stop_requested);
      case zcav::CliOptions::Command::kZones:
        return zcav::RunZonesCommand(options, std::cout);
      case zcav::CliOptions::Command::kPlot:
        return zcav::RunPlotCommand(options, std::cerr);
      case zcav::CliOptions::Command::kReport:
        return zcav::RunReportCommand(options, std::cerr);
    }
  } catch (const zcav::Error& e) {
    std::cout.flush();
    std::cerr << "zcav: " << e.what() << "\n";
    return e.kind() == zcav::ErrorKind::kBadInput ? 2 : 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "zcav: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "zcav: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
