// The commands of the table in cli.cc, one file each in this folder. Each
// parses its own options (its options struct and help text sit beside its
// code), then runs; see CommandRow (cli.h) for the contract they share.
#pragma once

#include "../cli.h"

namespace zcav {

int ProfileCommand(const Invocation& inv);  // profile.cc
int SweepCommand(const Invocation& inv);    // sweep.cc (several devices: several.cc)
int AccessCommand(const Invocation& inv);   // probe.cc
int BurstCommand(const Invocation& inv);    // probe.cc
int ZonesCommand(const Invocation& inv);    // zones.cc
int PlotCommand(const Invocation& inv);     // plot.cc
int ReportCommand(const Invocation& inv);   // report.cc
int MergeCommand(const Invocation& inv);    // merge.cc
int VerifyCommand(const Invocation& inv);   // verify.cc

}  // namespace zcav
