#include "zcav/device/posix/signature_probe.h"

#include <blkid/blkid.h>

#include <cstring>
#include <memory>
#include <string>

#include "zcav/base/text.h"

namespace zcav {
namespace {

constexpr std::size_t kMaxSignatures = 32;

struct ProbeFree {
  void operator()(blkid_struct_probe* p) const { blkid_free_probe(p); }
};

// The value of `name` in the probe's current result, cleaned; "" when absent.
std::string Value(blkid_probe pr, const char* name) {
  const char* data = nullptr;
  std::size_t len = 0;
  if (blkid_probe_lookup_value(pr, name, &data, &len) != 0 || data == nullptr) return "";
  // len counts the terminating NUL; a value is never trusted to have one.
  const std::size_t n = ::strnlen(data, len);
  return CleanText(std::string_view(data, n), kMaxIdentityBytes);
}

}  // namespace

std::vector<DeviceSignature> ProbeSignatures(int fd, std::string& note) {
  std::vector<DeviceSignature> found;
  note.clear();
  std::unique_ptr<blkid_struct_probe, ProbeFree> probe(blkid_new_probe());
  if (!probe || blkid_probe_set_device(probe.get(), fd, 0, 0) != 0) {
    note = "libblkid could not probe it";
    return found;
  }
  blkid_probe pr = probe.get();
  blkid_probe_enable_superblocks(pr, 1);
  blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE |
                                            BLKID_SUBLKS_LABEL | BLKID_SUBLKS_UUID |
                                            BLKID_SUBLKS_BADCSUM);
  blkid_probe_enable_partitions(pr, 1);
  blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);
  // blkid_do_probe returns each signature in turn (0), then 1 when there
  // are no more, -1 on an error: as wipefs lists them.
  int rc = 0;
  while (found.size() < kMaxSignatures && (rc = blkid_do_probe(pr)) == 0) {
    DeviceSignature s;
    const std::string pttype = Value(pr, "PTTYPE");
    if (!pttype.empty()) {
      s.usage = "partition table";
      s.type = pttype;
      s.uuid = Value(pr, "PTUUID");
    } else {
      s.type = Value(pr, "TYPE");
      if (s.type.empty()) continue;
      s.usage = Value(pr, "USAGE");
      s.label = Value(pr, "LABEL");
      s.uuid = Value(pr, "UUID");
    }
    found.push_back(std::move(s));
  }
  if (rc < 0 && found.empty()) note = "libblkid could not read it";
  return found;
}

}  // namespace zcav
