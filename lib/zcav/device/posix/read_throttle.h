// Whether a cgroup read throttle applies to this process on a block device:
// blkio.throttle.read_bps_device / read_iops_device (cgroup v1) or io.max
// rbps / riops (cgroup v2), in the process's own cgroup or an ancestor.
//
// Why zcav cares: under blk-throttle, io_uring's first, non-blocking attempt
// at a read that must wait is charged to the throttle and then charged again
// when the read is retried from a worker thread, so io_uring reads get half
// the limit (measured: fio's io_uring engine and zcav alike read 20 MB/s
// under a 40 MB/s limit; psync and libaio read 40). zcav queues its reads
// with IOSQE_ASYNC there (straight to the worker: charged once).
#pragma once

#include <string>

namespace zcav {

// Returns the cgroup file and line naming device major:minor with a
// non-zero read limit ("/sys/fs/cgroup/blkio/x/blkio.throttle.read_bps_device:
// 7:0 40000000"), or "" when none applies or nothing can be read.
// `proc_self_cgroup` and `cgroup_root` are for tests (normally
// "/proc/self/cgroup" and "/sys/fs/cgroup"). Never throws.
std::string FindReadThrottle(unsigned major, unsigned minor,
                             const std::string& proc_self_cgroup = "/proc/self/cgroup",
                             const std::string& cgroup_root = "/sys/fs/cgroup");

}  // namespace zcav
