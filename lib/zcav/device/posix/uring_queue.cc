#include "zcav/device/posix/uring_queue.h"

#include <liburing.h>
#include <sys/uio.h>

#include <cerrno>
#include <vector>

#include "zcav/base/aligned_buffer.h"
#include "zcav/base/error.h"
#include "zcav/base/units.h"

namespace zcav {
namespace {

std::string ErrnoText(int err) { return std::generic_category().message(err); }

class UringQueue final : public ReadQueue {
 public:
  UringQueue(int fd, std::uint32_t depth, std::uint64_t chunk_bytes, std::size_t alignment,
             bool async, bool write)
      : fd_(fd),
        depth_(depth),
        chunk_bytes_(chunk_bytes),
        buffers_(static_cast<std::size_t>(depth) * RoundUp(chunk_bytes, alignment), alignment),
        stride_(RoundUp(chunk_bytes, alignment)),
        slots_(depth) {
    failed_.reserve(depth);  // no allocation on the read path
    async_ = async;
    write_ = write;
    // Twice the depth: a resubmitted short read never finds the ring full.
    if (const int rc = io_uring_queue_init(2 * depth, &ring_, 0); rc < 0) {
      throw Error("io_uring_queue_init: " + ErrnoText(-rc), ErrorKind::kRuntime);
    }
    std::vector<iovec> iov(depth);
    for (std::uint32_t i = 0; i < depth; ++i) {
      iov[i].iov_base = buffers_.span(buffers_.size()).data() + i * stride_;
      iov[i].iov_len = stride_;
    }
    // Fixed buffers spare the kernel pinning and unpinning each buffer per
    // read; RLIMIT_MEMLOCK may refuse them (ENOMEM), then plain reads.
    fixed_ = io_uring_register_buffers(&ring_, iov.data(), depth) == 0;
  }
  ~UringQueue() override { io_uring_queue_exit(&ring_); }

  std::uint32_t depth() const override { return depth_; }
  const char* engine() const override { return "io_uring"; }
  std::span<std::byte> Buffer(std::uint32_t slot) override {
    return {buffers_.span(buffers_.size()).data() + slot * stride_, chunk_bytes_};
  }

  void Submit(std::uint32_t slot, std::uint64_t offset_bytes,
              std::uint64_t length_bytes) noexcept override {
    Slot& s = slots_[slot];
    s.offset_bytes = offset_bytes;
    s.length_bytes = length_bytes;
    s.done_bytes = 0;
    s.error = {};
    Queue(slot);
  }

  std::size_t Wait(std::span<Completion> out) noexcept override {
    std::size_t n = 0;
    while (n == 0) {
      while (!failed_.empty() && n < out.size()) {  // submissions that never reached the kernel
        const std::uint32_t slot = failed_.back();
        failed_.pop_back();
        slots_[slot].in_flight = false;
        out[n++] = {slot, slots_[slot].error};
      }
      if (n > 0) return n;
      io_uring_cqe* cqe = nullptr;
      const int rc =
          pending_ > 0 ? io_uring_submit_and_wait(&ring_, 1) : io_uring_wait_cqe(&ring_, &cqe);
      if (rc == -EINTR) continue;
      if (rc < 0) {
        // The ring itself failed: the reads in flight fail with it, one per
        // call.
        out[0] = FailRing(-rc);
        return 1;
      }
      if (pending_ > 0) pending_ = 0;
      // Everything finished by now, without waiting again.
      while (n < out.size() && io_uring_peek_cqe(&ring_, &cqe) == 0 && cqe != nullptr) {
        const auto slot = static_cast<std::uint32_t>(io_uring_cqe_get_data64(cqe));
        const int res = cqe->res;
        io_uring_cqe_seen(&ring_, cqe);
        if (Finished(slot, res)) out[n++] = {slot, slots_[slot].error};
      }
    }
    return n;
  }

 private:
  struct Slot {
    std::uint64_t offset_bytes = 0;
    std::uint64_t length_bytes = 0;
    std::uint64_t done_bytes = 0;
    std::error_code error;
    bool in_flight = false;
  };

  // A completion `res` for `slot`: true when the read is over (error set
  // on failure), false when what is left of it was queued again.
  bool Finished(std::uint32_t slot, int res) {
    Slot& s = slots_[slot];
    if (res == -EINTR || res == -EAGAIN) {
      Queue(slot);
      return false;
    }
    if (res > 0) {
      s.done_bytes += static_cast<std::uint64_t>(res);
      if (s.done_bytes < s.length_bytes) {  // short read: the rest
        Queue(slot);
        return false;
      }
    }
    s.in_flight = false;
    if (res < 0) s.error = {-res, std::system_category()};
    if (res == 0) s.error = {ENXIO, std::system_category()};  // the data ended
    return true;
  }

  void Queue(std::uint32_t slot) {
    Slot& s = slots_[slot];
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    if (sqe == nullptr) {  // full: push what is queued, then try again
      io_uring_submit(&ring_);
      pending_ = 0;
      sqe = io_uring_get_sqe(&ring_);
    }
    if (sqe == nullptr) {
      s.error = {EBUSY, std::system_category()};
      failed_.push_back(slot);
      return;
    }
    std::byte* at = Buffer(slot).data() + s.done_bytes;
    const unsigned n = static_cast<unsigned>(s.length_bytes - s.done_bytes);
    const std::uint64_t offset = s.offset_bytes + s.done_bytes;
    if (write_ && fixed_) {
      io_uring_prep_write_fixed(sqe, fd_, at, n, offset, static_cast<int>(slot));
    } else if (write_) {
      io_uring_prep_write(sqe, fd_, at, n, offset);
    } else if (fixed_) {
      io_uring_prep_read_fixed(sqe, fd_, at, n, offset, static_cast<int>(slot));
    } else {
      io_uring_prep_read(sqe, fd_, at, n, offset);
    }
    io_uring_sqe_set_data64(sqe, slot);
    if (async_) io_uring_sqe_set_flags(sqe, IOSQE_ASYNC);
    s.in_flight = true;
    ++pending_;
  }

  Completion FailRing(int err) {
    // Reap nothing more: report the lowest slot still thought in flight.
    for (std::uint32_t i = 0; i < depth_; ++i) {
      if (slots_[i].in_flight) {
        slots_[i].in_flight = false;
        return {i, {err, std::system_category()}};
      }
    }
    return {0, {err, std::system_category()}};
  }

  int fd_;
  std::uint32_t depth_;
  std::uint64_t chunk_bytes_;
  AlignedBuffer buffers_;
  std::uint64_t stride_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> failed_;
  io_uring ring_{};
  bool fixed_ = false;
  bool async_ = false;    // IOSQE_ASYNC on every read
  bool write_ = false;    // the slots' buffers are written, not read into
  unsigned pending_ = 0;  // queued, not yet submitted
};

}  // namespace

std::string ProbeUring() {
  io_uring ring{};
  const int rc = io_uring_queue_init(2, &ring, 0);
  if (rc < 0) return "io_uring_queue_init: " + ErrnoText(-rc);
  io_uring_queue_exit(&ring);
  return "";
}

std::unique_ptr<ReadQueue> OpenUringQueue(int fd, std::uint32_t depth, std::uint64_t chunk_bytes,
                                          std::size_t alignment, bool async, bool write) {
  return std::make_unique<UringQueue>(fd, depth, chunk_bytes, alignment, async, write);
}

}  // namespace zcav
