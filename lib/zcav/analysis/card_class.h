// The write rate an SD card's grades promise (issue 39, gates for
// recorders): speed class 2/4/6/10 (that many MB/s), UHS U1 (10 MB/s) and
// U3 (30), video V6 to V90 (that many), each a minimum sequential write rate
// held while recording. The highest grade the card shows is its promise; the
// measured sustained rate (sustained.h) is held against it. Pure functions.
#pragma once

#include <optional>
#include <string>

#include "zcav/device/device_info.h"  // LinkState

namespace zcav {

struct CardPromise {
  std::string grade;    // "V30", "U3", "class 10"
  double mb_per_s = 0;  // the minimum write rate it promises, MB/s (10^6 B/s)
};

// The highest promise of `link`'s speed_class and card_grades (of equal
// ones the later: class, then U, then V) (as
// sysfs_link.cc writes them: "class 10"; "U3, V30, A2"); none for a device
// that is not a graded card. Unknown or garbled grades are ignored.
std::optional<CardPromise> CardPromiseOf(const LinkState& link);

// One sentence comparing a measured sustained write rate with the promise:
// "sustained write 12.3 MB/s is below the 30 MB/s the card's V30 promises"
// or "... meets the 30 MB/s ..." (MB = 10^6 B).
std::string CardPromiseSentence(const CardPromise& promise, double sustained_mb_per_s);

}  // namespace zcav
