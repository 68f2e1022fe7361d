#include "zcav/sample.h"

#include <string>

namespace zcav {

std::string SweepResult::StatusText() const {
  switch (status) {
    case SweepStatus::kComplete:
      return "complete";
    case SweepStatus::kInterrupted:
      return "partial: interrupted";
    case SweepStatus::kReadError:
      return "partial: read error at offset " + std::to_string(error_offset_bytes) +
             " bytes: " + error.message();
  }
  return "unknown";
}

}  // namespace zcav
