// The signatures on a block device (file systems, swap, RAID and LVM
// members, crypto containers, partition tables), read with libblkid's
// low-level probing: what wipefs(8) lists, and what a write test destroys.
#pragma once

#include <string>
#include <vector>

#include "zcav/device/write_target.h"

namespace zcav {

// Probes the device open read-only (not O_DIRECT: libblkid reads at any
// offset and length) on `fd` for every superblock signature (also those with
// a bad checksum, as wipefs lists them) and its partition table, in the
// order found, at most 32. Strings from the device are untrusted: control
// characters removed, each capped at kMaxIdentityBytes (CleanText). Returns
// the signatures; on failure an empty list and `note` saying why ("libblkid
// could not probe it"), else `note` is left empty. Never throws; `fd` stays
// open and owned by the caller.
std::vector<DeviceSignature> ProbeSignatures(int fd, std::string& note);

}  // namespace zcav
